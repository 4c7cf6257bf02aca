"""Where candidate code runs: a child process of its own, never the process that judges it.

The parent (a gate, select, the profiler) writes a job and its tensors to a scratch directory,
starts ``python -m kernelopt.gates.child`` in a new session and waits at most a wall-clock
budget; then it kills the whole process group.  The child imports what it trusts (torch,
triton, kernelopt), then ``enter``s the sandbox, and only then loads the candidate
(``core/loader.py``) and runs it on the tensors it was handed.  It hands back what the candidate
wrote and what the watches saw; comparisons, tolerances, references and verdicts stay in the
parent, which reads the reply with ``torch.load(weights_only=True)`` (tensors and plain data
only: nothing in the reply can run code in the parent).

Inside the sandbox (``enter``):

* the scratch directory is the working directory and TMPDIR, the only place (with the
  Inductor/Triton caches) the candidate may write;
* a Python audit hook (``sys.addaudithook``, which cannot be removed) denies, when the code
  asking is the candidate's own (the innermost frame outside the standard library is candidate
  code): sockets (also through any library), opening files for writing outside scratch and the
  caches, reading outside the Python installation, the caches and scratch, starting processes,
  ``os.system``/``exec``, ``ctypes``, threads, ``gc`` object walks, frame and trace access,
  ``exec``/``compile`` and imports of modules not yet loaded outside the candidates' allowlist.
  Triton's own compiler (which starts ``ptxas`` and writes its cache) is not the candidate and
  is not stopped;
* threads: ``_thread.start_new_thread`` is wrapped with the same rule (Python 3.11 has no
  audit event for it);
* resource limits: no core files, a file-size cap, a CPU-time cap, and on the CPU an
  address-space cap (CUDA needs an unbounded one);
* a network namespace of its own when the kernel allows it (``unshare(CLONE_NEWNET)``; the
  reply says whether it did), else the audit hook alone keeps sockets closed.

What the sandbox cannot promise is in the README ("Trust model").
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import gpumem, phases
from ..core.loader import is_candidate_code
from ..core.runtime import child_env

# modules a candidate may import (the rest of torch is its work done by torch, not by Triton)
CANDIDATE_IMPORTS = ("triton", "torch", "math", "typing", "__future__", "numbers", "collections.abc")

# audit events the hook looks at; everything else returns at once
NETWORK = ("socket.",)
PROCESS = (
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.exec",
    "os.system",
    "subprocess.Popen",
    "os.kill",
    "os.killpg",
    "pty.spawn",
)
NATIVE = ("ctypes.",)
INTROSPECTION = (
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "sys._current_frames",
    "sys.settrace",
    "sys.setprofile",
    "sys._getframe",
    "sys.setrecursionlimit",
    "function.__new__",
    "code.__new__",
    "object.__delattr__",
)
CODE = ("exec", "compile")
FILE_WRITE_EVENTS = (
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.truncate",
    "os.link",
    "os.symlink",
    "os.utime",
    "shutil.",
    "os.putenv",
    "os.unsetenv",
)


class SandboxViolation(PermissionError):
    """The candidate asked for something the sandbox denies."""


@dataclass
class Policy:
    scratch: Path
    writable: list[Path] = field(default_factory=list)  # besides scratch: the compile caches
    readable: list[Path] = field(default_factory=list)  # besides the Python installation, caches, scratch
    cpu_seconds: int | None = None
    address_space_bytes: int | None = None  # CPU only
    file_size_bytes: int = 8 * 2**30


@dataclass
class Record:
    """What the sandbox saw and denied, handed back to the parent."""

    denied: list[str] = field(default_factory=list)
    network_namespace: bool = False
    limits: dict[str, Any] = field(default_factory=dict)


RECORD = Record()
_STDLIB: tuple[str, ...] = ()
_TRUSTED_ROOTS: tuple[str, ...] = ()
_state = threading.local()


def _stdlib_dirs() -> tuple[str, ...]:
    """Where the standard library lives (where ``os.py`` is; a venv's lib/ holds site-packages
    too, so sysconfig's "stdlib" path is not it)."""
    import sysconfig

    here = {os.path.dirname(os.__file__), os.path.realpath(os.path.dirname(os.__file__))}
    dynload = sysconfig.get_config_var("DESTSHARED")
    if dynload:
        here.add(dynload)
    return tuple(d.rstrip(os.sep) + os.sep for d in here)


def _is_stdlib(name: str) -> bool:
    return (
        (name.startswith(_STDLIB) and "-packages" + os.sep not in name)
        or name.startswith("<frozen")
        or name == __file__
    )


def _innermost_outside_stdlib(frame: Any) -> str | None:
    """co_filename of the innermost frame that is not the standard library (nor the hook)."""
    return _asker(frame)[0]


def _asker(frame: Any) -> tuple[str | None, bool]:
    """(co_filename of the innermost frame outside the standard library, whether the import
    machinery lies between it and the event: then the event is part of loading a module whose
    import was itself vetted, e.g. compiling an allowed library's source)."""
    importing = False
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib"):
            importing = True
        if not _is_stdlib(name):
            return name, importing
        frame = frame.f_back
    return None, importing


def _candidate_on_stack(frame: Any) -> bool:
    while frame is not None:
        if is_candidate_code(frame.f_code.co_filename):
            return True
        frame = frame.f_back
    return False


def _under(path: str, roots: tuple[str, ...]) -> bool:
    try:
        real = os.path.realpath(path)
    except (TypeError, ValueError):
        return False
    return any(real == r.rstrip(os.sep) or real.startswith(r) for r in roots)


def _deny(event: str, detail: str) -> None:
    msg = f"sandbox: {event} denied ({detail})"
    RECORD.denied.append(msg[:300])
    raise SandboxViolation(msg)


def _hook_factory(policy: Policy):  # noqa: ANN202 - returns the audit hook
    writable = tuple(os.path.realpath(p) + os.sep for p in [policy.scratch, *policy.writable])
    readable = writable + tuple(os.path.realpath(p) + os.sep for p in policy.readable) + _TRUSTED_ROOTS

    def hook(event: str, args: tuple) -> None:
        if getattr(_state, "busy", False):
            return
        watched = (
            event == "open"
            or event == "import"
            or event.startswith(NETWORK + PROCESS + NATIVE + INTROSPECTION + CODE + FILE_WRITE_EVENTS)
        )
        if not watched:
            return
        _state.busy = True
        try:
            frame = sys._getframe(1)
            if not _candidate_on_stack(frame):
                return
            if event.startswith(NETWORK):
                _deny(event, "no network for candidate code")
            asker, importing = _asker(frame)
            if asker is None or not is_candidate_code(asker):
                return  # a library the candidate called (e.g. Triton's compiler starting ptxas)
            if importing and event != "import":
                return  # loading a module the candidate may import (its import event was vetted)
            if event == "open":
                path, mode, flags = (list(args) + [None, None, None])[:3]
                if not isinstance(path, (str, bytes, os.PathLike)):
                    _deny(event, "file descriptors")
                path = os.fsdecode(path)
                writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                    isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC)
                )
                if writing and not _under(path, writable):
                    _deny(event, f"writing {path}: only the scratch directory is writable")
                if not writing and not _under(path, readable):
                    _deny(event, f"reading {path}")
                return
            if event == "import":
                module = str(args[0])
                if not module.startswith(CANDIDATE_IMPORTS):
                    _deny(event, f"import of {module}")
                return
            if event.startswith(FILE_WRITE_EVENTS):
                target = next((a for a in args if isinstance(a, (str, bytes, os.PathLike))), None)
                if target is None or not _under(os.fsdecode(target), writable):
                    _deny(event, f"{target!r}")
                return
            _deny(event, "not allowed in candidate code")
        finally:
            _state.busy = False

    return hook


