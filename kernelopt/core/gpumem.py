"""GPU memory as a scheduled resource: what a job needs, which GPU it runs on, and a ledger that
lets no more jobs onto a GPU than its memory holds.

Every GPU rule declares two Snakemake resources (``rules/common.smk: gpu_resources``):

* ``gpu_mb``: the job's need in MiB, derived from what capture measured for the problem
  (``capture.json: memory``, the peak of the capture job itself, which ran the eager model,
  the compiled model and the comparisons) times a per-rule factor, plus a CUDA context per
  process; before capture has run, capture's own need is an estimate from the problem's
  shapes (``estimate_mb``: the model built and run on the ``meta`` device, nothing allocated).
* ``gpu_alone``: 1 on a retry (Snakemake's ``attempt`` > 1): the job takes a whole GPU.

At run time the job claims its need (``claim``) when it first prepares the device (``defer``,
``runtime.prepare``; a job with nothing to run on the GPU claims nothing): the ledger (a JSON
file per machine next to the GPU lock, under an ``flock``) holds one entry per running job
(pid, GPU, MiB); a job waits until one GPU's claimed total plus its need fits in that GPU's
memory minus a reserve, takes the GPU with the most room left, and sets
``CUDA_VISIBLE_DEVICES`` to it, so everything it starts (sandboxed children, the NCU harness)
runs on that GPU and takes that GPU's lock.  A job whose need exceeds a whole GPU waits for an
empty one.  Entries of dead processes are dropped, so a killed job never leaks memory.

This works with any ``--resources gpu=N`` (N bounds how many jobs start; the ledger bounds
which of them run at once) and with ``--resources gpu_mb=M`` (Snakemake then also bounds the
sum).  What each job really used is in ``<log>.gpu.json`` (``peak_mb``: the job's own
allocator peak plus the largest peak of a child; ``declared_mb``).

The GPUs and their memory come from ``nvidia-smi`` (restricted to ``CUDA_VISIBLE_DEVICES`` when
it is set, as SLURM does); ``KERNELOPT_GPUS="0:81920,1:81920"`` replaces that (tests, or a
machine without ``nvidia-smi``).  ``KERNELOPT_GPU_RESERVE_MB`` (default 4096 plus 5 % of the
GPU) is left free on every GPU.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import hardware, phases
from .records import Capture, Contract, JobGpu, job_gpu_record
from .roofline import tensor_bytes

# what every extra process on the GPU costs before it allocates anything (CUDA context, cuBLAS
# workspace, Triton's launcher): 500-900 MiB (docs/gpu.md, "The GPU machine"), declared in
# core/hardware.py
CONTEXT_MB = hardware.TARGET.cuda_context_mb
# processes a job of each rule runs on the GPU at once (the job, and its sandboxed child or
# the NCU harness)
PROCESSES = {"capture": 1, "isolate": 1}
# Needs, fitted to what the jobs of problems/large and problems/headroom used (bench/README.md,
# "GPU memory", "The search at 5 iterations" and "The capture's footprint").  Whole-problem rules
# declare the larger of two figures: a multiple of the capture job's measured peak (which holds
# the problem's intermediates and Inductor's workspace: what decides small problems; isolate
# held 1.0-1.33x it on problems/headroom, and 2.2-2.5x on the dilated max pools, which this
# does not cover: bench/README.md, "GPU memory learned from isolate") ...
FACTORS = {"capture": 1.0, "isolate": 1.35, "gate3": 1.5, "gate4": 1.0}
DEFAULT_FACTOR = 1.5
# ... and a multiple of the problem's own tensors (inputs, parameters, outputs: what decides
# GiB-sized problems, whose jobs hold several copies of them): isolate rebuilds the problem and
# copies a unit's arguments (3.1x on the GiB-sized ones); gate 3 runs the eager model, the baseline wrapper,
# the stitched one in its child and, on a mismatch, an FP64 copy (4-5x; the prefix sums of
# problems/headroom, judged against FP64, 6.2-8.4x: 21-35 GB); gate 4 the baseline and
# the stitched model in CUDA graphs side by side (2-2.6x).  The capture does not hold its eager
# outputs and compiled model beside the standalone runs, so its peak alone under-counts these.
PROBLEM_FACTORS = {"isolate": 3.3, "gate3": 10.0, "gate4": 3.0}
# ... and per-unit rules, as a multiple of the unit's own tensors (its contract's arguments):
# in gates 1-2 that is the child's share (the call's slots, the copies for Inductor's kernel
# beside the candidate's: 1.0-1.5x), profile and select hold one or two candidates'
# arguments and an L2 flush buffer, and declare close to what they use (a need above use keeps a
# job waiting for memory it will not touch)
UNIT_FACTORS = {"gate12": 1.5, "profile": 3.0, "select": 2.5, "select_iter": 2.5}
# ... plus the judging process's share, the larger of a multiple of the capture's peak and of the
# problem's tensors: it rebuilds the problem (inputs, parameters, the compiled wrapper's buffers
# up to the unit) and holds one input set and its judging temporaries beside it.  Gates 1-2's
# judge held 0.8-1.4x the capture's peak on problems/large (bench/README.md, "The judge's
# copies"); profile's and select's judge hold less
UNIT_PROBLEM_SHARES = {"gate12": 1.3}
UNIT_PROBLEM_SHARE = 0.15
UNIT_PROBLEM_FACTOR = 1.2
# ... and, once the unit's isolate job has run, a multiple of what it measured: it rebuilt the
# problem and drew the unit's input sets as gates 1-2's judge does.  On problems/headroom the
# judge held 0.74-1.12x the isolate job's peak, where the capture's peak missed by 2.5x on the
# dilated max pools (20 GB against 8 GB; bench/README.md, "GPU memory learned from isolate")
UNIT_JUDGE_FACTORS = {"gate12": 1.15}


def problem_mb(capture_memory: dict[str, Any] | None) -> float:
    """MiB of the problem's own tensors (inputs, parameters, outputs) as capture measured them;
    0 for a capture record without them (written before ``outputs_mb`` was recorded)."""
    mem = capture_memory or {}
    if mem.get("outputs_mb") is None:
        return 0.0
    return float(mem.get("inputs_mb") or 0) + float(mem.get("params_mb") or 0) + float(mem["outputs_mb"])


def need_mb(
    rule: str,
    capture_memory: dict[str, Any] | None,
    estimate: float | None,
    factor: float = 1.0,
    unit_mb: float | None = None,
    isolate_mb: float | None = None,
) -> int:
    """MiB a job of ``rule`` declares: from the unit's tensors (per-unit rules, once the unit is
    isolated) and the peak its isolate job measured (``isolate_mb``), else from capture's measured
    peak and the problem's tensors, else from the shape estimate (before capture), else 0
    (unknown: the caller's default)."""
    procs = PROCESSES.get(rule, 2)
    base = None
    peak = float((capture_memory or {}).get("job_peak_mb") or 0)
    problem = problem_mb(capture_memory)
    if unit_mb is not None and rule in UNIT_FACTORS:
        share = UNIT_PROBLEM_SHARES.get(rule, UNIT_PROBLEM_SHARE)
        judge = max(share * peak, UNIT_PROBLEM_FACTOR * problem, UNIT_JUDGE_FACTORS.get(rule, 0.0) * (isolate_mb or 0))
        base = float(unit_mb) * UNIT_FACTORS[rule] + judge
    elif peak:
        base = max(peak * FACTORS.get(rule, DEFAULT_FACTOR), problem * PROBLEM_FACTORS.get(rule, 0.0))
    elif estimate:
        base = float(estimate) * (FACTORS.get(rule, DEFAULT_FACTOR) if rule != "capture" else 1.0)
    if base is None:
        return 0
    return int(math.ceil(base * factor + procs * CONTEXT_MB))


def unit_mb(contract: Contract) -> float:
    """MiB of a unit's tensor arguments (inputs and outputs), from its contract; a region's
    (capture/regions.py) also counts its member kernels' arguments, which drawing its inputs
    holds (bench/README.md, "The search at 5 iterations", its run 12)."""
    total = 0
    members = (contract.region or {}).get("member_contracts", [])
    for a in [*contract.args, *(x for m in members for x in m.get("args", []))]:
        if a.get("kind") == "tensor":
            total += tensor_bytes(a)
    return total / 2**20


_CAPTURE_MEMORY: dict[tuple[str, float], dict[str, Any] | None] = {}
_UNITS: dict[tuple[str, float], float | None] = {}
_ESTIMATES: dict[str, float | None] = {}
_ISOLATED: dict[tuple[str, float], float | None] = {}


def _job_peak(record: Path) -> float | None:
    """The GPU memory a finished job's own process peaked at (its ``.gpu.json``), if recorded."""
    peak = (JobGpu.load(record).memory or {}).get("job_peak_mb")
    return float(peak) if peak else None


def _cached(cache: dict, f: Path, pick: Any) -> Any:
    """``pick(f)`` (a record's figure), once per file version; None for a file it cannot read."""
    key = (str(f), f.stat().st_mtime)
    if key not in cache:
        try:
            cache[key] = pick(f)
        except (OSError, ValueError, TypeError):  # RecordError too
            cache[key] = None
    return cache[key]


def rule_need_mb(
    rule: str,
    capture_json: str | Path,
    problem_path: str | Path,
    gpu_cfg: dict[str, Any],
    contract_json: str | Path | None = None,
    isolate_log: str | Path | None = None,
) -> int:
    """The ``gpu_mb`` resource of a job (``rules/common.smk``): from the unit's contract and its
    isolate job's record (``isolate_log``: per-unit rules), else from the problem's capture record
    (every rule after capture), else from the shape estimate, else ``gpu.default_mb``.  Files and
    estimates are read once per process (a file once per version)."""
    mem = units = isolated = None
    f = Path(capture_json)
    if rule != "capture" and f.exists():
        mem = _cached(_CAPTURE_MEMORY, f, lambda p: Capture.load(p).memory)
    if contract_json is not None and Path(contract_json).exists():
        units = _cached(_UNITS, Path(contract_json), lambda p: unit_mb(Contract.load(p)))
    if isolate_log is not None and job_gpu_record(isolate_log).exists():
        isolated = _cached(_ISOLATED, job_gpu_record(isolate_log), _job_peak)
    estimate = None
    if units is None and not (mem and mem.get("job_peak_mb")):
        if str(problem_path) not in _ESTIMATES:
            _ESTIMATES[str(problem_path)] = Estimator.shared().estimate(problem_path)
        estimate = _ESTIMATES[str(problem_path)]
    need = need_mb(rule, mem, estimate, float(gpu_cfg["need_factor"]), unit_mb=units, isolate_mb=isolated)
    return need or int(gpu_cfg["default_mb"])


class Estimator:
    """``estimate_mb`` in a helper process (``python -m kernelopt.core.gpumem``): the scheduler
    calls it while building the DAG, and a problem file is trusted code that must never run in
    the scheduler's own process.  One helper serves every estimate of a run (one torch import);
    an estimate that takes longer than ``TIMEOUT_S`` or a helper that dies gives None (the
    job claims the default), never an error of the scheduler."""

    TIMEOUT_S = 120.0
    _shared: Estimator | None = None

    def __init__(self) -> None:
        import sys

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kernelopt.core.gpumem"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},  # meta tensors only: no CUDA context
        )

    @classmethod
    def shared(cls) -> Estimator:
        if cls._shared is None or cls._shared.proc.poll() is not None:
            cls._shared = cls()
        return cls._shared

    def estimate(self, problem_path: str | Path) -> float | None:
        import select

        try:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(json.dumps(str(problem_path)) + "\n")
            self.proc.stdin.flush()
            while True:
                ready, _, _ = select.select([self.proc.stdout], [], [], self.TIMEOUT_S)
                if not ready:
                    raise TimeoutError(f"no answer in {self.TIMEOUT_S:.0f} s")
                line = self.proc.stdout.readline()
                if not line:
                    raise EOFError("the estimating process ended")
                if line.startswith(_ANSWER):  # anything else is the problem's own printing
                    return json.loads(line[len(_ANSWER) :])["mb"]
        except (OSError, ValueError, TimeoutError, EOFError, AssertionError) as e:
            print(f"[gpu-mem] no shape estimate for {problem_path}: {type(e).__name__}: {e}", flush=True)
            self.proc.kill()
            return None


