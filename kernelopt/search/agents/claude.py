"""The LLM backend (``agent.backend: anthropic`` or ``replay``): Claude plays the roles
(roles/), through the real anthropic SDK (llm/client.py), on the same interface as the
heuristic backend.

Where a role's reply is unusable after its attempts, the search degrades instead of
crashing, and says so in the artifact: the heuristic analysis, the heuristic planner's
directions (applied by the AST transforms), the heuristic memory.  A kernel role whose
reply is unusable leaves its slot empty with the reason.  A spent budget stops the unit's
search with the budget as the reason; an API failure after the SDK's retries is an
infrastructure fault (the job fails; its re-run pays nothing for the calls already made).

A graph-level unit (its contract carries ``rewrite``) is shown to the synthesizer, planner,
executor and fixer with its whole FX subgraph, the finding and the instruction to simplify
algebraically first (roles/graph.py); what they answer goes through the same protocol and gates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.records import Contract, ProblemPaths
from .. import transform
from ..synth.ops import CannotSynthesize
from .base import Analysis, Direction, Memory, Plan, ProfileSummary
from .heuristic import HeuristicBackend
from .llm.client import BudgetExhausted, Caller
from .roles import analyst, executor, fixer, graph, planner, summarizer, synthesizer
from .roles.common import RoleFailed


class LLMBackend:
    def __init__(self, agent: dict[str, Any], workdir: Path, problem: str, unit: str, where: Path):
        self.agent = dict(agent)
        self.name = agent["backend"]
        self.workdir, self.problem, self.unit = Path(workdir), problem, unit
        self.caller = Caller(agent, workdir, problem, unit, where)
        self.fallback = HeuristicBackend()

    def at(self, where: Path) -> LLMBackend:
        """The same backend writing its transcripts under ``where/llm/``."""
        return LLMBackend(self.agent, self.workdir, self.problem, self.unit, where)

    def graph(self, contract: Contract, reference: str | None = None) -> str:
        """A graph-level unit's prompt section (roles/graph.py), '' for any other unit: its FX
        subgraph from the problem's post-grad graph (``capture/fx_graph_post_grad.py``) and its
        eager reference (``reference``, else the unit's ``reference.py``); a file that is missing
        leaves the subgraph to the reference's lines and the contract's shapes."""
        if not graph.is_graph_level(contract):
            return ""
        paths = ProblemPaths(self.workdir, self.problem)

        def text(path: Path) -> str:
            try:
                return path.read_text()
            except OSError:
                return ""

        if reference is None:
            reference = text(paths.reference(contract.unit or self.unit))
        return graph.section(contract, reference, text(paths.fx_graph(int(contract.graph or 0))))

    # -- synthesizer -----------------------------------------------------------------------
    def synthesize(
        self, contract: Contract, reference: str, inductor: str, earlier: list[dict[str, Any]], hints: str = ""
    ) -> str:
        try:
            return synthesizer.run(
                self.caller, contract, reference, inductor, earlier, hints, self.graph(contract, reference)
            )
        except RoleFailed as e:
            raise CannotSynthesize(f"the synthesizer's reply was unusable: {'; '.join(e.reasons)}") from None
        except BudgetExhausted as e:
            raise CannotSynthesize(str(e)) from None

    # -- profiler (no call: NCU or the roofline, summarised) ------------------------------------
    def summarize_profile(self, member: str, metrics: dict[str, Any], source: str) -> ProfileSummary:
        return self.fallback.summarize_profile(member, metrics, source)

    # -- strategy analyst -------------------------------------------------------------------
    def analyze(self, summary: ProfileSummary, contract: Contract, memory: Memory, kernel: str = "") -> Analysis:
        try:
            return analyst.run(self.caller, summary, contract, kernel)
        except RoleFailed as e:
            a = self.fallback.analyze(summary, contract, memory)
            a.evidence.insert(0, f"analyst reply unusable ({'; '.join(e.reasons)}): heuristic analysis")
            return a

    # -- planner ----------------------------------------------------------------------------
    def plan(
        self,
        iteration: int,
        beam: list[dict[str, Any]],
        analyses: dict[str, Analysis],
        contract: Contract,
        memory: Memory,
        width: int,
    ) -> Plan:
        if beam and all(analyses[m["id"]].bottleneck == "near-optimal" for m in beam if m["id"] in analyses):
            return Plan(iteration, [], stop="every beam member is near-optimal")
        try:
            proposed = planner.run(
                self.caller, iteration, beam, analyses, contract, memory, width, self.graph(contract)
            )
        except RoleFailed as e:
            why = f"planner reply unusable ({'; '.join(e.reasons)})"
            # the heuristic planner transforms inductor.py-form members only (not free-form LLM kernels)
            form = [m for m in beam if transform.is_inductor_form(m["source"])]
            p = self.fallback.plan(iteration, form, analyses, contract, memory, width)
            p.diversity.insert(0, f"{why}: the heuristic planner's directions on {len(form)} inductor-form member(s)")
            if not p.directions:
                p.stop = f"{why}; {p.stop}"
            return p
        directions, diversity, seen = [], [], set()
        for d in proposed:
            key = (d["member"], " ".join(d["instructions"].lower().split()))
            if key in seen:
                diversity.append(f"dropped {d['name']!r} on {d['member']}: the same instructions as another direction")
                continue
            if len(directions) >= width:
                diversity.append(f"dropped {d['name']!r} on {d['member']}: beyond the beam width {width}")
                continue
            seen.add(key)
            directions.append(
                Direction(
                    d["member"],
                    "llm",
                    {"instructions": d["instructions"]},
                    d["name"],
                    d.get("rationale", ""),
                    d.get("prediction", ""),
                )
            )
        return Plan(iteration, directions, diversity, None if directions else "the planner proposed no direction")

    # -- executor ---------------------------------------------------------------------------
    def execute(self, direction: Direction, source: str, contract: Contract) -> str:
        if direction.kind != "llm":  # a heuristic direction (the planner's fallback)
            return self.fallback.execute(direction, source, contract)
        try:
            return executor.run(self.caller, direction, source, contract, self.graph(contract))
        except RoleFailed as e:
            raise ValueError(f"the executor's reply was unusable: {'; '.join(e.reasons)}") from None

    # -- directed retries -------------------------------------------------------------------
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
        reason = str(failure.get("reason", ""))[:160]
        why = f"{failed.name} failed gate {failure.get('gate')} ({failure.get('rule')}: {reason})"
        d = Direction(
            failed.member,
            "llm-fix",
            {"gate": failure.get("gate"), "rule": failure.get("rule"), "of": failed.name},
            f"fix of {failed.name}",
            f"directed retry: {why}",
            "passes gates 1-2",
        )
        return d, f"{why}; the fixer corrects the failed candidate"

    def apply_fix(
        self, direction: Direction, failed_source: str, member_source: str, failure: dict[str, Any],
        contract: Contract, reference: str,
    ) -> str:  # fmt: skip
        if direction.kind != "llm-fix":
            return self.execute(direction, member_source, contract)
        try:
            return fixer.run(self.caller, failed_source, failure, contract, reference, self.graph(contract, reference))
        except RoleFailed as e:
            raise ValueError(f"the fixer's reply was unusable: {'; '.join(e.reasons)}") from None

    # -- summarizer -------------------------------------------------------------------------
    def summarize(self, iteration: int, outcomes: list[dict[str, Any]], memory: Memory) -> tuple[Memory, str]:
        old_notes = list(memory.notes)
        memory, text = self.fallback.summarize(iteration, outcomes, Memory(dict(memory.tried), list(old_notes)))
        if not outcomes:  # nothing happened (e.g. the search had stopped): nothing to pay for
            return memory, text
        try:
            memory.notes = summarizer.run(self.caller, iteration, outcomes, Memory(memory.tried, old_notes))
        except RoleFailed as e:
            memory.notes.append(f"summarizer reply unusable ({'; '.join(e.reasons)[:200]}): heuristic notes kept")
        except BudgetExhausted as e:
            memory.notes.append(str(e))
        lines = text.split("Memory carried forward:")[0]
        return memory, lines + "Memory carried forward (summarizer):\n" + "".join(f"- {n}\n" for n in memory.notes)
