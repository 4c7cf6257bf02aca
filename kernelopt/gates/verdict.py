"""The verdict every gate writes as ``gate<N>.json``: the verdict, the numbers it compared, the
tolerances, the seeds, and a human-readable reason; a rejection names the rule that fired.

Verdicts: ``pass``, ``fail``, ``skipped`` (an earlier gate did not pass, or the slot is empty),
``skipped-by-mode`` (gate 4 in CPU mode, where no time is meaningful: never a pass), and two
that are not about the candidate at all: ``error`` (rule ``infrastructure``: an out-of-memory
error, a sandboxed child that also fails on Inductor's own kernel) and ``not-checkable`` (rule
``unit-not-checkable``: the unit has no reference or contract to judge a candidate against).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

PASS, FAIL, SKIPPED, SKIPPED_BY_MODE = "pass", "fail", "skipped", "skipped-by-mode"


@dataclass
class GateVerdict:
    gate: int
    verdict: str
    reason: str
    rule: str | None = None
    numbers: dict[str, Any] = field(default_factory=dict)
    tolerances: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=list)
    candidate: str | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == PASS

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# A verdict about the machine or the unit, not the candidate (``faults.py``): never a pass,
# never a candidate's failure, reported apart.
ERROR = "error"  # rule "infrastructure": the job failed for reasons that are not the candidate's
NOT_CHECKABLE = "not-checkable"  # rule "unit-not-checkable": no trustworthy reference to judge against
