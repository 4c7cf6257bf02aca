"""Gate 4: the stitched model's time against the baseline's.

Both wrappers (``Models``: fresh loads, configs pinned) are replayed each in one CUDA graph,
built the same way, and timed interleaved by ``measure.compare``; the gate passes iff the upper
bound of the 95% confidence interval of time(stitched)/time(baseline) is at most
1 + ``perf_margin``.  In CPU mode the times mean nothing: ``skipped-by-mode``, never a pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core import gpulock, measure
from ..core.paths import ProblemPaths
from .model import Models
from .verdict import FAIL, PASS, SKIPPED_BY_MODE, GateVerdict

DECISION = "pass iff the upper bound of the 95% CI of time(stitched)/time(baseline) <= 1 + perf_margin"


def gate4(paths: ProblemPaths, stitched: Path, cfg: dict[str, Any]) -> GateVerdict:
    import torch

    gc = cfg["gates"]
    tol = {"perf_margin": gc["perf_margin"], "decision": DECISION}
    m = Models(paths, cfg, stitched)
    args = m.rt.call_args(0, gc["seeds"][0])
    # warm-up, JIT compiles and graph capture share the GPU; only the timing holds it alone
    with torch.no_grad(), gpulock.shared(m.device, f"gate4 warm-up {paths.problem}"):
        fa = measure.graphed(lambda: m.base.call(list(args)), m.device)
        fb = measure.graphed(lambda: m.stitched.call(list(args)), m.device)
    with torch.no_grad(), gpulock.exclusive(m.device, f"gate4 {paths.problem}"):
        cmp = measure.compare(fa, fb, m.device, measure.for_device(cfg["measure"], m.device))
    numbers = {**cmp.to_dict(), "cuda_graphs": m.device == "cuda", "config_pins": m.pins}
    times = (
        f"stitched {cmp.b_ms:.4f} ms vs baseline {cmp.a_ms:.4f} ms: ratio {cmp.ratio:.4f} "
        f"(95% CI {cmp.ci_low:.4f}-{cmp.ci_high:.4f})"
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
