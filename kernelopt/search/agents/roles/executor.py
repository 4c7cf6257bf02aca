"""Executor: a beam member's kernel and one direction -> a whole candidate module."""

from __future__ import annotations

from ....core.records import Contract
from ..base import Direction
from ..llm import protocol
from ..llm.client import Caller
from .common import ask, code, contract_text, user


def run(caller: Caller, direction: Direction, member_source: str, contract: Contract, graph: str = "") -> str:
    """``graph``: a graph-level unit's section (roles/graph.py), '' for any other unit."""
    head = [contract_text(contract), *([graph] if graph else [])]
    static = "\n\n".join([*head, code(f"Beam member {direction.member}", member_source)])
    args = direction.args
    dynamic = "\n".join(
        [
            f"## Direction: {direction.name}",
            f"Rationale: {direction.rationale}",
            f"Prediction: {direction.prediction}",
            f"Instructions: {args.get('instructions', '')}",
        ]
    )
    return ask(caller, "executor", user(static, dynamic), lambda r: protocol.kernel(r.text, r.stop_reason))
