"""Faults in the running of candidate code: the judge's ``InfrastructureFault`` (the machine or
the pipeline failed, not the candidate) and the fault points tests inject
(``KERNELOPT_FAULT=oom:<point>``; the judge hands them to its jailed child in the job, whose
environment carries no ``KERNELOPT_*``).  What counts as a fault, and the retry with the GPU
alone, is gate policy: ``kernelopt/gates/faults.py``."""

from __future__ import annotations

from ..core.errors import fault_points


class InfrastructureFault(RuntimeError):
    """The machine or the pipeline failed, not the candidate."""


class InjectedOutOfMemory(RuntimeError):
    """What ``KERNELOPT_FAULT=oom:<point>`` raises (its text reads like torch's CUDA OOM)."""


# the points a jailed child was handed by its judge (None: read the environment)
INJECTED: set[str] | None = None


def injected(point: str) -> bool:
    points = INJECTED if INJECTED is not None else set(fault_points())
    return f"oom:{point}" in points


def maybe_inject(point: str) -> None:
    if injected(point):
        raise InjectedOutOfMemory(f"CUDA out of memory (injected by KERNELOPT_FAULT=oom:{point})")
