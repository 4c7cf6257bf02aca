"""Timing.  This first version takes a simple median over repetitions; the Gates issue
replaces it with the interleaved, L2-flushed, confidence-interval protocol (DESIGN.md §6).

On CPU (the Triton interpreter) the numbers are recorded but marked not meaningful.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable


@dataclass
class Timing:
    median_ms: float
    min_ms: float
    max_ms: float
    reps: int
    warmup: int
    method: str
    meaningful: bool
    samples_ms: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def median_time(fn: Callable[[], Any], device: str, *, warmup: int = 3, reps: int = 20) -> Timing:
    """Median wall time of ``fn`` (CUDA events per repetition on the GPU)."""
    for _ in range(warmup):
        fn()
    samples: list[float] = []
    if device == "cuda":
        import torch

        torch.cuda.synchronize()
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
        method = "cuda-events median (simple; no L2 flush)"
    else:
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
        method = "perf_counter median on CPU (Triton interpreter)"
    return Timing(
        median_ms=statistics.median(samples),
        min_ms=min(samples),
        max_ms=max(samples),
        reps=reps,
        warmup=warmup,
        method=method,
        meaningful=device == "cuda",
        samples_ms=[round(s, 6) for s in samples],
    )
