"""Where candidate code runs: a jailed child process, never the process that judges it.

The judge (a gate, select, the profiler, ``kernelopt check``) starts the child inside the
operating-system boundary of ``runner/jail.py``: an unprivileged uid with no capabilities and
``no_new_privs``, its own pid, mount, network, IPC, UTS and cgroup namespaces, a read-only view
of the system and the Python installation, a fresh scratch directory as its only writable
place, no run directory, a seccomp filter, resource limits, an allowlisted environment; every
process it starts dies with it.  What it may read of the run comes over its socket, file by file
(``files``: the candidate, Inductor's kernel, a wrapper), into its scratch; the problem's compile
cache is an overlay whose writes stay in the sandbox.

So nothing of a child depends on its job but its device and its problem's cache: a process that
runs many jobs (a warm worker, ``runner/worker.py``) keeps children started ahead
(``keep_warm``), their Python, torch and CUDA context ready, and a job takes one (``_take``)
instead of paying its start; each child still serves one job and is discarded.

Judge and child talk over one Unix socket (``runner/wire.py``); tensors live in slots whose
layouts the judge decides, so nothing the child says is a tensor.  The judge holds the GPU lock
for the child when it asks (shared for correctness work, exclusive for measurements), charges
the child only for the time it has work (``_Clock``), kills the whole jail when the budget runs
out, and reports how the child ended (``Outcome``): ``ok`` with its reply, ``timeout`` or
``crash`` (it exited, was killed, or sent a message the judge refused).  What the reply says is
the child's claim: verdicts rest on the slots' bytes and on what the judge observed itself.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import gpulock, gpumem, phases
from ..core.errors import fault_points
from ..core.runtime import child_env
from . import jail, wire

INSIDE_SOCKET = "/run/kernelopt/judge.sock"
INSIDE_JOB = "/tmp/job"  # the job's files, written by the child into its scratch
INSIDE_CACHE = "/cache"
ENV_KEEP = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_HOME",
    "CUDA_PATH",
    "LD_LIBRARY_PATH",
    "TRITON_INTERPRET",
    "TRITON_PTXAS_PATH",
    "TRITON_CUDACRT_PATH",
    "TRITON_LIBDEVICE_PATH",
    "TRITON_LIBCUDA_PATH",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "TORCHINDUCTOR_COMPILE_THREADS",
    "NCCL_NVLS_ENABLE",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST",
    "NVSHMEM_DISABLE_NVLS",
)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


@dataclass
class Outcome:
    """How a child ended: its reply (None when it died), why not, and how long it took."""

    reply: dict[str, Any] | None
    status: str  # ok | timeout | crash
    detail: str = ""
    seconds: float = 0.0
    log_tail: str = ""


class Stream:
    """The calls of a job handed to the child one at a time (``run(..., stream=...)``).
    ``send(k, slots)`` gives call k: ``{"args": [...], "outs": [...]?, "interleave": bool}``,
    its tensors put in slots with ``slots.put`` (or left to ``run`` to put); ``receive(k,
    result, sent)`` judges the child's result (``result["args"]``: the judge's views of the
    argument slots after the call; ``result["outputs"]``: of the output slots) and says whether
    to go on.  Only one call's tensors exist at a time, in the judge and in the child."""

    calls: int = 0

    def send(self, k: int, slots: Slots) -> dict[str, Any]:
        raise NotImplementedError

    def receive(self, k: int, result: dict[str, Any], sent: dict[str, Any]) -> bool:
        raise NotImplementedError


class _Clock:
    """The child's budget, charged only while the child has work: the judge's own time
    (drawing a call's inputs, judging a result: minutes for a GiB-sized unit, while the child
    waits for its next call) moves the deadline on by as much."""

    def __init__(self, t0: float, budget_s: float):
        self.deadline = t0 + budget_s
        self.parent_s = 0.0

    @contextlib.contextmanager
    def parent(self) -> Any:
        t = time.monotonic()
        try:
            yield
        finally:
            spent = time.monotonic() - t
            self.parent_s += spent
            self.deadline += spent


