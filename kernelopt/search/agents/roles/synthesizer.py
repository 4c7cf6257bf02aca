"""Synthesizer: an independent kernel for a unit from its contract, eager reference and
Inductor's kernel, with the unit's class, its distance to the roof and the heuristic backend's
template for the class (``hints``); attempts 2-4 are shown why the earlier attempts failed.

A graph-level unit (``graph``: roles/graph.py's section) is shown its whole FX subgraph, the
finding and the instruction to simplify algebraically first, and Inductor's code as the
baseline it replaces (a run of Triton kernels and library calls, not one kernel); the class
hints are left out (they describe one kernel's reference: its class and template)."""

from __future__ import annotations

from typing import Any

from ....core.records import Contract
from ..llm import protocol
from ..llm.client import Caller
from .common import ask, code, contract_text, user


def run(
    caller: Caller,
    contract: Contract,
    reference: str,
    inductor: str,
    earlier: list[dict[str, Any]],
    hints: str = "",
    graph: str = "",
) -> str:
    if graph:
        static = "\n\n".join(
            [
                contract_text(contract),
                graph,
                code("The eager reference of the whole subgraph (what the gates compare with)", reference),
                code(
                    "Inductor's code for this unit: its Triton kernels and library calls as the wrapper runs them "
                    "(correct, the baseline to beat; not a candidate: it calls the library)",
                    inductor,
                ),
            ]
        )
    else:
        static = "\n\n".join(
            [
                contract_text(contract),
                code("The eager reference (ATen ops of Inductor's post-grad graph)", reference),
                code("Inductor's kernel for this unit (a correct reference implementation)", inductor),
                *([f"## The unit's class, its roof and a template\n\n{hints}"] if hints else []),
            ]
        )
    parts = [f"Write synthesis attempt {len(earlier) + 1} for this unit."]
    if graph:
        parts[0] += " It is a graph-level unit: the algebraic simplification first."
    for k, e in enumerate(earlier):
        parts.append(f"### Attempt {k + 1} failed: {e['why']}")
        if e.get("source"):
            parts.append(code(f"Attempt {k + 1}", e["source"], limit=8000))
    return ask(
        caller, "synthesizer", user(static, "\n\n".join(parts)), lambda r: protocol.kernel(r.text, r.stop_reason)
    )
