"""The messages between the five roles, as records that read and write themselves."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from ...core.records import Contract, SearchMemory, SearchPlan

BOTTLENECKS = ("memory-bound", "compute-bound", "underutilized", "near-optimal")


@dataclass
class ProfileSummary:
    """Profiler -> analyst: typed metrics of one beam member, and a compact text for prompts."""

    member: str
    source: str  # "ncu" | "roofline"
    metrics: dict[str, Any]
    text: str
    note: str = ""

    @property
    def tokens_estimate(self) -> int:
        return len(self.text) // 4 + 1  # ~4 characters a token

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["tokens_estimate"] = self.tokens_estimate
        return d


@dataclass
class Analysis:
    """Strategy analyst -> planner: the bottleneck, with the metric evidence quoted."""

    member: str
    bottleneck: str
    evidence: list[str]
    sms: int | None = None  # the GPU's SMs, where the profile tells (programs / programs per SM)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Direction:
    """Planner -> executor: one transformation of one beam member, with a prediction."""

    member: str
    # "launch" | "eviction" | "programs" | "drop-masks" | "swizzle" (heuristic, transform.apply);
    # "llm" | "llm-fix" (LLM executor / fixer)
    kind: str
    args: dict[str, Any]
    name: str
    rationale: str
    prediction: str

    def signature(self) -> str:
        import json

        return f"{self.member}:{self.kind}:{json.dumps(self.args, sort_keys=True)}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Plan:
    iteration: int
    directions: list[Direction]
    diversity: list[str] = field(default_factory=list)  # what the diversity rule changed
    stop: str | None = None  # reason to stop early

    def to_dict(self) -> dict[str, Any]:
        return {
            "iteration": self.iteration,
            "directions": [d.to_dict() for d in self.directions],
            "diversity": self.diversity,
            "stop": self.stop,
        }

    def save(self, path: Any) -> None:
        """An iteration's ``plan.json`` (``SearchPlan``)."""
        SearchPlan.from_dict(self.to_dict()).save(path)


@dataclass
class Memory:
    """Summarizer's notes carried from one iteration to the next."""

    tried: dict[str, dict[str, Any]] = field(default_factory=dict)  # launch-params signature -> outcome
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def load(cls, path: Any) -> Memory:
        """An iteration's ``memory.json`` (``SearchMemory``)."""
        rec = SearchMemory.load(path)
        return cls(tried=dict(rec.tried), notes=list(rec.notes))

    def save(self, path: Any) -> None:
        SearchMemory(tried=self.tried, notes=self.notes).save(path)


class Backend(Protocol):
    name: str

    def summarize_profile(self, member: str, metrics: dict[str, Any], source: str) -> ProfileSummary: ...

    def at(self, where: Any) -> Backend:
        """The same backend with its calls recorded under ``where`` (LLM backends)."""
        ...

    def analyze(self, summary: ProfileSummary, contract: Contract, memory: Memory, kernel: str = "") -> Analysis: ...

    def plan(
        self,
        iteration: int,
        beam: list[dict[str, Any]],
        analyses: dict[str, Analysis],
        contract: Contract,
        memory: Memory,
        width: int,
    ) -> Plan: ...

    def execute(self, direction: Direction, source: str, contract: Contract) -> str: ...

    def fix(
        self,
        failed: Direction,
        failure: dict[str, Any],
        member_source: str,
        analysis: Analysis | None,
        contract: Contract,
        memory: Memory,
        taken: set[str],
    ) -> tuple[Direction | None, str]:
        """Directed retry: a new direction for the same beam member, chosen from why the
        failed candidate failed (``failure``: its gate verdict).  ``taken``: signatures already
        planned or tried.  Returns (direction or None, the reasoning)."""
        ...

    def apply_fix(
        self, direction: Direction, failed_source: str, member_source: str, failure: dict[str, Any],
        contract: Contract, reference: str,
    ) -> str:  # fmt: skip
        """The retry's candidate: ``direction`` (from ``fix``) applied to the member, or the
        failed candidate corrected."""
        ...

    def summarize(self, iteration: int, outcomes: list[dict[str, Any]], memory: Memory) -> tuple[Memory, str]: ...
