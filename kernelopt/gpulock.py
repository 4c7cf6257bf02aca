"""An exclusive per-GPU lock for timing-critical and GPU-heavy regions.

Many jobs may share one GPU (``snakemake --resources gpu=N`` with N > GPUs): Python start-up,
model building and parsing overlap, while compilation (whose autotuning benchmarks),
timing, profiling and correctness runs each hold the GPU alone, so measurements stay clean.
The lock is a ``flock`` on a file per visible GPU, released by the kernel if a job dies.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from typing import Iterator


def lock_path() -> Path:
    gpu = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip() or "0"
    base = Path(os.environ.get("KERNELOPT_LOCK_DIR", "/tmp"))
    return base / f"kernelopt-gpu-{gpu}.lock"


@contextlib.contextmanager
def exclusive(device: str, what: str = "") -> Iterator[float]:
    """Hold the GPU alone (no-op on CPU).  Yields the seconds spent waiting."""
    if device != "cuda":
        yield 0.0
        return
    path = lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        t0 = time.perf_counter()
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        waited = time.perf_counter() - t0
        if waited > 1.0:
            print(f"[gpu-lock] waited {waited:.1f} s for {path} ({what})", flush=True)
        try:
            yield waited
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