class ChildFailed(Exception):
    """The child ended, hung or misbehaved: ``status`` is timeout or crash."""

    def __init__(self, status: str, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


# --------------------------------------------------------------------------- slots, judge side
@dataclass
class _Slot:
    index: int
    nbytes: int
    buf: Any  # uint8 tensor
    release: Any  # callable


# Guard bytes around every tensor a slot holds: the judge fills them with GUARD_BYTE before a
# call and finds them unchanged after it, or the call wrote outside its arguments (a dropped
# bound mask, an index past the end).  A multiple of every element size and of CUDA's 256-byte
# alignment, so the tensors' alignment is the slot's.
GUARD = 1 << 16
GUARD_BYTE = 0xA5


def _guards(slot: _Slot, n: int) -> tuple[Any, Any]:
    """The guard bytes of a slot whose tensor reaches ``n`` bytes: before it and after it."""
    return slot.buf[:GUARD], slot.buf[GUARD + n : 2 * GUARD + n]


@dataclass
class Slots:
    """The byte buffers judge and child share (``runner/wire.py``), keyed by what they hold
    (an argument position, an output), reused while their size suffices.  Each tensor starts
    ``GUARD`` bytes into its slot, with ``GUARD`` bytes of guard before and after what it
    reaches (``trampled``)."""

    channel: wire.Channel
    device: str
    box: Box
    by_key: dict[Any, _Slot] = field(default_factory=dict)
    views: dict[int, tuple[int, wire.Layout]] = field(default_factory=dict)  # id(view) -> (slot, layout)
    reach: dict[Any, int] = field(default_factory=dict)  # key -> bytes its tensor reaches
    _next: int = 0

    def _new(self, wanted: list[tuple[Any, int]]) -> None:
        """Slots of these sizes, made and mapped on both sides."""
        if not wanted:
            return
        new = []
        for _key, nbytes in wanted:
            new.append({"index": self._next, "nbytes": int(nbytes)})
            self._next += 1
        if self.device == "cuda":
            reply = self.box.request({"op": "alloc", "new": new}, "allocated")
            handles = reply.get("handles")
            if not isinstance(handles, list) or len(handles) != len(new):
                raise ChildFailed("crash", "the child answered a slot allocation with something else")
            for (key, nbytes), spec, h in zip(wanted, new, handles):
                if not isinstance(h, (bytes, bytearray)):
                    raise ChildFailed("crash", "the child sent a slot handle that is not bytes")
                buf, ptr = wire.cuda_open(bytes(h), nbytes)
                self.by_key[key] = _Slot(spec["index"], nbytes, buf, lambda p=ptr: wire.cuda_close(p))
        else:
            fds, made = [], []
            for (key, nbytes), spec in zip(wanted, new):
                buf, fd, mm = wire.memfd_slot(nbytes)
                fds.append(fd)
                made.append((key, spec, buf, mm))
            try:
                self.box.request({"op": "slots", "new": new}, "mapped", fds=fds)
            finally:
                for fd in fds:
                    os.close(fd)
            for key, spec, buf, mm in made:
                self.by_key[key] = _Slot(spec["index"], spec["nbytes"], buf, mm.close)

    def _slot(self, key: Any, nbytes: int) -> _Slot:
        held = self.by_key.get(key)
        if held is not None and held.nbytes >= nbytes:
            return held
        if held is not None:
            self.by_key.pop(key)
            self._drop(held)
        self._new([(key, nbytes)])
        return self.by_key[key]

    def _drop(self, slot: _Slot) -> None:
        self.views = {k: v for k, v in self.views.items() if v[0] != slot.index}
        with contextlib.suppress(Exception):
            slot.release()

    def view(self, key: Any, layout: wire.Layout) -> Any:
        """The judge's view of slot ``key`` (made big enough) laid out as ``layout``, ``GUARD``
        bytes in (the layout the child gets says so: its offset counts them), the guards on
        both sides filled."""
        n = layout.nbytes()
        slot = self._slot(key, n + 2 * GUARD)
        item = wire.dtype_of(layout.dtype).itemsize
        placed = wire.Layout(layout.shape, layout.stride, layout.offset + GUARD // item, layout.dtype)
        v = wire.view(slot.buf, placed)
        for guard in _guards(slot, n):
            guard.fill_(GUARD_BYTE)
        self.views[id(v)] = (slot.index, placed)
        self.reach[key] = n
        return v

    def put(self, key: Any, t: Any) -> Any:
        """A slot holding ``t``'s bytes (its storage up to what ``t`` reaches, so overlapping
        and offset layouts stay as they are), viewed as ``t``."""
        layout = wire.Layout.of(t)
        v = self.view(key, layout)
        slot = self.by_key[key]
        n = layout.nbytes()
        if n:
            slot.buf[GUARD : GUARD + n].copy_(wire.byte_view(t).to(slot.buf.device))
        return v

    def trampled(self) -> list[str]:
        """The slots whose guard bytes a call changed: it wrote outside the tensors it was given
        (the judge's own reading of memory it filled; nothing the child says)."""
        bad = []
        for key, n in self.reach.items():
            slot = self.by_key.get(key)
            if slot is None:
                continue
            if not all(bool((g == GUARD_BYTE).all()) for g in _guards(slot, n)):
                bad.append(str(key))
        return bad

    def empty_like(self, key: Any, t: Any) -> Any:
        """A slot laid out like ``t`` (contents undefined)."""
        return self.view(key, wire.Layout.of(t))

    def describe(self, obj: Any, auto: list[int]) -> Any:
        """``obj`` with every tensor replaced by its slot descriptor (a tensor that is not one of
        this object's views is put in a slot of its own first)."""
        import torch

        if isinstance(obj, torch.Tensor):
            if id(obj) not in self.views:
                auto[0] += 1
                obj = self.put(("auto", auto[0]), obj)
            index, layout = self.views[id(obj)]
            return {"__slot__": index, **layout.to_dict()}
        if isinstance(obj, dict):
            return {k: self.describe(v, auto) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.describe(v, auto) for v in obj]
        return obj

    def sync(self) -> None:
        """The judge's writes into the slots done before the child is told to read them (the
        child works in another process's CUDA context: no stream orders the two)."""
        if self.device == "cuda":
            import torch

            torch.cuda.synchronize()

    def close(self) -> None:
        for slot in self.by_key.values():
            self._drop(slot)
        self.by_key.clear()
        self.views.clear()
        self.reach.clear()


# --------------------------------------------------------------------------- the jail around the child
def _python_paths() -> list[str]:
    """What the child's interpreter reads: the installation (standard library, site-packages),
    ``PYTHONPATH``'s directories and the kernelopt package itself; never the checkout around
    the package nor whatever else is on this process's import path (a test directory, a
    script's directory)."""
    import site
    import sysconfig

    import kernelopt

    pkg = os.path.dirname(os.path.abspath(kernelopt.__file__))
    checkout = os.path.realpath(os.path.dirname(pkg))
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    roots |= {v for k, v in sysconfig.get_paths().items() if k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= set(site.getsitepackages())
    with contextlib.suppress(Exception):
        roots.add(site.getusersitepackages())
    roots |= {p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    out = {pkg}
    for r in roots:
        if not os.path.isdir(r):
            continue
        real = os.path.realpath(r)
        if real == checkout or real == os.path.realpath(os.getcwd()):
            continue  # a checkout on the import path: only its package goes in
        out.add(real)
    return sorted(out)


def _pythonpath(paths: list[str]) -> str:
    import kernelopt

    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(kernelopt.__file__)))
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.isdir(p)]
    return os.pathsep.join(dict.fromkeys([pkg_parent, *(os.path.realpath(p) for p in extra)]))


def boundary() -> dict[str, Any]:
    """The boundary every jailed child runs in, as the judge set it up (for the record)."""
    uid, _ = sandbox_uid()
    return {
        "uid": uid,
        "capabilities": "none",
        "no_new_privs": True,
        "namespaces": ["pid", "mount", "network", "ipc", "uts", "cgroup"] + ([] if os.geteuid() == 0 else ["user"]),
        "filesystem": "read-only system and Python; /tmp scratch writable; no run directory",
        "seccomp": "refuses sockets but AF_UNIX, ptrace, process_vm_*, mounts, namespaces, bpf, keyrings, modules",
        "environment": "allowlisted",
    }


def sandbox_uid() -> tuple[int, int]:
    """The unprivileged uid and gid candidate code runs as (``KERNELOPT_SANDBOX_UID``, default
    nobody's 65534)."""
    uid = int(os.environ.get("KERNELOPT_SANDBOX_UID", "65534"))
    return uid, uid


class Box:
    """One jailed child and the judge's end of its socket."""

    def __init__(
        self,
        device: str,
        timeout_s: float,
        cache: Path | None = None,
        hidden: list[Path] | None = None,
        limits: dict[str, int] | None = None,
    ):
        self.device = device
        self.cache = Path(cache).resolve() if cache else None
        self.hidden = [Path(h).resolve() for h in (hidden or [])]
        self.limits = limits or {}
        self.tmp = Path(tempfile.mkdtemp(prefix=SANDBOX_PREFIX))
        # who owns the directory: a process that ends without closing its boxes (a worker
        # killed with its warm children) leaves them to ``sweep_stale``
        (self.tmp / OWNER_FILE).write_text(_owner())
        self.scratch = self.tmp / "scratch"
        self.scratch.mkdir()
        self.run_dir = self.tmp / "run"
        self.run_dir.mkdir(mode=0o755)
        self.uid, self.gid = sandbox_uid()
        if os.geteuid() == 0:
            os.chown(self.scratch, self.uid, self.gid)
        os.chmod(self.tmp, 0o755)
        self.proc: subprocess.Popen | _Forked | None = None
        self.forked = False  # started by a zygote (``fork_children``), not by a new interpreter
        self.channel: wire.Channel | None = None
        self.clock = _Clock(time.monotonic(), timeout_s)
        self.timeout_s = timeout_s
        self.log_path = self.tmp / "child.log"
        self._locks: list[Any] = []

    # ------------------------------------------------------------------ start
    def spec(self, argv: list[str]) -> jail.Spec:
        readonly = [d for d in SYSTEM_DIRS if os.path.lexists(d)] + _python_paths()
        if self.device == "cuda":
            readonly.append("/sys")
        overlays = []
        if self.cache is not None:
            self.cache.mkdir(parents=True, exist_ok=True)
            overlays.append((str(self.cache), INSIDE_CACHE))
        env = {k: v for k, v in child_env().items() if k in ENV_KEEP}
        env.update(
            HOME="/tmp",
            TMPDIR="/tmp",
            USER="nobody",
            LOGNAME="nobody",
            PYTHONPATH=_pythonpath(readonly),
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONUNBUFFERED="1",
            PYTHONNOUSERSITE="1",
        )
        if self.cache is not None:
            env.update(TORCHINDUCTOR_CACHE_DIR=f"{INSIDE_CACHE}/inductor", TRITON_CACHE_DIR=f"{INSIDE_CACHE}/triton")
        else:
            env.update(TORCHINDUCTOR_CACHE_DIR="/tmp/inductor-cache", TRITON_CACHE_DIR="/tmp/triton-cache")
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        limits = {
            "RLIMIT_CORE": 0,
            "RLIMIT_NOFILE": 4096,
            "RLIMIT_NPROC": 4096,
            "RLIMIT_FSIZE": 4 << 30,
            "RLIMIT_MSGQUEUE": 0,
            "RLIMIT_CPU": int(max(120, 4 * self.timeout_s)),
            **self.limits,
        }
        return jail.Spec(
            argv=argv,
            env=env,
            parent=os.getpid(),
            readonly=sorted(set(readonly), key=len),
            readonly_at=[(str(self.run_dir), "/run/kernelopt")],
            writable_at=[(str(self.scratch), "/tmp")],
            overlays=overlays,
            hidden=[str(h) for h in self.hidden],
            devices=jail.gpu_devices() if self.device == "cuda" else [],
            uid=self.uid,
            gid=self.gid,
            cwd="/tmp",
            limits=limits,
        )

    def reset(self, timeout_s: float) -> None:
        """A warm box's budget starts with its job."""
        self.timeout_s = timeout_s
        self.clock = _Clock(time.monotonic(), timeout_s)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.channel is not None

    def start(self, argv: list[str]) -> wire.Channel:
        sock_path = self.run_dir / "judge.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(sock_path))
        os.chmod(sock_path, 0o777)
        listener.listen(1)
        spec = self.spec(argv)
        zygote = _zygote_for(self.device, spec.env) if argv == child_command(self.device) else None
        try:
            self._launch(spec, zygote)
            try:
                conn = self._accept(listener)
            except ChildFailed as e:
                if e.status != "crash" or not (self.forked and zygote is not None and not zygote.verified):
                    raise
                # the zygote's first child did not even start (before any job): no more forks
                # from it; this child starts as a new interpreter
                zygote.retire(f"its first child did not start: {e.detail[:300]}")
                self._launch(spec, None)
                conn = self._accept(listener)
            if self.forked and zygote is not None:
                zygote.verified = True
        finally:
            listener.close()
            sock_path.unlink(missing_ok=True)
        self.channel = wire.Channel(conn)
        return self.channel

    def _launch(self, spec: jail.Spec, zygote: _Zygote | None) -> None:
        """The launcher of ``spec``: forked by ``zygote`` where it serves, else a new interpreter."""
        self.proc, self.forked = None, False
        if zygote is not None:
            self.proc = zygote.spawn(spec, self.log_path)
            self.forked = self.proc is not None
        if self.proc is None:
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen(
                    jail.command(spec),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )

    def _accept(self, listener: socket.socket) -> socket.socket:
        """The child's connection, or ChildFailed when it ended first or the budget ran out."""
        assert self.proc is not None
        while True:
            left = self.clock.deadline - time.monotonic()
            if left <= 0:
                raise ChildFailed("timeout", f"the child did not start within its budget of {self.timeout_s:.0f} s")
            listener.settimeout(min(left, 0.5))
            try:
                conn, _ = listener.accept()
                return conn
            except TimeoutError:
                if self.proc.poll() is not None:
                    raise ChildFailed("crash", self._ended()) from None

    # ------------------------------------------------------------------ talk
    def request(self, msg: dict[str, Any], want: str, fds: list[int] | None = None) -> dict[str, Any]:
        assert self.channel is not None
        try:
            self.channel.send(msg, fds=fds)
        except OSError as e:
            raise ChildFailed("crash", self._ended(f"the child stopped listening ({e})")) from e
        return self.wait(want)

    def wait(self, want: str) -> dict[str, Any]:
        """The child's next message of kind ``want``, serving its lock requests meanwhile."""
        assert self.channel is not None
        while True:
            try:
                msg, _ = self.channel.recv(deadline=self.clock.deadline)
            except wire.ChannelTimeout:
                raise ChildFailed("timeout", f"killed after {self.timeout_s:.0f} s") from None
            except wire.ChannelClosed:
                raise ChildFailed("crash", self._ended()) from None
            except wire.MessageRefused as e:
                raise ChildFailed("crash", f"the child sent a message the judge refused: {e}") from None
            op = msg.get("op")
            if op == "lock":
                self._lock(str(msg.get("mode")), str(msg.get("what", ""))[:200])
                self.channel.send({"op": "locked"})
                continue
            if op == "unlock":
                self._unlock()
                continue
            if op == want:
                return msg
            raise ChildFailed("crash", f"the child sent {str(op)[:40]!r} where the judge waited for {want!r}")

    def _lock(self, mode: str, what: str) -> None:
        """The GPU lock, taken by the judge for the child (the child cannot reach the lock
        files); the wait is the judge's time, not the child's."""
        with self.clock.parent():
            cm = gpulock.exclusive(self.device, what) if mode == "exclusive" else gpulock.shared(self.device, what)
            cm.__enter__()
            self._locks.append(cm)

    def _unlock(self) -> None:
        if self._locks:
            self._locks.pop().__exit__(None, None, None)

    def _ended(self, why: str = "") -> str:
        """How the child ended, from the judge's own observation (its exit status)."""
        assert self.proc is not None
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return why or "the child closed its socket and did not exit"
        if rc > 128 and rc - 128 < 65:  # the jail reports a signal as 128 + n
            try:
                how = f"killed by {signal.Signals(rc - 128).name}"
            except ValueError:
                how = f"killed by signal {rc - 128}"
        elif rc < 0:
            how = f"killed by signal {-rc}"
        else:
            how = f"exit status {rc}"
        last = [line for line in self.log_tail().strip().splitlines() if line.strip()][-1:] or [""]
        return (f"{why}; " if why else "") + f"{how}; last line: {last[0][:300]}"

    def log_tail(self, n: int = 4000) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - n))
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            if self.forked:  # a forked launcher makes its session itself: its pid, whatever its group
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=30)

    def close(self, keep: bool = False) -> None:
        while self._locks:
            self._unlock()
        if self.channel is not None:
            self.channel.close()
        self.kill()
        if not keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


