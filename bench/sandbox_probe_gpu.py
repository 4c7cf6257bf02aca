"""What the OS boundary (kernelopt/runner/jail.py) allows on the GPU machine (issue 11).

Run as root on the GPU machine: ``python3 bench/sandbox_probe_gpu.py OUT.json``.  Each probe
starts a jailed child (uid != 0, no capabilities, own pid/mount/net/IPC namespaces, seccomp)
and records what worked and how long it took:

* cuda: the child initialises CUDA;
* ipc_judge_exports: the judge (root) shares a buffer through torch's CUDA IPC, the child opens it;
* ipc_child_exports: the child allocates (cuMemAlloc), exports a handle, the judge opens it,
  both write and read;
* exporter_dies: the judge reads an imported buffer after the exporting child has exited;
* triton: a Triton kernel compiled (ptxas) and run inside, with a fresh cache in scratch;
* ncu_outside / ncu_inside: Nsight Compute profiling a jailed child, ncu outside or inside.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernelopt.runner import jail  # noqa: E402


class Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * 64)]


def libcuda():
    return ctypes.CDLL("libcuda.so.1")


class Raw:
    """A device pointer as a torch tensor (``__cuda_array_interface__``)."""

    def __init__(self, ptr: int, nbytes: int):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False), "version": 3}


def as_tensor(ptr: int, nbytes: int):
    import torch

    return torch.as_tensor(Raw(ptr, nbytes), device="cuda")


# ------------------------------------------------------------------------------------ the child
def child(mode: str, rfd: int, wfd: int) -> None:
    rd, wr = os.fdopen(rfd, "rb", buffering=0), os.fdopen(wfd, "wb", buffering=0)

    def send(obj):
        b = json.dumps(obj).encode()
        wr.write(len(b).to_bytes(8, "little") + b)

    def recv():
        n = int.from_bytes(rd.read(8), "little")
        return json.loads(rd.read(n))

    t0 = time.perf_counter()
    out = {"uid": os.getuid()}
    import torch

    out["import_torch_s"] = time.perf_counter() - t0
    torch.empty(1, device="cuda")
    out["cuda_ready_s"] = time.perf_counter() - t0
    if mode == "cuda":
        send(out)
        return
    if mode == "ipc_judge_exports":
        msg = recv()
        try:
            from torch.multiprocessing import reductions

            t = reductions.rebuild_cuda_tensor(torch.Tensor, *_fix(msg["args"]))
            out["read"] = float(t.float().sum())
            out["ok"] = True
        except Exception as e:  # noqa: BLE001
            out["ok"] = False
            out["error"] = f"{type(e).__name__}: {e}"[:500]
        send(out)
        return
    if mode in ("ipc_child_exports", "exporter_dies"):
        cu = libcuda()
        ptr = ctypes.c_uint64()
        n = 64 << 20
        assert cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(n)) == 0
        t = as_tensor(ptr.value, n)
        t.fill_(7)
        torch.cuda.synchronize()
        h = Handle()
        rc = cu.cuIpcGetMemHandle(ctypes.byref(h), ctypes.c_uint64(ptr.value))
        out["export_rc"] = rc
        send({**out, "handle": bytes(h.reserved).hex(), "nbytes": n})
        msg = recv()  # the judge wrote 3s in the first half
        torch.cuda.synchronize()
        out["child_sees_first_half_sum"] = int(t[: n // 2].sum())
        if mode == "exporter_dies":
            send(out)
            return  # exits: the judge reads afterwards
        t[n // 2 :].fill_(5)
        torch.cuda.synchronize()
        send(out)
        recv()
        return
    if mode == "triton":
        import triton
        import triton.language as tl

        @triton.jit
        def add(x, y, n, BLOCK: tl.constexpr):
            i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = i < n
            tl.store(y + i, tl.load(x + i, mask=m) * 2 + 1, mask=m)

        x = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
        y = torch.empty_like(x)
        t1 = time.perf_counter()
        add[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        torch.cuda.synchronize()
        out["compile_and_run_s"] = time.perf_counter() - t1
        out["ok"] = bool(torch.equal(y, x * 2 + 1))
        send(out)
        return
    if mode == "ncu_target":
        x = torch.randn(1 << 24, device="cuda")
        for _ in range(3):
            (x * 2).sum()
        torch.cuda.synchronize()
        send(out)
        return


def _fix(args):
    import torch

    a = list(args)
    # (tensor_size, tensor_stride, tensor_offset, storage_cls, dtype, device, handle, size,
    #  offset, requires_grad, ref_counter_handle, ref_counter_offset, event_handle, event_sync)
    a[3] = torch.UntypedStorage
    a[4] = getattr(torch, a[4])
    a[6] = bytes.fromhex(a[6])
    a[10] = bytes.fromhex(a[10])
    a[12] = bytes.fromhex(a[12]) if a[12] else a[12]
    return a


# ------------------------------------------------------------------------------------ the judge
def spec_for(argv: list[str], scratch: str, *, env: dict | None = None, seccomp: bool = True, fds=()) -> jail.Spec:
    ro = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", "/sys", sys.prefix, sys.base_prefix]
    ro += [p for p in sys.path if p and os.path.isdir(p) and not p.startswith(str(ROOT))]
    ro = sorted({os.path.realpath(p) if not os.path.islink(p) else p for p in ro if os.path.exists(p)}, key=len)
    base_env = {
        "PATH": "/usr/local/cuda/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "TRITON_CACHE_DIR": "/tmp/triton",
        "PYTHONPATH": "/kopt",
        "PYTHONUNBUFFERED": "1",
    }
    for k in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_VISIBLE_DEVICES"):
        if os.environ.get(k):
            base_env[k] = os.environ[k]
    return jail.Spec(
        argv=argv,
        env={**base_env, **(env or {})},
        parent=os.getpid(),
        readonly=ro,
        readonly_at=[(str(ROOT), "/kopt")],
        writable_at=[(scratch, "/tmp")],
        devices=jail.gpu_devices(),
        uid=65534,
        gid=65534,
        keep_fds=list(fds),
        limits={"RLIMIT_NPROC": 4096, "RLIMIT_NOFILE": 4096, "RLIMIT_CORE": 0},
        seccomp=seccomp,
    )


class Child:
    def __init__(self, mode: str, seccomp: bool = True, wrap: list[str] | None = None, env: dict | None = None):
        self.tmp = tempfile.mkdtemp(prefix="kernelopt-probe-")
        scratch = os.path.join(self.tmp, "scratch")
        os.mkdir(scratch)
        os.chown(scratch, 65534, 65534)
        r1, w1 = os.pipe()  # judge -> child
        r2, w2 = os.pipe()  # child -> judge
        argv = [sys.executable, "/kopt/bench/sandbox_probe_gpu.py", "--child", mode, str(r1), str(w2)]
        spec = spec_for(argv, scratch, env=env, seccomp=seccomp, fds=(r1, w2))
        self.log = open(os.path.join(self.tmp, "log"), "w+")
        cmd = (wrap or []) + jail.command(spec)
        # the child's fds 3 and 4
        self.proc = subprocess.Popen(
            cmd,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=(r1, w2),
            start_new_session=True,
        )
        os.close(r1)
        os.close(w2)
        self.w, self.r = os.fdopen(w1, "wb", buffering=0), os.fdopen(r2, "rb", buffering=0)

    def send(self, obj):
        b = json.dumps(obj).encode()
        self.w.write(len(b).to_bytes(8, "little") + b)

    def recv(self):
        head = self.r.read(8)
        if len(head) < 8:
            raise RuntimeError("child closed its pipe: " + self.tail())
        return json.loads(self.r.read(int.from_bytes(head, "little")))

    def tail(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-3000:]

    def close(self):
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)
        return self.proc.returncode


def probe(name, fn, results):
    t0 = time.perf_counter()
    try:
        results[name] = {"ok": True, **fn()}
    except Exception as e:  # noqa: BLE001
        results[name] = {"ok": False, "error": f"{type(e).__name__}: {e}"[:3000]}
    results[name]["wall_s"] = round(time.perf_counter() - t0, 3)
    print(name, json.dumps(results[name])[:1500], flush=True)


def p_cuda(seccomp=True):
    c = Child("cuda", seccomp=seccomp)
    try:
        return c.recv() | {"rc": c.close()}
    except Exception:
        c.close()
        raise


def p_judge_exports():
    import torch
    from torch.multiprocessing.reductions import reduce_tensor

    t = torch.full((1 << 20,), 2.0, device="cuda")
    _, args = reduce_tensor(t)
    a = list(args)[1:]
    a[3] = "UntypedStorage"
    a[4] = str(a[4]).replace("torch.", "")
    a[6] = bytes(a[6]).hex()
    a[10] = bytes(a[10]).hex()
    a[12] = bytes(a[12]).hex() if a[12] else a[12]
    plain = (int, float, str, bool, type(None), list)
    a = [x if isinstance(x, plain) else (list(x) if isinstance(x, tuple) else str(x)) for x in a]
    c = Child("ipc_judge_exports")
    c.send({"args": a})
    out = c.recv()
    rc = c.close()
    del t
    return {"child": out, "rc": rc}


def p_child_exports(dies=False):
    import torch

    torch.empty(1, device="cuda")
    cu = libcuda()
    c = Child("exporter_dies" if dies else "ipc_child_exports")
    try:
        m = c.recv()
        h = Handle()
        ctypes.memmove(ctypes.addressof(h), bytes.fromhex(m["handle"]), 64)
        ptr = ctypes.c_uint64()
        t0 = time.perf_counter()
        rc = cu.cuIpcOpenMemHandle_v2(ctypes.byref(ptr), h, ctypes.c_uint(1))
        res = {"open_rc": rc, "open_s": time.perf_counter() - t0, "child": m}
        if rc != 0:
            os.killpg(c.proc.pid, 9)
            c.close()
            return res
        n = m["nbytes"]
        t = as_tensor(ptr.value, n)
        res["judge_sees_initial_sum"] = int(t.sum())  # child filled 7s
        t[: n // 2].fill_(3)
        torch.cuda.synchronize()
        c.send({"go": 1})
        m2 = c.recv()
        res["child_after"] = m2
        if dies:
            res["child_rc"] = c.close()
            time.sleep(1)
            try:
                res["after_exit_sum"] = int(t.sum())
                torch.cuda.synchronize()
                res["after_exit_ok"] = True
            except Exception as e:  # noqa: BLE001
                res["after_exit_error"] = f"{type(e).__name__}: {e}"[:300]
            res["close_rc"] = cu.cuIpcCloseMemHandle(ctypes.c_uint64(ptr.value))
            return res
        res["judge_sees_second_half_sum"] = int(t[n // 2 :].sum())
        res["close_rc"] = cu.cuIpcCloseMemHandle(ctypes.c_uint64(ptr.value))
        c.send({"bye": 1})
        res["child_rc"] = c.close()
        return res
    except Exception:
        c.close()
        raise


def p_triton():
    c = Child("triton")
    try:
        return c.recv() | {"rc": c.close()}
    except Exception:
        c.close()
        raise


WORK = "import torch; x=torch.randn(1<<20, device='cuda'); (x*2).sum(); torch.cuda.synchronize()"


def p_ncu(inside: bool):
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    rep = tempfile.mkdtemp(prefix="ncu-")
    if inside:
        # ncu inside: the jail runs ncu, which starts python
        tmp = tempfile.mkdtemp(prefix="kernelopt-probe-")
        scratch = os.path.join(tmp, "scratch")
        os.mkdir(scratch)
        os.chown(scratch, 65534, 65534)
        argv = [ncu, "--clock-control", "none", "--metrics", "gpu__time_duration.sum", "--csv"]
        argv += [sys.executable, "-c", WORK]
        spec = spec_for(argv, scratch)
        r = subprocess.run(jail.command(spec), capture_output=True, text=True, timeout=300)
        shutil.rmtree(tmp, ignore_errors=True)
        return {"rc": r.returncode, "out": (r.stdout + r.stderr)[-2500:]}
    tmp = tempfile.mkdtemp(prefix="kernelopt-probe-")
    scratch = os.path.join(tmp, "scratch")
    os.mkdir(scratch)
    os.chown(scratch, 65534, 65534)
    argv = [sys.executable, "-c", WORK]
    # ncu injects through the environment of the process it starts: pass what it set on
    env_keys = ["CUDA_INJECTION64_PATH", "NV_", "NSIGHT", "LD_PRELOAD", "TMPDIR"]
    wrapper = (
        f"import os,sys,json; sys.path.insert(0, {str(ROOT)!r}); from kernelopt.runner import jail; "
        "spec = jail.Spec(**json.loads(sys.argv[1])); "
        f"spec.env.update({{k: v for k, v in os.environ.items() if any(k.startswith(p) for p in {env_keys!r})}}); "
        "spec.parent = os.getpid(); os.execv(sys.executable, jail.command(spec))"
    )
    spec = spec_for(argv, scratch)
    spec.parent = 0
    r = subprocess.run(
        [
            ncu,
            "--clock-control",
            "none",
            "--target-processes",
            "all",
            "--metrics",
            "gpu__time_duration.sum",
            "--csv",
            sys.executable,
            "-c",
            wrapper,
            spec.to_json(),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(rep, ignore_errors=True)
    return {"rc": r.returncode, "out": (r.stdout + r.stderr)[-2500:]}


def main() -> None:
    if sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    out_path = sys.argv[1]
    results: dict = {"uid": os.getuid(), "kernel": os.uname().release}
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else None
    probes = {
        "cuda": p_cuda,
        "cuda_no_seccomp": lambda: p_cuda(False),
        "cuda_again_warm": p_cuda,
        "ipc_judge_exports": p_judge_exports,
        "ipc_child_exports": p_child_exports,
        "exporter_dies": lambda: p_child_exports(True),
        "triton": p_triton,
        "ncu_outside": lambda: p_ncu(False),
        "ncu_inside": lambda: p_ncu(True),
    }
    for name, fn in probes.items():
        if only is None or name in only:
            probe(name, fn, results)
    Path(out_path).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
