"""The verdict every gate writes as ``gate<N>.json``: the verdict, the numbers it compared, the
tolerances, the seeds, and a human-readable reason; a rejection names the rule that fired.

Verdicts: ``pass``, ``fail``, ``skipped`` (an earlier gate did not pass, or the slot is empty),
``skipped-by-mode`` (gate 4 in CPU mode, where no time is meaningful: never a pass).
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