# --------------------------------------------------------------------------- one job
CHILD_MODULE = "kernelopt.runner.child"
FILE_DATA_MAX = 256 << 20  # the job's files, in all (wrappers, candidates, a model's constants)


def child_command(device: str) -> list[str]:
    """The jailed child's command: CUDA is initialised before it waits for its job."""
    return [sys.executable, "-m", CHILD_MODULE, INSIDE_SOCKET, "--device", device]


def _file_data(files: dict[str, Path]) -> dict[str, bytes]:
    """The job's files as data (a directory's regular files under ``name/``)."""
    out: dict[str, bytes] = {}
    for name, p in files.items():
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and "__pycache__" not in f.parts:
                    out[f"{name}/{f.relative_to(p).as_posix()}"] = f.read_bytes()
        else:
            out[name] = p.read_bytes()
    total = sum(len(v) for v in out.values())
    if total > FILE_DATA_MAX:
        raise ValueError(f"the job's files hold {total} bytes (at most {FILE_DATA_MAX})")
    return out


SANDBOX_PREFIX = "kernelopt-sandbox-"
OWNER_FILE = "owner.pid"


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return "?"


def _owner() -> str:
    """What a sandbox directory's owner file says: this process's pid and the pid namespace
    that pid means something in (a /tmp shared by containers is not one namespace)."""
    return f"{os.getpid()} {_pid_namespace()}"


