"""Device time per launch site of the captured wrapper (classify's time shares), and of the
real compiled model with its CUDA graphs (Triton vs copies vs the rest).
"""

from __future__ import annotations

from typing import Any

from ..core import outputcode, runtime
from ..core.instrument import SiteTimer, instrumented


def profile_sites(call: Any, mod: Any, oc: outputcode.OutputCode, device: str, reps: int) -> dict[str, Any]:
    """Time per launch site of the standalone wrapper (ms per call)."""
    timer = SiteTimer(device)
    with instrumented(mod, oc, timer):
        call()  # warm
        runtime.sync(device)
        timer.cpu_ms.clear()
        if device == "cuda":
            import torch
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(reps):
                    call()
                torch.cuda.synchronize()
            site_ms: dict[int, float] = {}
            kernel_ms: dict[str, float] = {}
            for evt in prof.key_averages():
                dev_us = float(getattr(evt, "device_time_total", 0.0) or getattr(evt, "cuda_time_total", 0.0) or 0.0)
                if evt.key.startswith("ko_site:"):
                    site_ms[int(evt.key.split(":")[1])] = dev_us / 1e3 / reps
            for evt in prof.events():
                if str(getattr(evt, "device_type", "")).endswith("CUDA"):
                    kernel_ms[evt.name] = kernel_ms.get(evt.name, 0.0) + float(evt.device_time) / 1e3 / reps
            total = sum(kernel_ms.values())
            method = "torch.profiler device time per wrapper launch site (record_function ranges)"
        else:
            for _ in range(reps):
                call()
            site_ms = {k: v / reps for k, v in timer.cpu_ms.items()}
            kernel_ms = {}
            total = sum(site_ms.values())
            method = "wall time per launch site on CPU (Triton interpreter; not meaningful for GPU)"
    return {
        "method": method,
        "site_ms": {str(k): v for k, v in sorted(site_ms.items())},
        "device_kernels_ms": kernel_ms,
        "total_ms": total,
        "reps": reps,
    }


def profile_compiled(fn: Any, oc_kernels: set[str], device: str, reps: int) -> dict[str, Any]:
    """Device time of the real compiled model (with its CUDA graphs): Triton vs copies vs rest."""
    if device != "cuda":
        return {"method": "skipped on CPU", "total_ms": None}
    import torch
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    by_name: dict[str, float] = {}
    for evt in prof.events():
        if str(getattr(evt, "device_type", "")).endswith("CUDA"):
            by_name[evt.name] = by_name.get(evt.name, 0.0) + float(evt.device_time) / 1e3 / reps
    triton = sum(v for k, v in by_name.items() if k in oc_kernels)
    copies = sum(
        v
        for k, v in by_name.items()
        if k not in oc_kernels and ("memcpy" in k.lower() or "copy" in k.lower() or "memset" in k.lower())
    )
    total = sum(by_name.values())
    return {
        "method": "torch.profiler over the torch.compile'd model as torch runs it (CUDA-graph trees)",
        "total_ms": total,
        "triton_ms": triton,
        "copy_ms": copies,
        "other_ms": total - triton - copies,
        "device_kernels_ms": dict(sorted(by_name.items(), key=lambda kv: -kv[1])),
        "reps": reps,
    }