_ANSWER = "kernelopt-estimate "


def _serve() -> None:
    """The estimating process: one problem path (JSON) per line in, one answer line out (the
    problem's own printing goes to stderr)."""
    import sys

    out, sys.stdout = sys.stdout, sys.stderr
    for line in sys.stdin:
        mb = estimate_mb(json.loads(line))
        out.write(_ANSWER + json.dumps({"mb": mb}) + "\n")
        out.flush()


def estimate_mb(problem_path: str | Path) -> float | None:
    """A capture job's need from the problem's shapes alone: the model built and run on the
    ``meta`` device (no memory, no kernels), counting inputs, parameters and outputs.  None if
    the problem does not run on ``meta`` (data-dependent code): the job then claims the
    default."""
    try:
        import torch

        from . import outputs, problems

        # not problems.build_model/make_inputs: they fall back to drawing on the CPU, and a
        # problem that cannot run on meta must cost the scheduler nothing
        mod = problems.load(problem_path).module
        with torch.device("meta"), _no_kernel_launches():
            model = mod.Model(*mod.get_init_inputs())
            inputs = mod.get_inputs()
            with torch.no_grad(), _Produced() as produced:
                out = model(*inputs)
        held = tensor_mb(outputs.tensors(inputs)) + tensor_mb(list(model.parameters()) + list(model.buffers()))
        out_mb = tensor_mb(outputs.tensors(out))
        # capture holds the inputs twice while the compiled model runs (CUDA graphs copy them
        # into static buffers), a few copies of the outputs (the compiled model's, their clones,
        # the standalone wrapper's and its CUDA graph's) and the forward's intermediates (eager,
        # compiled, autotuning): bench/README.md, "The capture's footprint"
        return 2.5 * held + 3 * out_mb + 2 * max(produced.mb - out_mb, 0.0) + 3072
    except Exception as e:  # noqa: BLE001 - any failure of the estimate is "unknown", never a verdict
        print(f"[gpu-mem] no shape estimate for {problem_path}: {type(e).__name__}: {str(e)[:200]}", flush=True)
        return None


