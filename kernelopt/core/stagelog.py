"""Run a stage function with its output in the rule's log file.

Used by the thin scripts/ entry points: stdout and stderr (also of C extensions, via the
file descriptors) go to the log; a user-caused error ends in one sentence, both in the
log and on the console, and exit status 1.  A job ends with the Snakemake that runs it, even one
killed hard (``end_with``).

A job whose stage can run in a warm worker (``runner/worker.py``: the job's work without a
Python start, a torch import, a CUDA context and a problem rebuilt per job) describes that call
with ``remote(paths, "module:function", *args)``; ``run_request`` is the worker's side, with
what is counted per job started afresh.  The files, the log, the verdicts and the exit status
are the same either way.
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
from .records import JobGpu, JobSpan, job_gpu_record, job_span_record


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


def write_span(log: str | Path | None, name: str, started: Any = None) -> None:
    """``<log>.span.json``: when the job's process started and when its work ended (epoch
    seconds), and the seconds spent per phase (``core/phases.py``): the report's per-problem wall
    time and GPU-busy share (``report/stage.py``) and the executor's overhead table."""
    if not log:
        return

    from . import phases

    start = started if isinstance(started, (int, float)) else process_started()
    record = {"rule": name, "started": start, "ended": round(time.time(), 3), "phases": phases.record()}
    with contextlib.suppress(OSError):
        JobSpan.from_dict(record).save(job_span_record(log))


def _report_gpu_time(log: str | Path | None, started: Any = None) -> None:
    """``<log>.gpu.json``: seconds the job held the GPU lock (exclusive: measurements; shared:
    correctness runs and compiles), and the memory it claimed and used (``core/gpumem.py``),
    when it touched the GPU at all."""
    from . import gpulock, gpumem, phases

    memory = gpumem.record()
    if log and (any(gpulock.HELD.values()) or memory):
        import json

        held = {k: round(v, 3) for k, v in gpulock.HELD.items()}
        span = {
            "process_started": started if isinstance(started, (int, float)) else process_started(),
            "ended": round(time.time(), 3),
        }
        record = {**held, "memory": memory, **span, "phases": phases.record()}
        JobGpu.from_dict(record).save(job_gpu_record(log))
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


def gpu_claim(name: str, job: Any) -> contextlib.AbstractContextManager[Any]:
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


def maybe_fail(name: str, job: Any) -> None:
    """``KERNELOPT_FAULT=jobfault:<rule>`` (tests): a job of that rule fails as a machine fault
    would, except when it runs as a retry on a GPU of its own."""
    resources = getattr(job, "resources", None) or {}
    points = {p.strip() for p in os.environ.get("KERNELOPT_FAULT", "").split(",")}
    if f"jobfault:{name}" in points and not int(resources.get("gpu_alone", 0) or 0):
        raise JobFault(f"injected by KERNELOPT_FAULT=jobfault:{name}")


def remote(paths: Any, fn: str, *args: Any) -> dict[str, Any]:
    """A stage call a worker can make: ``fn`` (``module:function``) of ``paths`` and ``args``
    (JSON data)."""
    return {"fn": fn, "workdir": str(paths.workdir), "problem": paths.problem, "args": list(args)}


def resolve(req: dict[str, Any]) -> Callable[[], Any]:
    """The call ``req`` describes (``remote``), to make in this process: the job's own, or a
    warm worker's (``run_request``)."""
    import importlib

    from .records import ProblemPaths

    mod_name, _, fn_name = str(req["fn"]).partition(":")
    fn = getattr(importlib.import_module(mod_name), fn_name)
    paths, args = ProblemPaths(req["workdir"], req["problem"]), list(req.get("args", []))
    return lambda: fn(paths, *args)


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _ancestors() -> list[int]:
    """This process's ancestors, its parent first, up to (not including) pid 1; the chain ends
    early at one that is gone (it cannot be read)."""
    out, pid = [], os.getppid()
    while pid > 1:
        out.append(pid)
        try:
            pid = _parent_of(pid)
        except (OSError, ValueError, IndexError):
            break
    return out


def scheduler_pid() -> int | None:
    """The Snakemake process this job runs under: the nearest ancestor with an argument named
    ``snakemake`` (its console script, ``python -m snakemake``, a job step's remote Snakemake),
    shells in between passed; None when there is none (not a Snakemake job, or no ``/proc``)."""
    for pid in _ancestors():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        if any(os.path.basename(a) == b"snakemake" for a in argv):
            return pid
    return None


