"""Warm workers: the stages' work of thin Snakemake jobs, done by long-lived processes that keep
what is expensive (Python and torch imported, the CUDA context, the problem's model rebuilt and
its inputs drawn, sandboxed children started ahead) from one job to the next.

* **One worker serves one problem** of one run directory on one GPU (``workers_per_problem`` of
  them, each single-threaded), so everything a problem sets process-wide (Inductor's and
  Triton's cache directories, the instrumented wrapper module) is its own, and a request runs
  exactly as it would in its own job.  Jobs of one problem queue at its workers; problems run
  side by side.  Candidate code never runs in a worker: it runs in jailed children, as
  everywhere (``runner/sandbox.py``), which a worker keeps warm.
* **Found and started by its clients.**  A job (``call``) first claims its GPU memory as it
  always did (``core/gpumem``: the claim picks the GPU), then connects to the worker's socket
  (``socket_path``: under ``$XDG_RUNTIME_DIR`` or ``/tmp``, named by the run directory, the
  problem, the GPU and the worker's index); the first one starts the worker (``python -m
  kernelopt.runner.worker``, in a session of its own, under a start lock).  A worker of other
  code (the package changed since it started) is stopped and replaced.  A worker ends after
  ``idle_s`` without a request, when its run ends (the Snakefile's ``onsuccess``/``onerror``
  stop the run's workers), or when told.
* **A request is a job**: the function ``module:name`` called with the problem's
  ``ProblemPaths`` and the job's arguments, its output (Python's and C extensions', through the
  file descriptors) in the job's log, its GPU lock seconds, memory peaks and phases counted for
  it alone, the job's injected faults (``KERNELOPT_FAULT``) in force for it alone.
* **Faults stay faults.**  A worker that is gone or dies during a request is started again and
  the request sent once more; if that fails too the job fails as a machine fault
  (``JobFault``), which Snakemake retries on a GPU of its own.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HEADER_BYTES = 8
# The light lane: steps that never touch the GPU (``synthesize``: a request with ``"lane":
# "light"``) go to a worker of their own per problem (this index), so a cheap step never queues
# behind its problem's GPU work (bench/README.md, "A warm executor").  It keeps no warm children.
LIGHT_INDEX = 100
# a worker idle this long may end to keep the run's live workers at ``executor.max_workers``,
# or to give its memory back when the host runs short (``memory_short``)
EVICT_AFTER_S = 5.0
# the host is short of memory below this share of it available (workers and their warm children
# hold a process with torch each: ~1.2 GB on the CPU, more with a CUDA context)
SHORT_OF_MEMORY = 0.25


def auto_max_workers() -> int:
    """``executor.max_workers: 0``: live workers of a run, by the host: four per core, at least
    16 (one for each of the CPU demo suite's 16 problems: on a small host a lower cap ends and
    restarts workers the run still needs while memory is plentiful; commit 1c513ee6), at most 64
    (memory is watched apart: ``memory_short``)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(16, min(64, 4 * cores))


def memory_short() -> bool:
    """Whether less than ``SHORT_OF_MEMORY`` of the host's memory is available (``/proc/meminfo``;
    False where it cannot be read)."""
    try:
        info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines() if ":" in line)
        total, avail = (int(info[k].split()[0]) for k in ("MemTotal", "MemAvailable"))
    except (OSError, KeyError, ValueError):
        return False
    return avail < SHORT_OF_MEMORY * total


def _runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    return Path(base) if base and os.path.isdir(base) and os.access(base, os.W_OK) else Path("/tmp")


def gpu_key() -> str:
    return (os.environ.get("CUDA_VISIBLE_DEVICES") or "all").replace(",", "_") or "all"


def socket_path(run_dir: str | Path, problem: str, index: int = 0, gpu: str | None = None) -> Path:
    """Where worker ``index`` of ``problem`` listens (short: a Unix socket's path is limited to
    107 bytes, a run directory's is not)."""
    return _runtime_dir() / f"kernelopt-worker-{os.geteuid()}-{_slot_digest(run_dir, problem, gpu)}-{index}.sock"