class _Produced:
    """MiB of every tensor the operators of a forward produce (on ``meta``: sizes, no memory),
    the outputs included: an upper bound of the intermediates a compiled forward holds."""

    def __enter__(self) -> _Produced:
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        counter = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                out = func(*args, **(kwargs or {}))
                leaves = out if isinstance(out, (list, tuple)) else [out]
                # views and in-place results share their input's memory: nothing new
                if not (func._schema.is_mutable or getattr(func, "is_view", False)):
                    counter.mb += tensor_mb([t for t in leaves if isinstance(t, torch.Tensor)])
                return out

        self.mb = 0.0
        self._mode = Mode()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._mode.__exit__(*exc)


@contextlib.contextmanager
def _no_kernel_launches() -> Iterator[None]:
    """A problem's own Triton kernels (standalone Triton and Helion problems) skipped while its
    model runs on ``meta``: launched on meta tensors they got null pointers, the GPU an illegal
    address, and the Snakemake process running the estimate aborted.  Their outputs are
    allocated by the model, so the shapes are known without them."""
    try:
        from triton.runtime.jit import JITFunction
    except ImportError:
        yield
        return
    orig = JITFunction.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        return None  # nothing runs on meta; the scheduler's process launches no kernel

    JITFunction.run = run  # type: ignore[method-assign]
    try:
        yield
    finally:
        JITFunction.run = orig  # type: ignore[method-assign]


