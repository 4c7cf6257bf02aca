"""The sandboxed child: the only process that runs candidate code.

usage: python -m kernelopt.gates.child REQUEST.pt REPLY.pt SCRATCH_DIR [CACHE_DIR]

It imports what trusted code needs, prepares the device and the problem's caches, ``enter``s
the sandbox (``sandbox.py``), and only then loads candidates (``core/loader.py``) and runs the
job.  Jobs (``job["kind"]``):

  unit    a unit's candidate on given argument lists (gates 1-2): per call, the arguments as
          the candidate left them, the ATen ops it dispatched, the Triton kernels it launched,
          its exception; Inductor's kernel launched between the calls when asked
  model   the stitched wrapper on given call arguments (gate 3): per call, the outputs, which
          kernels ran as candidates and which as Inductor's, the ops and launches inside each
          candidate's launch
  speed   baseline and stitched wrappers, each in one CUDA graph, timed interleaved (gate 4)
  timing  Inductor's kernel against candidates on the same arguments (select, the search)
  time    one candidate's median time (the search's profile)

The child never sees a reference or a tolerance; the parent judges what it hands back.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any


def _error(e: BaseException) -> dict[str, str]:
    return {"type": type(e).__name__, "message": str(e)[:2000], "traceback": traceback.format_exc()[-3000:]}


def _sync(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def _clone(args: list[Any]) -> list[Any]:
    import torch

    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def _streamed_calls(job: dict[str, Any]) -> Any:
    """The calls of a unit job, one at a time: from the job itself, or (``job["stream"]``: gates
    1-2 of big units) each from ``call-<k>.pt`` in the scratch directory as the parent writes it
    after judging call k-1, so that only one call's tensors exist at a time.  A ``stop`` file
    ends the calls early."""
    import time

    import torch

    from ..core.phases import timed
    from .exchange import unpack

    if not job.get("stream"):
        yield from enumerate(job["calls"])
        return
    scratch = Path(job["stream"]["dir"])
    for k in range(int(job["stream"]["calls"])):
        path = scratch / f"call-{k}.pt"
        while not path.exists():
            if (scratch / "stop").exists():
                return
            time.sleep(0.002)
        with timed("read a call (its tensors through CUDA IPC)"):
            call = unpack(torch.load(path, weights_only=False))
        path.unlink()
        box = [call]
        del call
        yield k, box.pop()  # this frame keeps no reference while the call runs and after it


def _stream_result(job: dict[str, Any], k: int, out: dict[str, Any], launcher_ops: list[str]) -> None:
    """Call k's result, for the parent to judge before it sends call k+1."""
    if job.get("stream"):
        import torch

        scratch = Path(job["stream"]["dir"])
        tmp = scratch / f"result-{k}.partial"
        torch.save({**out, "launcher_ops": launcher_ops}, tmp)
        tmp.replace(scratch / f"result-{k}.pt")


def run_unit(job: dict[str, Any]) -> dict[str, Any]:
    from ..core import gpulock
    from ..core.loader import load_candidate
    from ..core.phases import timed
    from .exchange import shared_in_place
    from .faults import maybe_inject
    from .watch import AtenWatch, LaunchWatch

    device = job["device"]
    reply: dict[str, Any] = {"import_error": None, "calls": [], "launcher_ops": []}
    with timed("load Inductor's kernel"):
        inductor = load_candidate(job["inductor"]) if job.get("inductor") else None
    try:
        with AtenWatch() as at_import, timed("load the candidate"):
            module = load_candidate(job["candidate"])
        reply["import_ops"] = sorted(at_import.seen)
    except BaseException as e:  # noqa: BLE001 - the candidate's own failure, reported as such
        reply["import_error"] = _error(e)
        return reply
    with gpulock.shared(device, f"{job.get('point', 'gate')} candidate runs"):
        for k, call in _streamed_calls(job):
            args = call["args"]
            if k == 0 and inductor is not None:
                # what launching Inductor's own kernel dispatches is the launcher's, not the unit's work
                with AtenWatch() as w:
                    inductor.launch(*_clone(args))
                    _sync(device)
                reply["launcher_ops"] = sorted(w.seen)
            print(f"[kernelopt-call {k}]", flush=True)  # where a hang or a crash happened, for the parent
            if inductor is not None and call.get("interleave"):
                with timed("Inductor's kernel before a call"):
                    inductor.launch(*_clone(args))
                    _sync(device)
            out: dict[str, Any] = {"error": None, "ops": [], "foreign_launches": [], "launches": 0}
            try:
                maybe_inject(job.get("point", ""))
                with AtenWatch() as aten, LaunchWatch() as launches:
                    module.launch(*args)
                    _sync(device)
                out.update(ops=sorted(aten.seen), foreign_launches=launches.foreign, launches=len(launches.launches))
            except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt from a candidate too
                out["error"] = _error(e)
            out["args"] = [None if shared_in_place(a) else a for a in args]
            # the parent's shared buffers let go before it hears of the result, so that it can
            # free them (exchange.collect) before the next call's are allocated
            del args, call
            _stream_result(job, k, out, reply["launcher_ops"])
            reply["calls"].append({k: v for k, v in out.items() if k != "args"} if job.get("stream") else out)
            if out["error"] is not None:
                break
    return reply


