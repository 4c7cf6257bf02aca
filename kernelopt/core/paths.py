"""The artifact layout now lives in ``core/records.py``; this name stays for the imports that
have not moved yet."""

from .records import (  # noqa: F401
    AttemptPaths,
    IterPaths,
    ProblemPaths,
    SlotPaths,
    attempt_of,
    attempt_stage,
    benchmarks_dir,
    logs_dir,
    report_dir,
)