def _guard_threads() -> None:
    """Wrap thread creation with the audit hook's rule (Python 3.11 raises no audit event)."""
    import _thread

    def guarded(original):  # noqa: ANN001, ANN202
        def start(*args: Any, **kwargs: Any) -> Any:
            _state.busy = True  # our own frame inspection is not the candidate's
            try:
                asker = _innermost_outside_stdlib(sys._getframe(1))
            finally:
                _state.busy = False
            if asker is not None and is_candidate_code(asker):
                _deny("_thread.start_new_thread", "no threads in candidate code")
            return original(*args, **kwargs)

        return start

    for module in (_thread, threading):
        for name in ("start_new_thread", "_start_new_thread", "start_joinable_thread", "_start_joinable_thread"):
            if hasattr(module, name):
                setattr(module, name, guarded(getattr(module, name)))


def _unshare_network() -> bool:
    """A network namespace of our own (no interfaces but a down loopback), when permitted."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.unshare(0x40000000) == 0  # CLONE_NEWNET
    except Exception:  # noqa: BLE001 - not permitted here: the audit hook still denies sockets
        return False


def _limits(policy: Policy) -> dict[str, Any]:
    import resource

    out: dict[str, Any] = {}
    wanted = {
        "RLIMIT_CORE": 0,
        "RLIMIT_FSIZE": policy.file_size_bytes,
        "RLIMIT_CPU": policy.cpu_seconds,
        "RLIMIT_AS": policy.address_space_bytes,
    }
    for name, value in wanted.items():
        if value is None:
            continue
        kind = getattr(resource, name)
        soft, hard = resource.getrlimit(kind)
        new = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(kind, (new, hard))
            out[name] = new
        except (ValueError, OSError) as e:
            out[name] = f"not set: {e}"
    return out


def enter(policy: Policy) -> Record:
    """Make this process a sandbox for candidate code (irreversible).  Call it after importing
    everything trusted code needs and before loading any candidate."""
    global _STDLIB, _TRUSTED_ROOTS
    import site

    _STDLIB = _stdlib_dirs()
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(), site.getusersitepackages()}
    roots |= {p for p in sys.path if p and os.path.isdir(p)}
    _TRUSTED_ROOTS = tuple(os.path.realpath(r) + os.sep for r in roots if r) + (
        "/dev/null",
        "/dev/urandom",
        "/proc/self/",
    )
    RECORD.network_namespace = _unshare_network()
    RECORD.limits = _limits(policy)
    os.chdir(policy.scratch)
    os.environ["TMPDIR"] = str(policy.scratch)
    tempfile.tempdir = str(policy.scratch)
    _guard_threads()
    sys.addaudithook(_hook_factory(policy))
    return RECORD


# --------------------------------------------------------------------------- the parent side
@dataclass
class Outcome:
    """How a child ended: its reply (None when it died), why not, and how long it took."""

    reply: dict[str, Any] | None
    status: str  # ok | timeout | crash
    detail: str = ""
    seconds: float = 0.0
    log_tail: str = ""


def scratch_dir(base: str | Path | None = None) -> Path:
    return Path(tempfile.mkdtemp(prefix="kernelopt-sandbox-", dir=base))


PATH_KEYS = ("inductor", "candidate", "candidates", "problem_dir", "stitched")


def _absolute(job: dict[str, Any]) -> dict[str, Any]:
    """The job with its file paths made absolute: the child works in its scratch directory, so a
    path relative to the run's directory (the default ``workdir``) would not be found there."""
    out = dict(job)
    for k in PATH_KEYS:
        v = out.get(k)
        if isinstance(v, (str, Path)) and str(v):
            out[k] = os.path.abspath(v)
        elif isinstance(v, (list, tuple)):
            out[k] = [os.path.abspath(x) if isinstance(x, (str, Path)) and str(x) else x for x in v]
    return out


