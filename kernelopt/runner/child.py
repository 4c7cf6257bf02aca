"""The jailed child: the only process that runs candidate code.

usage: python -m kernelopt.runner.child SOCKET [--device cuda|cpu]
(started by ``runner/sandbox.py`` inside ``runner/jail.py``, possibly long before its job)

It imports what trusted code needs (and initialises CUDA), connects to the judge, waits for its
job, prepares the device and the caches, writes the job's files into its scratch (``/tmp/job``),
and only then loads candidates (``core/loader.py``) and runs them on tensors in the slots the
judge laid out (``runner/wire.py``).  The problem's compile caches (an overlay whose writes stay
here) are under ``/cache``.  Jobs
(``job["kind"]``):

  unit    a unit's candidate, call by call on the judge's slots (gates 1-2); Inductor's kernel
          launched before a call when asked
  model   the stitched wrapper, call by call, its outputs copied into the judge's output slots
          (gate 3)
  speed   baseline and stitched wrappers, each in one CUDA graph, timed interleaved (gate 4)
  timing  Inductor's kernel against candidates on the same arguments (select, the search)
  time    one candidate's median time (the search's profile)
  profile one candidate launched in an NVTX range, for NCU running around the child

Everything it says back (errors, the ATen ops and launches it watched, times) is a claim the
judge records; the child never sees a reference or a tolerance.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

# what the judge's messages may ask while the child waits for its next one
SLOT_OPS = ("alloc", "slots")


def _error(e: BaseException) -> dict[str, str]:
    return {"type": type(e).__name__, "message": str(e)[:2000], "traceback": traceback.format_exc()[-3000:]}


def _sync(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def _clone(args: list[Any], read_only: set[int] | frozenset[int] = frozenset()) -> list[Any]:
    """Copies of ``args`` for a trusted kernel's run beside the candidate's; the arguments the
    unit only reads (``read_only``: by its contract, recorded at capture) are passed as they are
    (Inductor's kernel never writes them, and a GiB-sized input is not copied for it)."""
    import torch

    return [a.clone() if isinstance(a, torch.Tensor) and i not in read_only else a for i, a in enumerate(args)]


class Conn:
    """The child's end: the judge's messages, slot requests served as they come."""

    def __init__(self, channel: Any, device: str):
        self.ch, self.device = channel, device
        self.slots: dict[int, Any] = {}  # index -> uint8 tensor
        self._keep: list[Any] = []  # mappings and pointers alive for the process's life
        self.slot_bytes = 0  # device memory this process allocated for slots (outside torch's allocator)

    def next(self) -> dict[str, Any]:
        while True:
            msg, fds = self.ch.recv(with_fds=64)
            op = msg.get("op")
            if op == "alloc":
                self._alloc(msg["new"])
                continue
            if op == "slots":
                self._map(msg["new"], fds)
                continue
            for fd in fds:
                with contextlib.suppress(OSError):
                    __import__("os").close(fd)
            return msg

    def _alloc(self, new: list[dict[str, Any]]) -> None:
        from . import wire

        handles = []
        for spec in new:
            buf, handle, ptr = wire.cuda_alloc_export(int(spec["nbytes"]))
            self.slots[int(spec["index"])] = buf
            self.slot_bytes += int(spec["nbytes"])
            self._keep.append(ptr)
            handles.append(handle)
        self.ch.send({"op": "allocated", "handles": handles})

    def _map(self, new: list[dict[str, Any]], fds: list[int]) -> None:
        from . import wire

        for spec, fd in zip(new, fds):
            buf, mm = wire.memfd_map(fd, int(spec["nbytes"]))
            self.slots[int(spec["index"])] = buf
            self._keep.append(mm)
        self.ch.send({"op": "mapped"})

    def tensors(self, obj: Any) -> Any:
        """A message's slot descriptors as tensors over the slots."""
        from . import wire

        if isinstance(obj, dict) and "__slot__" in obj:
            return wire.view(self.slots[int(obj["__slot__"])], wire.Layout.from_dict(obj))
        if isinstance(obj, dict):
            return {k: self.tensors(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.tensors(v) for v in obj]
        return obj

    def send(self, msg: dict[str, Any]) -> None:
        self.ch.send(msg)


class RemoteLock:
    """``core/gpulock``'s lock taken by the judge on the child's behalf."""

    def __init__(self, conn: Conn):
        self.conn = conn

    @contextlib.contextmanager
    def __call__(self, mode: str, what: str) -> Any:
        self.conn.ch.send({"op": "lock", "mode": mode, "what": what})
        msg, _ = self.conn.ch.recv()
        if msg.get("op") != "locked":
            raise RuntimeError(f"the judge answered a lock request with {msg.get('op')!r}")
        t = time.perf_counter()
        try:
            yield 0.0
        finally:
            from ..core import gpulock

            gpulock.HELD["exclusive" if mode == "exclusive" else "shared"] += time.perf_counter() - t
            self.conn.ch.send({"op": "unlock"})


# --------------------------------------------------------------------------- jobs
def run_unit(job: dict[str, Any], conn: Conn) -> dict[str, Any]:
    from ..core import gpulock
    from ..core.loader import load_candidate
    from ..core.phases import timed
    from .faults import maybe_inject
    from .watch import AtenWatch, LaunchWatch

    device = job["device"]
    files = job["files"]
    ready: dict[str, Any] = {"op": "ready", "import_error": None, "import_ops": []}
    with timed("load Inductor's kernel"):
        inductor = load_candidate(files[job["inductor"]]) if job.get("inductor") else None
    module = None
    try:
        with AtenWatch() as at_import, timed("load the candidate"):
            module = load_candidate(files[job["candidate"]])
        ready["import_ops"] = sorted(at_import.seen)
    except BaseException as e:  # noqa: BLE001 - the candidate's own failure, reported as such
        ready["import_error"] = _error(e)
    conn.send(ready)
    launcher_ops: list[str] = []
    read_only = frozenset(int(i) for i in job.get("read_only", []))
    calls = 0
    while True:
        msg = conn.next()
        if msg.get("op") != "call" or module is None:
            return {"launcher_ops": launcher_ops, "calls": calls}
        k, call = int(msg["k"]), msg["call"]
        args = conn.tensors(call["args"])
        out: dict[str, Any] = {"op": "result", "k": k, "error": None, "ops": [], "foreign_launches": [], "launches": 0}
        with gpulock.shared(device, f"{job.get('point', 'gate')} candidate runs"):
            if k == 0 and inductor is not None:
                # what launching Inductor's own kernel dispatches is the launcher's, not the unit's work
                with AtenWatch() as w:
                    inductor.launch(*_clone(args, read_only))
                    _sync(device)
                launcher_ops = sorted(w.seen)
            print(f"[kernelopt-call {k}]", flush=True)  # where a hang or a crash happened, for the log
            if inductor is not None and call.get("interleave"):
                with timed("Inductor's kernel before a call"):
                    inductor.launch(*_clone(args, read_only))
                    _sync(device)
            try:
                maybe_inject(job.get("point", ""))
                with AtenWatch() as aten, LaunchWatch() as launches:
                    module.launch(*args)
                    _sync(device)
                out.update(ops=sorted(aten.seen), foreign_launches=launches.foreign, launches=len(launches.launches))
            except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt from a candidate too
                out["error"] = _error(e)
                with contextlib.suppress(BaseException):
                    _sync(device)
        del args
        calls += 1
        out["launcher_ops"] = launcher_ops
        conn.send(out)


def _wrappers(job: dict[str, Any], names: list[str]) -> tuple[dict[str, Any], Any, dict[str, dict[str, str]]]:
    """The baseline and/or stitched wrapper modules of a problem, configs pinned as at capture."""
    import torch

    from ..core import outputcode
    from .pins import pin_configs

    files = job["files"]
    base_path = Path(files[job["baseline"]])
    oc = outputcode.parse(base_path.read_text(), base_path)
    constants = None
    if job.get("constants"):
        constants = {k: v.to(job["device"]) for k, v in torch.load(files[job["constants"]]).items()}
    mods, pins = {}, {}
    for name in names:
        path = base_path if name == "baseline" else Path(files[job["stitched"]])
        mods[name] = outputcode.load(path, constants)
        pins[name] = pin_configs(mods[name], oc, job.get("launches") or [])
    return mods, oc, pins


def run_model(job: dict[str, Any], conn: Conn) -> dict[str, Any]:
    import torch

    from ..core import gpulock
    from ..core.instrument import Observer, instrumented
    from .faults import maybe_inject
    from .watch import AtenWatch, LaunchWatch

    device = job["device"]
    try:
        mods, oc, pins = _wrappers(job, ["stitched", "baseline"])
    except BaseException as e:  # noqa: BLE001 - a candidate that fails to load fails the model
        conn.send({"op": "ready", "import_error": _error(e)})
        conn.next()
        return {}
    mod = mods["stitched"]
    conn.send({"op": "ready", "import_error": None})
    launcher_ops: set[str] = set()

    class Launcher(Observer):
        def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
            with AtenWatch() as aten:
                result = inner.run(*args, **kwargs)
            launcher_ops.update(aten.seen)
            return result

    by_candidate: dict[str, int] = {}
    by_inductor: dict[str, int] = {}
    ops: dict[str, list[str]] = {}
    foreign: dict[str, list[str]] = {}

    class Count(Observer):
        def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
            if getattr(inner, "kernelopt_candidate", None):
                by_candidate[name] = by_candidate.get(name, 0) + 1
                with AtenWatch() as aten, LaunchWatch() as launches:
                    result = inner.run(*args, **kwargs)
                ops[name] = sorted(set(ops.get(name, [])) | aten.seen)
                foreign[name] = sorted(set(foreign.get(name, [])) | set(launches.foreign))
                return result
            by_inductor[name] = by_inductor.get(name, 0) + 1
            return inner.run(*args, **kwargs)

    first = True
    while True:
        msg = conn.next()
        if msg.get("op") != "call":
            break
        k, call = int(msg["k"]), msg["call"]
        args = conn.tensors(call["args"])
        outs_to = conn.tensors(call.get("outs") or [])
        if first:  # what launching Inductor's own kernels dispatches (the interpreter's copies)
            with torch.no_grad(), instrumented(mods["baseline"], oc, Launcher()):
                mods["baseline"].call(list(_clone(args)))
            first = False
        entry: dict[str, Any] = {"op": "result", "k": k, "error": None, "copied": [], "values": [], "mismatch": []}
        with torch.no_grad(), gpulock.shared(device, "gate3 stitched model"), instrumented(mod, oc, Count()):
            try:
                maybe_inject(job.get("point", ""))
                outs = mod.call(list(args))
                _sync(device)
                outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
                picked = [outs[i] for i in job["out_idx"]]
                entry.update(_hand_back(picked, outs_to, device))
            except BaseException as e:  # noqa: BLE001
                entry["error"] = _error(e)
        del args, outs_to
        conn.send(entry)
    return {
        "pins": pins,
        "candidate_launches": by_candidate,
        "inductor_launches": by_inductor,
        "candidate_ops": ops,
        "foreign_launches": foreign,
        "launcher_ops": sorted(launcher_ops),
    }


def _hand_back(outs: list[Any], slots: list[Any], device: str) -> dict[str, Any]:
    """The stitched model's outputs copied into the judge's output slots, where shape and dtype
    match (else the mismatch is reported and nothing is copied); plain values by value."""
    import torch

    copied, values, mismatch = [], [], []
    for i, o in enumerate(outs):
        slot = slots[i] if i < len(slots) else None
        if isinstance(o, torch.Tensor):
            ok = slot is not None and tuple(o.shape) == tuple(slot.shape) and o.dtype == slot.dtype
            if ok:
                slot.copy_(o)
            else:
                mismatch.append(f"output {i}: {tuple(o.shape)} {o.dtype}")
            copied.append(ok)
            values.append(None)
        else:
            copied.append(False)
            values.append(o if isinstance(o, (int, float, bool, str, type(None))) else repr(o)[:200])
    _sync(device)
    return {"copied": copied, "values": values, "mismatch": mismatch}


def run_speed(job: dict[str, Any], conn: Conn) -> dict[str, Any]:
    import torch

    from ..core import gpulock, measure
    from .faults import maybe_inject

    device = job["device"]
    mods, _, pins = _wrappers(job, ["baseline", "stitched"])
    args = job["args"]
    conn.send({"op": "ready"})
    conn.next()
    with torch.no_grad(), gpulock.shared(device, "gate4 warm-up"):
        fa = measure.graphed(lambda: mods["baseline"].call(list(args)), device)
        fb = measure.graphed(lambda: mods["stitched"].call(list(args)), device)
    maybe_inject(job.get("point", ""))
    with torch.no_grad(), gpulock.exclusive(device, "gate4"):
        cmps = [
            measure.compare(fa, fb, device, measure.Protocol(**job["protocol"])) for _ in range(job.get("trials", 1))
        ]
    return {"comparison": cmps[0].to_dict(), "trials": [c.to_dict() for c in cmps], "pins": pins}


def run_timing(job: dict[str, Any], conn: Conn) -> dict[str, Any]:
    from ..core import gpulock, measure
    from ..core.loader import load_candidate
    from .faults import maybe_inject

    files = job["files"]
    device = job["device"]
    args = job["args"]
    base = load_candidate(files[job["inductor"]])
    mods = [load_candidate(files[c]) for c in job["candidates"]]
    conn.send({"op": "ready"})
    conn.next()
    maybe_inject(job.get("point", ""))
    protocol = measure.Protocol(**job["protocol"])
    with gpulock.shared(device, f"{job.get('what', 'timing')}: warm-up"):  # JIT compiles share the GPU
        for m in [base, *mods]:
            measure.warm(lambda m=m: m.launch(*args), device)
    out = []
    with gpulock.exclusive(device, job.get("what", "timing")):
        for mod in mods:
            cmp = measure.compare(lambda: base.launch(*args), lambda m=mod: m.launch(*args), device, protocol)
            out.append(cmp.to_dict())
    return {"comparisons": out}


def run_time(job: dict[str, Any], conn: Conn) -> dict[str, Any]:
    from ..core import gpulock, measure
    from ..core.loader import load_candidate

    device = job["device"]
    args = job["args"]
    mod = load_candidate(job["files"][job["candidate"]])
    conn.send({"op": "ready"})
    conn.next()
    with gpulock.shared(device, f"{job.get('what', 'time')}: warm-up"):
        measure.warm(lambda: mod.launch(*args), device)
    with gpulock.exclusive(device, job.get("what", "time")):
        t0 = time.perf_counter()
        t = measure.time_one(lambda: mod.launch(*args), device, measure.Protocol(**job["protocol"]))
        t["locked_s"] = time.perf_counter() - t0
    return {"time": t}


def run_profile(job: dict[str, Any], conn: Conn) -> dict[str, Any]:
    """One candidate launched a few times inside an NVTX range, for the NCU around this process
    (the search's profile): a warm-up (the JIT compile) outside the range, with the GPU shared;
    the profiled launches with it held alone."""
    import torch

    from ..core import gpulock, measure
    from ..core.loader import load_candidate

    device = job["device"]
    args = job["args"]
    mod = load_candidate(job["files"][job["candidate"]])
    conn.send({"op": "ready"})
    conn.next()
    with gpulock.shared(device, "ncu harness warm-up"):  # outside the NVTX range: not profiled
        measure.warm(lambda: mod.launch(*args), device)
    with gpulock.exclusive(device, "ncu harness"):
        t0 = time.perf_counter()
        if device == "cuda":
            torch.cuda.nvtx.range_push("kernelopt_profile")
        for _ in range(int(job.get("launches", 3))):
            mod.launch(*args)
        _sync(device)
        if device == "cuda":
            torch.cuda.nvtx.range_pop()
        locked = time.perf_counter() - t0
    return {"ncu_locked_s": locked}


JOBS = {
    "unit": run_unit,
    "model": run_model,
    "speed": run_speed,
    "timing": run_timing,
    "time": run_time,
    "profile": run_profile,
}


def connect(path: str) -> Any:
    import socket

    from . import wire

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    return wire.Channel(sock)


def write_files(data: dict[str, bytes], root: Path = Path("/tmp/job")) -> dict[str, str]:
    """The job's files, written under ``root``: name -> path (a directory's name too)."""
    files: dict[str, str] = {}
    for name, blob in data.items():
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"a job file named {name!r}")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob)
        files[name] = str(path)
        for i in range(1, len(rel.parts)):
            files.setdefault("/".join(rel.parts[:i]), str(root.joinpath(*rel.parts[:i])))
    return files


