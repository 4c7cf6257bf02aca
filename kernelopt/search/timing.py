"""Isolated timing of candidates against Inductor's kernel for a unit, on the unit's real inputs
of the run's seed, interleaved (``measure.compare``).  Used by the search's ``select_iter`` and by
``select``, and for one candidate's time by the search's ``profile``.

The candidates run only in a sandboxed child (``gates/sandbox.py``, jobs ``timing`` and ``time``),
which takes the GPU lock itself (shared while warming up, exclusively while measuring).  A child
that fails (a candidate that hangs or crashes when timed) is retried one candidate at a time, so
that one bad candidate does not take the others' times with it; whatever cannot be timed comes
back as ``None`` with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core import gpulock, measure, runtime
from ..core.jsonio import read_json
from ..core.paths import ProblemPaths
from ..gates import sandbox
from ..gates.faults import InfrastructureFault, looks_like_oom
from ..isolate.harness import ProblemRuntime, UnitHarness


def unit_harness(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> UnitHarness:
    """The unit's harness in this process (device prepared, the captured problem rebuilt)."""
    device = runtime.prepare(cfg["device"], paths.cache)
    return UnitHarness(paths, unit, ProblemRuntime(paths, device, cfg["seed"]))


def unit_time_ms(paths: ProblemPaths, unit: str) -> float | None:
    """Inductor's kernel time for the unit at capture (classify's profile)."""
    disp = read_json(paths.dispatch)
    return next((u.get("time_ms") for u in disp.get("units", []) if u["id"] == unit), None)


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

    def timed(cands: list[Path]) -> sandbox.Outcome:
        job = {
            "kind": "timing",
            "device": device,
            "inductor": str(paths.candidate_dir(unit, 0) / "candidate.py"),
            "candidates": [str(c) for c in cands],
            "args": args,
            "protocol": protocol.__dict__,
            "what": what,
        }
        return sandbox.run(job, _budget(paths, unit, cfg, protocol, len(cands) + 1), cache=paths.cache)

    outcome = timed(candidates)
    if outcome.status == "ok":
        gpulock.add_held(outcome.reply.get("lock_held_s") or {})
        return [_comparison(c) for c in outcome.reply["comparisons"]]
    print(
        f"[{what}] timing {len(candidates)} candidate(s) together {outcome.status} ({outcome.detail}); "
        "one at a time now",
        flush=True,
    )
    out: list[measure.Comparison | None] = []
    for cand in candidates:
        one = timed([cand])
        if one.status == "ok":
            gpulock.add_held(one.reply.get("lock_held_s") or {})
            out.append(_comparison(one.reply["comparisons"][0]))
        else:
            if looks_like_oom(one.log_tail):
                raise InfrastructureFault(f"{what}: out of memory while timing {cand.name}")
            print(f"[{what}] {cand}: not timed: {one.status} ({one.detail})", flush=True)
            out.append(None)
    return out


def _comparison(d: dict[str, Any]) -> measure.Comparison:
    return measure.Comparison(**{k: v for k, v in d.items() if k in measure.Comparison.__dataclass_fields__})


def time_candidate(
    paths: ProblemPaths, unit: str, cfg: dict[str, Any], candidate: Path, what: str
) -> tuple[dict[str, Any] | None, UnitHarness]:
    """One candidate's median time by the measurement protocol (the profile's timing), or None."""
    h = unit_harness(paths, unit, cfg)
    protocol = measure.for_device(cfg["measure"], h.rt.device)
    job = {
        "kind": "time",
        "device": h.rt.device,
        "candidate": str(candidate),
        "args": _args(h, cfg["seed"]),
        "protocol": protocol.__dict__,
        "what": what,
    }
    outcome = sandbox.run(job, _budget(paths, unit, cfg, protocol, 1), cache=paths.cache)
    if outcome.status != "ok":
        if looks_like_oom(outcome.log_tail):
            raise InfrastructureFault(f"{what}: out of memory while timing {candidate.name}")
        print(f"[{what}] not timed: {outcome.status} ({outcome.detail})", flush=True)
        return None, h
    gpulock.add_held(outcome.reply.get("lock_held_s") or {})
    return outcome.reply["time"], h
