"""Autotuned kernels pinned to the config they ran with at capture, so that two loads of the
same wrapper (the baseline and the stitched model, in one child) cannot tune differently; the
deployed model pins the same way (``core/deployed.py``)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..core import deployed, outputcode


def pin_configs(mod: ModuleType, oc: outputcode.OutputCode, launches: list[dict[str, Any]]) -> dict[str, str]:
    """Restrict every Inductor kernel object to the config it ran with at capture, so that two
    loads of the same wrapper (baseline and stitched) cannot autotune to different configs."""
    return deployed.pin_configs(mod, list(oc.kernels), deployed.recorded_configs(launches))