def _slot_digest(run_dir: str | Path, problem: str, gpu: str | None) -> str:
    key = f"{Path(run_dir).resolve()}\0{problem}\0{gpu or gpu_key()}"
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def _run_digest(run_dir: str | Path) -> str:
    return hashlib.sha256(str(Path(run_dir).resolve()).encode()).hexdigest()[:12]


def lock_path(run_dir: str | Path, problem: str, index: int, kind: str, gpu: str | None = None) -> Path:
    """The lock file beside a worker's socket: ``kind`` "lock" (one starter of worker ``index``
    at a time, ``ensure``) or "busy" (a job holds the slot, ``_a_worker``; slots are the
    problem's, whatever the GPU).  Node-local like the socket (a run directory may sit on a
    cluster's shared file system, where one node's slots are not another's), and named after
    the run, so that the run's end removes its own (``stop_all``): a user's hundreds of runs
    leave none behind."""
    digest = _slot_digest(run_dir, problem, gpu)
    return _runtime_dir() / f"kernelopt-lock-{os.geteuid()}-{_run_digest(run_dir)}-{digest}-{index}.{kind}"


def remove_locks(run_dir: str | Path) -> int:
    """Remove the run's lock files (its workers gone: the end of a run); how many."""
    n = 0
    for f in _runtime_dir().glob(f"kernelopt-lock-{os.geteuid()}-{_run_digest(run_dir)}-*"):
        with contextlib.suppress(OSError):
            f.unlink()
            n += 1
    return n


def code_version() -> str:
    """The kernelopt package's files as this process sees them (names, sizes, times): a worker
    started from other code is not used."""
    import kernelopt

    root = Path(kernelopt.__file__).parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.suffix in (".py", ".yaml", ".md") and "__pycache__" not in p.parts:
            st = p.stat()
            h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


# --------------------------------------------------------------------------- framing
def _send(sock: socket.socket, obj: dict[str, Any]) -> None:
    data = json.dumps(obj, default=str).encode()
    sock.sendall(len(data).to_bytes(HEADER_BYTES, "little") + data)


def _recv(sock: socket.socket) -> dict[str, Any] | None:
    def exactly(n: int) -> bytes | None:
        buf = bytearray()
        while len(buf) < n:
            chunk = sock.recv(min(n - len(buf), 1 << 20))
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    head = exactly(HEADER_BYTES)
    if head is None:
        return None
    data = exactly(int.from_bytes(head, "little"))
    return None if data is None else json.loads(data)


