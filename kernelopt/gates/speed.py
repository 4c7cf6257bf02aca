"""Gate 4: the stitched model's time against the baseline's.

Both wrappers are loaded in a sandboxed child (job ``speed``: fresh loads, configs pinned as at
capture), each replayed in one CUDA graph built the same way, and timed interleaved by
``measure.compare``; the child hands back the measurement and this process decides: pass iff
the upper bound of the 95% confidence interval of time(stitched)/time(baseline) is at most
1 + ``perf_margin``.  In CPU mode the times mean nothing: ``skipped-by-mode``, never a pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core import measure
from ..core.paths import ProblemPaths
from . import sandbox
from .faults import InfrastructureFault
from .model import Problem
from .verdict import FAIL, PASS, SKIPPED_BY_MODE, GateVerdict

DECISION = "pass iff the upper bound of the 95% CI of time(stitched)/time(baseline) <= 1 + perf_margin"


def gate4(paths: ProblemPaths, stitched: Path, cfg: dict[str, Any]) -> GateVerdict:
    gc = cfg["gates"]
    tol = {"perf_margin": gc["perf_margin"], "decision": DECISION}
    m = Problem(paths, cfg)
    protocol = measure.for_device(cfg["measure"], m.device)
    job = {
        "kind": "speed",
        "device": m.device,
        "problem_dir": str(paths.root),
        "stitched": str(stitched),
        "args": m.rt.call_args(0, m.rt.seed),
        "protocol": protocol.__dict__,
        "point": "gate4",
    }
    calls = 2 * (3 + protocol.warmup + protocol.rounds * protocol.reps) + 4
    budget = sandbox.budget_s(gc["timeout_s"], gc["timeout_factor"], m.model_ms(), calls)
    outcome = sandbox.run(job, budget, cache=paths.cache)
    if outcome.status != "ok":
        # the candidates' fault only if the baseline timed against itself the same way gets through
        control = sandbox.run(
            {**job, "stitched": str(paths.output_code), "point": "control"}, budget, cache=paths.cache
        )
        if control.status != "ok":
            raise InfrastructureFault(
                f"gate 4's child {outcome.status} ({outcome.detail}), "
                f"and so did the baseline timed alone ({control.status})"
            )
        rule = "timeout" if outcome.status == "timeout" else "crash"
        return GateVerdict(
            4,
            FAIL,
            f"rule {rule}: the stitched model {outcome.status} while timed ({outcome.detail})",
            rule=rule,
            tolerances=tol,
        )
    cmp = measure.Comparison(
        **{k: v for k, v in outcome.reply["comparison"].items() if k in measure.Comparison.__dataclass_fields__}
    )
    numbers = {
        **cmp.to_dict(),
        "cuda_graphs": m.device == "cuda",
        "config_pins": outcome.reply["pins"],
        "sandbox": outcome.reply.get("sandbox", {}),
    }
    times = (
        f"stitched {cmp.b_ms:.4f} ms vs baseline {cmp.a_ms:.4f} ms: "
        f"ratio {cmp.ratio:.4f} (95% CI {cmp.ci_low:.4f}-{cmp.ci_high:.4f})"
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