class Stream:
    """The calls of a ``unit`` job handed to the child one at a time (``run(..., stream=...)``):
    ``send(k)`` gives call k (``{"args": [...], "interleave": bool}``), ``receive(k, result)``
    judges the child's result of it (the arguments as the candidate left them) and says
    whether to go on.  Only one call's tensors exist at a time, in the parent and the child."""

    calls: int = 0

    def send(self, k: int) -> dict[str, Any]:
        raise NotImplementedError

    def receive(self, k: int, result: dict[str, Any], sent: dict[str, Any]) -> bool:
        raise NotImplementedError


class _Clock:
    """The child's budget, charged only while the child has work: the parent's own time
    (drawing a call's inputs, judging a result: minutes for a GiB-sized unit, while the child
    waits for its next call) moves the deadline on by as much."""

    def __init__(self, t0: float, budget_s: float):
        self.deadline = t0 + budget_s
        self.parent_s = 0.0

    @contextlib.contextmanager
    def parent(self) -> Any:
        t = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - t
            self.parent_s += spent
            self.deadline += spent

    def passed(self) -> bool:
        return time.perf_counter() > self.deadline


def _feed(proc: subprocess.Popen, scratch: Path, stream: Stream, clock: _Clock) -> str:
    """Hand the child its calls one at a time; "ok", or "timeout" when the child's budget ran
    out while it had a call (the child is then killed by the caller).  A child that exits early
    (an import error, a candidate's exception, a crash) ends the feeding; its exit status tells
    the rest."""
    import torch

    from . import exchange

    for k in range(stream.calls):
        t_send = time.perf_counter()
        with clock.parent():
            call = stream.send(k)
            packed, keepalive = exchange.pack(call)
            tmp = scratch / f"call-{k}.partial"
            torch.save(packed, tmp)
            tmp.replace(scratch / f"call-{k}.pt")
        t_child = time.perf_counter()
        result = scratch / f"result-{k}.pt"
        while not result.exists():
            if proc.poll() is not None:
                return "ok"
            if clock.passed():
                return "timeout"
            time.sleep(0.002)
        t_judge = time.perf_counter()
        with clock.parent():
            answer = torch.load(result, weights_only=True)
            result.unlink()
            go_on = stream.receive(k, answer, call)
            del keepalive, packed, call
        t_end = time.perf_counter()
        phases.add("streamed calls: the judge sends a call", t_child - t_send, quiet=True)
        phases.add(
            "streamed calls: the child has the call" + (" (call 0: with its start-up)" if k == 0 else ""),
            t_judge - t_child,
            quiet=True,
        )
        phases.add("streamed calls: the judge reads and judges the result", t_end - t_judge, quiet=True)
        print(
            f"[time] call {k}: sent in {t_child - t_send:.2f} s, child {t_judge - t_child:.2f} s, "
            f"judged in {t_end - t_judge:.2f} s",
            flush=True,
        )
        if answer.get("error") is not None or not go_on:
            break
    (scratch / "stop").touch()
    return "ok"