def tensor_mb(tensors: list[Any]) -> float:
    """MiB of the tensors in a list (other items count nothing)."""
    return sum(t.numel() * t.element_size() for t in tensors if hasattr(t, "element_size")) / 2**20


def devices() -> dict[str, int]:
    """Visible GPUs (physical index or UUID as CUDA_VISIBLE_DEVICES names them) -> total MiB."""
    fake = os.environ.get("KERNELOPT_GPUS")
    if fake:
        return {g.split(":")[0].strip(): int(g.split(":")[1]) for g in fake.split(",") if g.strip()}
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,uuid,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    rows = [[c.strip() for c in line.split(",")] for line in out.splitlines() if line.count(",") == 2]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return {idx: int(float(mb)) for idx, _, mb in rows}
    wanted = [v.strip() for v in visible.split(",") if v.strip()]
    by_key = {k: int(float(mb)) for idx, uuid, mb in rows for k in (idx, uuid)}
    return {w: by_key[w] for w in wanted if w in by_key}


def on_gpu(device: str) -> bool:
    """Whether a run with this ``device`` setting runs its GPU jobs on GPUs (``auto``: if any)."""
    return device == "cuda" or (device == "auto" and bool(devices()))


def capacity_mb(total_mb: int) -> int:
    reserve = int(os.environ.get("KERNELOPT_GPU_RESERVE_MB", "4096"))
    return max(int(total_mb * 0.95) - reserve, 1)


def _ledger() -> tuple[Path, Path]:
    from .gpulock import lock_dir

    base = lock_dir()
    base.mkdir(parents=True, exist_ok=True)
    return base / "kernelopt-gpumem.json", base / "kernelopt-gpumem.lock"