# --------------------------------------------------------------------------- the worker
class Worker:
    def __init__(self, run_dir: Path, problem: str, index: int, idle_s: float, warm_children: int, max_live: int = 0):
        self.run_dir, self.problem, self.index = Path(run_dir).resolve(), problem, index
        self.idle_s, self.warm_children = idle_s, warm_children
        self.max_live = max_live or auto_max_workers()
        self.path = socket_path(self.run_dir, problem, index)
        self.version = code_version()
        self.served = 0
        self.scheduler: int | None = None  # the Snakemake process of the latest request
        # the run's live workers, one file each, touched when a request starts and ends (LRU)
        self.mark = self.run_dir / ".kernelopt" / "workers" / f"{os.getpid()}"
        self._looked = 0.0

    def serve(self) -> None:
        print(
            f"[worker] pid {os.getpid()}: {self.problem} of {self.run_dir}, GPU {gpu_key()}, "
            f"worker {self.index}, code {self.version}",
            flush=True,
        )
        # warm before the socket exists: a client waits for the file, never in a queue of a worker
        # still warming up (a ping it gave up on would meet a closed connection there); listed in
        # the run's registry first, so that the run's end finds it without a socket (stop_all)
        self._touch()
        self._warm_up()
        self.path.unlink(missing_ok=True)
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(str(self.path))
        inode = self.path.stat().st_ino
        os.chmod(self.path, 0o600)
        srv.listen(64)
        srv.settimeout(1.0)
        try:
            self._loop(srv)
        finally:
            srv.close()
            with contextlib.suppress(OSError):
                if self.path.stat().st_ino == inode:  # never the socket of a worker started after this one
                    self.path.unlink()
            with contextlib.suppress(OSError):
                self.mark.unlink()

    def _loop(self, srv: socket.socket) -> None:
        """Requests, one at a time, until told to stop or ``_why_end`` says so.  A client that
        went away (a ping that timed out, a killed job) costs its reply, never the worker."""
        last = time.monotonic()
        while True:
            why = self._why_end(time.monotonic() - last)  # pings come and go without a job
            if why:
                print(f"[worker] {why} after {self.served} requests: ending", flush=True)
                return
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(60.0)  # a client sends its request at once; one that stalls is dropped
                try:
                    req = _recv(conn)
                except (OSError, ValueError):
                    continue
                if req is None:
                    continue
                op = req.get("op")
                if op in ("ping", "stop"):
                    with contextlib.suppress(OSError):
                        _send(conn, self._info() if op == "ping" else {"ok": True})
                    if op == "stop":
                        return
                    continue
                conn.settimeout(None)
                if self._serve_one(conn, req):
                    return
                last = time.monotonic()

    def _info(self) -> dict[str, Any]:
        return {
            "ok": True,
            "pid": os.getpid(),
            "version": self.version,
            "served": self.served,
            "run_dir": str(self.run_dir),
            "problem": self.problem,
        }

    def _serve_one(self, conn: socket.socket, req: dict[str, Any]) -> bool:
        """Run one job's request and reply; whether the worker must end now (out of memory)."""
        from ..core import stagelog

        _maybe_die(self.run_dir, req)
        self.scheduler = req.get("scheduler") or self.scheduler
        self._touch()
        reply = stagelog.run_request(req)
        self.served += 1
        self._touch()
        oom = _after_request(reply)
        with contextlib.suppress(OSError):
            _send(conn, reply)
        if oom:  # the job's retry (a GPU of its own) starts afresh, in its own process
            print("[worker] out of memory in this process: ending, its caches with it", flush=True)
        return oom

    def _touch(self) -> None:
        with contextlib.suppress(OSError):
            self.mark.parent.mkdir(parents=True, exist_ok=True)
            self.mark.touch()

    def _why_end(self, idle: float) -> str | None:
        """Why this idle worker should end now, or None: idle for ``idle_s``; its run's Snakemake
        gone (killed hard, it never stops its workers); or this one the least recently used of
        the run's live workers when there are more than ``max_live`` of them or the host is short
        of memory (each holds a process with torch and a context, and its warm children)."""
        if idle > self.idle_s:
            return f"idle for {self.idle_s:.0f} s"
        if idle < EVICT_AFTER_S or time.monotonic() - self._looked < 2.0:
            return None
        self._looked = time.monotonic()
        if self.scheduler and not _alive(int(self.scheduler)):
            return f"its run's Snakemake (pid {self.scheduler}) is gone"
        live = []
        for f in self.mark.parent.glob("*"):
            if f.name.isdigit() and _alive(int(f.name)):
                with contextlib.suppress(OSError):
                    live.append((f.stat().st_mtime, int(f.name)))
        if min(live, default=(0, 0))[1] != os.getpid() or len(live) < 2:
            return None
        if len(live) > self.max_live:
            n = len(live)
            return f"{n} workers of the run alive (executor.max_workers {self.max_live}), this one used least recently"
        if memory_short():
            return f"the host is short of memory ({len(live)} workers of the run alive), this one used least recently"
        return None

    def _sample_gpu(self) -> None:
        """One sampler per run and GPU (whichever worker holds the lock): the GPU's utilisation
        every second, ``<run>/logs/gpu-busy-<gpu>.jsonl`` (the report's GPU-busy share)."""
        import shutil
        import threading

        from ..core.records import gpu_busy_lock, gpu_busy_log

        if not shutil.which("nvidia-smi") or gpu_key() == "all":
            return
        lock_path = gpu_busy_lock(self.run_dir, gpu_key())
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(lock_path, "a+")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            return

        def sample() -> None:
            out = gpu_busy_log(self.run_dir, gpu_key())
            while True:
                r = subprocess.run(
                    ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-i", gpu_key()],
                    capture_output=True,
                    text=True,
                )
                with contextlib.suppress(ValueError, IndexError):
                    util = float(r.stdout.strip().splitlines()[0])
                    with open(out, "a") as f:
                        f.write(json.dumps({"t": round(time.time(), 2), "util": util}) + "\n")
                time.sleep(1.0)

        threading.Thread(target=sample, name="kernelopt-gpu-busy", daemon=True).start()
        self._sampler_lock = lock  # held for the worker's life

    def _warm_up(self) -> None:
        """What every request needs, before the first one: the stack imported, and sandboxed
        children started ahead for this problem's caches."""
        from . import sandbox

        try:
            import torch  # noqa: F401
            import triton  # noqa: F401

            sandbox.keep_warm(self.warm_children)
            self._sample_gpu()
        except Exception:  # noqa: BLE001 - a worker that cannot warm up still serves, cold
            traceback.print_exc()


