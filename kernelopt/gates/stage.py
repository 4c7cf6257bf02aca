"""The rules of the four gates: each reads its candidate slot or stitch attempt, runs its gate,
and writes ``gate<N>.json`` (``GateVerdict`` plus where it applies).

  gate12         one candidate slot of a unit (``cands/c<k>``, ``synth/a<k>``,
                 ``iter<i>/cand<j>[/r<r>]``): gates 1 and 2 from one sandboxed run
  gate3, gate4   one stitch attempt (``stitch/``, ``stitch/retries/r<k>/``)

A fault that is not the candidate's (``faults.py``) is retried once with the GPU held alone; if
it persists the verdict is ``error`` with rule ``infrastructure``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core import outputs, runtime
from ..core.phases import timed
from ..core.records import AttemptPaths, Capture, Contract, IsolateCheck, ProblemPaths, Slot, StitchPlan
from .faults import INFRASTRUCTURE, UNIT_NOT_CHECKABLE, retry_alone
from .form import static_problems
from .speed import DECISION, gate4
from .verdict import ERROR, FAIL, SKIPPED, GateVerdict
from .verdict import NOT_CHECKABLE as NOT_CHECKABLE_VERDICT


def not_checkable(paths: ProblemPaths, unit: str) -> str | None:
    """Why a unit's candidates cannot be judged (no trustworthy reference or contract), or None."""
    capture = Capture.load_or_none(paths.capture_record)
    why = outputs.nonfinite_reason(capture.eager_nonfinite if capture else None)
    if why:  # the model's eager outputs are mostly NaN/Inf: no reference cut from them checks much
        return why
    if not paths.isolate_check(unit).exists() or not paths.contract(unit).exists():
        return "the unit was not isolated (no contract or check)"
    check = IsolateCheck.load(paths.isolate_check(unit))
    if not check.passed:
        return f"the unit's reference is not usable ({check.status}: {str(check.reason or '')[:300]})"
    if not paths.reference(unit).exists():
        return "the unit has no eager reference (reference.py)"
    return None


def judge_candidate(
    paths: ProblemPaths, unit: str, candidate: Path, cfg: dict[str, Any]
) -> tuple[GateVerdict, GateVerdict]:
    """Gates 1 and 2 of one candidate file (the rule ``gate12`` and ``kernelopt check``)."""
    why = not_checkable(paths, unit)
    if why:
        v = GateVerdict(
            1,
            NOT_CHECKABLE_VERDICT,
            f"{UNIT_NOT_CHECKABLE}: {why}; candidates of this unit are not judged",
            rule=UNIT_NOT_CHECKABLE,
        )
        return v, GateVerdict(2, NOT_CHECKABLE_VERDICT, v.reason, rule=UNIT_NOT_CHECKABLE)
    contract = Contract.load(paths.contract(unit))
    probs = static_problems(Path(candidate).read_text(), contract)
    if probs:  # nothing runs: no process, no torch
        rule, msg, line = probs[0]
        more = f"; {len(probs) - 1} more finding(s)" if len(probs) > 1 else ""
        findings = [{"rule": r, "message": m, "line": ln} for r, m, ln in probs]
        v1 = GateVerdict(
            1,
            FAIL,
            f"rule {rule}: {msg}" + (f" (line {line})" if line else "") + more,
            rule=rule,
            numbers={"findings": findings},
            candidate=str(candidate),
        )
        return v1, GateVerdict(2, SKIPPED, "gate 1 did not pass")
    from ..runner.harness import ProblemRuntime, UnitHarness
    from .isolated import check_unit

    with timed("prepare the device"):
        device = runtime.prepare(cfg["device"], paths.cache)

    def check() -> tuple[GateVerdict, GateVerdict]:
        with timed("rebuild the problem (model, saved arguments)"):
            harness = UnitHarness(paths, unit, ProblemRuntime.get(paths, device, cfg["seed"]))
        return check_unit(paths, unit, Path(candidate), cfg, harness)

    def on_fault(cause: str) -> tuple[GateVerdict, GateVerdict]:
        if cause.startswith(UNIT_NOT_CHECKABLE):
            v = GateVerdict(1, NOT_CHECKABLE_VERDICT, cause, rule=UNIT_NOT_CHECKABLE)
            return v, GateVerdict(2, NOT_CHECKABLE_VERDICT, cause, rule=UNIT_NOT_CHECKABLE)
        v = GateVerdict(1, ERROR, f"{INFRASTRUCTURE}: {cause}", rule=INFRASTRUCTURE, candidate=str(candidate))
        return v, GateVerdict(2, ERROR, v.reason, rule=INFRASTRUCTURE, candidate=str(candidate))

    return retry_alone(device, f"gates 1-2 {paths.problem}/{unit}", check, on_fault)


