"""Summarizer: the iteration's outcomes and the old notes -> the memory's new notes."""

from __future__ import annotations

from typing import Any

from ..base import Memory
from ..llm import protocol
from ..llm.client import Caller
from .common import as_json, ask, user

SCHEMA = {
    "type": "object",
    "required": ["notes"],
    "properties": {"notes": {"type": "array", "maxItems": 12, "items": {"type": "string", "maxLength": 400}}},
}


def run(caller: Caller, iteration: int, outcomes: list[dict[str, Any]], memory: Memory) -> list[str]:
    dynamic = "\n\n".join(
        [
            f"Iteration {iteration} is done.",
            as_json("Its outcomes", outcomes),
            as_json("The notes so far", memory.notes),
        ]
    )
    data = ask(
        caller, "summarizer", user("Update the search memory.", dynamic),
        lambda r: protocol.json_block(r.text, SCHEMA, r.stop_reason),
    )  # fmt: skip
    return [str(n) for n in data["notes"]]