def _after_request(reply: dict[str, Any]) -> bool:
    """After every job: the memory it freed given back to the driver (other processes' claims
    count on it).  Whether the job ran out of memory here: the worker then ends, so that the
    job's retry (Snakemake's, on a GPU of its own: ``gpu.retries``) meets no cache of this
    process and no fragmented allocator."""
    from ..core.errors import looks_like_oom

    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        with contextlib.suppress(Exception):
            torch.cuda.empty_cache()
    return not reply.get("ok") and looks_like_oom(str(reply.get("error", "")))


def _maybe_die(run_dir: Path, req: dict[str, Any]) -> None:
    """``KERNELOPT_FAULT=killworker:<rule>`` (tests): the worker dies, once per run, on the first
    request of that rule, as a crashed or killed worker would."""
    point = f"killworker:{req.get('rule')}"
    if point in (req.get("faults") or []):
        marker = run_dir / ".kernelopt" / point.replace(":", "-")
        marker.parent.mkdir(parents=True, exist_ok=True)
        if not marker.exists():
            marker.touch()
            print(f"[worker] {point}: dying on purpose", flush=True)
            os._exit(137)


# --------------------------------------------------------------------------- the client
class WorkerUnavailable(RuntimeError):
    """No worker could be reached or started."""


def _connect(path: Path, timeout: float | None = None) -> socket.socket | None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(str(path))
        s.settimeout(None)
        return s
    except OSError:
        s.close()
        return None


def _ask(path: Path, req: dict[str, Any], timeout: float = 10.0) -> dict[str, Any] | None:
    s = _connect(path, timeout)
    if s is None:
        return None
    with s:
        try:
            s.settimeout(timeout)
            _send(s, req)
            return _recv(s)
        except OSError:
            return None


def ping(path: Path) -> dict[str, Any] | None:
    return _ask(path, {"op": "ping"})


def ensure(
    run_dir: str | Path, problem: str, index: int, settings: dict[str, Any], start_timeout: float = 600.0
) -> Path:
    """The socket of worker ``index`` of ``problem``, running this code; started if needed (one
    starter at a time, under a lock file)."""
    path = socket_path(run_dir, problem, index)
    version = code_version()
    with open(lock_path(run_dir, problem, index, "lock"), "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        # a busy worker answers a ping only between requests: a connection refused means none runs
        info = ping(path) if path.exists() else None
        if info is not None and info.get("version") == version:
            return path
        if info is not None:
            _ask(path, {"op": "stop"})
        log = Path(run_dir) / "logs" / "workers" / f"{problem}-{gpu_key()}-{index}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            sys.executable,
            "-m",
            "kernelopt.runner.worker",
            str(Path(run_dir).resolve()),
            problem,
            "--index",
            str(index),
            "--idle-s",
            str(settings.get("idle_s", 60)),
            "--warm-children",
            str(0 if index >= LIGHT_INDEX else settings.get("warm_children", 1)),
            "--max-live",
            str(settings.get("max_workers", 0)),
        ]
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            if path.exists() and ping(path) is not None:
                return path
            if proc.poll() is not None:
                raise WorkerUnavailable(f"the worker exited at start (status {proc.returncode}); see {log}")
            time.sleep(0.05)
        raise WorkerUnavailable(f"the worker did not answer in {start_timeout:.0f} s; see {log}")


