"""Isolated timing of candidates against Inductor's kernel for a unit, on the unit's real inputs
of the run's seed, interleaved (``measure.compare``).  Used by the search's ``select_iter`` and by
``select``, and for one candidate's time by the search's ``profile``.

The candidates run only in a jailed child (``runner/sandbox.py``, jobs ``timing`` and ``time``),
for which the judge takes the GPU lock (shared while warming up, exclusively while measuring).
A child that fails (a candidate that hangs or crashes when timed) is retried one candidate at a
time, so that one bad candidate does not take the others' times with it; whatever cannot be
timed comes back as ``None`` with the reason.  When not even Inductor's kernel can be timed the
same way (the control), the fault is the machine's: ``InfrastructureFault``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core import measure, runtime
from ..core.records import CANDIDATE_FILE, INDUCTOR_FILE, Dispatch, ProblemPaths
from . import sandbox
from .faults import InfrastructureFault
from .harness import ProblemRuntime, UnitHarness


def unit_harness(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> UnitHarness:
    """The unit's harness in this process (device prepared, the captured problem rebuilt)."""
    device = runtime.prepare(cfg["device"], paths.cache)
    return UnitHarness(paths, unit, ProblemRuntime.get(paths, device, cfg["seed"]))


def unit_time_ms(paths: ProblemPaths, unit: str) -> float | None:
    """Inductor's kernel time for the unit at capture (classify's profile)."""
    entry = Dispatch.load(paths.dispatch).unit(unit)
    return entry.time_ms if entry else None


def _args(h: UnitHarness, seed: int) -> list[Any]:
    import torch

    before, _ = h.inputs(seed)
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in before]


def _budget(paths: ProblemPaths, unit: str, cfg: dict[str, Any], protocol: measure.Protocol, kernels: int) -> float:
    launches = kernels * (2 + protocol.warmup + 2 * protocol.rounds * protocol.reps)
    return sandbox.budget_s(
        cfg["gates"]["timeout_s"], cfg["gates"]["timeout_factor"], unit_time_ms(paths, unit), launches
    )


def time_against_inductor(
    paths: ProblemPaths, unit: str, cfg: dict[str, Any], candidates: list[Path], what: str
) -> list[measure.Comparison | None]:
    """Each candidate's isolated time relative to Inductor's kernel; ``None`` (and a printed
    reason) for a candidate that could not be timed."""
    if not candidates:
        return []
    h = unit_harness(paths, unit, cfg)
    device = h.rt.device
    protocol = measure.for_device(cfg["measure"], device)
    args = _args(h, cfg["seed"])

    inductor = paths.cand(unit, 0).candidate

    def timed(cands: list[Path]) -> list[measure.Comparison | None] | sandbox.Outcome:
        files = {INDUCTOR_FILE: inductor, **{f"cand{i}.py": c for i, c in enumerate(cands)}}
        job = {
            "kind": "timing",
            "device": device,
            "inductor": INDUCTOR_FILE,
            "candidates": [f"cand{i}.py" for i in range(len(cands))],
            "args": args,
            "protocol": protocol.__dict__,
            "what": what,
        }
        budget = _budget(paths, unit, cfg, protocol, len(cands) + 1)
        outcome = sandbox.run(job, budget, cache=paths.cache, files=files, hidden=[paths.root.parent])
        comps = (outcome.reply or {}).get("comparisons")
        if outcome.status != "ok" or not isinstance(comps, list) or len(comps) != len(cands):
            return outcome
        return [_comparison(c) for c in comps]

    got = timed(candidates)
    if not isinstance(got, sandbox.Outcome):
        return got
    print(
        f"[{what}] timing {len(candidates)} candidate(s) together {got.status} ({got.detail}); one at a time now",
        flush=True,
    )
    out: list[measure.Comparison | None] = []
    for cand in candidates:
        one = timed([cand])
        if isinstance(one, sandbox.Outcome):
            print(f"[{what}] {cand}: not timed: {one.status} ({one.detail})", flush=True)
            out.append(None)
        else:
            out.append(one[0])
    if all(o is None for o in out):
        control = timed([inductor])
        if isinstance(control, sandbox.Outcome):
            raise InfrastructureFault(
                f"{what}: no candidate could be timed, and neither could Inductor's own kernel "
                f"({control.status}: {control.detail})"
            )
    return out


def _comparison(d: Any) -> measure.Comparison | None:
    """A child's comparison as numbers, or None when it is not one (its claim, checked for form)."""
    if not isinstance(d, dict):
        return None
    try:
        cmp = measure.Comparison(**{k: v for k, v in d.items() if k in measure.Comparison.__dataclass_fields__})
    except TypeError:
        return None
    ok = all(isinstance(x, (int, float)) and x == x and x >= 0 for x in (cmp.a_ms, cmp.b_ms, cmp.ratio))
    return cmp if ok else None


def time_candidate(
    paths: ProblemPaths, unit: str, cfg: dict[str, Any], candidate: Path, what: str
) -> tuple[dict[str, Any] | None, UnitHarness]:
    """One candidate's median time by the measurement protocol (the profile's timing), or None."""
    h = unit_harness(paths, unit, cfg)
    protocol = measure.for_device(cfg["measure"], h.rt.device)
    args = _args(h, cfg["seed"])

    def one(path: Path) -> tuple[dict[str, Any] | None, sandbox.Outcome]:
        job = {
            "kind": "time",
            "device": h.rt.device,
            "candidate": CANDIDATE_FILE,
            "args": args,
            "protocol": protocol.__dict__,
            "what": what,
        }
        budget = _budget(paths, unit, cfg, protocol, 1)
        out = sandbox.run(job, budget, cache=paths.cache, files={CANDIDATE_FILE: path}, hidden=[paths.root.parent])
        t = (out.reply or {}).get("time")
        ok = out.status == "ok" and isinstance(t, dict) and isinstance(t.get("median_ms"), (int, float))
        return (t if ok else None), out

    t, outcome = one(candidate)
    if t is None:
        print(f"[{what}] not timed: {outcome.status} ({outcome.detail})", flush=True)
        control, c_out = one(paths.cand(unit, 0).candidate)
        if control is None:
            raise InfrastructureFault(
                f"{what}: {candidate.name} could not be timed, and neither could Inductor's own kernel "
                f"({c_out.status}: {c_out.detail})"
            )
        return None, h
    return t, h
