"""Run a stage function with its output in the rule's log file.

Used by the thin scripts/ entry points: stdout and stderr (also of C extensions, via the
file descriptors) go to the log; a user-caused error ends in one sentence, both in the
log and on the console, and exit status 1.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import phases
from .errors import JobFault, KerneloptError


@contextlib.contextmanager
def redirected(log: str | Path | None):
    if not log:
        yield
        return
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log, "a", buffering=1) as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = f
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stdout, sys.stderr = old
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _report_gpu_time(log: str | Path | None) -> None:
    """``<log>.gpu.json``: seconds the job held the GPU lock (exclusive: measurements; shared:
    correctness runs and compiles), and the memory it claimed and used (``core/gpumem.py``),
    when it touched the GPU at all."""
    from . import gpulock, gpumem, phases

    memory = gpumem.record()
    if log and (any(gpulock.HELD.values()) or memory):
        import json

        held = {k: round(v, 3) for k, v in gpulock.HELD.items()}
        span = {"process_started": process_started(), "ended": round(time.time(), 3)}
        record = {**held, "memory": memory, **span, "phases": phases.record()}
        Path(f"{log}.gpu.json").write_text(json.dumps(record) + "\n")
        print(f"[gpu-lock] held exclusively {held['exclusive']} s, shared {held['shared']} s", flush=True)
        if memory:
            print(f"[gpu-mem] {json.dumps(memory)}", flush=True)


def process_started() -> float | None:
    """This process's start (epoch seconds, from /proc): a job's wall time includes starting
    Python and importing torch, which the bench's job-overhead numbers need."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        btime = next(int(line.split()[1]) for line in open("/proc/stat") if line.startswith("btime"))
        return round(btime + ticks / os.sysconf("SC_CLK_TCK"), 3)
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _gpu_claim(name: str, job: Any) -> contextlib.AbstractContextManager[Any]:
    """The job's claim of GPU memory (``core/gpumem.py``), from its ``gpu_mb`` and ``gpu_alone``
    resources, made when the job first prepares the device (``gpumem.defer``); nothing for a job
    without them (CPU mode, a rule that does not use the GPU)."""
    from . import gpumem

    resources = getattr(job, "resources", None) or {}
    need, alone = int(resources.get("gpu_mb", 0) or 0), bool(int(resources.get("gpu_alone", 0) or 0))
    if need <= 0 and not alone:
        return contextlib.nullcontext()
    what = " ".join([name] + [str(v) for v in list(getattr(job, "wildcards", None) or [])])
    if alone:
        print(f"[gpu-mem] {what}: a retry after a failed attempt, on a GPU of its own", flush=True)
    return gpumem.defer(need, alone=alone, what=what)


def _maybe_fail(name: str, job: Any) -> None:
    """``KERNELOPT_FAULT=jobfault:<rule>`` (tests): a job of that rule fails as a machine fault
    would, except when it runs as a retry on a GPU of its own."""
    resources = getattr(job, "resources", None) or {}
    points = {p.strip() for p in os.environ.get("KERNELOPT_FAULT", "").split(",")}
    if f"jobfault:{name}" in points and not int(resources.get("gpu_alone", 0) or 0):
        raise JobFault(f"injected by KERNELOPT_FAULT=jobfault:{name}")


def run_stage(name: str, log: str | Path | None, fn: Callable[[], Any], job: Any = None) -> Any:
    """Call ``fn`` with output in ``log``; exit 1 with one clear line on a known error.
    ``job`` (Snakemake's ``snakemake`` object) brings the GPU memory the job claims first."""
    try:
        with redirected(log):
            try:
                try:
                    startup_phase()
                    with _gpu_claim(name, job):
                        _maybe_fail(name, job)
                        with phases.timed(f"{name} (the job's work)"):
                            return fn()
                finally:
                    _report_gpu_time(log)
            except KerneloptError as e:
                print(f"kernelopt {name}: {e}", flush=True)
                raise
            except Exception:
                traceback.print_exc()
                raise
    except KerneloptError as e:
        first = str(e).splitlines()[0]
        print(f"kernelopt {name}: {first} (full log: {_keep_failed_log(log)})", file=sys.stderr, flush=True)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001
        print(
            f"kernelopt {name}: internal error {type(e).__name__}: {e} (traceback in {_keep_failed_log(log)})",
            file=sys.stderr,
            flush=True,
        )
        sys.exit(1)


def startup_phase(what: str = "start-up (process start to the stage's code)") -> None:
    """The seconds from this process's start to now (Python, Snakemake's script preamble, the
    imports: the per-process overhead a persistent worker would save), as phase ``what``; the
    ``[time]`` line it prints is also how a sandboxed child reports it to its parent."""
    started = process_started()
    if started is not None:
        phases.add(what, max(time.time() - started, 0.0))


def _keep_failed_log(log: str | Path | None) -> str | None:
    """A failed job's log, copied to ``<log>.failed-<time>``: Snakemake deletes the log of a
    failed job before it retries it, and what went wrong must survive the retry."""
    if not log or not Path(log).exists():
        return str(log) if log else None
    import shutil
    import time

    kept = f"{log}.failed-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    shutil.copyfile(log, kept)
    return kept