@contextlib.contextmanager
def _a_worker(run_dir: str | Path, problem: str, n: int, first: int = 0) -> Any:
    """The index of a worker slot of ``problem`` free for this job (held for the job), else the
    least loaded guess: the first slot's queue (slots ``first`` to ``first + n - 1``).  Slots are
    the problem's, whatever GPU the job's claim then picks: a job takes its slot before it claims
    GPU memory, so a job queued behind a busy worker holds no memory another problem's job could
    use."""
    held = None
    try:
        for i in range(first, first + max(1, n)):
            f = open(lock_path(run_dir, problem, i, "busy", gpu="slots"), "a+")
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = f
                yield i
                return
            except BlockingIOError:
                f.close()
        f = open(lock_path(run_dir, problem, first, "busy", gpu="slots"), "a+")
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        held = f
        yield first
    finally:
        if held is not None:
            held.close()


def call(
    run_dir: str | Path,
    problem: str,
    request: dict[str, Any],
    settings: dict[str, Any],
    attempts: int = 2,
    index: int | None = None,
) -> dict[str, Any]:
    """Run ``request`` (``stagelog.run_request``'s form) in a worker of ``problem``; its reply.
    A worker that is gone or dies during the request is started again (``attempts`` in all).
    ``index``: the worker slot the caller already holds (``_a_worker``), else one is taken."""
    if index is None:
        with _a_worker(run_dir, problem, *_lane(request, settings)) as held:
            return call(run_dir, problem, request, settings, attempts, held)
    last = ""
    for _ in range(attempts):
        try:
            path = ensure(run_dir, problem, index, settings)
        except WorkerUnavailable as e:
            last = str(e)
            continue
        s = _connect(path, timeout=60)
        if s is None:
            last = "the worker refused the connection"
            continue
        with s:
            try:
                _send(s, request)
                reply = _recv(s)
            except OSError as e:
                reply, last = None, f"the connection broke: {e}"
        if reply is not None:
            return reply
        last = last or "the worker ended during the request"
    return {"ok": False, "fault": True, "error": f"no worker could run the job: {last}"}


def _lane(request: dict[str, Any], settings: dict[str, Any]) -> tuple[int, int]:
    """The worker slots a request may use: (how many, the first index)."""
    if request.get("lane") == "light":
        return 1, LIGHT_INDEX
    return int(settings.get("workers_per_problem", 1)), 0


def executor_settings() -> dict[str, Any]:
    """The run's executor settings (the Snakefile puts the config's ``executor`` section in
    ``KERNELOPT_EXECUTOR``); empty (off) outside a Snakemake run."""
    try:
        return dict(json.loads(os.environ.get("KERNELOPT_EXECUTOR", "") or "{}"))
    except ValueError:
        return {}


def on_a_cluster() -> bool:
    """Whether this job is a cluster's (SLURM, Kubernetes): its processes end with it there, so
    a worker it started would serve it alone; such jobs run their work themselves."""
    return bool(os.environ.get("SLURM_JOB_ID") or os.environ.get("KUBERNETES_SERVICE_HOST"))


def run_job(name: str, log: str | None, fn: Any = None, job: Any = None, remote: dict[str, Any] | None = None) -> Any:
    """A rule's entry point (``scripts/``): the stage's work in a warm worker of its problem
    when the executor is on and the stage can run there (``remote``, ``stagelog.remote``), else
    in this process (``core/stagelog.run_stage``): ``fn``, or the call ``remote`` describes.
    The files, the log and the exit status are the same."""
    from ..core import stagelog

    settings = executor_settings()
    if remote is None or not settings.get("enabled") or on_a_cluster() or _a_retry(job):
        return stagelog.run_stage(name, log, fn or stagelog.resolve(remote or {}), job=job)
    return _thin_client(name, log, remote, job, settings)


def _a_retry(job: Any) -> bool:
    """A job Snakemake retries after a failure (``gpu_alone``: a GPU of its own) runs in its own
    process: whatever the failure was (a worker's state, its memory), the retry does not
    share it."""
    resources = getattr(job, "resources", None) or {}
    try:
        return bool(int(resources.get("gpu_alone", 0) or 0))
    except (TypeError, ValueError):
        return False


