"""A per-GPU reader-writer lock: timing holds the GPU alone, correctness runs share it.

Many jobs may share one GPU (``snakemake --resources gpu=N`` with N > GPUs): Python start-up,
model building and parsing overlap freely.  Measurements (timing, gate 4, the NCU harness
around its profiled launches) take the lock ``exclusive``ly, so no other kernel runs while
they measure; correctness runs (gates 1-3, the isolate check; gates 1-2 in their child
process, from its first CUDA work on), warm-ups with their JIT compiles, and max-autotune
compiles take it ``shared``: several run at once, but never during a measurement.
The lock is a ``flock`` on a file per visible GPU, released by the kernel if a job dies.

Writers come first: a plain ``flock`` lets overlapping readers starve a writer for as long
as any reader holds the lock, and with many gate jobs overlapping one always does
(bench/README.md, "Search, 5 iterations").  So every taker passes a turnstile (a second lock
file, held exclusively while it waits for the main lock): a waiting measurement holds the
turnstile, new readers queue behind it, and it gets the GPU as soon as the readers already in
finish.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

# set by a job that holds the GPU exclusively for a whole check (a retry after a fault): the
# processes it starts then take no lock of their own (they would wait for it forever)
HELD_BY_PARENT = "KERNELOPT_GPU_HELD_BY_PARENT"

# in a jailed child: the judge takes the lock on its behalf (``runner/child.py: RemoteLock``);
# the child cannot reach the lock files
REMOTE = None

# seconds this process held the lock, by mode: what a job really cost the GPU (its
# benchmark wall time also counts Python start-up and waiting for the lock)
HELD = {"exclusive": 0.0, "shared": 0.0}


def add_held(held: dict[str, float]) -> None:
    """Count the seconds a child process of this job held the lock, by mode, as it reported
    them (its own ``HELD``: the gate 1/2 child, the NCU harness)."""
    for mode, seconds in held.items():
        HELD[mode] += float(seconds)


def lock_dir() -> Path:
    """Where the GPU locks and the memory ledger (``gpumem``) live: ``KERNELOPT_LOCK_DIR``, else
    ``/tmp``, and inside a SLURM job ``/tmp/kernelopt-slurm-<job id>``: SLURM gives a job its
    GPUs alone and numbers them for the job (``CUDA_VISIBLE_DEVICES=0`` in every job of a node
    whose devices are confined), so one lock file per index in ``/tmp`` would make jobs on
    different GPUs of a node wait for one another.  Every process of the job (its sandboxed
    children, the NCU harness) sees the same job id, hence the same directory."""
    if os.environ.get("KERNELOPT_LOCK_DIR"):
        return Path(os.environ["KERNELOPT_LOCK_DIR"])
    job = os.environ.get("SLURM_JOB_ID", "").strip()
    return Path("/tmp") / f"kernelopt-slurm-{job}" if job.isdigit() else Path("/tmp")


def lock_path() -> Path:
    gpu = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip() or "0"
    return lock_dir() / f"kernelopt-gpu-{gpu}.lock"


@contextlib.contextmanager
def exclusive(device: str, what: str = "") -> Iterator[float]:
    """Hold the GPU alone (no-op on CPU).  Yields the seconds spent waiting."""
    with _locked(device, what, fcntl.LOCK_EX) as waited:
        yield waited


@contextlib.contextmanager
def shared(device: str, what: str = "") -> Iterator[float]:
    """Share the GPU with other correctness runs, never with a measurement (no-op on CPU)."""
    with _locked(device, what, fcntl.LOCK_SH) as waited:
        yield waited


@contextlib.contextmanager
def _locked(device: str, what: str, mode: int) -> Iterator[float]:
    if device != "cuda" or os.environ.get(HELD_BY_PARENT) == "1":
        yield 0.0
        return
    if REMOTE is not None:
        with REMOTE("exclusive" if mode == fcntl.LOCK_EX else "shared", what) as waited:
            yield waited
        return
    path = lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f, open(path.with_suffix(".turnstile"), "a+") as turn:
        t0 = time.perf_counter()
        fcntl.flock(turn.fileno(), fcntl.LOCK_EX)  # queue behind any waiting measurement
        try:
            fcntl.flock(f.fileno(), mode)
        finally:
            fcntl.flock(turn.fileno(), fcntl.LOCK_UN)
        waited = time.perf_counter() - t0
        if waited > 1.0:
            print(f"[gpu-lock] waited {waited:.1f} s for {path} ({what})", flush=True)
        t_held = time.perf_counter()
        try:
            yield waited
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
            HELD["exclusive" if mode == fcntl.LOCK_EX else "shared"] += time.perf_counter() - t_held
