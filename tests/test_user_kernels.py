"""Standalone Triton and Helion problems on the CPU (issue 16): a model that launches its own
``@triton.jit`` kernels goes through the whole pipeline; its kernels become units whose oracle is
the user's kernel, hand-written wrong candidates are rejected, a kernel reading its output buffer
gets a ``readwrite`` contract, and the problem's own ``reference()`` is a second oracle at gate 3.
A Helion kernel's generated Triton code is the baseline, and Helion's other configs are the
synthesized candidates.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT, load_candidate, snakemake

from kernelopt.core.records import Contract

HELION = ("helion_1_AddReLU", "problems_helion_2_RowSoftmaxScale")
SOFTMAX = "triton_1_TwoPassSoftmax"  # problems/examples/triton/1_TwoPassSoftmax.py
ACCUM = "problems_user_triton_2_ScaleThenAccumulate"  # tests/fixtures, written for these tests


def _json(p: Path) -> dict:
    return json.loads(p.read_text())


def _pipeline(wd: Path, problems: list[str], *config: str) -> Path:
    """The whole pipeline in CPU mode on ``problems`` with the hand-written candidates of
    ``tests/fixtures/candidates_user_triton``."""
    r = snakemake(
        "--cores",
        "2",
        "--config",
        f"problems=[{', '.join(problems)}]",
        "device=cpu",
        f"workdir={wd}",
        "candidates=tests/fixtures/candidates_user_triton",
        *config,
        timeout=1800,
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    return wd


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    return _pipeline(
        tmp_path_factory.mktemp("user_triton"),
        [
            "problems/examples/triton/1_TwoPassSoftmax.py",
            "tests/fixtures/problems_user_triton/2_ScaleThenAccumulate.py",
            "tests/fixtures/problems_user_triton/3_InplaceAdd.py",
        ],
        "gates={user_candidates: 2, retries: 0}",  # no stitch retry slots: none is checked here
        "search={iterations: 1, beam_width: 2, synthesis_attempts: 1, retries: 0}",
    )


def _verdicts(slot: Path) -> tuple[dict, dict]:
    return _json(slot / "gate1.json"), _json(slot / "gate2.json")


@pytest.mark.slow
def test_user_kernels_become_units_with_the_user_kernel_as_oracle(user_run):
    d = _json(user_run / SOFTMAX / "dispatch.json")
    assert {u["id"]: u["user"] for u in d["units"]} == {"row_stats_kernel_0": True, "normalize_kernel_1": True}
    cap = _json(user_run / SOFTMAX / "capture/capture.json")
    k = cap["graphs"][0]["kernels"]["normalize_kernel_1"]
    assert k["user"] and k["function"] == "normalize_kernel"
    for unit in ("row_stats_kernel_0", "normalize_kernel_1"):
        udir = user_run / SOFTMAX / "units" / unit
        ref = (udir / "reference.py").read_text()
        assert 'LEVEL = "user"' in ref and f"def {unit}(" in ref
        assert _json(udir / "isolate_check.json")["status"] == "pass"
        c = _json(udir / "contract.json")
        assert c["user"] and c["launch_config"]["kwargs"] == {"BLOCK": 64}  # the user's constexpr
        slot = udir / "synth/a0/slot.json"
        assert "user's own kernel" in _json(slot)["reason"]  # nothing to synthesize from: says so


@pytest.mark.slow
def test_wrong_candidates_are_rejected_against_the_user_kernel(user_run):
    units = user_run / SOFTMAX / "units"
    expect = {
        # slot c0 is the user's kernel; c1, c2 the hand-written files in name order
        ("normalize_kernel_1", "c0"): ("pass", None),
        ("normalize_kernel_1", "c1"): ("pass", None),  # BLOCK 128 with the grid it needs
        ("normalize_kernel_1", "c2"): ("fail", "unwritten-output"),  # the user's grid, 32-wide blocks
        ("row_stats_kernel_0", "c1"): ("fail", "mismatch"),  # sum without the max shift
        ("row_stats_kernel_0", "c2"): ("pass", None),
    }
    for (unit, slot), (verdict, rule) in expect.items():
        g1, g2 = _verdicts(units / unit / "cands" / slot)
        assert g1["verdict"] == "pass", g1["reason"]
        assert (g2["verdict"], g2.get("rule")) == (verdict, rule), g2["reason"]
        if verdict == "pass":
            assert "the user's own kernel" in g2["reason"]
    # the search's candidates (block sizes, warps... of the user's kernel) went through the same gates
    searched = list((units / "normalize_kernel_1/iter1").glob("cand*/gate2.json"))
    assert searched and all(_json(p)["verdict"] in ("pass", "fail") for p in searched)


@pytest.mark.slow
def test_a_kernel_that_reads_its_output_gets_a_readwrite_contract(user_run):
    units = user_run / ACCUM / "units"
    scale, bias = (_json(units / u / "contract.json") for u in ("scale_kernel_0", "add_bias_kernel_1"))
    access = {a["name"]: a.get("access") for a in scale["args"]}
    assert access["out_ptr"] == "write" and access["x_ptr"] == "read"
    access = {a["name"]: a.get("access") for a in bias["args"]}
    assert access["out_ptr"] == "readwrite"  # out += bias: measured, not guessed from the name
    assert _json(units / "add_bias_kernel_1/isolate_check.json")["reads_written"] == {"out_ptr": True}


@pytest.mark.slow
def test_an_in_place_launch_says_why_it_cannot_be_checked(user_run):
    """A user kernel launched with one tensor as input and output (found by a review: the unit
    was dropped as if Inductor's kernel missed its reference)."""
    p = user_run / "problems_user_triton_3_InplaceAdd"
    unit = next(u["id"] for u in _json(p / "dispatch.json")["units"] if u["user"])
    check = _json(p / "units" / unit / "isolate_check.json")
    assert check["status"] == "no-reference" and "a_ptr, out_ptr are the same memory" in check["reason"]
    assert _json(p / "result.json")["status"] == "ok"


@pytest.mark.slow
def test_gate3_checks_the_problems_own_reference(user_run):
    ok = _json(user_run / SOFTMAX / "stitch/gate3.json")
    assert ok["verdict"] == "pass", ok["reason"]
    assert all(r["reference_pass"] for r in ok["numbers"]["per_seed"])
    assert all(r["reference_direct_pass"] for r in ok["numbers"]["per_seed"])
    assert "reference() directly" in ok["reason"]
    # the second problem's reference() is wrong on purpose (bias twice): the user's kernels are the
    # oracle, a stitched model as far from reference() as they are passes, and the verdict says so
    other = _json(user_run / ACCUM / "stitch/gate3.json")
    assert other["verdict"] == "pass", other["reason"]
    rows = other["numbers"]["per_seed"]
    assert not any(r["reference_direct_pass"] for r in rows)
    assert all(r["reference_fp64_baseline_err"] > 0.1 for r in rows)
    assert "which miss it by up to" in other["reason"]


def test_user_kernel_renamed_and_launched_in_the_interpreter(tmp_path):
    """The captured source's function is saved under the wrapper's kernel name; a user kernel's
    JITFunction launches eagerly in CPU mode (through the interpreter)."""
    from kernelopt.core import outputcode, problems

    src = "@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n    pass\n\n\n@triton.jit\ndef helper(x):\n    return x\n"
    out = outputcode.rename_function(src, "k", "k_0")
    assert "def k_0(x_ptr" in out and "def helper(x)" in out
    with pytest.raises(ValueError):
        outputcode.rename_function(src, "missing", "m_0")
    load_candidate("x = 1\n", "ko_user_cpu_mode")  # installs CPU mode
    mod = problems.load(ROOT / "problems/examples/triton/1_TwoPassSoftmax.py").module
    from triton.runtime.jit import JITFunction

    assert isinstance(mod.row_stats_kernel, JITFunction)
    import torch

    x = torch.randn(5, 130)
    torch.testing.assert_close(mod.Model()(x), mod.reference(x))


@pytest.fixture(scope="module")
def helion_run(tmp_path_factory):
    return _pipeline(
        tmp_path_factory.mktemp("helion"),
        ["problems/examples/helion/1_AddReLU.py", "tests/fixtures/problems_helion/2_RowSoftmaxScale.py"],
        "search={iterations: 1, beam_width: 2, synthesis_attempts: 2, retries: 0}",
        "gates={retries: 0}",
    )


@pytest.mark.slow
def test_helion_kernels_become_units_and_other_configs_candidates(helion_run):
    for problem, kernel, unit in zip(
        HELION, ("add_relu", "scaled_softmax"), ("_helion_add_relu_0", "_helion_scaled_softmax_0")
    ):
        cap = _json(helion_run / problem / "capture/capture.json")
        assert cap["helion"][kernel]["triton_kernel"] == unit[:-2]
        code = (helion_run / problem / "capture/helion" / f"{kernel}.py").read_text()
        assert f"def {unit[:-2]}(" in code and "helion_triton_helpers." not in code  # helpers copied in
        udir = helion_run / problem / "units" / unit
        c = _json(udir / "contract.json")
        assert c["user"] and c["helion"]["kernel"] == kernel
        assert _json(udir / "isolate_check.json")["status"] == "pass"
        for a in ("a0", "a1"):  # Helion's neighbouring configs, each checked against the user's kernel
            slot = _json(udir / "synth" / a / "slot.json")
            assert slot["source"] in ("helion:blocks-x2", "helion:blocks-half"), slot
            g1, g2 = _verdicts(udir / "synth" / a)
            assert (g1["verdict"], g2["verdict"]) == ("pass", "pass"), (g1["reason"], g2["reason"])
        g3 = _json(helion_run / problem / "stitch/gate3.json")
        assert g3["verdict"] == "pass" and "reference() directly" in g3["reason"], g3["reason"]
    # a wrong hand-written candidate for the Helion unit (no ReLU) is rejected by gate 2
    g1, g2 = _verdicts(helion_run / HELION[0] / "units/_helion_add_relu_0/cands/c1")
    assert g1["verdict"] == "pass" and (g2["verdict"], g2["rule"]) == ("fail", "mismatch"), g2["reason"]


def test_helion_config_neighbours_and_refusals():
    from kernelopt.search.synth import helion
    from kernelopt.search.synth.ops import CannotSynthesize

    names = [n for n, _ in helion.variants({"block_sizes": [32, 16], "num_warps": 4})]
    assert names[:2] == ["blocks-x2", "blocks-half"] and "warps-x2" in names and len(names) == len(set(names))
    assert helion.variants({"block_sizes": [1], "num_warps": 1, "num_stages": 1})[0][0] == "blocks-x2"
    contract = Contract.from_dict(
        {"unit": "u", "kernel": "k_0", "args": [{"name": n, "kind": "tensor"} for n in ("x", "out")]}
    )
    two = (
        "import triton\n@triton.jit\ndef k(x, out):\n    pass\n"
        "def f(x, *, _launcher=None):\n    _launcher(k, (1,), x, out)\n    _launcher(k, (1,), x, out)\n"
    )
    with pytest.raises(CannotSynthesize, match="launches 2 kernels"):
        helion.candidate_from_code(two, "f", contract, "t")
    head = "import triton\n@triton.jit\n"
    other = head + "def k(a, b):\n    pass\ndef f(a, *, _launcher=None):\n    _launcher(k, (1,), a, b)\n"
    with pytest.raises(CannotSynthesize, match="takes"):
        helion.candidate_from_code(other, "f", contract, "t")
    ok = (
        head + "def k(x, out):\n    pass\ndef f(x, *, _launcher=None):\n    _launcher(k, (4, 2), x, out, num_warps=8)\n"
    )
    src = helion.candidate_from_code(ok, "f", contract, "t")
    assert "def k_0(x, out)" in src and "k_0[(4, 2)](x, out, **CONFIG, num_warps=NUM_WARPS)" in src


def test_a_user_grid_is_inferred_only_when_unambiguous():
    from kernelopt.isolate import user

    def contract(grid, scalars, blocks):
        return Contract(
            grid=grid,
            grid_expr={"type": "FixedGrid", "x": "_grid_0", "y": "_grid_1", "z": "_grid_2"},
            launch_config={"kwargs": blocks},
            args=[{"name": n, "kind": "scalar", "type": "int", "value": v} for n, v in scalars.items()],
        )

    c = user.with_inferred_grid(contract([40, 6, 1], {"n": 1000, "rows": 6}, {"BLOCK": 25}))
    assert c.grid_inferred == {"x": "triton.cdiv(n, BLOCK)"} and c.grid_expr["y"] == "_grid_1"
    assert c.grid_expr["x"] == "triton.cdiv(n, BLOCK)" and c.grid_expr["inferred_from"]
    # a contiguous row: its stride and its length are the same size
    c = contract([1, 4, 1], {"n_cols": 1000, "stride": 1000}, {"BLOCK": 256})
    assert user.infer_grid(c) == {"y": "triton.cdiv(n_cols, BLOCK)"}
    # two sizes give the same count: ambiguous, the recorded numbers stay
    c = user.with_inferred_grid(contract([4, 1, 1], {"n": 1000, "m": 1001}, {"BLOCK": 256}))
    assert c.grid_inferred == {} and c.grid_expr["x"] == "_grid_0" and "grid_inferred" in c.as_dict()
    assert (
        user.infer_grid(replace(contract([4, 1, 1], {"n": 1000}, {"BLOCK": 256}), grid_expr={"type": "Grid1D"})) == {}
    )


def _judge_row(eager_model, reference, got, base, structure_of=None):
    """One call of gate 3's judging (``ModelCalls._judge``) on a stub problem: ``eager_model``
    is the user's module, ``reference`` the problem's reference(), ``got`` the stitched model's
    outputs, ``base`` the baseline wrapper's."""
    import types

    import torch

    from kernelopt.core import outputs
    from kernelopt.gates.model import ModelCalls

    torch.manual_seed(0)
    x = torch.randn(6, 70)
    structure = outputs.structure(structure_of if structure_of is not None else eager_model(x))
    rt = types.SimpleNamespace(model_inputs=lambda s, d: [x.clone()], model=eager_model)
    m = types.SimpleNamespace(
        rt=rt,
        device="cpu",
        paths=types.SimpleNamespace(problem="p"),
        user_reference=reference,
        has_user_kernels=True,
        leaves=lambda ts, eager: outputs.leaves_from(structure, ts),
    )
    calls = ModelCalls(m, [(1, "normal")], {"model_rtol": 1e-4, "model_atol": 1e-4, "fp64_ratio": 10.0})
    calls._base = base(x)
    return calls._judge(0, got(x))


def test_gate3_never_measures_the_eager_oracle_against_reference():
    """Found by a review: with reference() present, the eager comparison's FP64 fallback was
    measured against reference(), so a stitched model 4x|bias| away from the user's kernels
    passed when the user's kernels themselves missed reference().  Now the eager oracle's
    fallback is the model in float64; reference() only ever adds a check."""
    import torch

    class User(torch.nn.Module):  # the user's module (runs in float64 too: the real fallback path)
        def __init__(self):
            super().__init__()
            self.bias = torch.nn.Parameter(torch.randn(70))

        def forward(self, x):
            return 2 * x + self.bias

    user = User()
    bias = user.bias.detach()
    row = _judge_row(
        user,
        lambda x: 2 * x + 2 * bias.to(x.dtype),  # a reference() the user's kernels miss
        lambda x: [2 * x - 3 * bias],  # a wrong stitched model
        lambda x: [2 * x + bias],
    )
    assert not row["direct_pass"] and not row["fp64_pass"] and not row["pass"]
    assert row["fp64_candidate_err"] > 1.0 > row["fp64_baseline_err"]  # measured against the model
    ok = _judge_row(user, lambda x: 2 * x + 2 * bias.to(x.dtype), lambda x: [2 * x + bias], lambda x: [2 * x + bias])
    assert ok["direct_pass"] and ok["pass"] and not ok["reference_direct_pass"]


def test_gate3_reference_may_return_its_tensors_in_another_container():
    """reference() returning ``(t,)`` where the model returns ``t`` was a structure mismatch, so
    gate 3 refused even the baseline itself."""
    import torch

    row = _judge_row(lambda x: x * 2, lambda x: (x * 2,), lambda x: [x * 2], lambda x: [x * 2])
    assert row["reference_direct_pass"] and row["pass"]
    assert torch.isfinite(torch.tensor(row["vs_reference_max_abs"]))


def test_a_helion_kernel_called_with_another_specialization_is_refused():
    """Found by a review: the Triton code generated on the first call (static shapes baked in)
    replaced the kernel for every later call, so a second call with other shapes ran with the
    wrong sizes in eager, the oracle itself.  It is now refused with the reason."""
    load_candidate("x = 1\n", "ko_user_cpu_mode_2")  # installs CPU mode
    import torch

    from kernelopt.core import problems

    example = ROOT / "problems/examples/helion/1_AddReLU.py"
    mod = problems.load(example).module
    x, y = torch.randn(100, 70), torch.randn(100, 70)
    torch.testing.assert_close(mod.add_relu(x, y), torch.relu(x + y))
    with pytest.raises(ValueError, match="one specialization per Helion kernel"):
        mod.add_relu(torch.randn(40, 200), torch.randn(40, 200))
    torch.testing.assert_close(mod.add_relu(x, y), torch.relu(x + y))  # the same shapes still run
    with pytest.raises(TypeError, match="positional"):
        problems.load(example).module.add_relu(x, y=y)
