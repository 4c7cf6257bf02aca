"""Errors a user can cause.  Each carries one sentence that names the file and the fix."""

from __future__ import annotations


class KerneloptError(Exception):
    """Base class: a problem with the user's input, reported without a traceback."""


class ConfigError(KerneloptError):
    pass


class ProblemError(KerneloptError):
    """A problem file that cannot be imported, lacks its entry points, or crashes."""

    def __init__(self, path: str, stage: str, message: str):
        self.path = str(path)
        self.stage = stage
        super().__init__(f"{path}: {stage}: {message}")


class JobFault(KerneloptError):
    """The machine failed the job, not the problem or a candidate (out of GPU memory, a profile
    that lost events): the job fails, and Snakemake retries it (``gpu.retries``) on a GPU of its
    own."""


# how an out-of-memory error reads, from torch, the CUDA driver or a child's log
def fault_points() -> list[str]:
    """The injected fault points of this process (``KERNELOPT_FAULT``, tests only), handed to
    a jailed child in its job (its environment carries no ``KERNELOPT_*``)."""
    import os

    return sorted({p.strip() for p in os.environ.get("KERNELOPT_FAULT", "").split(",") if p.strip()})


OOM_WORDS = ("out of memory", "CUDA_ERROR_OUT_OF_MEMORY", "cudaErrorMemoryAllocation", "OutOfMemoryError")


def looks_like_oom(text: str) -> bool:
    return any(w in text for w in OOM_WORDS)
