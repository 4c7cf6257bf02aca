"""Planner: the analyses, the beam and the memory of tried directions -> directions."""

from __future__ import annotations

from typing import Any

from ....core.records import Contract
from ..base import Analysis, Memory
from ..llm import protocol
from ..llm.client import Caller
from .common import as_json, ask, contract_text, user

SCHEMA = {
    "type": "object",
    "required": ["directions"],
    "properties": {
        "directions": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["member", "name", "instructions"],
                "properties": {
                    "member": {"type": "string"},
                    "name": {"type": "string", "minLength": 1},
                    "rationale": {"type": "string"},
                    "prediction": {"type": "string"},
                    "instructions": {"type": "string", "minLength": 1},
                },
            },
        }
    },
}


def run(
    caller: Caller,
    iteration: int,
    members: list[dict[str, Any]],
    analyses: dict[str, Analysis],
    contract: Contract,
    memory: Memory,
    width: int,
    graph: str = "",
) -> list[dict[str, Any]]:
    """``graph``: a graph-level unit's section (roles/graph.py), '' for any other unit."""
    ids = [m["id"] for m in members]
    beam = [
        {
            "member": m["id"],
            "ratio_vs_inductor": m.get("ratio"),
            "measured": m.get("meaningful", True),
            "analysis": analyses[m["id"]].to_dict() if m["id"] in analyses else None,
        }
        for m in members
    ]
    dynamic = "\n\n".join(
        [
            f"Iteration {iteration}. Propose at most {width} directions (member ids: {', '.join(ids)}).",
            as_json("The beam (ratio = time / Inductor's time, lower is better)", beam),
            as_json("Memory: tried directions and notes", memory.to_dict()),
        ]
    )

    def parse(r: Any) -> list[dict[str, Any]]:
        data = protocol.json_block(r.text, SCHEMA, r.stop_reason)
        bad = [d["member"] for d in data["directions"] if d["member"] not in ids]
        if bad:
            raise protocol.Unparseable(f"directions name unknown members {bad}; the members are {ids}")
        return data["directions"]

    static = "\n\n".join([contract_text(contract), *([graph] if graph else [])])
    return ask(caller, "planner", user(static, dynamic), parse, 2)