def run_gate12(paths: ProblemPaths, unit: str, slot: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """Gates 1 and 2 for the candidate in slot ``slot`` of ``unit`` (``cands/c<k>``, ``iter<i>/cand<j>``, ...)."""
    d = paths.slot(unit, slot)
    info = Slot.load(d.slot)
    if info.empty:
        v1, v2 = (
            GateVerdict(1, SKIPPED, "empty slot: no candidate"),
            GateVerdict(2, SKIPPED, "empty slot: no candidate"),
        )
    elif info.origin == "inductor" and (why := _baseline_outside_form(paths, unit, d.candidate)):
        v1, v2 = GateVerdict(1, SKIPPED, why), GateVerdict(2, SKIPPED, why)
    else:
        v1, v2 = judge_candidate(paths, unit, d.candidate, cfg)
    _write(paths, unit, slot, 1, v1)
    return _write(paths, unit, slot, 2, v2)


def _baseline_outside_form(paths: ProblemPaths, unit: str, candidate: Path) -> str | None:
    """Why Inductor's code for a graph-level unit is not judged: its library calls (an ATen pool,
    a GEMM) are outside the checked form by design, and judged it would fail gate 1 as if
    Inductor's code tampered with the harness.  It stays the baseline the candidates are timed
    against.  None where it is in the form (Triton kernels only: judged as any candidate)."""
    if not paths.contract(unit).exists():
        return None
    contract = Contract.load(paths.contract(unit))
    if not contract.rewrite:
        return None
    probs = static_problems(candidate.read_text(), contract)
    if not probs:
        return None
    return (
        f"Inductor's code for this graph-level unit is the baseline, timed, not judged: it is "
        f"outside the candidates' form ({probs[0][1]})"
    )


def _write(paths: ProblemPaths, unit: str, slot: str, gate: int, v: GateVerdict) -> dict[str, Any]:
    out = replace(v, slot=slot, unit=unit).save(paths.slot(unit, slot).gate(gate))
    print(f"[gate{gate}] {paths.problem}/{unit}/{slot}: {v.verdict}: {v.reason}")
    return out


def run_gate3(paths: ProblemPaths, attempt: int, cfg: dict[str, Any], directory: Path | None = None) -> dict[str, Any]:
    from .model import gate3

    d = AttemptPaths(directory) if directory else paths.attempt(attempt)
    plan = StitchPlan.load(d.plan)
    if not plan.stitched:
        v = GateVerdict(3, SKIPPED, plan.reason or "nothing stitched")
    else:
        device = runtime.prepare(cfg["device"], paths.cache)
        v = retry_alone(
            device,
            f"gate 3 {paths.problem}",
            lambda: gate3(paths, plan, d.output_code, cfg),
            lambda cause: GateVerdict(3, ERROR, f"{INFRASTRUCTURE}: {cause}", rule=INFRASTRUCTURE),
        )
    return _write_attempt(paths, d, attempt, 3, v)


def run_gate4(paths: ProblemPaths, attempt: int, cfg: dict[str, Any], directory: Path | None = None) -> dict[str, Any]:
    d = AttemptPaths(directory) if directory else paths.attempt(attempt)
    g3 = GateVerdict.load(d.gate(3))
    tol = {"perf_margin": cfg["gates"]["perf_margin"], "decision": DECISION}
    if not g3.passed:
        v = GateVerdict(4, SKIPPED, f"gate 3 did not pass ({g3.verdict})", tolerances=tol)
    else:
        device = runtime.prepare(cfg["device"], paths.cache)
        v = retry_alone(
            device,
            f"gate 4 {paths.problem}",
            lambda: gate4(paths, d.output_code, cfg),
            lambda cause: GateVerdict(4, ERROR, f"{INFRASTRUCTURE}: {cause}", rule=INFRASTRUCTURE, tolerances=tol),
        )
    return _write_attempt(paths, d, attempt, 4, v)


def _write_attempt(
    paths: ProblemPaths, d: AttemptPaths, attempt: int | str, gate: int, v: GateVerdict
) -> dict[str, Any]:
    out = replace(v, attempt=attempt).save(d.gate(gate))
    print(f"[gate{gate}] {paths.problem} attempt {attempt}: {v.verdict}: {v.reason}")
    return out
