"""The verdict every gate writes as ``gate<N>.json``: the verdict, the numbers it compared, the
tolerances, the seeds, and a human-readable reason; a rejection names the rule that fired.

Verdicts: ``pass``, ``fail``, ``skipped`` (an earlier gate did not pass, or the slot is empty),
``skipped-by-mode`` (gate 4 in CPU mode, where no time is meaningful: never a pass), and two
that are not about the candidate at all: ``error`` (rule ``infrastructure``: an out-of-memory
error, a sandboxed child that also fails on Inductor's own kernel) and ``not-checkable`` (rule
``unit-not-checkable``: the unit has no reference or contract to judge a candidate against).
"""

from __future__ import annotations

from ..core.records import GateVerdict as GateVerdict
from ..core.records import Verdict

PASS, FAIL, SKIPPED, SKIPPED_BY_MODE = Verdict.PASS, Verdict.FAIL, Verdict.SKIPPED, Verdict.SKIPPED_BY_MODE
# A verdict about the machine or the unit, not the candidate (``faults.py``): never a pass,
# never a candidate's failure, reported apart.
ERROR = Verdict.ERROR  # rule "infrastructure": the job failed for reasons that are not the candidate's
NOT_CHECKABLE = Verdict.NOT_CHECKABLE  # rule "unit-not-checkable": no trustworthy reference to judge against


def stitched_model_failed(gate: int, status: str, detail: str, where: str, **numbers: object) -> GateVerdict:
    """Gate 3's or 4's verdict when the stitched model's child timed out or crashed (``where``:
    "in its sandbox", "while timed") and the baseline run the same way did not."""
    rule = "timeout" if status == "timeout" else "crash"
    return GateVerdict(gate, FAIL, f"rule {rule}: the stitched model {status} {where} ({detail})", rule=rule, **numbers)
