"""Process setup shared by every stage: device choice, per-problem caches, CPU mode.

Call ``prepare()`` before anything compiles or loads an Inductor output module: it points
Inductor's and Triton's caches at the problem's own directory (no cross-problem reuse and
no stale FX-graph cache) and, in CPU mode, installs the Triton-interpreter shims.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when a GPU is visible, else ``cpu``."""
    if device not in ("auto", "cuda", "cpu"):
        raise ValueError(f"device must be auto, cuda or cpu, got {device!r}")
    if device != "auto":
        if device == "cuda":
            import torch

            if not torch.cuda.is_available():
                from .errors import ConfigError

                raise ConfigError(
                    "config device=cuda but torch sees no CUDA GPU here; use device=cpu (CPU mode) or run on a GPU node"
                )
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def prepare(device: str, cache_dir: Path | None, *, fresh: bool = False) -> str:
    """Set caches and mode for this process; return the resolved device.

    ``fresh=True`` empties the cache directory first (capture does this: it must compile
    from scratch).  Later stages keep it, so the autotuner's ``.best_config`` files and
    compiled Triton binaries from capture are reused and no choice drifts.
    """
    from . import gpumem

    gpumem.claim_pending()  # the job's GPU memory, claimed before CUDA starts (core/gpumem.py)
    if cache_dir is not None:
        cache_dir = Path(cache_dir).resolve()
        if fresh and cache_dir.exists():
            import shutil

            shutil.rmtree(cache_dir)
        (cache_dir / "inductor").mkdir(parents=True, exist_ok=True)
        (cache_dir / "triton").mkdir(parents=True, exist_ok=True)
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir / "inductor")
        os.environ["TRITON_CACHE_DIR"] = str(cache_dir / "triton")
    # Snakemake may run several jobs at once: keep each job's compile workers few.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    resolved = resolve_device(device)
    if resolved == "cpu":
        from . import cpu_mode

        cpu_mode.install()
    import torch._inductor.config as ic

    # Never reuse a compiled FX graph from anywhere: the capture is the one compile.
    ic.fx_graph_cache = False
    ic.fx_graph_remote_cache = False
    ic.autotune_local_cache = True
    ic.autotune_remote_cache = False
    return resolved


def environment(device: str) -> dict[str, Any]:
    """Versions and hardware, recorded next to every measurement."""
    import torch

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": device,
        "host": platform.node(),
    }
    try:
        import triton

        env["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        env["triton"] = None
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name(0)
        env["cuda"] = torch.version.cuda
        env["capability"] = list(torch.cuda.get_device_capability(0))
        try:
            import subprocess

            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            )
            env["driver"] = out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
        except Exception:  # noqa: BLE001
            env["driver"] = None
    else:
        env["gpu"] = None
        env["cpu"] = platform.processor() or platform.machine()
        env["mode"] = "cpu (Triton interpreter; timings not meaningful)"
    return env


def sync(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


SECRET_PREFIXES = ("ANTHROPIC_",)
SECRET_SUFFIXES = ("_API_KEY", "_AUTH_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY")


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a process that runs candidate code (sandboxed gates, the NCU
    harness): this one's, less every credential (the Anthropic key above all, which a
    candidate could otherwise print into a log or a verdict that the fixer's prompt quotes)."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(SECRET_PREFIXES) and not k.endswith(SECRET_SUFFIXES)}
    env.update(extra)
    return env
