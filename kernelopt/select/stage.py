"""Candidates and selection per unit.

  candidates   the fixed candidate slots of a unit: ``cands/c0`` = Inductor's kernel,
               ``cands/c1..`` = hand-written files from ``<candidates>/<problem>/<unit>*.py``
  select       ranks every candidate that passed gates 1-2 (hand-written slots and the
               search's final beam) by isolated time, interleaved against Inductor's kernel:
               ``best.json``, which the stitch attempts take in order

``valid_alternatives`` and ``no_candidate_reason`` tell, for the stitch plan and the result,
what was valid but not worth stitching.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.jsonio import sha256
from ..core.outputcode import jit_kernel_names
from ..core.records import Beam, Best, Capture, GateVerdict, Member, ProblemPaths, Slot, member_path
from ..gates.faults import retry_alone
from ..gates.verdict import NOT_CHECKABLE
from ..runner.timing import time_against_inductor

INDUCTOR = member_path("cands/c0")


def slot_count(cfg: dict[str, Any]) -> int:
    """Candidate slots per unit: Inductor's own kernel plus ``gates.user_candidates``."""
    return 1 + int(cfg["gates"]["user_candidates"])


def user_candidates(cfg: dict[str, Any], problem: str, unit: str) -> list[Path]:
    root = cfg.get("candidates")
    if not root:
        return []
    d = Path(root) / problem
    return sorted(p for p in d.glob(f"{unit}*.py")) if d.is_dir() else []


