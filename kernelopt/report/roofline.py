"""The roofline of a problem's result: how close Inductor's kernels, and the best candidate the
search found for each unit, came to the copy bandwidth (``search.peak_bandwidth_gbs``, the
H200's measured 4.3 TB/s: ``core/hardware.py``).

Bytes are what a unit must move: each tensor argument read once and each written once, from
its contract (``core/roofline.py``).  Inductor's time is the unit's profile of
Inductor's kernel (the timed roofline profile, else a paired timing's Inductor median, else
NCU's duration); a candidate's time is Inductor's times the candidate's measured time ratio.
On the CPU (or with no time) the percentages are ``None``: only the bytes are recorded.
"""

from __future__ import annotations

from typing import Any

from ..core.records import (
    Best,
    CandidateTiming,
    Capture,
    Contract,
    Dispatch,
    DispatchUnit,
    MemberProfile,
    ProblemPaths,
)
from ..core.roofline import (
    ON_CHIP_BYTES,
    achieved_gbs,
    bandwidth_pct,
    floor_ms,
    moved_bytes,
    reread_roof_pct,
    roof_share_pct,
    unit_loaded_only,
    unit_rereads,
)
from ..select.stage import valid_alternatives


def inductor_ms(paths: ProblemPaths, unit: str) -> tuple[float | None, str | None]:
    """Inductor's kernel time for the unit and where it came from."""
    ncu = None
    for f in sorted(paths.profile_summaries(unit)):
        prof = MemberProfile.load(f)
        if prof.empty or prof.member != "inductor":
            continue
        m = prof.metrics or {}
        if prof.source == "roofline" and m.get("meaningful") and m.get("time_ms"):
            return float(m["time_ms"]), f.relative_to(paths.root).as_posix()
        if prof.source == "ncu" and m.get("duration_us") and ncu is None:
            ncu = (float(m["duration_us"]) / 1e3, f.relative_to(paths.root).as_posix())
    for f in paths.search_timings(unit):
        t = CandidateTiming.load(f)
        if t.meaningful and t.a_ms:
            return float(t.a_ms), f.relative_to(paths.root).as_posix()
    for e in Best.load_or_empty(paths.best(unit)).candidates.values():
        t = e.get("timing") or {}
        if t.get("meaningful") and t.get("a_ms"):
            return float(t["a_ms"]), paths.best(unit).relative_to(paths.root).as_posix()
    return ncu if ncu else (None, None)


def timed_candidates(paths: ProblemPaths, unit: str) -> list[tuple[str, float]]:
    """(candidate, time ratio vs Inductor) of every candidate besides Inductor's that was timed
    with a meaningful result: those ranked and those the beam dropped."""
    return [(p, r) for _, p, r in valid_alternatives(paths, [unit]) if r is not None]


def _pct(nbytes: int, ms: float | None, peak_gbs: float) -> tuple[float | None, float | None]:
    """(GB/s, % of ``peak_gbs``) of moving ``nbytes`` in ``ms``; (None, None) without a time."""
    if not ms or ms <= 0:
        return None, None
    return achieved_gbs(nbytes, ms), bandwidth_pct(nbytes, ms, peak_gbs)


def unit_roofline(paths: ProblemPaths, unit: str, peak_gbs: float) -> dict[str, Any]:
    contract = Contract.load_or_none(paths.contract(unit))
    if contract is None:
        return {"unit": unit, "bytes": None, "why": "no contract"}
    loaded = unit_loaded_only(paths.inductor_kernel(unit), contract)
    nbytes = moved_bytes(contract, loaded)
    capture = Capture.load_or_none(paths.capture_record)
    cuda = capture is not None and capture.on_gpu
    ms, source = inductor_ms(paths, unit) if cuda else (None, None)
    gbs, pct = _pct(nbytes, ms, peak_gbs)
    out: dict[str, Any] = {
        "unit": unit,
        "bytes": nbytes,
        "inductor_ms": ms,
        "inductor_gbs": gbs,
        "inductor_pct": pct,
        "inductor_time_from": source,
        "best_candidate": None,
    }
    rereads = unit_rereads(paths.inductor_kernel(unit), contract)
    if rereads:
        out["rereads"] = rereads
        floor = reread_roof_pct(contract, rereads, loaded)
        if floor is not None:
            out["reread_roof_pct"] = floor
    cands = timed_candidates(paths, unit) if ms else []
    if cands:
        path, ratio = min(cands, key=lambda c: c[1])
        cgbs, cpct = _pct(nbytes, ms * ratio, peak_gbs)
        out["best_candidate"] = {"path": path, "ratio": ratio, "gbs": cgbs, "pct": cpct}
    return out


