"""A per-GPU reader-writer lock: timing holds the GPU alone, correctness runs share it.

Many jobs may share one GPU (``snakemake --resources gpu=N`` with N > GPUs): Python start-up,
model building and parsing overlap freely.  Measurements (timing, gate 4, the NCU harness
around its profiled launches) take the lock ``exclusive``ly, so no other kernel runs while
they measure; correctness runs (gates 1-3, the isolate check; gates 1-2 in their child
process, from its first CUDA work on), warm-ups with their JIT compiles, and max-autotune
compiles take it ``shared``: several run at once, but never during a measurement.  A compile's
runtime autotuning is a measurement too (the config it picks is the baseline every stage pins):
it holds the lock alone.
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
import inspect
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
        waited = _take(f, turn, mode, what)
        t_held = time.perf_counter()
        try:
            yield waited
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
            HELD["exclusive" if mode == fcntl.LOCK_EX else "shared"] += time.perf_counter() - t_held


def _take(f: Any, turn: Any, mode: int, what: str) -> float:
    """Take the lock file ``f`` in ``mode`` through the turnstile; the seconds waited."""
    t0 = time.perf_counter()
    fcntl.flock(turn.fileno(), fcntl.LOCK_EX)  # queue behind any waiting measurement
    try:
        fcntl.flock(f.fileno(), mode)
    finally:
        fcntl.flock(turn.fileno(), fcntl.LOCK_UN)
    waited = time.perf_counter() - t0
    if waited > 1.0:
        print(f"[gpu-lock] waited {waited:.1f} s for {lock_path()} ({what})", flush=True)
    return waited


# Inductor's runtime autotuning of a kernel (``CachingAutotuner``): the benchmark of every
# precompiled config, then the coordinate descent from the best one
AUTOTUNE_METHODS = ("autotune_to_one_config", "coordinate_descent_tuning")
# ... and the compile of one config, which the descent calls for every config it tries
COMPILE_METHOD = "_precompile_config"


class CompileLease:
    """The GPU held shared by a ``torch.compile`` (max-autotune), but only while the compile
    works on the GPU: the Inductor lowering and code generation (minutes of CPU work for a large
    problem) give the lock back, the autotuning benchmarks inside them take it again for the
    length of each benchmark, the compiled model's runs hold it as before, and a kernel's runtime
    autotuning in those runs holds it alone (``exclusively``) but for the configs it compiles
    (``compiling``).  Held across the
    whole compile, one slow compile kept every measurement waiting and, behind the measurement's
    turnstile, every other job (bench/README.md, "The capture's footprint").  A no-op on the CPU,
    in a jailed child and under a parent's exclusive hold."""

    def __init__(self, device: str, what: str = "compile"):
        import threading

        self.what = what
        self.active = device == "cuda" and os.environ.get(HELD_BY_PARENT) != "1" and REMOTE is None
        self._mutex = threading.Lock()
        self._holders = 0  # the compile's own hold (unless paused) plus benchmarks in flight
        self._paused = 0
        self._exclusive = 0  # runtime autotunings in flight (nested ones count once)
        self._stepped_out = 0  # compiles inside an autotuning, the exclusive hold given back
        self._since = 0.0
        self._since_exclusive = 0.0
        self._undo: list[Any] = []

    def __enter__(self) -> CompileLease:
        if self.active:
            path = lock_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            self._f, self._turn = open(path, "a+"), open(path.with_suffix(".turnstile"), "a+")
            self._hold(+1)
            self._patch()
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self.active:
            return
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()
        if not self._paused:
            self._hold(-1)
        self._f.close()
        self._turn.close()

    def _hold(self, delta: int) -> None:
        with self._mutex:
            before = self._holders
            self._holders += delta
            if before == 0 and self._holders == 1:
                _take(self._f, self._turn, fcntl.LOCK_SH, self.what)
                self._since = time.perf_counter()
            elif before == 1 and self._holders == 0:
                fcntl.flock(self._f.fileno(), fcntl.LOCK_UN)
                HELD["shared"] += time.perf_counter() - self._since

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """CPU work: the compile's own hold given back (nested pauses count once)."""
        with self._mutex:
            self._paused += 1
            first = self._paused == 1
        if first:
            self._hold(-1)
        try:
            yield
        finally:
            with self._mutex:
                self._paused -= 1
                last = self._paused == 0
            if last:
                self._hold(+1)

    @contextlib.contextmanager
    def benchmarking(self) -> Iterator[None]:
        """GPU work inside a pause (an autotuning benchmark): the lock held for its length."""
        self._hold(+1)
        try:
            yield
        finally:
            self._hold(-1)

    @contextlib.contextmanager
    def exclusively(self) -> Iterator[None]:
        """The GPU held alone for a runtime autotuning (Inductor choosing a kernel's config by
        timing each one, then its coordinate descent): timed beside other jobs' correctness
        work, the choice was noise (bench/README.md, "Pinned baselines"), and the config chosen
        is the one every later stage and the deployed model pin.  The compile's own shared hold
        is given back first and taken again after; benchmarks inside only count."""
        with self._mutex:
            self._exclusive += 1
            if self._exclusive == 1:
                if self._holders:
                    fcntl.flock(self._f.fileno(), fcntl.LOCK_UN)
                    HELD["shared"] += time.perf_counter() - self._since
                self._holders += 1
                _take(self._f, self._turn, fcntl.LOCK_EX, f"autotune in {self.what}")
                self._since_exclusive = time.perf_counter()
        try:
            yield
        finally:
            with self._mutex:
                self._exclusive -= 1
                if self._exclusive == 0:
                    self._holders -= 1
                    HELD["exclusive"] += time.perf_counter() - self._since_exclusive
                    if self._holders:
                        # back to shared by converting the lock, not through the turnstile: a
                        # taker already waiting there holds it while it waits for this exclusive
                        # hold to end (on the H200 every capture waited for the others that way)
                        fcntl.flock(self._f.fileno(), fcntl.LOCK_SH)
                        self._since = time.perf_counter()
                    else:
                        fcntl.flock(self._f.fileno(), fcntl.LOCK_UN)

    @contextlib.contextmanager
    def compiling(self) -> Iterator[None]:
        """CPU work inside a runtime autotuning: the coordinate descent compiling a config it
        has not built (a second or so of Triton's compiler each, most of a descent's time).
        Holding the GPU alone across it kept every other job's correctness work off an idle GPU
        (on the H100, 209 s of a 1,121-s run were captures' exclusive holds).  The hold is given
        back for the compile and taken again, alone, for the benchmarks that follow; outside an
        autotuning (the compile's own precompiles) nothing changes."""
        with self._mutex:
            out = self._exclusive > 0 and self._stepped_out == 0
            self._stepped_out += 1
            if out:
                fcntl.flock(self._f.fileno(), fcntl.LOCK_UN)
                HELD["exclusive"] += time.perf_counter() - self._since_exclusive
        try:
            yield
        finally:
            with self._mutex:
                self._stepped_out -= 1
                if out:
                    _take(self._f, self._turn, fcntl.LOCK_EX, f"autotune in {self.what}")
                    self._since_exclusive = time.perf_counter()

    def _patch(self) -> None:
        """Pause around Inductor's lowering and code generation; hold around its benchmarks;
        hold alone around a kernel's runtime autotuning, but for the compiles inside it."""
        from torch._inductor.graph import GraphLowering
        from torch._inductor.runtime import benchmarking
        from torch._inductor.runtime.triton_heuristics import CachingAutotuner

        def wrap(owner: Any, name: str, ctx: Any) -> None:
            orig = owner.__dict__[name]

            def wrapped(*args: Any, **kwargs: Any) -> Any:
                with ctx():
                    return orig(*args, **kwargs)

            setattr(owner, name, wrapped)
            self._undo.append(lambda: setattr(owner, name, orig))

        for name in ("run", "compile_to_module"):
            wrap(GraphLowering, name, self.paused)
        for cls in type(benchmarking.benchmarker).__mro__:
            for name, fn in list(vars(cls).items()):
                if name.startswith("benchmark") and inspect.isfunction(fn):  # methods, not properties
                    wrap(cls, name, self.benchmarking)
        for name in AUTOTUNE_METHODS:
            if inspect.isfunction(CachingAutotuner.__dict__.get(name)):
                wrap(CachingAutotuner, name, self.exclusively)
        if inspect.isfunction(CachingAutotuner.__dict__.get(COMPILE_METHOD)):
            wrap(CachingAutotuner, COMPILE_METHOD, self.compiling)
