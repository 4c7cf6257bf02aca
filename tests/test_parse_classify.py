"""Parsing and classification on real Inductor output captured on the H200 by this project's
own capture stage (torch 2.11, triton 3.6, max-autotune; tests/fixtures/h200.tar.gz, copied
from the stages run of bench/README.md).

Unit classes (kernelopt/search/synth/classes.py) on the references Inductor's post-grad graph
gives the headroom suite's problems (captured on CPU, kept as the op lines here): the vocabulary
the LLM prompt and the report's "winner" column use."""

import json

import pytest
from conftest import unpacked

from kernelopt.classify import stage as classify
from kernelopt.core import outputcode
from kernelopt.core.records import Capture, CaptureProfile
from kernelopt.search.synth.classes import candidate_what, unit_class

FIX = unpacked("h200.tar.gz") / "h200"
PROBLEMS = sorted(p.name for p in FIX.iterdir())


def load(problem):
    d = FIX / problem
    return (
        (d / "capture/output_code.py").read_text(),
        Capture.load(d / "capture/capture.json"),
        CaptureProfile.load(d / "capture/profile.json"),
        json.loads((d / "dispatch.json").read_text()),
    )


def test_fixtures_come_from_the_h200():
    base = json.loads((FIX / "level1_1_Softmax/capture/baseline.json").read_text())
    assert base["environment"]["gpu"].startswith("NVIDIA H200")
    assert base["environment"]["torch"].startswith("2.11")


@pytest.mark.parametrize("problem", PROBLEMS)
def test_parse_finds_every_kernel_and_launch(problem):
    src, cap, _, _ = load(problem)
    oc = outputcode.parse(src)
    assert oc.aot_id and "inference" in oc.aot_id
    # every Triton kernel defined is launched, and every launch the standalone run saw is a parsed site
    launched = {s.target for s in oc.sites if s.kind == "triton"}
    assert launched == set(oc.kernels)
    seen = {l["lineno"] for l in cap.graphs[0]["standalone"]["launches"]}
    assert seen <= {s.lineno for s in oc.sites if s.kind == "triton"}
    assert oc.call_args == cap.graphs[0]["graph_inputs"]


def test_templates_are_told_from_pointwise_and_reductions():
    src, *_ = load("level3_2_TransformerBlock")
    oc = outputcode.parse(src)
    heur = {k: v.heuristic for k, v in oc.kernels.items()}
    templates = {k for k, h in heur.items() if h == "template"}
    assert templates and all(k.startswith("triton_tem_") for k in templates)
    assert {h for k, h in heur.items() if k not in templates} <= {"pointwise", "reduction", "persistent_reduction"}
    assert any(h == "pointwise" for h in heur.values()) and any("reduction" in h for h in heur.values())


def test_library_calls_are_cublas_and_cudnn():
    src, *_ = load("level3_3_SmallCNN")
    kinds = {(s.kind, s.target.split(".")[-1]) for s in outputcode.parse(src).sites if s.kind != "triton"}
    assert ("conv", "convolution") in kinds
    assert outputcode.dispatch_kind("conv", "cuda") == "cudnn"
    assert outputcode.dispatch_kind("gemm", "cuda") == "cublas"
    assert outputcode.dispatch_kind("gemm", "cpu") == "blas"


@pytest.mark.parametrize("problem", PROBLEMS)
def test_classify_reproduces_the_h200_dispatch(problem):
    _, cap, prof, expected = load(problem)
    got = classify.classify(cap, prof, expected["min_triton_share"])
    assert got["verdict"] == expected["verdict"]
    assert [l["kind"] for l in got["launches"]] == [l["kind"] for l in expected["launches"]]
    assert [u["id"] for u in got["units"]] == [u["id"] for u in expected["units"]]
    assert got["triton_share"] == pytest.approx(expected["triton_share"])
    shares = [l["share"] for l in got["launches"]]
    assert sum(shares) == pytest.approx(1.0)


def test_verdicts_on_the_h200():
    assert load("level1_5_Matmul")[3]["verdict"] == "no-triton"  # a plain matmul is cuBLAS only
    lin = load("level2_1_Linear_Bias_ReLU_Scale")[3]
    assert lin["verdict"] == "library-dominated" and lin["triton_share"] < 0.10
    assert load("level1_1_Softmax")[3]["verdict"] == "optimizable"