def _started(pid: int) -> str | None:
    """A process's start time (so that a reused pid is not taken for the job that held it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(entry: dict[str, Any]) -> bool:
    return _started(int(entry["pid"])) == entry.get("started")


# what this job claimed (for <log>.gpu.json)
CLAIM: dict[str, Any] = {}
# the claim a job will make at its first device work (``defer``, ``claim_pending``): the exit
# stack that releases it, and its arguments until it is made
_PENDING: dict[str, Any] = {}


@contextlib.contextmanager
def defer(need: int, alone: bool = False, what: str = "") -> Iterator[None]:
    """The job's claim, made only when it first prepares the device (``runtime.prepare`` calls
    ``claim_pending``) and released with the block.  A job that turns out to have nothing to run
    on the GPU (gate 3 of an attempt that stitched nothing, gate 4 after gate 3 failed, an empty
    candidate slot) claims nothing and waits for nobody, never queueing behind big claims for
    work it will not do (bench/README.md, "GPU memory at KernelBench sizes", its run 7)."""
    stack = contextlib.ExitStack()
    _PENDING.clear()
    _PENDING.update(stack=stack, args=(need, alone, what))
    try:
        with stack:
            yield
    finally:
        _PENDING.clear()


def claim_pending() -> None:
    """Make the deferred claim now (once), before anything initializes CUDA in this process."""
    args = _PENDING.pop("args", None)
    if args is not None:
        need, alone, what = args
        _PENDING["stack"].enter_context(claim(need, alone=alone, what=what))


@contextlib.contextmanager
def claim(need: int, alone: bool = False, what: str = "", poll_s: float = 0.5) -> Iterator[str | None]:
    """Wait until a GPU has ``need`` MiB unclaimed (all of it when ``alone``), claim it, point
    ``CUDA_VISIBLE_DEVICES`` at it and yield its name; the claim ends with the block (or with
    the process).  Claims are granted in the order they were asked for, with backfill: every
    claim waiting ahead of this one reserves a GPU (``_reserved``), and this one may start now on
    a GPU nobody ahead of it reserved.  So a retry waiting for a whole GPU is not starved by
    small jobs that keep fitting next to the ones running, and it does not hold up the jobs
    that fit on another GPU (on one GPU: strictly in order).  Yields None, claiming nothing,
    where there is no GPU to share."""
    gpus = devices()
    if not gpus:
        yield None
        return
    path, lock = _ledger()
    me = {"pid": os.getpid(), "started": _started(os.getpid()), "what": what, "alone": bool(alone)}
    t0, said = time.perf_counter(), 0.0
    arrived = time.time()
    gpu, mb = None, 0
    try:
        while gpu is None:
            with _locked(lock):
                entries = [e for e in _read(path) if _alive(e) and e["pid"] != me["pid"]]
                held = [e for e in entries if e.get("state", "held") == "held"]
                ahead = [e for e in entries if e.get("state") == "waiting" and _before(e, arrived, me["pid"])]
                free = {g: t for g, t in gpus.items() if g not in _reserved(gpus, held, ahead)}
                if free:
                    gpu, mb = _pick(free, held, need, alone)
                if gpu is not None:
                    entries.append({**me, "state": "held", "gpu": gpu, "mb": mb, "since": arrived})
                else:
                    entries.append({**me, "state": "waiting", "need": need, "since": arrived})
                _write(path, entries)
            if gpu is None:
                waited = time.perf_counter() - t0
                if waited - said >= 30:
                    said = waited
                    alone_s = " (a whole GPU)" if alone else ""
                    print(f"[gpu-mem] {what}: waiting {waited:.0f} s for {need} MiB{alone_s}", flush=True)
                time.sleep(poll_s)
        waited = time.perf_counter() - t0
        phases.add("wait for GPU memory (the ledger)", waited, quiet=True)
        if waited > 1.0:
            print(f"[gpu-mem] {what}: waited {waited:.1f} s for {mb} MiB on GPU {gpu}", flush=True)
        CLAIM.update(gpu=gpu, declared_mb=need, claimed_mb=mb, alone=bool(alone), waited_s=round(waited, 3))
        os.environ["CUDA_VISIBLE_DEVICES"] = gpu
        yield gpu
    finally:
        with _locked(lock):
            _write(path, [e for e in _read(path) if e["pid"] != me["pid"] and _alive(e)])


def _before(entry: dict[str, Any], arrived: float, pid: int) -> bool:
    """``entry`` asked before a claim that arrived at ``arrived`` (ties: the lower pid first)."""
    return (entry["since"], int(entry["pid"])) < (arrived, pid)


def _reserved(gpus: dict[str, int], held: list[dict[str, Any]], ahead: list[dict[str, Any]]) -> set[str]:
    """The GPUs the waiting claims ``ahead`` reserve, in their order: each the one with the most
    unclaimed memory among those not reserved yet (the one that will have room first)."""
    reserved: set[str] = set()
    for _ in sorted(ahead, key=lambda e: (e["since"], int(e["pid"]))):
        left = [g for g in gpus if g not in reserved]
        if not left:
            break
        room = {g: capacity_mb(gpus[g]) - sum(int(e["mb"]) for e in held if e["gpu"] == g) for g in left}
        reserved.add(max(left, key=lambda g: (room[g], -left.index(g))))
    return reserved


@contextlib.contextmanager
def _locked(lock: Path) -> Iterator[None]:
    with open(lock, "a+") as lf:
        fcntl.flock(lf.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lf.fileno(), fcntl.LOCK_UN)


def _pick(gpus: dict[str, int], entries: list[dict[str, Any]], need: int, alone: bool) -> tuple[str | None, int]:
    """The GPU with the most unclaimed memory that fits ``need`` (an empty one for ``alone``, or
    for a need larger than any GPU), and the MiB to claim there."""
    best, room_best = None, -1
    for gpu, total in gpus.items():
        cap = capacity_mb(total)
        mine = [e for e in entries if e["gpu"] == gpu]
        if any(e.get("alone") for e in mine):
            continue
        room = cap - sum(int(e["mb"]) for e in mine)
        fits = not mine if (alone or need >= cap) else need <= room
        if fits and room > room_best:
            best, room_best = gpu, room
    if best is None:
        return None, 0
    cap = capacity_mb(gpus[best])
    return best, (cap if alone else min(need, cap))


def _read(path: Path) -> list[dict[str, Any]]:
    try:
        return list(json.loads(path.read_text()))
    except (OSError, ValueError):
        return []


def _write(path: Path, entries: list[dict[str, Any]]) -> None:
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(entries))
    os.replace(tmp, path)


# peaks of GPU memory (MiB) this job and its children reached, by who
PEAKS: dict[str, float] = {"job": 0.0, "children": 0.0}


def note_child_peak(mb: Any) -> None:
    """A child process's peak (its reply says it): the job's record keeps the largest."""
    with contextlib.suppress(TypeError, ValueError):
        PEAKS["children"] = max(PEAKS["children"], float(mb))


def peak_mb(reserved: bool = True) -> float | None:
    """This process's allocator peak (reserved: what the device gave it; else allocated by
    tensors), if it used CUDA."""
    import sys

    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None
    return (torch.cuda.max_memory_reserved() if reserved else torch.cuda.max_memory_allocated()) / 2**20


# where in a job its memory peak came from (``mark``): cleared per job (``stagelog.run_request``),
# written to ``<log>.gpu.json`` (``record``) and, by capture, to ``capture.json``
MARKS: list[dict[str, Any]] = []


def mark(phase: str) -> None:
    """At the end of ``phase``: the allocator's peak (reserved) so far and what tensors hold
    now, in MiB; nothing without CUDA.  The peak is the job's running maximum (never reset), so
    the phase that raised it is the one whose ``peak_mb`` is larger than the one before."""
    import sys

    peak = peak_mb()
    if peak is None:
        return
    held = sys.modules["torch"].cuda.memory_allocated() / 2**20
    MARKS.append({"phase": phase, "peak_mb": round(peak, 1), "held_mb": round(held, 1)})


def retry_alone_ahead() -> bool:
    """Whether this job shares its GPU's memory, so a fault should fail it for Snakemake's retry
    on a GPU of its own (``gpu_alone``) rather than be recorded now."""
    return bool(CLAIM) and not CLAIM.get("alone")


def record() -> dict[str, Any]:
    """What ``<log>.gpu.json`` says about memory: claimed, and used (job + largest child)."""
    own = peak_mb()
    if own is not None:
        PEAKS["job"] = max(PEAKS["job"], own)
    out = dict(CLAIM)
    if own is not None or PEAKS["children"]:
        out["peak_mb"] = round(PEAKS["job"] + PEAKS["children"], 1)
        out["job_peak_mb"] = round(PEAKS["job"], 1)
        out["child_peak_mb"] = round(PEAKS["children"], 1)
    if MARKS:
        out["phases"] = list(MARKS)
    return out


if __name__ == "__main__":
    _serve()
