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
