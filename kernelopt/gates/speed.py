"""Gate 4: the stitched model's time against the baseline's.

Both wrappers are loaded in a jailed child (job ``speed``: fresh loads, configs pinned as at
capture), each replayed in one CUDA graph built the same way, and timed interleaved by
``measure.compare``; the child hands back the measurement and this process decides: pass iff
the upper bound of the 95% confidence interval of time(stitched)/time(baseline) is at most
1 + ``perf_margin``.  In CPU mode the times mean nothing: ``skipped-by-mode``, never a pass.

The times are measured inside the child by kernelopt's own code, around replays of the CUDA
graphs; the candidate form leaves a candidate no way to reach that code or a clock.  The judge
checks that they are numbers and that the child's run lasted at least as long as the times it
reports add up to (``_plausible``).
The GPU's clocks, temperature and power before and after the timed run are recorded beside
the numbers (``gpu_state``; ``hardware.gpu_state``): they decide nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core import hardware, measure
from ..core.records import ProblemPaths
from ..runner import sandbox
from .faults import InfrastructureFault
from .model import Problem
from .verdict import FAIL, PASS, SKIPPED_BY_MODE, GateVerdict, stitched_model_failed

DECISION = "pass iff the upper bound of the 95% CI of time(stitched)/time(baseline) <= 1 + perf_margin"


def gate4(paths: ProblemPaths, stitched: Path, cfg: dict[str, Any]) -> GateVerdict:
    gc = cfg["gates"]
    tol = {"perf_margin": gc["perf_margin"], "decision": DECISION}
    m = Problem(paths, cfg)
    protocol = measure.for_device(cfg["measure"], m.device)
    job, files = m.job(stitched, "gate4")
    job.update(kind="speed", args=m.rt.call_args(0, m.rt.seed), protocol=protocol.__dict__)
    calls = 2 * (3 + protocol.warmup + protocol.rounds * protocol.reps) + 4
    budget = sandbox.budget_s(gc["timeout_s"], gc["timeout_factor"], m.model_ms(), calls)
    hidden = [paths.root.parent]
    before = hardware.gpu_state(m.device)
    outcome = sandbox.run(job, budget, cache=paths.cache, files=files, hidden=hidden)
    gpu_state = {"before": before, "after": hardware.gpu_state(m.device)} if before is not None else None
    if outcome.status == "ok" and _comparison(outcome.reply) is None:
        outcome = sandbox.Outcome(None, "crash", "the child's reply holds no usable comparison", outcome.seconds)
    if outcome.status != "ok":
        # the candidates' fault only if the baseline timed against itself the same way gets through
        cjob, cfiles = m.job(paths.output_code, "control")
        cjob.update(kind="speed", args=job["args"], protocol=protocol.__dict__)
        control = sandbox.run(cjob, budget, cache=paths.cache, files=cfiles, hidden=hidden)
        if control.status != "ok":
            raise InfrastructureFault(
                f"gate 4's child {outcome.status} ({outcome.detail}), "
                f"and so did the baseline timed alone ({control.status})"
            )
        return stitched_model_failed(4, outcome.status, outcome.detail, "while timed", tolerances=tol)
    cmp = _comparison(outcome.reply)
    assert cmp is not None
    numbers = {
        **cmp.to_dict(),
        "cuda_graphs": m.device == "cuda",
        "config_pins": outcome.reply.get("pins"),
        "sandbox": sandbox.boundary(),
        "child_seconds": outcome.seconds,
        "gpu_state": gpu_state,
    }
    times = (
        f"stitched {cmp.b_ms:.4f} ms vs baseline {cmp.a_ms:.4f} ms: "
        f"ratio {cmp.ratio:.4f} (95% CI {cmp.ci_low:.4f}-{cmp.ci_high:.4f})"
    )
    if not _plausible(cmp, outcome.seconds):
        return GateVerdict(
            4,
            FAIL,
            f"rule perf-gate: the child reports {_reported_s(cmp):.2f} s of timed runs in a run of "
            f"{outcome.seconds:.2f} s; its times are not believed",
            rule="perf-gate",
            numbers=numbers,
            tolerances=tol,
        )
    if not cmp.meaningful:
        why = f"CPU mode: timings taken (ratio {cmp.ratio:.3f}) but not meaningful; gate 4 is not passed"
        return GateVerdict(4, SKIPPED_BY_MODE, why, numbers=numbers, tolerances=tol)
    if cmp.ci_high <= 1 + gc["perf_margin"]:
        return GateVerdict(4, PASS, f"{times} <= {1 + gc['perf_margin']:.2f}", numbers=numbers, tolerances=tol)
    return GateVerdict(
        4,
        FAIL,
        f"rule perf-gate: {times} exceeds {1 + gc['perf_margin']:.2f}",
        rule="perf-gate",
        numbers=numbers,
        tolerances=tol,
    )


def _comparison(reply: dict[str, Any] | None) -> measure.Comparison | None:
    """The child's comparison as numbers, or None when it is not one."""
    raw = (reply or {}).get("comparison")
    if not isinstance(raw, dict):
        return None
    fields = measure.Comparison.__dataclass_fields__
    try:
        cmp = measure.Comparison(**{k: v for k, v in raw.items() if k in fields})
    except TypeError:
        return None
    nums = [cmp.a_ms, cmp.b_ms, cmp.ratio, cmp.ci_low, cmp.ci_high]
    if not all(isinstance(x, (int, float)) and x == x and x >= 0 for x in nums):
        return None
    return cmp


def _reported_s(cmp: measure.Comparison) -> float:
    return cmp.rounds * cmp.reps * (cmp.a_ms + cmp.b_ms) / 1e3


def _plausible(cmp: measure.Comparison, child_seconds: float) -> bool:
    """The timed replays the child reports cannot add up to more than the child's whole run, as
    the judge measured it."""
    return _reported_s(cmp) <= 1.05 * child_seconds + 0.01
