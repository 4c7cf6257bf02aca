"""Standalone Triton problems on the CPU (issue 16): a model that launches its own ``@triton.jit``
kernels goes through the whole pipeline; its kernels become units whose oracle is the user's
kernel, hand-written wrong candidates are rejected, a kernel reading its output buffer gets a
``readwrite`` contract, and the problem's own ``reference()`` is a second oracle at gate 3.
"""

import json
from pathlib import Path

import pytest
from conftest import ROOT, load_candidate, snakemake

SOFTMAX = "triton_1_TwoPassSoftmax"  # problems/examples/triton/1_TwoPassSoftmax.py
ACCUM = "problems_user_triton_2_ScaleThenAccumulate"  # tests/data, written for these tests


def _json(p: Path) -> dict:
    return json.loads(p.read_text())


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    wd = tmp_path_factory.mktemp("user_triton")
    r = snakemake(
        "--cores",
        "2",
        "--config",
        "problems=[problems/examples/triton/1_TwoPassSoftmax.py, "
        "tests/data/problems_user_triton/2_ScaleThenAccumulate.py]",
        "device=cpu",
        f"workdir={wd}",
        "candidates=tests/data/candidates_user_triton",
        "gates={user_candidates: 2}",
        "search={iterations: 1, beam_width: 2, synthesis_attempts: 1, retries: 0}",
        timeout=1800,
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    return wd


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
