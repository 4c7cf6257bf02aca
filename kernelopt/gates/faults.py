"""Faults are never verdicts.  A verdict is about the candidate; an out-of-memory error, a child
that also dies (or hangs) on Inductor's own kernel, a missing artifact, a lost profile is the
machine's or the pipeline's, not the candidate's.  Such a job retries (alone on the GPU: the lock
held exclusively), and if it still fails it is recorded with verdict ``error`` and rule
``infrastructure`` (reason ``infrastructure: <cause>``), which the result reports apart; a unit
whose reference or contract cannot be built is ``unit-not-checkable`` and its candidates are not
judged.

A child's words are not a fault: an exception it reports, whatever its text says ("out of
memory" included), is the candidate's failure unless the judge sees the fault itself: Inductor's
own code, run the same way (the control run), fails too; or the child was killed or hung and the
control run does too.  The judge's own exceptions (an out-of-memory error drawing inputs) are
faults as they are.

``KERNELOPT_FAULT`` injects faults for tests: a comma-separated list of ``<point>`` names
(``oom:gate1``, ``oom:gate2``, ``oom:gate3``, ``oom:select``, ``oom:control``, ...); the judge
hands them to its jailed child in the job (the child's environment carries no ``KERNELOPT_*``),
which raises a CUDA-out-of-memory-like error at that point, as a real one would surface.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core import gpulock, gpumem
from ..core.errors import OOM_WORDS, JobFault
from ..core.errors import looks_like_oom as looks_like_oom
from ..core.records import Rule
from ..runner.faults import InfrastructureFault

INFRASTRUCTURE = Rule.INFRASTRUCTURE
UNIT_NOT_CHECKABLE = Rule.UNIT_NOT_CHECKABLE  # the rule; the verdict is ``Verdict.NOT_CHECKABLE``


def is_infrastructure(error_type: str, message: str) -> bool:
    """Whether an exception of the judging process itself is the machine's fault (out of
    memory).  Never applied to what a child reports: there it only decides whether a control
    run is worth making (``looks_like_fault``)."""
    text = f"{error_type}: {message}"
    return error_type in ("OutOfMemoryError", "InjectedOutOfMemory") or any(w in text for w in OOM_WORDS)


def looks_like_fault(error: dict[str, str] | None) -> bool:
    """Whether a child's reported exception could be the machine's (its text mentions running
    out of memory): then the judge makes a control run, whose outcome decides.  The text alone
    never makes a fault."""
    return bool(error) and is_infrastructure(str(error.get("type", "")), str(error.get("message", "")))


def alone_on_gpu(device: str) -> bool:
    """Whether this check holds its GPU alone (the retry after a fault), or shares none (CPU
    mode): then memory another job held cannot explain an out-of-memory error."""
    return device != "cuda" or os.environ.get(gpulock.HELD_BY_PARENT) == "1"


def suspect(error: dict[str, str], device: str, control: Callable[[], str | None], what: str) -> str:
    """A child's exception whose text reads like a fault, judged by what the judge sees itself:
    the control run (Inductor's code the same way) failing too makes it a fault; passing while
    the GPU is shared, the check is retried with the GPU alone (another job's memory could have
    been the cause); passing with the GPU alone, it is the candidate's failure, whatever it
    said.  Raises InfrastructureFault for the first two; returns a note for the verdict."""
    failed = control()
    said = f"{error.get('type')}: {str(error.get('message', ''))[:200]}"
    if failed:
        raise InfrastructureFault(f"{what}: the child reported {said}, and the control run failed too ({failed})")
    if not alone_on_gpu(device):
        raise InfrastructureFault(
            f"{what}: the child reported {said}; the control run got through with the GPU shared, "
            "so the check is retried with the GPU alone"
        )
    return " (its text reads like a fault, but the control run got through the same way: the candidate's)"


ATTEMPTS = 2  # the first shares the GPU, the retry holds it alone


@contextlib.contextmanager
def _alone_on_gpu(device: str, attempt: int, what: str) -> Iterator[None]:
    """The retry after an infrastructure fault: the GPU held exclusively for the whole check
    (the sandboxed children it starts know it is held, through the environment)."""
    if attempt == 0 or device != "cuda":
        yield
        return
    with gpulock.exclusive(device, f"{what} (retry alone after a fault)"):
        os.environ[gpulock.HELD_BY_PARENT] = "1"
        try:
            yield
        finally:
            os.environ.pop(gpulock.HELD_BY_PARENT, None)


def retry_alone(device: str, what: str, check: Callable[[], Any], on_fault: Callable[[str], Any]) -> Any:
    """``check()``; after an InfrastructureFault (or an out-of-memory error of the judging process
    itself) once more with the GPU lock held alone.  If the fault persists in a job that shares
    its GPU's memory, the job fails (``JobFault``) and Snakemake retries it on a GPU of its own
    (``core/gpumem.py``); there, or without a GPU ledger, ``on_fault(cause)`` records it as an
    infrastructure fault, never as a verdict."""
    for attempt in range(ATTEMPTS):
        try:
            with _alone_on_gpu(device, attempt, what):
                return check()
        except Exception as e:  # noqa: BLE001 - only faults are caught; anything else is re-raised
            if not isinstance(e, InfrastructureFault) and not is_infrastructure(type(e).__name__, str(e)):
                raise
            cause = str(e) if isinstance(e, InfrastructureFault) else f"{type(e).__name__}: {str(e)[:300]}"
            print(f"[{what}] infrastructure fault (attempt {attempt + 1} of {ATTEMPTS}): {cause}", flush=True)
            print(_where(e), flush=True)
            if attempt == ATTEMPTS - 1:
                if gpumem.retry_alone_ahead():
                    raise JobFault(f"{what}: {cause} (the job is retried on a GPU of its own)") from e
                return on_fault(cause)
            _release_cached_memory(device)
    raise AssertionError("unreachable")


def _where(e: BaseException) -> str:
    """The last frames of a fault's traceback (in this process), for the job's log."""
    import traceback

    frames = traceback.extract_tb(e.__traceback__)[-6:]
    return "  where: " + " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames))


def _release_cached_memory(device: str) -> None:
    """What a failed attempt left in the caching allocator goes back to the device."""
    if device == "cuda":
        import gc

        import torch

        gc.collect()
        torch.cuda.empty_cache()