def _thin_client(name: str, log: str | None, call_: dict[str, Any], job: Any, settings: dict[str, Any]) -> Any:
    """The job as a thin client: its GPU memory claimed here (the claim picks the GPU, whose
    worker serves it), its work done by a warm worker, its exit status as if it had run here."""
    from ..core import gpumem, stagelog
    from ..core.errors import KerneloptError, fault_points

    request = {
        **call_,
        "rule": name,
        "log": str(log) if log else None,
        "faults": fault_points(),
        "client_started": stagelog.process_started(),
        "scheduler": stagelog.scheduler_pid(),
    }
    run, problem = call_["workdir"], call_["problem"]
    try:
        t = time.monotonic()
        with _a_worker(run, problem, *_lane(request, settings)) as index:
            with stagelog.gpu_claim(name, job):
                stagelog.maybe_fail(name, job)
                gpumem.claim_pending()
                request["claim"] = dict(gpumem.CLAIM)
                request["waited_s"] = round(time.monotonic() - t, 3)
                reply = call(run, problem, request, settings, index=index)
    except KerneloptError as e:
        print(f"kernelopt {name}: {str(e).splitlines()[0]} (full log: {log})", file=sys.stderr, flush=True)
        sys.exit(1)
    if reply.get("ok"):
        return reply.get("result")
    why = str(reply.get("error", "")).splitlines()[0] if reply.get("error") else "no reason given"
    kind = "" if reply.get("user_error") else ("machine fault: " if reply.get("fault") else "internal error ")
    kept = stagelog.keep_failed_log(log)
    print(f"kernelopt {name}: {kind}{why} (full log: {kept})", file=sys.stderr, flush=True)
    sys.exit(1)


def stop_all(run_dir: str | Path, wait_s: float = 30.0) -> int:
    """Stop every worker of ``run_dir`` this user runs (the end of a run); how many were told.
    Returns when they are gone: a worker that has not exited ``wait_s`` after being told (its
    interpreter, torch and its warm children take a while to end on a loaded machine), or that
    the run's registry (``Worker.mark``) lists but did not answer, is killed with its process
    group, so that no worker outlives its run.  Sockets are shared by every run of the user: a
    busy worker of another run answers no ping, so each is asked with a short timeout.  The
    run's lock files go with its workers (``remove_locks``)."""
    pattern = f"kernelopt-worker-{os.geteuid()}-*.sock"
    run = Path(run_dir).resolve()
    told = []
    for path in _runtime_dir().glob(pattern):
        info = ping(path)
        if info is not None and info.get("run_dir") == str(run) and _ask(path, {"op": "stop"}):
            told.append(int(info["pid"]))
    registered = [int(f.name) for f in (run / ".kernelopt" / "workers").glob("*") if f.name.isdigit()]
    silent = [pid for pid in registered if pid not in told and _alive(pid) and _is_worker_of(pid, run)]
    left, deadline = list(told), time.monotonic() + wait_s
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [pid for pid in left if _alive(pid)]
    for pid in left + silent:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # started in a session of its own (``ensure``)
    # a killed worker's warm children leave their sandbox directories behind
    from . import sandbox

    sandbox.sweep_stale()
    remove_locks(run)
    return len(told)


def _is_worker_of(pid: int, run: Path) -> bool:
    """Whether ``pid`` is a worker of ``run`` (its command line says so: a mark left by a killed
    worker may name a pid the system gave another process since)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"kernelopt.runner.worker" in argv and str(run).encode() in argv


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a child of ours that exited, not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="a warm worker of kernelopt (started by its clients)")
    ap.add_argument("run_dir")
    ap.add_argument("problem")
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--idle-s", type=float, default=60.0)
    ap.add_argument("--warm-children", type=int, default=1)
    ap.add_argument("--max-live", type=int, default=0)
    a = ap.parse_args()
    os.environ["KERNELOPT_WARM_WORKER"] = "1"  # runner/harness.py: keep the problem rebuilt between jobs
    Worker(Path(a.run_dir), a.problem, a.index, a.idle_s, a.warm_children, a.max_live).serve()


if __name__ == "__main__":
    main()