def sweep_stale(tmp: str | Path | None = None) -> int:
    """Remove the sandbox directories of this user whose owning process has ended (a worker
    that was killed left its warm children's); a directory without an owner file, whose owner
    lives, or whose owner's pid belongs to another pid namespace is left alone.  Returns how
    many went."""
    removed = 0
    here = _pid_namespace()
    for d in Path(tmp or tempfile.gettempdir()).glob(SANDBOX_PREFIX + "*"):
        try:
            if d.stat().st_uid != os.geteuid():
                continue
            pid_text, _, ns = (d / OWNER_FILE).read_text().strip().partition(" ")
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if ns != here:
            continue
        try:
            os.kill(pid, 0)
            continue  # its owner still runs (or a process of another user has the pid now)
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(d, ignore_errors=True)
        removed += not d.exists()
    return removed


# --------------------------------------------------------------------------- forked children
FORK_ENV = "KERNELOPT_FORK_CHILDREN"
# the environment a zygote imports under: the caches' directories stand in for the children's
# (the jailed child's env is its spec's, set before its code runs)
ZYGOTE_CACHE_VARS = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")


def fork_children(device: str) -> bool:
    """Whether children start forked from a zygote (``KERNELOPT_FORK_CHILDREN``: ``1``, the
    default, on the CPU and on a GPU (bench/README.md measured both), or ``0``; ``auto`` is
    ``1``).  ``device`` is the children's: every device forks today."""
    v = os.environ.get(FORK_ENV, "1").strip().lower()
    return v not in ("0", "false", "off", "no")