def prepare_slots(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """Fill the fixed candidate slots of a unit: c0 = Inductor's kernel, c1.. = user files."""
    files = [paths.inductor_kernel(unit), *user_candidates(cfg, paths.problem, unit)]
    slots = []
    for k in range(slot_count(cfg)):
        d = paths.cand(unit, k)
        d.dir.mkdir(parents=True, exist_ok=True)
        if k < len(files):
            shutil.copyfile(files[k], d.candidate)
            info = {
                "slot": k,
                "empty": False,
                "origin": "inductor" if k == 0 else "user",
                "source": str(files[k]),
                "sha256": sha256(d.candidate),
            }
        else:
            d.candidate.unlink(missing_ok=True)
            info = {"slot": k, "empty": True}
        Slot.from_dict(info).save(d.slot)
        slots.append(info)
    extra = files[slot_count(cfg) :]
    if extra:
        print(
            f"[candidates] {unit}: {len(extra)} candidate file(s) beyond "
            f"gates.user_candidates={cfg['gates']['user_candidates']} ignored: {[str(e) for e in extra]}"
        )
    return slots


def select(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> Best:
    """Rank every candidate of a unit that passed gates 1-2 (hand-written slots, and the search's
    final beam) by isolated time against Inductor's kernel.  ``ranked`` lists candidate files
    relative to the unit directory, best first; Inductor's own kernel is in it too."""
    best = _passed(paths, unit, cfg)
    if not best.candidates:
        best.save(paths.best(unit))
        return best
    device = Capture.load(paths.capture_record).device
    best = _time_user_candidates(paths, unit, cfg, best, device)
    entries = best.candidates
    if INDUCTOR in entries:
        entries[INDUCTOR].update(ratio=1.0, meaningful=device == "cuda")
    order = {"user": 0, "search": 1, "inductor": 2}

    def kernels(p: str) -> int:
        return len(jit_kernel_names((paths.unit(unit) / p).read_text()))

    def key(p: str) -> tuple:
        e = entries[p]
        if device == "cuda" and e.get("meaningful") and e.get("ratio") is not None:
            return (e["ratio"], order[e["origin"]], p)
        # CPU: times mean nothing; hand-written first, then searched; one kernel (a fusion) before a pair
        return (order[e["origin"]], kernels(p), p)

    best = replace(best, ranked=sorted(entries, key=key), meaningful=device == "cuda")
    best.save(paths.best(unit))
    how = "" if best.meaningful else " (by origin, not time: CPU-mode times mean nothing)"
    print(f"[select] {paths.problem}/{unit}: ranked {best.ranked}{how}")
    return best


def _passed(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> Best:
    """The unit's candidates that passed gates 1-2, unranked: its fixed slots and the search's
    final beam (with the ratios the search measured)."""
    candidates: dict[str, dict[str, Any]] = {}
    not_checkable, dropped = None, None
    for k in range(slot_count(cfg)):
        g2 = GateVerdict.load(paths.cand(unit, k).gate(2))
        if g2.passed:
            candidates[member_path(f"cands/c{k}")] = {"origin": "inductor" if k == 0 else "user"}
        elif g2.verdict == NOT_CHECKABLE and k == 0:
            not_checkable = g2.reason
    iters = int(cfg["search"]["iterations"])
    if iters > 0:
        beam = Beam.load(paths.iteration(unit, iters).beam)
        # timed, slower than the beam kept: not ranked, named in the report
        dropped = [m.as_dict() for m in beam.dropped or []] or None
        for m in beam.members:
            candidates.setdefault(
                m.path, {"origin": "search", "ratio": m.ratio, "meaningful": m.meaningful, "ci": m.ci}
            )
    return Best(unit, candidates, not_checkable=not_checkable, timed_out_of_beam=dropped)


def _time_user_candidates(paths: ProblemPaths, unit: str, cfg: dict[str, Any], best: Best, device: str) -> Best:
    """Time the user's candidates against Inductor's kernel (the search timed its own); one that
    hung or crashed when timed, or that a fault kept from being timed, leaves the ranking with
    the cause in ``not_timed`` (and a fault in ``infrastructure``)."""
    entries = best.candidates
    to_time = [p for p, e in entries.items() if p != INDUCTOR and e["origin"] == "user"]
    if not to_time or INDUCTOR not in entries:
        return best
    fault: dict[str, str] = {}

    def timed() -> list[Any]:
        return time_against_inductor(
            paths, unit, cfg, [paths.member_candidate(unit, p) for p in to_time], f"select {unit}"
        )

    def on_fault(cause: str) -> list[Any]:
        fault["cause"] = cause
        return [None] * len(to_time)

    cmps = retry_alone(device, f"select {paths.problem}/{unit}", timed, on_fault)
    not_timed: dict[str, str] = {}
    for p, cmp in zip(to_time, cmps):
        if cmp is None:  # hung or crashed when timed (or a fault): not ranked, and said so
            not_timed[p] = fault.get("cause") or "hung or crashed when timed in its sandbox"
            entries.pop(p)
            continue
        entries[p].update(
            ratio=cmp.ratio, ci=[cmp.ci_low, cmp.ci_high], meaningful=cmp.meaningful, timing=cmp.to_dict()
        )
    return replace(best, not_timed=not_timed or None, infrastructure=fault.get("cause"))


def valid_alternatives(paths: ProblemPaths, units: list[str]) -> list[tuple[str, str, float | None]]:
    """(unit, candidate, isolated time ratio vs Inductor) of every candidate other than
    Inductor's own kernel that passed gates 1-2 and was ranked or timed (a timed candidate
    the beam did not keep counts too: it passed the gates and was slower).  The ratio is None
    where the timing was not meaningful (the unit's or the candidate's own)."""
    out = []
    for u in units:
        best = Best.load_or_empty(paths.best(u))
        out += [(u, p, best.ratio(p)) for p in best.candidates if p != INDUCTOR]
        for m in map(Member.from_dict, best.timed_out_of_beam or []):
            out.append((u, m.path, m.ranked_ratio))
    return out


def no_candidate_reason(alts: list[tuple[str, str, float | None]]) -> str:
    """Why nothing was stitched, given ``valid_alternatives``."""
    if not alts:
        return "no candidate beyond Inductor's passed gates 1-2"
    timed = [a for a in alts if isinstance(a[2], (int, float))]
    closest = min(timed, key=lambda a: a[2]) if timed else None
    return (
        f"{len(alts)} candidate(s) besides Inductor's kernel passed gates 1-2, "
        "but none measured faster than Inductor's kernel in isolation"
        + (f" (closest: {closest[0]} {closest[1]} at {closest[2]:.4f} of its time)" if closest else "")
        + ": nothing to stitch, the baseline is kept"
    )