def end_with(scheduler: int, name: str, interval_s: float = 1.0) -> Any:
    """End this process when ``scheduler`` (Snakemake) is no longer among its ancestors: killed
    hard (SIGKILL), it leaves its jobs running on as orphans of init.  A daemon thread looks every
    ``interval_s``; then the job says so in its log and kills itself, its sandboxed children
    with it (they die with their parent: ``runner/jail.py``).  ``prctl(PR_SET_PDEATHSIG)`` would
    not do: it fires when the *thread* that started the process ends (Snakemake starts jobs from
    a thread pool), and not at all through a shell in between.  Returns the thread."""
    import signal
    import threading

    def watch() -> None:
        while scheduler in _ancestors():
            time.sleep(interval_s)
        with contextlib.suppress(Exception):
            print(f"kernelopt {name}: Snakemake (pid {scheduler}) is gone; this job ends with it", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    thread = threading.Thread(target=watch, name="kernelopt-end-with-snakemake", daemon=True)
    thread.start()
    return thread


def run_stage(name: str, log: str | Path | None, fn: Callable[[], Any], job: Any = None) -> Any:
    """Call ``fn`` with output in ``log``; exit 1 with one clear line on a known error.
    ``job`` (Snakemake's ``snakemake`` object) brings the GPU memory the job claims first.
    Under Snakemake, the job ends when Snakemake does (``end_with``)."""
    scheduler = scheduler_pid()
    if scheduler is not None:
        end_with(scheduler, name)
    try:
        with redirected(log):
            try:
                try:
                    startup_phase()
                    with gpu_claim(name, job):
                        maybe_fail(name, job)
                        with phases.timed(f"{name} (the job's work)"):
                            return fn()
                finally:
                    _report_gpu_time(log)
                    write_span(log, name)
            except KerneloptError as e:
                print(f"kernelopt {name}: {e}", flush=True)
                raise
            except Exception:
                traceback.print_exc()
                raise
    except KerneloptError as e:
        first = str(e).splitlines()[0]
        print(f"kernelopt {name}: {first} (full log: {keep_failed_log(log)})", file=sys.stderr, flush=True)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001
        print(
            f"kernelopt {name}: internal error {type(e).__name__}: {e} (traceback in {keep_failed_log(log)})",
            file=sys.stderr,
            flush=True,
        )
        sys.exit(1)


def run_request(req: dict[str, Any]) -> dict[str, Any]:
    """A job's work in a warm worker (``runner/worker.py``): ``run_stage`` as the job's own
    process would do it, with what is counted per job started afresh (phases, GPU lock seconds,
    memory peaks, the job's claim and injected faults)."""
    from . import gpulock, gpumem
    from .errors import JobFault

    name, log = str(req.get("rule", "")), req.get("log")
    phases.SPENT.clear()
    gpulock.HELD.update(exclusive=0.0, shared=0.0)
    gpumem.PEAKS.update(job=0.0, children=0.0)
    gpumem.MARKS.clear()
    gpumem.CLAIM.clear()
    gpumem.CLAIM.update(req.get("claim") or {})
    _reset_peak_memory()
    saved_faults = os.environ.get("KERNELOPT_FAULT")
    os.environ["KERNELOPT_FAULT"] = ",".join(req.get("faults") or [])
    try:
        with redirected(log):
            try:
                started, waited = req.get("client_started"), float(req.get("waited_s") or 0.0)
                if isinstance(started, (int, float)):
                    elapsed = max(time.time() - started, 0.0)
                    phases.add("start-up (process start to the stage's code)", max(elapsed - waited, 0.0))
                    phases.add("wait for the problem's worker and GPU memory", min(waited, elapsed))
                print(f"[worker] pid {os.getpid()} runs this job ({name})", flush=True)
                work = resolve(req)
                if f"oom:{name}" in (req.get("faults") or []):  # tests: the shared context runs out
                    raise RuntimeError("CUDA out of memory (injected by KERNELOPT_FAULT=oom:" + name + ")")
                with phases.timed(f"{name} (the job's work)"):
                    work()
                return {"ok": True}
            except JobFault as e:
                traceback.print_exc()
                return {"ok": False, "fault": True, "error": f"{e}"}
            except KerneloptError as e:
                print(f"kernelopt {name}: {e}", flush=True)
                return {"ok": False, "user_error": True, "error": str(e)}
            except Exception as e:  # noqa: BLE001 - the job's failure, never the worker's
                traceback.print_exc()
                return {"ok": False, "error": f"{type(e).__name__}: {e}"}
            finally:
                _report_gpu_time(log, started=req.get("client_started"))
                write_span(log, name, req.get("client_started"))
    finally:
        if saved_faults is None:
            os.environ.pop("KERNELOPT_FAULT", None)
        else:
            os.environ["KERNELOPT_FAULT"] = saved_faults


def _reset_peak_memory() -> None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.reset_peak_memory_stats()


def startup_phase(what: str = "start-up (process start to the stage's code)") -> None:
    """The seconds from this process's start to now (Python, Snakemake's script preamble, the
    imports: the per-process overhead a persistent worker would save), as phase ``what``; the
    ``[time]`` line it prints is also how a sandboxed child reports it to its parent."""
    started = process_started()
    if started is not None:
        phases.add(what, max(time.time() - started, 0.0))


def keep_failed_log(log: str | Path | None) -> str | None:
    """A failed job's log, copied to ``<log>.failed-<time>``: Snakemake deletes the log of a
    failed job before it retries it, and what went wrong must survive the retry."""
    if not log or not Path(log).exists():
        return str(log) if log else None
    import shutil
    import time

    kept = f"{log}.failed-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    shutil.copyfile(log, kept)
    return kept