def run(
    job: dict[str, Any],
    timeout_s: float,
    *,
    cache: Path | None = None,
    keep: bool = False,
    stream: Stream | None = None,
) -> Outcome:
    """Run ``job`` (a dict of plain data and tensors; see ``child.py``) in a sandboxed child;
    with ``stream``, a ``unit`` job's calls are handed over one at a time (``Stream``)."""
    import shutil

    import torch

    from . import exchange

    scratch = scratch_dir()
    try:
        request, reply = scratch / "request.pt", scratch / f"reply-{secrets.token_hex(8)}.pt"
        if stream is not None:
            job = {**job, "calls": [], "stream": {"dir": str(scratch), "calls": stream.calls}}
        packed, keepalive = exchange.pack(_absolute(job))
        torch.save(packed, request)
        # no credentials; the child dies with this process (child.die_with_parent: only when
        # started from the main thread, since Linux ties the signal to the starting thread)
        parent = os.getpid() if threading.current_thread() is threading.main_thread() else 0
        env = child_env(PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(scratch), KERNELOPT_PARENT_PID=str(parent))
        cmd = [sys.executable, "-m", "kernelopt.gates.child", str(request), str(reply), str(scratch)]
        if cache is not None:
            cmd.append(os.path.abspath(cache))
        t0 = time.perf_counter()
        clock = _Clock(t0, timeout_s)
        with open(scratch / "child.log", "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
            try:
                fed = "ok" if stream is None else _feed(proc, scratch, stream, clock)
                if fed == "timeout":
                    raise subprocess.TimeoutExpired(cmd, timeout_s)
                proc.wait(timeout=max(clock.deadline - time.perf_counter(), 0.001))
                status, detail = "ok", ""
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                status, detail = "timeout", f"killed after {timeout_s:.0f} s"
            except BaseException:  # the parent failed while judging a streamed call: no orphan child
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise
        seconds = time.perf_counter() - t0 - clock.parent_s  # the child's own time
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever the candidate left behind in its group
        del keepalive
        text = (scratch / "child.log").read_text(errors="replace")
        _child_phases(text)
        tail = text[-4000:]
        if tail:
            print(tail, end="" if tail.endswith("\n") else "\n", flush=True)
        if status == "ok":
            if proc.returncode == 0 and reply.exists():
                answer = torch.load(reply, weights_only=True)
                if isinstance(answer, dict):
                    gpumem.note_child_peak(answer.get("gpu_peak_mb"))
                return Outcome(answer, "ok", "", seconds, tail)
            if proc.returncode < 0:
                try:
                    how = f"killed by {signal.Signals(-proc.returncode).name}"
                except ValueError:
                    how = f"killed by signal {-proc.returncode}"
            else:
                how = f"exit status {proc.returncode}"
            last = [line for line in tail.strip().splitlines() if line.strip()][-1:] or [""]
            return Outcome(None, "crash", f"{how}; last line: {last[0][:300]}", seconds, tail)
        return Outcome(None, status, detail, seconds, tail)
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)


def _child_phases(log: str) -> None:
    """The child's own ``[time]`` lines (``child.py``), added to this job's phases."""
    import re

    for what, secs in re.findall(r"^\[time\] (.+): ([0-9.]+) s$", log, flags=re.M):
        phases.add(f"child: {what}", float(secs), quiet=True)


def budget_s(base_s: float, factor: float, kernel_ms: float | None, calls: int) -> float:
    """A child's wall-clock budget: start-up and imports, plus ``factor`` x the baseline's
    time per call (Inductor's kernel, or the compiled model) for every call it makes."""
    return float(base_s) + float(factor) * max(float(kernel_ms or 0.0), 0.0) / 1e3 * max(calls, 1)