def _wrappers(job: dict[str, Any], names: list[str]) -> tuple[dict[str, Any], Any, dict[str, dict[str, str]]]:
    """The baseline and/or stitched wrapper modules of a problem, configs pinned as at capture."""
    from ..core import outputcode
    from ..core.jsonio import read_json
    from ..core.paths import ProblemPaths
    from ..isolate.harness import load_wrapper
    from .model import pin_configs

    paths = ProblemPaths.of(job["problem_dir"])
    launches = read_json(paths.capture_record)["graphs"][0]["standalone"]["launches"]
    oc = outputcode.parse(paths.output_code.read_text(), paths.output_code)
    mods, pins = {}, {}
    for name in names:
        path = paths.output_code if name == "baseline" else Path(job["stitched"])
        mods[name] = load_wrapper(paths, 0, path, job["device"])
        pins[name] = pin_configs(mods[name], oc, launches)
    return mods, oc, pins


def run_model(job: dict[str, Any]) -> dict[str, Any]:
    import torch

    from ..core import gpulock
    from ..core.instrument import Observer, instrumented
    from .faults import maybe_inject
    from .watch import AtenWatch, LaunchWatch

    device = job["device"]
    mods, oc, pins = _wrappers(job, ["stitched", "baseline"])
    mod = mods["stitched"]
    # what launching Inductor's own kernels dispatches is the launcher's (the Triton
    # interpreter's copies in CPU mode), not a candidate's work: watched on one baseline call
    launcher_ops: set[str] = set()

    class Launcher(Observer):
        def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
            with AtenWatch() as aten:
                result = inner.run(*args, **kwargs)
            launcher_ops.update(aten.seen)
            return result

    calls = _streamed_calls(job)  # gate 3 streams its calls too: one call's tensors at a time
    first = next(calls, None)
    if first is not None:
        with torch.no_grad(), instrumented(mods["baseline"], oc, Launcher()):
            mods["baseline"].call(list(_clone(first[1]["args"])))
    pending = [first] if first is not None else []
    del first

    def all_calls() -> Any:  # no reference to a call is kept here once it has been handed out
        if pending:
            yield pending.pop()
        yield from calls

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

    reply: dict[str, Any] = {"calls": [], "pins": pins}
    with torch.no_grad(), gpulock.shared(device, "gate3 stitched model"), instrumented(mod, oc, Count()):
        for k, call in all_calls():
            entry: dict[str, Any] = {"error": None}
            outs: Any = None
            try:
                maybe_inject(job.get("point", ""))
                outs = mod.call(list(call["args"]))
                _sync(device)
                outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
                entry["outputs"] = _hand_back([outs[i] for i in job["out_idx"]], call.get("out_bufs"), device)
            except BaseException as e:  # noqa: BLE001
                entry["error"] = _error(e)
            del call, outs  # the parent's shared buffers let go before it hears of the result
            _stream_result(job, k, entry, sorted(launcher_ops))
            reply["calls"].append({k: v for k, v in entry.items() if k != "outputs"} if job.get("stream") else entry)
            if entry["error"] is not None:
                break
    reply.update(
        candidate_launches=by_candidate,
        inductor_launches=by_inductor,
        candidate_ops=ops,
        foreign_launches=foreign,
        launcher_ops=sorted(launcher_ops),
    )
    return reply


def _hand_back(outs: list[Any], bufs: list[Any] | None, device: str) -> list[Any]:
    """The stitched model's outputs for the parent: copied into the parent's own buffers where
    they are shared with it (CUDA IPC) and match in shape and dtype (then None here: nothing
    travels through a file), else by value (CPU mode, or an output the parent must see as it is)."""
    from .exchange import shared_in_place

    back = []
    for i, o in enumerate(outs):
        buf = bufs[i] if bufs and i < len(bufs) else None
        same = buf is not None and getattr(o, "shape", None) == buf.shape and getattr(o, "dtype", None) == buf.dtype
        if same and shared_in_place(buf):
            buf.copy_(o)
            back.append(None)
        else:
            back.append(o.detach().cpu() if device == "cuda" and hasattr(o, "detach") else o)
    _sync(device)
    return back


