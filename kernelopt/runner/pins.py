"""Autotuned kernels pinned to the config they ran with at capture, so that two loads of the
same wrapper (the baseline and the stitched model, in one child) cannot tune differently."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..core import outputcode


def pin_configs(mod: ModuleType, oc: outputcode.OutputCode, launches: list[dict[str, Any]]) -> dict[str, str]:
    """Restrict every Inductor kernel object to the config it ran with at capture, so that two
    loads of the same wrapper (baseline and stitched) cannot autotune to different configs."""
    recorded: dict[str, dict[str, Any]] = {}
    for l in launches:
        if l.get("config"):
            recorded.setdefault(l["kernel"], l["config"])
    status: dict[str, str] = {}
    for name in oc.kernels:
        obj = getattr(mod, name, None)
        configs = getattr(obj, "configs", None)
        if obj is None or getattr(obj, "kernelopt_candidate", None) or configs is None:
            continue
        want = recorded.get(name)
        if len(configs) <= 1:
            status[name] = "single"
            continue
        if want is None:
            status[name] = "unpinned: no recorded config"
            continue
        match = [
            c
            for c in configs
            if dict(getattr(c, "kwargs", {})) == want.get("kwargs", {})
            and getattr(c, "num_warps", None) == want.get("num_warps", getattr(c, "num_warps", None))
            and getattr(c, "num_stages", None) == want.get("num_stages", getattr(c, "num_stages", None))
        ]
        if match:
            obj.configs = [match[0]]
            status[name] = "pinned"
        else:
            status[name] = "unpinned: recorded config not among the kernel's configs"
    return status
