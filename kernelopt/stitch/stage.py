"""Stitch attempts: the best candidate per unit spliced into the captured wrapper.

Attempt 0 (``stitch/``) takes each unit's rank-0 candidate from ``best.json``; directed retry
k (``stitch/retries/r<k>/``) the rank-k ones, or passes through when attempt k-1 passed gates
3-4 (the DAG is static: retries are fixed slots).  ``output_code.py`` in the attempt's
directory is exactly the module gates 3-4 run; ``plan.json`` says what replaced what, why a
fused unit or its parts were taken, and carries the proof gate 3 checks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.records import AttemptPaths, Best, Contract, GateVerdict, PlanStatus, ProblemPaths, StitchPlan
from ..gates.verdict import PASS, SKIPPED_BY_MODE
from ..select.stage import INDUCTOR, no_candidate_reason, valid_alternatives
from .fusion import choose_fusions
from .proof import REGION_KEYS
from .splice import write_stitched


def plan_attempt(paths: ProblemPaths, units: list[str], attempt: int, cfg: dict[str, Any]) -> StitchPlan:
    """Which candidate replaces each unit in this attempt; attempts after a passing one pass through."""
    at = paths.attempt(attempt)
    d = at.dir
    d.mkdir(parents=True, exist_ok=True)
    prev = paths.previous_attempt(attempt)
    if prev is not None:
        if not StitchPlan.load(prev.plan).stitched or (
            GateVerdict.load(prev.gate(3)).passed and GateVerdict.load(prev.gate(4)).verdict in (PASS, SKIPPED_BY_MODE)
        ):
            plan = StitchPlan(attempt, PlanStatus.PASSED_THROUGH, reason=f"attempt {attempt - 1} needs no retry")
            plan.save(at.plan)
            at.output_code.write_text("# no retry needed\n")
            return plan
    replacements: dict[str, str] = {}
    for unit in units:
        best = Best.load(paths.best(unit))
        ranked = [p for p in best.ranked if p != INDUCTOR or cfg["gates"]["replace_with_inductor"]]
        if cfg["device"] != "cpu" and best.meaningful:
            # on the GPU, a candidate measured slower than Inductor's kernel is not worth a stitch
            ranked = [p for p in ranked if p == INDUCTOR or (best.candidates[p].get("ratio") or 1.0) < 1.0]
        if attempt < len(ranked):
            replacements[unit] = str(paths.member_candidate(unit, ranked[attempt]))
    replacements, fusion_choice = choose_fusions(
        paths, replacements, best_of={u: Best.load(paths.best(u)) for u in replacements}
    )
    if not replacements:
        reason = (
            no_candidate_reason(valid_alternatives(paths, units))
            if attempt == 0
            else f"no rank-{attempt} candidates left"
        )
        plan = StitchPlan(attempt, PlanStatus.NO_CANDIDATES, reason=reason)
        plan.save(at.plan)
        at.output_code.write_text("# nothing to stitch\n")
        return plan
    info = stitch_units(paths, {u: Path(f) for u, f in replacements.items()}, d)
    plan = StitchPlan(attempt, PlanStatus.STITCHED, replacements, stitch=info, fusion_choice=fusion_choice or None)
    plan.save(at.plan)
    print(
        f"[stitch] {paths.problem} attempt {attempt}: replaced {sorted(info['replaced'])}"
        + (f", dropped {info['dropped']} (fused)" if info.get("dropped") else "")
    )
    return plan


def stitch_units(paths: ProblemPaths, replacements: dict[str, Path], directory: Path) -> dict[str, Any]:
    """Splice {unit: candidate file} into the baseline wrapper; a fused unit replaces its
    consumer's kernel and drops its producer's launch; a region replaces its last member's
    kernel and drops the other members' launches."""
    kernel_files, fusions, regions, rewrites = {}, [], [], []
    for u, f in replacements.items():
        c = Contract.load(paths.contract(u))
        kernel_files[c.kernel] = Path(f)
        if c.rewrite:
            rewrites.append({**{k: v for k, v in c.rewrite.items() if k != "kernel_contracts"}, "unit": u})
        if c.fused:
            fusions.append({**{k: v for k, v in c.fused.items() if not k.endswith("_contract")}, "unit": u})
        if c.region:
            regions.append({**{k: v for k, v in c.region.items() if k in REGION_KEYS}, "unit": u})
    return write_stitched(paths.output_code, directory, kernel_files, fusions, regions, rewrites)


def stitch_directly(paths: ProblemPaths, replacements: dict[str, Path], directory: Path) -> StitchPlan:
    """Stitch given candidate files {unit: file} into ``directory`` (for ``kernelopt stitch-check``)."""
    info = stitch_units(paths, {u: Path(f) for u, f in replacements.items()}, directory)
    plan = StitchPlan("cli", PlanStatus.STITCHED, {u: str(f) for u, f in replacements.items()}, stitch=info)
    plan.save(AttemptPaths(directory).plan)
    return plan