CACHES = {"TRITON_CACHE_DIR": "triton", "TORCHINDUCTOR_CACHE_DIR": "inductor"}


def writable_caches(root: str = "/cache", scratch: str = "/tmp/cache") -> list[str]:
    """The compile caches the job may write to.  The jail made the problem's caches (an overlay
    of the host's) the child's when it started; a warm child started before its job may find
    directories the host created since (a compile of the job's own candidate), which stay the
    host's: writing there fails with EACCES, and a candidate would be failed for the judge's
    fault.  A cache with such a directory is copied into the child's scratch and used there
    (the copy's writes stay with the child, as the overlay's do).  Returns the caches copied."""
    import shutil

    copied = []
    for var, name in CACHES.items():
        path = os.environ.get(var, "")
        if not path.startswith(root + "/") or not os.path.isdir(path):
            continue
        if all(os.access(d, os.W_OK) for d, _, _ in os.walk(path)):
            continue
        dst = os.path.join(scratch, name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(path, dst, symlinks=True)
        os.environ[var] = dst
        copied.append(name)
    return copied


def prepare(conn: Conn, job: dict[str, Any]) -> dict[str, Any]:
    """The device and caches of the job, its files, the judge's fault points, the remote GPU
    lock; the job's slot descriptors as tensors."""
    from ..core import gpulock, runtime
    from . import faults

    writable_caches()
    job["files"] = write_files(job.pop("file_data", {}) or {})
    device = runtime.prepare(job["device"], None)
    job["device"] = device
    conn.device = device
    faults.INJECTED = set(job.get("faults") or [])
    gpulock.REMOTE = RemoteLock(conn)
    return conn.tensors(job)


def preload(fork: bool = False) -> None:
    """What every job needs, imported before the job comes; ``fork``: what a zygote imports
    before it forks, all of it but ``triton_heuristics``, whose import initialises the GPU's
    driver (the H200: it opens ``/dev/nvidia*``; a forked child imports it, 0.4 s of 9)."""
    import torch  # noqa: F401

    # what Inductor-style candidates import, loaded before any candidate
    import torch._inductor.runtime.hints  # noqa: F401
    import torch._inductor.runtime.triton_helpers  # noqa: F401
    import triton  # noqa: F401 - the candidate's imports find it loaded
    import triton.language  # noqa: F401

    if not fork:
        import torch._inductor.runtime.triton_heuristics  # noqa: F401

    from ..core import gpulock, gpumem, phases  # noqa: F401
    from ..core.stagelog import startup_phase  # noqa: F401


def main() -> None:
    socket_path = sys.argv[1]
    device = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else None
    preload()
    import torch

    from ..core import gpulock, gpumem, phases
    from ..core.stagelog import startup_phase

    if device == "cuda":  # the context ready before the job comes (a warm child)
        torch.cuda.init()
        torch.empty(1, device="cuda")
    # read by sandbox._child_phases: a warm child (runner/sandbox.py) was ready before its job
    # came, and its start-up is then off the job's critical path
    startup_phase("start-up (Python, torch, CUDA: until ready for a job)")
    channel = connect(socket_path)
    conn = Conn(channel, "cpu")
    msg = conn.next()
    if msg.get("op") != "job":
        return
    t_job = time.monotonic()
    job = msg["job"]
    conn.device = job["device"]
    job = prepare(conn, job)
    phases.add("the job's files and tensors", time.monotonic() - t_job)
    reply = JOBS[job["kind"]](job, conn)
    if isinstance(reply, dict):
        # a job that stopped on a candidate's error has already had its "end"; others wait for it
        pass
    reply = reply or {}
    reply["lock_held_s"] = dict(gpulock.HELD)
    peak = gpumem.peak_mb()
    reply["gpu_peak_mb"] = None if peak is None else peak + conn.slot_bytes / 2**20
    reply["op"] = "reply"
    with contextlib.suppress(BrokenPipeError, ConnectionError):
        conn.send(reply)
    del torch


# --------------------------------------------------------------------------- the zygote
DRIVER_FILES = ("/dev/nvidia", "/dev/dri")


def _device_files() -> list[str]:
    """The GPU driver's device files this process holds open (``/dev/nvidia*``: what ``cuInit``
    opens and a forked child must not share)."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(DRIVER_FILES):
            held.append(target)
    return sorted(set(held))


def zygote(parent: int) -> None:
    """``python -m kernelopt.runner.child --zygote PARENT``: a process that imported what a child
    imports (``preload``; never CUDA, never anything of a run) and forks, for each request of its
    judge (``PARENT``, a JSON line on stdin: a ``runner/jail.py`` spec and a log file), a launcher
    that builds the boundary exactly as ``jail.py`` run as a script does and, where it would
    ``execve`` the child's command, runs ``main`` in the jailed process instead: the child starts
    without a Python start and a torch import.  Answers (JSON lines on stdout): ``spawned`` with
    the launcher's pid, then ``exit`` with its status as ``subprocess`` reports it.  Ends when the
    judge closes stdin or dies (its launchers die with it, their jails with them)."""
    import json
    import select
    import warnings

    from . import jail

    jail.die_with_parent()
    if os.getppid() != parent:
        os._exit(125)
    preload(fork=True)
    warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
    import torch

    # a fork would carry a CUDA context, or a driver half set up: never (the judge then starts
    # children as new interpreters).  The driver library may be mapped (the imports load it on
    # a GPU machine); initialised, it holds its device files open.
    devices = _device_files()
    if torch.cuda.is_initialized() or devices:
        print(
            f"kernelopt zygote: CUDA is initialised after the imports ({', '.join(devices) or 'torch.cuda'}): no fork",
            file=sys.stderr,
            flush=True,
        )
        os._exit(124)

    def say(msg: dict[str, Any]) -> None:
        os.write(1, (json.dumps(msg) + "\n").encode())

    live: set[int] = set()
    buf = b""
    say({"op": "ready", "pid": os.getpid()})
    while True:
        ready, _, _ = select.select([0], [], [], 0.2)
        while live:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            live.discard(pid)
            rc = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            say({"op": "exit", "pid": pid, "rc": rc})
        if not ready:
            continue
        chunk = os.read(0, 1 << 20)
        if not chunk:
            os._exit(0)
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            req = json.loads(line)
            spec = jail.Spec(**json.loads(req["spec"]))
            spec.parent = os.getpid()
            pid = os.fork()
            if pid == 0:
                _launcher(spec, req["log"])
            live.add(pid)
            say({"op": "spawned", "pid": pid})


def _launcher(spec: Any, log: str) -> None:
    """The forked launcher: a session of its own, its output to the box's log, then the jail."""
    from . import jail

    try:
        os.setsid()
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        os.close(null)
        argv = [spec.argv[2], *spec.argv[3:]]

        def run() -> None:
            sys.argv = argv
            main()

        jail.launch(spec, run)
    except BaseException as e:  # noqa: BLE001 - nothing of the job may run past a failed step
        jail.fail(f"launcher: {type(e).__name__}: {e}")
    os._exit(125)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--zygote":
        zygote(int(sys.argv[2]))
    else:
        main()