def run_speed(job: dict[str, Any]) -> dict[str, Any]:
    import torch

    from ..core import gpulock, measure
    from .faults import maybe_inject

    device = job["device"]
    mods, _, pins = _wrappers(job, ["baseline", "stitched"])
    args = job["args"]
    with torch.no_grad(), gpulock.shared(device, "gate4 warm-up"):
        fa = measure.graphed(lambda: mods["baseline"].call(list(args)), device)
        fb = measure.graphed(lambda: mods["stitched"].call(list(args)), device)
    maybe_inject(job.get("point", ""))
    with torch.no_grad(), gpulock.exclusive(device, "gate4"):
        cmps = [
            measure.compare(fa, fb, device, measure.Protocol(**job["protocol"])) for _ in range(job.get("trials", 1))
        ]
    return {"comparison": cmps[0].to_dict(), "trials": [c.to_dict() for c in cmps], "pins": pins}


def run_timing(job: dict[str, Any]) -> dict[str, Any]:
    from ..core import gpulock, measure
    from ..core.loader import load_candidate
    from .faults import maybe_inject

    maybe_inject(job.get("point", ""))
    device = job["device"]
    args = job["args"]
    base = load_candidate(job["inductor"])
    mods = [load_candidate(c) for c in job["candidates"]]
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


def run_time(job: dict[str, Any]) -> dict[str, Any]:
    import time

    from ..core import gpulock, measure
    from ..core.loader import load_candidate

    device = job["device"]
    args = job["args"]
    mod = load_candidate(job["candidate"])
    with gpulock.shared(device, f"{job.get('what', 'time')}: warm-up"):
        measure.warm(lambda: mod.launch(*args), device)
    with gpulock.exclusive(device, job.get("what", "time")):
        t0 = time.perf_counter()
        t = measure.time_one(lambda: mod.launch(*args), device, measure.Protocol(**job["protocol"]))
        t["locked_s"] = time.perf_counter() - t0
    return {"time": t}


JOBS = {"unit": run_unit, "model": run_model, "speed": run_speed, "timing": run_timing, "time": run_time}


def die_with_parent(parent: int) -> None:
    """End this process when the job that started it ends.  A job killed by Snakemake, SLURM or
    a timeout (SIGTERM or SIGKILL: no ``finally`` of the parent runs) left its child running in
    its own session, holding its GPU memory: a streamed child waits for its next call forever.
    On the H200 (run 9) such children held 13.8 GiB into the next run, whose jobs then waited
    for memory for the whole of it.  Linux kills the child with its parent
    (``PR_SET_PDEATHSIG``); if the parent is already gone, exit now.  Linux sends the signal
    when the parent's *thread* that started the child ends, so the parent passes its pid
    (``parent``, else 0: nothing is set) only from its main thread (``sandbox.run``)."""
    import os
    import signal

    if not parent:
        return
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def main() -> None:
    import os

    die_with_parent(int(os.environ.get("KERNELOPT_PARENT_PID") or 0))  # before anything slow
    request, reply_path, scratch = sys.argv[1:4]
    cache = sys.argv[4] if len(sys.argv) > 4 else None
    import torch
    import triton  # noqa: F401 - imported before the sandbox: the candidate's imports find it loaded
    import triton.language  # noqa: F401

    from ..core import gpulock, gpumem, runtime
    from ..core.stagelog import startup_phase
    from . import exchange, sandbox

    job = exchange.unpack(torch.load(request, weights_only=False))
    device = runtime.prepare(job["device"], Path(cache) if cache else None)
    job["device"] = device
    # what Inductor-style candidates import, loaded before the sandbox
    import torch._inductor.runtime.hints  # noqa: F401
    import torch._inductor.runtime.triton_helpers  # noqa: F401
    import torch._inductor.runtime.triton_heuristics  # noqa: F401
    import torch.multiprocessing.reductions  # noqa: F401 - streamed calls' CUDA IPC handles

    writable = [Path(cache)] if cache else []
    cpu_limit = int(job.get("cpu_seconds") or 0) or None
    policy = sandbox.Policy(
        scratch=Path(scratch),
        writable=writable,
        cpu_seconds=cpu_limit,
        address_space_bytes=(
            int(job["address_space_bytes"]) if device == "cpu" and job.get("address_space_bytes") else None
        ),
    )
    record = sandbox.enter(policy)
    startup_phase("start-up (Python, torch, the job's tensors, the sandbox)")  # read by sandbox._child_phases
    reply = JOBS[job["kind"]](job)
    reply["sandbox"] = {"denied": record.denied, "network_namespace": record.network_namespace, "limits": record.limits}
    reply["lock_held_s"] = dict(gpulock.HELD)
    reply["gpu_peak_mb"] = gpumem.peak_mb()
    tmp = Path(reply_path).with_suffix(".partial")
    torch.save(reply, tmp)
    tmp.replace(reply_path)


if __name__ == "__main__":
    main()
