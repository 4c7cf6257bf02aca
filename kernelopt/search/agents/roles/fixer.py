"""Fixer (directed retry): a failed candidate and its gate verdict -> a corrected candidate."""

from __future__ import annotations

from typing import Any

from ....core.records import Contract
from ..llm import protocol
from ..llm.client import Caller
from .common import as_json, ask, code, contract_text, user


def run(
    caller: Caller,
    failed_source: str,
    failure: dict[str, Any],
    contract: Contract,
    reference: str,
    graph: str = "",
) -> str:
    """``graph``: a graph-level unit's section (roles/graph.py), '' for any other unit."""
    static = "\n\n".join([contract_text(contract), *([graph] if graph else []), code("The eager reference", reference)])
    verdict = {k: failure.get(k) for k in ("gate", "verdict", "rule", "reason", "numbers")}
    dynamic = "\n\n".join([code("The failed candidate", failed_source), as_json("The gate's verdict", verdict, 6000)])
    return ask(caller, "fixer", user(static, dynamic), lambda r: protocol.kernel(r.text, r.stop_reason))
