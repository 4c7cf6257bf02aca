"""Synthesis coverage of a run directory (issue 8's measure): for every unit of every problem
classified optimizable, whether it is checkable (an eager reference gates 1-2 can use), whether
any synthesized slot (``synth/a<k>``) holds a candidate, and whether one passed gates 1-2; with
the reason where not.  A region's member (capture/regions.py) is covered through its region
when the region's synthesized candidate passed (``through_region``).  A unit the generator
left to Inductor's kernel on purpose (``declined``: a transposing copy) is not covered, and
counted apart.  ``kernelopt coverage
WORKDIR`` prints it; ``--json`` writes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.records import (
    Dispatch,
    GateVerdict,
    IsolateCheck,
    ProblemPaths,
    Slot,
    load_readable,
    problems_with_dispatch,
)


def unit_row(problem: str, u: Path) -> dict[str, Any]:
    paths, unit = ProblemPaths.of_unit(u)
    check = load_readable(IsolateCheck.load, paths.isolate_check(unit))
    slots = paths.synth_slots(unit)
    written, passed, why, declined = 0, 0, [], False
    for s in slots:
        info = load_readable(Slot.load, s.slot)
        if info is None or info.empty:
            why.append(str(info.reason if info and info.reason is not None else "empty"))
            declined = declined or bool(info and info.declined)
            continue
        written += 1
        g2 = load_readable(GateVerdict.load, s.gate(2))
        if g2 and g2.passed:
            passed += 1
        else:
            why.append(f"gate 2 {g2.verdict if g2 else 'not run'}: {str(g2.reason if g2 else '')[:200]}")
    checkable = bool(check and check.passed)
    status, reason = (check.status, check.reason) if check else (None, None)
    return {
        "problem": problem,
        "unit": u.name,
        "checkable": checkable,
        "not_checkable_because": None if checkable else f"{status}: {str('' if reason is None else reason)[:200]}",
        "synthesized": written,
        "passed_gates_1_2": passed,
        "why_not": [] if passed else why[:3],
        "declined": declined and not passed,
    }


def coverage(workdir: str | Path) -> dict[str, Any]:
    wd = Path(workdir)
    rows = []
    for problem in problems_with_dispatch(wd):
        try:
            disp = Dispatch.load(ProblemPaths(wd, problem).dispatch)
        except (OSError, ValueError):  # RecordError too: nothing to count
            continue
        if not disp.optimizable:
            continue
        mine = [unit_row(problem, u) for u in sorted((wd / problem / "units").glob("*")) if u.is_dir()]
        passed = {r["unit"] for r in mine if r["passed_gates_1_2"]}
        # a region's members (capture/regions.py) are checked, synthesized and replaced through it
        region_of = {
            m: e.id for e in disp.units if e.region and e.id in passed for m in e.region.get("member_units", [])
        }
        for r in mine:
            r["through_region"] = region_of.get(r["unit"]) if not r["passed_gates_1_2"] else None
            r["covered"] = bool(r["passed_gates_1_2"] or r["through_region"])
        rows += mine
    n = len(rows)
    ok = sum(1 for r in rows if r["covered"])
    return {
        "units": n,
        "with_a_synthesized_candidate_passing_gates_1_2": ok,  # itself or through its region
        "share": round(ok / n, 3) if n else None,
        "not_checkable": sum(1 for r in rows if not r["checkable"]),
        "declined": sum(1 for r in rows if r["declined"] and not r["covered"]),
        "rows": rows,
    }


def text(cov: dict[str, Any]) -> str:
    lines = []
    for r in cov["rows"]:
        state = "pass" if r["passed_gates_1_2"] else ("not checkable" if not r["checkable"] else "no")
        state = "declined" if r["declined"] and not r.get("through_region") else state
        alone = r["not_checkable_because"] or "; ".join(r["why_not"])
        why = "" if r["passed_gates_1_2"] else f"  ({alone[:160]})"
        if r.get("through_region"):
            state, why = "pass through its region", f"  ({r['through_region']}; alone: {alone[:100]})"
        lines.append(f"{r['problem'][:36]:36s} {r['unit'][:50]:50s} {state}{why}")
    share = f"{cov['share']:.0%}" if cov["share"] is not None else "n/a"
    lines.append(
        f"{cov['with_a_synthesized_candidate_passing_gates_1_2']} of {cov['units']} units of optimizable problems "
        f"({share}) have a synthesized candidate that passed gates 1-2; {cov['not_checkable']} not checkable; "
        f"{cov['declined']} declined (Inductor's kernel kept on purpose)"
    )
    return "\n".join(lines)