def problem_roofline(paths: ProblemPaths, units: list[str], peak_gbs: float) -> dict[str, Any]:
    """Per unit, and over the problem's units: all bytes over all of Inductor's time, and over
    the time with each unit's best timed candidate (Inductor's time where none was timed)."""
    per_unit = [unit_roofline(paths, u, peak_gbs) for u in units]
    # a fused pair or a region is its member kernels again: the problem's totals count each
    # kernel once
    try:
        disp = Dispatch.load(paths.dispatch).units
    except (OSError, ValueError):
        disp = []

    def _members(u: DispatchUnit) -> set[str]:
        if u.region:
            return set(u.region.get("member_units") or [])
        return {(u.fused or {}).get("producer_unit"), (u.fused or {}).get("consumer_unit")} - {None}

    members = {u.id: _members(u) for u in disp if u.composite}
    timed_ids = {r["unit"] for r in per_unit if r.get("inductor_ms")}
    for r in per_unit:
        if r["unit"] in members:
            r["composite"] = True
    # a composite unit stands in for its members only where none of them has a time of its own
    timed = [
        r for r in per_unit if r.get("inductor_ms") and (r["unit"] not in members or not members[r["unit"]] & timed_ids)
    ]
    total = sum(r["bytes"] for r in timed)
    t_ind = sum(r["inductor_ms"] for r in timed)
    t_best = sum(r["inductor_ms"] * (r["best_candidate"]["ratio"] if r["best_candidate"] else 1.0) for r in timed)
    any_cand = any(r["best_candidate"] for r in timed)
    out = {
        "peak_gbs": peak_gbs,
        "units": per_unit,
        "inductor_bw_pct": _pct(total, t_ind, peak_gbs)[1] if timed else None,
        "best_candidate_bw_pct": _pct(total, t_best, peak_gbs)[1] if any_cand else None,
    }
    if timed and any(r.get("reread_roof_pct") for r in timed):
        # the roof when the rows that do not fit on chip are read again: the bytes each unit
        # must then move, at the copy bandwidth, over the bytes each unit must move at least
        t_floor = sum(floor_ms(r["bytes"], r.get("reread_roof_pct") or 100.0, peak_gbs) for r in timed)
        out["reread_roof_pct"] = _pct(total, t_floor, peak_gbs)[1]
    return out


def describe(roof: dict[str, Any]) -> str | None:
    """One clause for a result's reason: where Inductor's kernels and the best candidate stood."""
    ind = roof.get("inductor_bw_pct")
    if ind is None:
        return None
    text = f"Inductor's kernels ran at {ind:.0f} % of the {roof['peak_gbs'] / 1000:.1f} TB/s copy bandwidth"
    kernels = [u for u in roof["units"] if not u.get("composite")]
    timed = sum(1 for u in kernels if u.get("inductor_ms"))
    if timed < len(kernels):
        text += f" (the {timed} of {len(kernels)} kernels with a time)"
    best = roof.get("best_candidate_bw_pct")
    if best is not None:
        text += f", the best candidates at {best:.0f} %"
    elif any(u.get("best_candidate") for u in roof["units"]):
        text += ", only candidates of fused pairs or regions were timed (per unit in the roofline)"
    else:
        text += ", no other candidate was timed"
    floor = roof.get("reread_roof_pct")
    if floor:
        rows = [r for u in roof["units"] for r in u.get("rereads", []) if not r["row_fits_on_chip"]]
        big = max(r["row_bytes"] for r in rows)
        text += (
            f"; a row of up to {big / 2**20:.1f} MiB does not fit in one SM's {ON_CHIP_BYTES // 1024} KiB of "
            f"registers and shared memory, so Inductor's kernel reads it twice, as any kernel must that keeps "
            f"a row to one SM: the roof at that traffic is {floor:.0f} %, and Inductor reached "
            f"{roof_share_pct(ind, floor):.0f} % of it"
        )
    return text
