"""What every role shares: system prompts, the contract as text, the call with its re-asks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ....core.jsonio import read_json, write_json
from ....core.records import Contract
from ..llm.client import Caller, Reply
from ..llm.protocol import Unparseable

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
KERNEL_ROLES = ("synthesizer", "executor", "fixer")
T = TypeVar("T")


class RoleFailed(Exception):
    """Every attempt of a role's call was unusable; ``reasons`` says why, one per attempt."""

    def __init__(self, role: str, reasons: list[str]):
        self.role, self.reasons = role, reasons
        super().__init__(f"{role}: " + "; ".join(reasons))


def prompt(name: str) -> str:
    return (PROMPTS / f"{name}.md").read_text()


def system(role: str) -> list[dict[str, Any]]:
    text = prompt(role) + ("\n\n" + prompt("interface") if role in KERNEL_ROLES else "")
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]


def user(static: str, dynamic: str) -> list[dict[str, Any]]:
    """One user turn: the unit's static part first (cached), then what changes per call."""
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": static, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": dynamic},
            ],
        }
    ]


def contract_text(contract: Contract) -> str:
    kind = "a fused neighbour pair" if contract.fused else contract.heuristic
    code_is = f"Inductor's kernel: `{contract.kernel}` ({kind})"
    if contract.rewrite:  # roles/graph.py's section lists the launches
        r = contract.rewrite
        code_is = f"a graph-level unit (rewrite `{r['name']}`) of {len(r.get('members', []))} launches"
    lines = [
        f"## Unit `{contract.unit}` of problem `{contract.problem}`",
        f"Device: {contract.device}; {code_is}.",
        "Arguments, in launch order:",
    ]
    names = []
    for a in contract.args:
        names.append(a["name"])
        if a["kind"] == "tensor":
            lines.append(
                f"- `{a['name']}`: tensor {a['dtype']}, shape {a['shape']}, stride {a['stride']}, "
                f"storage offset {a.get('storage_offset', 0)}, access {a.get('access', 'read')}"
            )
        else:
            lines.append(f"- `{a['name']}`: {a.get('type', 'scalar')} = {a.get('value')!r}")
    lines.append(f"The launch function: `def launch({', '.join(names)}):`")
    ops = contract.aten_ops or contract.reference.get("aten_ops")
    if ops:
        lines.append(f"ATen ops of the eager reference: {', '.join(ops)}")
    return "\n".join(lines)


def code(title: str, src: str, limit: int = 24000) -> str:
    if len(src) > limit:
        src = src[:limit] + "\n# ... (truncated)\n"
    return f"## {title}\n```python\n{src.rstrip()}\n```"


def as_json(title: str, data: Any, limit: int = 16000) -> str:
    text = json.dumps(data, indent=1, sort_keys=True, default=str)
    if len(text) > limit:
        text = text[:limit] + "\n... (truncated)"
    return f"## {title}\n```json\n{text}\n```"


def _note(reply: Reply, **fields: Any) -> None:
    rec = read_json(reply.transcript)
    rec.update(fields)
    write_json(reply.transcript, rec)


def ask(
    caller: Caller,
    role: str,
    messages: list[dict[str, Any]],
    parse: Callable[[Reply], T],
    attempts: int = 1,
) -> T:
    """The role's answer; a reply that does not parse is recorded in its transcript and, while
    attempts remain, answered with the reason and asked again (each attempt is a call)."""
    reasons: list[str] = []
    messages = list(messages)
    for _ in range(attempts):
        reply = caller.call(role, system(role), messages)
        try:
            out = parse(reply)
        except Unparseable as e:
            reasons.append(str(e))
            _note(reply, parsed=False, parse_error=str(e))
            messages = messages + [
                {"role": "assistant", "content": reply.text or "(empty reply)"},
                {"role": "user", "content": f"That reply could not be used: {e}. Answer again, in the format asked."},
            ]
            continue
        _note(reply, parsed=True)
        return out
    raise RoleFailed(role, reasons)
