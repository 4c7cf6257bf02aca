"""The gates against a hostile candidate (CPU mode, the demo softmax unit of ``demo_run``).

Two red-team corpora (``tests/redteam.py`` reads their headers):

* ``tests/fixtures/cheats/softmax.corpus``: cheating and wrong candidates, one per way earlier gates were
  fooled (overfitted seeds, telling the gates from production, state across calls, tampering with
  the checker, no Triton at all, precision and poison tricks, escaping the sandbox, hanging);
* ``tests/fixtures/cheats/classes.corpus``: at least one cheat per class of issue 11 ("Isolation that
  holds"), each meant to be stopped by one layer: the operating-system boundary (classes 1-2),
  the candidate form (3-5), the judge (6), the error profile (7).

Every cheat must be rejected by the intended gate and rule through the whole check.  A cheat of
the os or judge layer is then run again with the form not checked, so that the layer beneath
is what meets it: its verdict must be the file's ``BENEATH``, and nothing it attempted may have
reached the host (no marker file, no connection, no surviving process, nothing planted in the run
directory).  Then the timeout in gates 1-2, 3 and in select, the one loader, gate = deployment,
and faults that must never become a verdict about the candidate.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redteam
from conftest import ROOT

# each corpus written out one file per cheat (tests/redteam.py), every file checked as a candidate
CHEATS = redteam.corpus("cheats/softmax")
CLASSES = redteam.corpus("cheats/classes")
UNIT = "level1_1_Softmax/units/triton_per_fused__softmax_0"
# hangs are killed after 30 s plus 10x the kernel's time per call, not the default 60 s + 1000x
FAST = ["--set", "gates.timeout_s=30", "--set", "gates.timeout_factor=10"]
CORPUS = sorted(CHEATS.glob("*.py")) + sorted(CLASSES.glob("*.py"))


def expectation(path: Path) -> tuple[int | None, str]:
    h = redteam.header(path)
    return h.gate, h.rule


def check(unit_dir: Path, candidate: Path, *extra: str, env: dict | None = None) -> tuple[int, list[dict]]:
    r = subprocess.run(
        [sys.executable, "-m", "kernelopt.cli", "check", str(unit_dir), str(candidate), "--json", *FAST, *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
        env={**os.environ, **(env or {})},
    )
    assert r.stdout.strip(), r.stderr[-3000:]
    return r.returncode, json.loads(r.stdout)["verdicts"]


def test_the_corpus_covers_every_way_the_gates_were_fooled():
    rules = [expectation(f) for f in sorted(CHEATS.glob("*.py"))]
    cheats = [r for r in rules if r[1] != "pass"]
    assert len(cheats) >= 20 and len(rules) - len(cheats) >= 2
    for rule in (
        "mismatch",
        "error-profile",
        "unwritten-output",
        "state-across-calls",
        "harness-tampering",
        "torch-compute",
        "network",
        "file-access",
        "threads",
        "timeout",
        "randomness",
    ):
        assert any(r[1] == rule for r in cheats), rule


LAYER_OF_CLASS = {1: "os", 2: "os", 3: "form", 4: "form", 5: "form", 6: "judge", 7: "profile"}


def test_every_class_of_the_issue_has_a_cheat_meant_for_its_layer():
    headers = {f.name: redteam.header(f) for f in sorted(CLASSES.glob("*.py"))}
    for cls, layer in LAYER_OF_CLASS.items():
        mine = [h for h in headers.values() if h.cls == cls]
        assert mine, f"no cheat of class {cls}"
        assert all(h.layer == layer for h in mine), (cls, [(n, h.layer) for n, h in headers.items() if h.cls == cls])
    for name, h in headers.items():
        assert h.rule != "pass", name
        if h.layer == "os":
            assert h.beneath is not None, f"{name}: an os-layer cheat says what must happen beneath the form"
            assert h.markers or h.ports or h.processes or h.beneath[1] != "pass", name
        if h.layer == "form":
            assert h.gate == 1, name
        if h.layer == "profile":
            assert (h.gate, h.rule) == (2, "error-profile"), name


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_cheat_is_rejected_by_the_intended_gate_and_rule(demo_run, path):
    h = redteam.header(path)
    redteam.clear(h)
    listener = redteam.Listener(h.ports)
    try:
        code, (v1, v2) = check(demo_run / UNIT, path)
    finally:
        listener.close()
    assert not redteam.escaped(h, demo_run, listener, wait_s=0.5 if h.processes else 0.0)
    if h.rule == "pass":
        assert code == 0 and (v1["verdict"], v2["verdict"]) == ("pass", "pass"), (v1["reason"], v2["reason"])
        assert len(v2["numbers"]["per_call"]) >= 5 and len(set(v2["seeds"])) >= 3
        assert {c["poison"] for c in v2["numbers"]["per_call"]} == {"nan", "random"}
        assert {0, 1, 2} - set(v2["seeds"]) == {0, 1, 2} or len(v2["seeds"]) > 3  # fresh seeds, not the fixed 0, 1, 2
        return
    assert code == 1
    v = v1 if h.gate == 1 else v2
    assert v["verdict"] == "fail" and v["rule"] == h.rule, (v["verdict"], v["rule"], v["reason"])
    if h.gate == 2:
        assert v1["verdict"] == "pass", v1["reason"]  # the cheat got through gate 1: gate 2 is what caught it
    else:
        assert v2["verdict"] == "skipped"


@pytest.mark.slow
def test_the_forms_imports_load_inside_the_sandbox(demo_run):
    """An honest kernel importing every module the form allows (Inductor's kernels import most
    of them) passes: the form is not wider than what the jailed child can load."""
    code, (v1, v2) = check(demo_run / UNIT, ROOT / "tests/fixtures/cheats/honest/imports_helpers.py")
    assert code == 0 and (v1["verdict"], v2["verdict"]) == ("pass", "pass"), (v1["reason"], v2["reason"])


@pytest.mark.slow
def test_fresh_seeds_are_drawn_per_run_and_recorded(demo_run):
    _, (_, a) = check(demo_run / UNIT, CHEATS / "honest_rows.py")
    _, (_, b) = check(demo_run / UNIT, CHEATS / "honest_rows.py")
    assert a["seeds"] != b["seeds"]
    inputs = {(i["seed"], i["distribution"]) for i in a["numbers"]["inputs"]}
    assert {d for _, d in inputs} >= {"normal", "x10", "x0.01", "abs"}


# --------------------------------------------------------------------------- beneath the form
def beneath_the_form(demo_run, candidate: Path) -> tuple:
    """Gates 1-2 of ``candidate`` without the form: what the layers beneath it do alone."""
    from kernelopt.core import runtime
    from kernelopt.core.config import validate
    from kernelopt.core.records import ProblemPaths
    from kernelopt.gates.isolated import check_unit
    from kernelopt.runner.harness import ProblemRuntime, UnitHarness

    paths, unit = ProblemPaths.of_unit(demo_run / UNIT)
    cfg = validate({"device": "cpu", "gates": {"timeout_s": 30, "timeout_factor": 10}})
    device = runtime.prepare("cpu", paths.cache)
    return check_unit(paths, unit, candidate, cfg, UnitHarness(paths, unit, ProblemRuntime(paths, device, 0)))


BENEATH = [f for f in sorted(CLASSES.glob("*.py")) if redteam.header(f).beneath is not None]


@pytest.mark.slow
@pytest.mark.parametrize("path", BENEATH, ids=lambda p: p.name)
def test_beneath_the_form_the_boundary_and_the_judge_hold(demo_run, path):
    """Classes 1-2 (and the judge's class 6) with the form taken away: the operating system
    refuses what the cheat attempts, the judge reads only the bytes it laid out, and nothing of
    the attempt reaches the host: no file outside scratch, no connection, no process outliving
    the child, nothing planted in the run directory."""
    h = redteam.header(path)
    redteam.clear(h)
    listener = redteam.Listener(h.ports)
    try:
        v1, v2 = beneath_the_form(demo_run, path)
    finally:
        listener.close()
    gate, rule = h.beneath
    got = next(((v.gate, v.rule) for v in (v1, v2) if v.verdict == "fail"), (None, "pass"))
    assert got == (gate, rule), (got, v1.reason, v2.reason)
    assert not redteam.escaped(h, demo_run, listener), redteam.escaped(h, demo_run, listener, wait_s=0)
    if h.layer == "os" and rule != "pass":
        # the refusal is the operating system's: a missing path, a read-only file system, EPERM
        words = ("does not exist", "No such file", "Read-only", "not permitted", "Permission denied", "refused")
        reason = (v1 if gate == 1 else v2).reason
        assert any(w in reason for w in words) or "failed (-" in reason or "no run directory" in reason, reason


@pytest.mark.slow
def test_state_across_calls_is_caught_at_run_time_too(demo_run):
    """The call counter the form rejects, run anyway: correct for its first 4 calls, nothing
    from the 5th; gate 2's calls in one process catch it, whichever poison those calls drew."""
    v1, v2 = beneath_the_form(demo_run, CHEATS / "iterator_counter.py")
    assert v1.verdict == "pass", v1.reason
    # the calls after the 4th are poisoned with NaN or a random pattern at random: left unwritten,
    # the random pattern shows as unwritten, the NaN poison as NaN where the reference is finite
    assert v2.verdict == "fail", v2.reason
    assert v2.rule == "unwritten-output" or (v2.rule == "mismatch" and "NaN where" in v2.reason), v2.reason


# --------------------------------------------------------------------------- timeouts in every gate
@pytest.mark.slow
def test_a_hanging_candidate_is_killed_in_gate3(demo_run, tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernelopt.cli",
            "stitch-check",
            str(demo_run / "level1_1_Softmax"),
            f"triton_per_fused__softmax_0={CHEATS / 'busy_loop.py'}",
            "--json",
            "--out",
            str(tmp_path / "st"),
            *FAST,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    g3, g4 = json.loads(r.stdout)["verdicts"]
    assert g3["verdict"] == "fail" and g3["rule"] == "timeout", g3["reason"]
    assert g4["verdict"] == "skipped" and r.returncode == 1


@pytest.mark.slow
def test_a_hanging_candidate_is_not_timed_in_select(demo_run):
    from kernelopt.core import runtime
    from kernelopt.core.config import validate
    from kernelopt.core.records import ProblemPaths
    from kernelopt.runner.timing import time_against_inductor

    paths, unit = ProblemPaths.of_unit(demo_run / UNIT)
    runtime.prepare("cpu", paths.cache)
    cfg = validate({"device": "cpu", "gates": {"timeout_s": 30, "timeout_factor": 10}})
    out = time_against_inductor(paths, unit, cfg, [CHEATS / "honest_rows.py", CHEATS / "busy_loop.py"], "select test")
    assert out[0] is not None and out[1] is None


# --------------------------------------------------------------------------- one loader
def test_the_candidate_cannot_tell_a_gate_from_the_deployed_model(tmp_path):
    """The candidate module has the same name, file and globals whether a gate or the stitched
    model loads it, from wherever the file is read."""
    from kernelopt.core.loader import load_candidate
    from kernelopt.stitch.splice import helper

    a = tmp_path / "units/u/iter1/cand0/candidate.py"
    b = tmp_path / "stitch/candidates/triton_k.py"
    for f in (a, b):
        f.parent.mkdir(parents=True)
        f.write_text("X = 1\n\ndef launch(*args):\n    return (__name__, __file__, sorted(globals()))\n")
    scope: dict = {"__file__": str(tmp_path / "stitch/output_code.py")}
    exec(helper(), scope)  # the loader the stitched output_code.py carries
    deployed = scope["_kernelopt_candidate"]("triton_k", "candidates/triton_k.py")
    gate = load_candidate(a)
    assert gate.launch() == deployed.run(stream=None)
    assert gate.launch()[0] == "kernelopt_candidate" and gate.launch()[1].startswith("kernelopt-candidate/")


# --------------------------------------------------------------------------- faults are not verdicts
@pytest.mark.slow
def test_an_out_of_memory_error_is_infrastructure_only_when_the_judge_sees_it_too(demo_run):
    """A child that reports running out of memory is believed only when Inductor's own kernel,
    run the same way (the control run), fails too: then the verdict is ``error`` with rule
    ``infrastructure``.  When the control gets through (CPU mode: no other job's memory can
    explain it), the report is the candidate's words, and its failure."""
    both = {"KERNELOPT_FAULT": "oom:gate12,oom:control"}
    code, (v1, v2) = check(demo_run / UNIT, CHEATS / "honest_rows.py", env=both)
    assert code == 1
    for v in (v1, v2):
        assert v["verdict"] == "error" and v["rule"] == "infrastructure", v["reason"]
        assert "out of memory" in v["reason"] and "control run failed too" in v["reason"]
    code, (v1, v2) = check(demo_run / UNIT, CHEATS / "honest_rows.py", env={"KERNELOPT_FAULT": "oom:gate12"})
    assert code == 1 and v1["verdict"] == "fail" and v1["rule"] == "runtime-error", v1["reason"]
    assert "the control run got through" in v1["reason"]


@pytest.mark.slow
def test_the_deployed_model_computes_what_gate3_judged(demo_run):
    """Gate = deployment: the stitched model loaded as a user loads it (``stitch/output_code.py``
    imported in this process, no sandbox) and run on 20 calls gives, call by call, exactly the
    outputs gate 3's jailed child handed back on the same arguments."""
    import torch

    from kernelopt.core import outputcode, runtime
    from kernelopt.core.config import validate
    from kernelopt.core.records import ProblemPaths
    from kernelopt.gates.model import Problem
    from kernelopt.runner import sandbox

    paths = ProblemPaths(demo_run, "level1_1_Softmax")
    stitched = paths.root / "stitch/output_code.py"
    assert "_kernelopt_candidate(" in stitched.read_text(), "the demo run stitched no candidate"
    runtime.prepare("cpu", paths.cache)
    m = Problem(paths, validate({"device": "cpu"}))
    seeds = list(range(100, 120))

    class Record(sandbox.Stream):
        calls = len(seeds)

        def __init__(self):
            self.got = []

        def send(self, k, slots):
            args = [slots.put(("arg", i), a) for i, a in enumerate(m.rt.call_args(0, seeds[k]))]
            outs = m.outputs(m.base, m.rt.call_args(0, seeds[k]))
            return {"args": args, "outs": [slots.empty_like(("out", i), o) for i, o in enumerate(outs)]}

        def receive(self, k, result, sent):
            assert result["error"] is None, result["error"]
            self.got.append([o.clone() for o in result["outputs"]])
            return True

    job, files = m.job(stitched, "gate3")
    rec = Record()
    out = sandbox.run({**job, "kind": "model"}, 600, cache=paths.cache, stream=rec, files=files)
    assert out.status == "ok", out.detail + out.log_tail
    assert out.reply["candidate_launches"], "no candidate ran in gate 3's child"
    deployed = outputcode.load(stitched, None)
    with torch.no_grad():
        for k, seed in enumerate(seeds):
            mine = m.outputs(deployed, m.rt.call_args(0, seed))
            assert len(mine) == len(rec.got[k])
            for a, b in zip(mine, rec.got[k]):
                assert torch.equal(a, b), (seed, (a - b).abs().max())


def test_an_infrastructure_fault_makes_the_result_an_error_not_a_category(tmp_path):
    from kernelopt.core.config import validate
    from kernelopt.core.jsonio import write_json
    from kernelopt.core.records import Baseline, Dispatch, DispatchUnit, GateVerdict, ProblemPaths
    from kernelopt.report.stage import finalize

    paths = ProblemPaths(tmp_path, "level1_1_X")
    Baseline(problem=paths.problem, device="cpu", compiled={"median_ms": 1.0}, eager={"median_ms": 2.0}).save(
        paths.baseline
    )
    Dispatch(problem=paths.problem, verdict="optimizable", units=[DispatchUnit(id="u", kernel="u")]).save(
        paths.dispatch
    )
    write_json(
        paths.attempt_dir(0) / "plan.json",
        {"attempt": 0, "status": "no-candidates", "reason": "no candidate beyond Inductor's"},
    )
    GateVerdict(gate=3, verdict="skipped", reason="nothing stitched").save(paths.attempt(0).gate(3))
    GateVerdict(gate=4, verdict="skipped", reason="nothing stitched").save(paths.attempt(0).gate(4))
    write_json(paths.best("u"), {"candidates": {}, "ranked": []})
    GateVerdict(gate=2, verdict="error", rule="infrastructure", reason="infrastructure: CUDA out of memory").save(
        paths.synth("u", 0).gate(2)
    )
    cfg = validate({})
    res = finalize(paths, ["u"], cfg)
    assert res["category"] == "error" and res["reason"].startswith("infrastructure: ") and "synth/a0" in res["reason"]
    # without the fault the same files say: nothing but Inductor's kernel passed (none was
    # synthesized: no synthesis slot holds a record)
    paths.synth("u", 0).gate(2).unlink()
    assert finalize(paths, ["u"], cfg)["category"] == "matched (not synthesized)"
    # synthesis skipped at the roof (GPU): not a failure, and the reason says why
    why = "not synthesized: Inductor's kernel ran at 99.8 % of the 4.3 TB/s copy bandwidth at capture"
    write_json(paths.synth_dir("u", 0) / "slot.json", {"slot": 0, "empty": True, "near_roof": True, "reason": why})
    res = finalize(paths, ["u"], cfg)
    assert res["category"] == "matched (not synthesized)" and res["reason"].endswith(f"u: {why}")
    (paths.synth_dir("u", 0) / "slot.json").unlink()
    # a unit with no usable reference is not-checkable, never "synthesis failed"
    GateVerdict(
        gate=2, verdict="not-checkable", rule="unit-not-checkable", reason="unit-not-checkable: no eager reference"
    ).save(paths.cand("u", 0).gate(2))
    assert finalize(paths, ["u"], cfg)["category"] == "unit-not-checkable"


@pytest.mark.slow
def test_a_unit_without_a_reference_is_not_checkable(demo_run, tmp_path):
    import shutil

    unit = tmp_path / "level1_1_Softmax/units/triton_per_fused__softmax_0"
    shutil.copytree(
        demo_run / "level1_1_Softmax", tmp_path / "level1_1_Softmax", ignore=shutil.ignore_patterns("cache")
    )
    (unit / "reference.py").unlink()
    code, (v1, v2) = check(unit, CHEATS / "honest_rows.py")
    assert code == 1 and v1["verdict"] == v2["verdict"] == "not-checkable" and v1["rule"] == "unit-not-checkable"


@pytest.mark.slow
def test_inductors_own_kernels_pass_the_hardened_gates_on_unseen_problems(tmp_path):
    """Problems written after the gates (tests/fixtures/problems_unseen/: an integer input, an
    integer output next to a float one, a bool mask and two outputs): with Inductor's kernels
    stitched back, every unit's kernel passes gates 1-2 (fresh seeds, all calls) and every
    stitched model gate 3; nothing ends as an error or as unit-not-checkable."""
    from conftest import demo_run_config, snakemake

    config = [c for c in demo_run_config(tmp_path) if not c.startswith(("problems=", "candidates="))]
    r = snakemake("--cores", "2", "--config", "problems=tests/fixtures/problems_unseen", *config, timeout=2400)
    assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    problems = sorted(p for p in tmp_path.iterdir() if (p / "result.json").exists())
    assert len(problems) == 3, problems
    units = 0
    for p in problems:
        result = json.loads((p / "result.json").read_text())
        assert result["category"] not in ("error", "unit-not-checkable"), (p.name, result)
        for unit in sorted((p / "units").iterdir()):
            c0 = unit / "cands/c0"
            if not (c0 / "gate2.json").exists():
                continue
            units += 1
            for g in ("gate1", "gate2"):
                v = json.loads((c0 / f"{g}.json").read_text())
                assert v["verdict"] == "pass", (unit.name, g, v["reason"])
            calls = json.loads((c0 / "gate2.json").read_text())["numbers"]["per_call"]
            assert len(calls) >= 6 and {c["poison"] for c in calls} == {"nan", "random"}
        g3 = json.loads((p / "stitch/gate3.json").read_text())
        assert g3["verdict"] == "pass", (p.name, g3["reason"])
    assert units >= 3


def test_gate3_fp64_fallback_measures_float32_against_float64():
    """The FP64 fallback compares a float32 output with a float64 run.  It compared dtypes as
    structure, so both errors were infinite and ``inf <= ratio x inf`` passed every stitched
    model that failed the direct check: a wrong one (off by 1.0 here) is now refused, a better
    than baseline one still passes, and an unmeasurable error never passes."""
    import math

    import torch

    from kernelopt.core import outputs
    from kernelopt.gates import model

    ref64 = torch.linspace(-1, 1, 64, dtype=torch.float64)
    base = (ref64 + 1e-6).float()  # the baseline's own float32 error
    wrong, good = (ref64 + 1.0).float(), ref64.float()
    leaves = outputs.flatten
    err_b = model._leaf_error(leaves(base), leaves(ref64))
    assert 0 < err_b < 1e-5
    err_wrong = model._leaf_error(leaves(wrong), leaves(ref64))
    assert math.isclose(err_wrong, 1.0, rel_tol=1e-6)
    assert not model.fp64_pass(err_wrong, err_b, 2.0)
    assert model.fp64_pass(model._leaf_error(leaves(good), leaves(ref64)), err_b, 2.0)
    assert not model.fp64_pass(math.inf, math.inf, 2.0) and not model.fp64_pass(0.0, math.nan, 2.0)
    assert model._leaf_error(leaves(torch.zeros(3)), leaves(torch.zeros(4, dtype=torch.float64))) == math.inf


@pytest.mark.parametrize(("ci_high", "words"), [(0.9993, "is below the minimum"), (1.002, "is not significant")])
def test_a_passing_stitch_below_the_minimum_speedup_says_which_condition_failed(tmp_path, ci_high, words):
    """H200 run 10, GELU: all gates passed at 1.0037 with the 95 % CI below 1 (significant, but
    under gates.optimized_min_speedup): the reason said "not significant", which it was not."""
    from kernelopt.core.config import validate
    from kernelopt.core.jsonio import write_json
    from kernelopt.core.records import Baseline, Dispatch, DispatchUnit, GateVerdict, ProblemPaths
    from kernelopt.report.stage import finalize

    paths = ProblemPaths(tmp_path, "level1_9_X")
    Baseline(problem=paths.problem, device="cuda", compiled={"median_ms": 1.0}, eager={"median_ms": 2.0}).save(
        paths.baseline
    )
    Dispatch(problem=paths.problem, verdict="optimizable", units=[DispatchUnit(id="u", kernel="u")]).save(
        paths.dispatch
    )
    write_json(
        paths.attempt_dir(0) / "plan.json", {"attempt": 0, "status": "stitched", "replacements": {"u": "iter1/cand0"}}
    )
    GateVerdict(gate=3, verdict="pass", reason="ok").save(paths.attempt(0).gate(3))
    numbers = {"speedup": 1.0037, "a_ms": 0.1319, "b_ms": 0.1315, "ci_low": 0.9956, "ci_high": ci_high}
    GateVerdict(gate=4, verdict="pass", reason="ok", numbers={**numbers, "noise_band": [0.9956, ci_high]}).save(
        paths.attempt(0).gate(4)
    )
    write_json(paths.best("u"), {"candidates": {}, "ranked": []})
    res = finalize(paths, ["u"], validate({}))
    assert res["category"] == "matched (optimized)" and res["speedup_vs_compiled"] == 1.0
    assert f"the speedup 1.0037 {words} (time ratio 95% CI 0.9956-{ci_high:.4f}" in res["reason"]
