"""The rules of the four gates: each reads its candidate slot or stitch attempt, runs its gate,
and writes ``gate<N>.json`` (``GateVerdict`` plus where it applies).

  gate1, gate2   one candidate slot of a unit (``cands/c<k>``, ``synth/a<k>``,
                 ``iter<i>/cand<j>[/r<r>]``); the candidate runs in a child process
  gate3, gate4   one stitch attempt (``stitch/``, ``stitch/retries/r<k>/``)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.jsonio import read_json, write_json
from ..core.paths import ProblemPaths
from .child import run_in_child
from .model import gate3
from .speed import DECISION, gate4
from .static import gate1, static_problems
from .verdict import PASS, SKIPPED, GateVerdict


def run_gate1(paths: ProblemPaths, unit: str, slot: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """Gate 1 for the candidate in slot ``slot`` of ``unit`` (``cands/c<k>``, ``iter<i>/cand<j>``, ...)."""
    d = paths.slot_dir(unit, slot)
    info = read_json(d / "slot.json")
    if info["empty"]:
        v = GateVerdict(1, SKIPPED, "empty slot: no candidate")
    else:
        contract = read_json(paths.contract(unit))
        if static_problems((d / "candidate.py").read_text(), contract):
            v = gate1(d / "candidate.py", contract, None, cfg["gates"]["seeds"][0])  # static rejection, nothing runs
        else:
            v = run_in_child(1, paths.unit(unit), d / "candidate.py", cfg)  # the child shares the GPU lock
    return _write(paths, unit, slot, 1, v)


def run_gate2(paths: ProblemPaths, unit: str, slot: str, cfg: dict[str, Any]) -> dict[str, Any]:
    d = paths.slot_dir(unit, slot)
    g1 = read_json(d / "gate1.json")
    if g1["verdict"] != PASS:
        v = GateVerdict(2, SKIPPED, f"gate 1 did not pass ({g1['verdict']})")
    else:
        v = run_in_child(2, paths.unit(unit), d / "candidate.py", cfg)  # the child shares the GPU lock
    return _write(paths, unit, slot, 2, v)


def _write(paths: ProblemPaths, unit: str, slot: str, gate: int, v: GateVerdict) -> dict[str, Any]:
    out = {**v.to_dict(), "slot": slot, "unit": unit}
    write_json(paths.slot_dir(unit, slot) / f"gate{gate}.json", out)
    print(f"[gate{gate}] {paths.problem}/{unit}/{slot}: {v.verdict}: {v.reason}")
    return out


def run_gate3(paths: ProblemPaths, attempt: int, cfg: dict[str, Any], directory: Path | None = None) -> dict[str, Any]:
    d = directory or paths.attempt_dir(attempt)
    plan = read_json(d / "plan.json")
    if plan["status"] != "stitched":
        v = GateVerdict(3, SKIPPED, plan.get("reason", "nothing stitched"))
    else:
        v = gate3(paths, plan, d / "output_code.py", cfg)
    return _write_attempt(paths, d, attempt, 3, v)


def run_gate4(paths: ProblemPaths, attempt: int, cfg: dict[str, Any], directory: Path | None = None) -> dict[str, Any]:
    d = directory or paths.attempt_dir(attempt)
    g3 = read_json(d / "gate3.json")
    if g3["verdict"] != PASS:
        tol = {"perf_margin": cfg["gates"]["perf_margin"], "decision": DECISION}
        v = GateVerdict(4, SKIPPED, f"gate 3 did not pass ({g3['verdict']})", tolerances=tol)
    else:
        v = gate4(paths, d / "output_code.py", cfg)
    return _write_attempt(paths, d, attempt, 4, v)


def _write_attempt(paths: ProblemPaths, d: Path, attempt: int | str, gate: int, v: GateVerdict) -> dict[str, Any]:
    out = {**v.to_dict(), "attempt": attempt}
    write_json(d / f"gate{gate}.json", out)
    print(f"[gate{gate}] {paths.problem} attempt {attempt}: {v.verdict}: {v.reason}")
    return out