def zygote_command() -> list[str]:
    return [sys.executable, "-m", CHILD_MODULE, "--zygote", str(os.getpid())]


class _Forked:
    """A launcher a zygote forked, as ``Box`` uses a ``subprocess.Popen``: pid (its own
    session), ``poll``, ``wait``; its exit status is the one the zygote reaped."""

    def __init__(self, zygote: _Zygote, pid: int):
        self.zygote, self.pid = zygote, pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.exit_status(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        rc = self.zygote.exit_status(self.pid, timeout)
        if rc is None:
            raise subprocess.TimeoutExpired(f"forked child {self.pid}", timeout or 0.0)
        self.returncode = rc
        return rc


class _Zygote:
    """``python -m kernelopt.runner.child --zygote``: the imports of a child done once; each
    child forked from it (``runner/child.py``: the same jail, ``main`` run where ``execve``
    would have run it).  Started and read by one long-lived thread (a child's death signal
    follows the thread that started it); gone (``dead``) when it cannot start or ends."""

    def __init__(self, device: str, env: dict[str, str]):
        self.device = device
        self.tmp = Path(tempfile.mkdtemp(prefix=SANDBOX_PREFIX + "zygote-"))
        (self.tmp / OWNER_FILE).write_text(_owner())
        self.env = {**env, **{k: str(self.tmp / k.lower()) for k in ZYGOTE_CACHE_VARS}}
        self.cond = threading.Condition()
        self.exits: dict[int, int] = {}
        self.replies: list[dict[str, Any]] = []
        self.dead: str | None = None
        self.verified = False  # one of its children started (and connected)
        self.proc: subprocess.Popen | None = None
        self.pid = 0
        self.send_lock = threading.Lock()
        threading.Thread(target=self._serve, name="kernelopt-zygote", daemon=True).start()
        with self.cond:
            self.cond.wait_for(lambda: self.pid or self.dead, timeout=300)
            if not self.pid and not self.dead:
                self.dead = "it did not start within 300 s"

    def _serve(self) -> None:
        try:
            with open(self.tmp / "zygote.log", "wb") as log:
                self.proc = subprocess.Popen(
                    zygote_command(),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    env=self.env,
                    cwd=self.tmp,
                    start_new_session=True,
                )
            for line in self.proc.stdout:  # type: ignore[union-attr]
                msg = json.loads(line)
                with self.cond:
                    if msg.get("op") == "ready":
                        self.pid = int(msg["pid"])
                    elif msg.get("op") == "exit":
                        self.exits[int(msg["pid"])] = int(msg["rc"])
                    else:
                        self.replies.append(msg)
                    self.cond.notify_all()
            rc = self.proc.wait()
            why = f"it exited ({rc})"
        except Exception as e:  # noqa: BLE001 - no zygote: children start as new interpreters
            why = f"{type(e).__name__}: {e}"
        try:
            tail = (self.tmp / "zygote.log").read_text(errors="replace").strip().splitlines()[-1:]
        except OSError:  # closed: its directory is gone
            tail = []
        with self.cond:
            self.dead = self.dead or why + (f"; last line: {tail[0][:200]}" if tail else "")
            self.cond.notify_all()

    def spawn(self, spec: jail.Spec, log: Path) -> _Forked | None:
        """A launcher for ``spec`` forked by the zygote (its output to ``log``); None when the
        zygote is gone (the caller starts the child as a new interpreter)."""
        with self.send_lock:
            with self.cond:
                if self.dead or self.proc is None or self.proc.stdin is None:
                    return None
                self.replies.clear()
            try:
                self.proc.stdin.write((json.dumps({"spec": spec.to_json(), "log": str(log)}) + "\n").encode())
                self.proc.stdin.flush()
            except OSError:
                return None
            with self.cond:
                self.cond.wait_for(lambda: self.replies or self.dead, timeout=60)
                if not self.replies:
                    return None
                msg = self.replies.pop(0)
        return _Forked(self, int(msg["pid"])) if msg.get("op") == "spawned" else None

    def exit_status(self, pid: int, timeout: float | None = 0.0) -> int | None:
        """The launcher's exit status once the zygote reaped it (-9 when the zygote is gone:
        its launchers died with it); None if it runs on past ``timeout``."""
        with self.cond:
            self.cond.wait_for(lambda: pid in self.exits or self.dead is not None, timeout=timeout)
            if pid in self.exits:
                return self.exits[pid]
            return -signal.SIGKILL if self.dead is not None else None

    def say_gone(self) -> None:
        print(f"[sandbox] no zygote: children start as new interpreters ({self.dead})", flush=True)

    def retire(self, why: str) -> None:
        """No more children from this zygote (``why``); those it forked keep their status."""
        with self.cond:
            self.dead = self.dead or why
            self.cond.notify_all()
        self.say_gone()
        if self.proc is not None and self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        shutil.rmtree(self.tmp, ignore_errors=True)


_ZYGOTES: dict[tuple[Any, ...], _Zygote] = {}


def _zygote_for(device: str, env: dict[str, str]) -> _Zygote | None:
    """This process's zygote for children of ``device`` with environment ``env`` (the caches'
    directories aside), started on first use; None where children are not forked or the zygote
    is gone (said once, in the job's log)."""
    if not fork_children(device):
        return None
    key = (device, tuple(sorted((k, v) for k, v in env.items() if k not in ZYGOTE_CACHE_VARS)))
    with _ZYGOTE_LOCK:
        z = _ZYGOTES.get(key)
        if z is None:
            z = _ZYGOTES[key] = _Zygote(device, env)
            if z.dead:
                z.say_gone()
    return None if z.dead else z


def _close_zygotes() -> None:
    for z in _ZYGOTES.values():
        z.close()


_ZYGOTE_LOCK = threading.Lock()
atexit.register(_close_zygotes)


# --------------------------------------------------------------------------- warm children
class _Pool:
    """Children started ahead, by device, cache and hidden paths (what a child's jail depends
    on), each taken once.  One long-lived thread starts them: Linux ties a child's
    death signal to the thread that started it."""

    def __init__(self, size: int):
        import queue
        import threading

        self.size = size
        self.ready: dict[tuple[Any, ...], list[Box]] = {}
        self.pending: dict[tuple[Any, ...], int] = {}
        self.lock = threading.Lock()
        self.todo: queue.Queue[tuple[tuple[Any, ...], str, Path | None, list[Path] | None]] = queue.Queue()
        threading.Thread(target=self._spawner, name="kernelopt-warm-children", daemon=True).start()
        atexit.register(self.close)

    def close(self) -> None:
        """End the children still waiting and remove their directories (at the process's exit)."""
        with self.lock:
            boxes = [b for bs in self.ready.values() for b in bs]
            self.ready.clear()
        for b in boxes:
            b.close()

    @staticmethod
    def key(device: str, cache: Path | None, hidden: list[Path] | None) -> tuple[Any, ...]:
        return (
            device,
            str(Path(cache).resolve()) if cache else None,
            tuple(sorted(str(Path(h).resolve()) for h in hidden or [])),
        )

    def _spawner(self) -> None:
        while True:
            key, device, cache, hidden = self.todo.get()
            box = Box(device, 600.0, cache=cache, hidden=hidden)
            try:
                box.start(child_command(device))
            except ChildFailed as e:
                print(f"[sandbox] a warm child did not start: {e.detail}", flush=True)
                box.close()
                box = None
            with self.lock:
                self.pending[key] -= 1
                if box is not None:
                    self.ready.setdefault(key, []).append(box)

    def fill(self, device: str, cache: Path | None, hidden: list[Path] | None) -> None:
        key = self.key(device, cache, hidden)
        with self.lock:
            want = self.size - len(self.ready.get(key, [])) - self.pending.get(key, 0)
            self.pending[key] = self.pending.get(key, 0) + max(want, 0)
        for _ in range(max(want, 0)):
            self.todo.put((key, device, cache, hidden))

    def take(self, device: str, cache: Path | None, hidden: list[Path] | None) -> Box | None:
        key = self.key(device, cache, hidden)
        box = None
        with self.lock:
            boxes = self.ready.get(key, [])
            while boxes and box is None:
                b = boxes.pop(0)
                if b.alive():
                    box = b
                else:  # died while it waited: discarded, never a job's fault
                    b.close()
        self.fill(device, cache, hidden)
        return box


_POOL: _Pool | None = None


def keep_warm(size: int) -> None:
    """Keep ``size`` children started ahead for every (device, cache) this process runs jobs
    for (a warm worker); 0 starts every child cold, as a job of its own does."""
    global _POOL
    sweep_stale()
    _POOL = _Pool(size) if size > 0 else None


def _take(device: str, cache: Path | None, hidden: list[Path] | None, timeout_s: float) -> Box | None:
    if _POOL is None:
        return None
    box = _POOL.take(device, cache, hidden)
    if box is not None:
        box.reset(timeout_s)
    return box


def run(
    job: dict[str, Any],
    timeout_s: float,
    *,
    cache: Path | None = None,
    keep: bool = False,
    stream: Stream | None = None,
    files: dict[str, Path] | None = None,
    hidden: list[Path] | None = None,
    argv: list[str] | None = None,
    collect: dict[str, Path] | None = None,
) -> Outcome:
    """Run ``job`` (plain data and tensors; see ``runner/child.py``) in a jailed child (a warm
    one when this process keeps them, ``keep_warm``); ``files`` are handed over (a directory
    file by file, into the child's scratch) and the job refers to them by name; with ``stream``, a
    job's calls are handed over one at a time (``Stream``).  ``argv`` replaces the child's
    command (the profiler runs NCU around it); it must end with the socket path it connects to.
    ``collect``: files the child left in its scratch directory (``/tmp/<name>`` inside), copied
    to the given paths (regular files only, never through a link) before the scratch goes."""
    box = _take(job["device"], cache, hidden, timeout_s) if argv is None and not keep else None
    warm = box is not None
    if box is None:
        box = Box(job["device"], timeout_s, cache=cache, hidden=hidden)
    t0 = time.monotonic()
    status, detail, reply = "ok", "", None
    slots: Slots | None = None
    try:
        channel = box.channel if warm else box.start(argv or child_command(job["device"]))
        assert channel is not None
        slots = Slots(channel, job["device"], box)
        with box.clock.parent():
            sent = slots.describe({k: v for k, v in job.items() if k != "calls"}, [0])
            sent["file_data"] = _file_data(files or {})
            sent["cache"] = INSIDE_CACHE if cache is not None else None
            sent["faults"] = fault_points()
            slots.sync()
        ready = box.request({"op": "job", "job": sent}, "ready")
        ready.pop("op", None)
        ready["import_error"] = _plain_error(ready.get("import_error"))
        calls: list[dict[str, Any]] = []
        if stream is not None and not ready["import_error"]:
            _feed(box, slots, stream, calls)
        reply = box.request({"op": "end"}, "reply")
        reply.pop("op", None)
        reply = {**ready, **reply, "calls": calls}
    except ChildFailed as e:
        status, detail = e.status, e.detail
    finally:
        seconds = time.monotonic() - t0 - box.clock.parent_s
        if slots is not None:
            slots.close()
        tail = box.log_tail()
        box.kill()
        for name, dest in (collect or {}).items():
            _collect(box.scratch / name, Path(dest))
        box.close(keep=keep)
    _child_phases(tail)
    if tail:
        print(tail, end="" if tail.endswith("\n") else "\n", flush=True)
    if reply is not None:
        gpumem.note_child_peak(reply.get("gpu_peak_mb") if isinstance(reply.get("gpu_peak_mb"), (int, float)) else None)
    return Outcome(reply, status, detail, seconds, tail)


def _feed(box: Box, slots: Slots, stream: Stream, calls: list[dict[str, Any]]) -> None:
    """Hand the child its calls one at a time; each result is judged before the next call (and
    its plain part kept in ``calls``)."""
    for k in range(stream.calls):
        t_send = time.monotonic()
        with box.clock.parent():
            call = stream.send(k, slots)
            msg = slots.describe(call, [0])
            slots.sync()
        t_child = time.monotonic()
        result = box.request({"op": "call", "k": k, "call": msg}, "result")
        t_judge = time.monotonic()
        with box.clock.parent():
            result = _result(result, call)
            result["trampled"] = slots.trampled()  # the judge's own finding, after the child synced
            calls.append({key: v for key, v in result.items() if key not in ("args", "outputs")})
            go_on = stream.receive(k, result, call)
        t_end = time.monotonic()
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
        if result.get("error") is not None or not go_on:
            break


def _plain_error(e: Any) -> dict[str, str] | None:
    """A child's report of an exception, as strings of bounded length (its words, not a fault)."""
    if not isinstance(e, dict):
        return None
    return {
        "type": str(e.get("type", "Error"))[:100],
        "message": str(e.get("message", ""))[:2000],
        "traceback": str(e.get("traceback", ""))[-3000:],
    }


def _result(msg: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """A call's result for the stream: the child's words (error, advisory watches) as plain
    data, the tensors as the judge's own views of the slots it sent."""
    out = {k: v for k, v in msg.items() if k not in ("op", "k", "args", "outputs")}
    out["error"] = _plain_error(msg.get("error")) if msg.get("error") is not None else None
    out["args"] = list(sent.get("args", []))
    outs = sent.get("outs")
    if outs is not None:
        copied = msg.get("copied")
        copied = copied if isinstance(copied, list) and len(copied) == len(outs) else [False] * len(outs)
        values = msg.get("values") if isinstance(msg.get("values"), list) else [None] * len(outs)
        out["outputs"] = [o if bool(c) and o is not None else None for o, c in zip(outs, copied)]
        out["values"] = values
        mismatch = msg.get("mismatch")
        out["mismatch"] = [str(x)[:300] for x in mismatch] if isinstance(mismatch, list) else []
    return out


def _collect(src: Path, dest: Path, limit: int = 4 << 30) -> bool:
    """Copy a file the child wrote (``src`` in its scratch) to ``dest``: a regular file, opened
    without following a link, at most ``limit`` bytes."""
    import stat

    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(os.dup(fd), "rb") as f, open(dest, "wb") as out:
            shutil.copyfileobj(f, out)
        return True
    finally:
        os.close(fd)


def _child_phases(log: str) -> None:
    """The child's own ``[time]`` lines (``child.py``), added to this job's phases."""
    import re

    for what, secs in re.findall(r"^\[time\] (.+): ([0-9.]+) s$", log, flags=re.M):
        phases.add(f"child: {what}", float(secs), quiet=True)


def budget_s(base_s: float, factor: float, kernel_ms: float | None, calls: int) -> float:
    """A child's wall-clock budget: start-up and imports, plus ``factor`` x the baseline's
    time per call (Inductor's kernel, or the compiled model) for every call it makes."""
    return float(base_s) + float(factor) * max(float(kernel_ms or 0.0), 0.0) / 1e3 * max(calls, 1)