def test_cudagraph_input_copies_count_as_other():
    disp = load("level1_1_Softmax")[3]
    other = [l for l in disp["launches"] if l["kind"] == "other"]
    assert other and other[0]["target"].startswith("cudagraph input copies")
    # DESIGN.md §9: for big single memory-bound ops the copies cost about as much as the kernel
    assert other[0]["share"] > 0.3


def test_threshold_changes_the_verdict():
    _, cap, prof, _ = load("level3_2_TransformerBlock")
    assert classify.classify(cap, prof, 0.10)["verdict"] == "optimizable"
    assert classify.classify(cap, prof, 0.50)["verdict"] == "library-dominated"


def test_a_lost_kernel_time_is_an_infrastructure_error_not_library_dominated():
    """On the H200 a profile once lost the ReLU kernel's events: its time was None, and classify
    called the problem library-dominated (Triton 0 %).  A missing time is never a verdict."""
    _, cap, prof, _ = load("level1_1_Softmax")
    prof = CaptureProfile.from_dict(json.loads(json.dumps(prof.as_dict())))
    for g in prof.graphs:
        g["site_ms"] = {}
    got = classify.classify(cap, prof, 0.10)
    assert got["verdict"] == "error" and got["reason"].startswith("infrastructure: ")


def test_launch_argument_names_when_inductor_specializes_a_size_of_one():
    """On the H200 a CrossEntropy's final kernel (a mean over 4 values into one) had ``xnumel = 1``
    specialized (constexpr in its signature) yet passed to ``.run``: the names fell back to
    arg0..arg4, and the unit's launcher then failed on ``NameError: xnumel``.  The kernel's own
    parameters name the positional arguments."""
    import triton
    import triton.language as tl

    from kernelopt.core.instrument import arg_names

    @triton.jit
    def k(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK: tl.constexpr):
        pass

    class Inner:
        fn = k
        triton_meta = {
            "signature": {
                "in_out_ptr0": "*fp32",
                "in_ptr0": "*fp32",
                "in_ptr1": "*i64",
                "xnumel": "constexpr",
                "r0_numel": "i32",
                "XBLOCK": "constexpr",
            }
        }
        inductor_meta = {}

    assert arg_names(Inner(), 5) == ["in_out_ptr0", "in_ptr0", "in_ptr1", "xnumel", "r0_numel"]
    Inner.triton_meta["signature"]["xnumel"] = "i32"  # the usual case: the signature itself
    assert arg_names(Inner(), 5) == ["in_out_ptr0", "in_ptr0", "in_ptr1", "xnumel", "r0_numel"]
    assert arg_names(Inner(), 7) == [f"arg{i}" for i in range(7)]  # neither matches: generic names


UNIT_CLASSES = {
    "pooling": "p = torch.ops.prims._low_memory_max_pool_with_offsets.default(x0, [3, 3], [1, 1], [1, 1], [2, 2])",
    "scan": "cumsum = torch.ops.aten.cumsum.default(x0, 1)",
    "index reduction": "argmin = torch.ops.aten.argmin.default(x0, -1)",
    "norm": "var_mean = torch.ops.aten.var_mean.correction(x0, [2, 3], correction = 0, keepdim = True)",
    "softmax": "amax = torch.ops.aten.amax.default(x0, [-1], True)\\nexp = torch.ops.aten.exp.default(amax)\\n"
    "sum_1 = torch.ops.aten.sum.dim_IntList(exp, [-1], True)",
    "full reduction": "mean = torch.ops.aten.mean.default(pow_1)",
    "row reduction": "sum_1 = torch.ops.aten.sum.dim_IntList(abs_1, [1], True)",
    "pointwise": "relu = torch.ops.aten.relu.default(x0)",
}


@pytest.mark.parametrize("klass", sorted(UNIT_CLASSES))
def test_each_class_is_read_from_the_reference(klass):
    assert unit_class(f"LEVEL = 'kernel'\n{UNIT_CLASSES[klass]}\n") == klass


def test_a_graph_level_reference_and_a_candidates_description():
    assert unit_class("LEVEL = 'graph'\nrelu = torch.ops.aten.relu.default(x0)") == "graph"
    src = '"""Synthesised by kernelopt (attempt 0) from the reference:\na prefix sum\n  over dim 1.\n"""\n'
    assert candidate_what(src) == "a prefix sum over dim 1."
    assert candidate_what("import triton\n") == ""
