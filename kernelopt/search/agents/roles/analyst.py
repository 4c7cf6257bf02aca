"""Strategy analyst: the profile summary (NCU metrics or the roofline estimate) and the kernel
-> a bottleneck class with quoted evidence."""

from __future__ import annotations

from ....core.records import Contract
from ..base import BOTTLENECKS, Analysis, ProfileSummary
from ..llm import protocol
from ..llm.client import Caller
from .common import as_json, ask, code, contract_text, user

SCHEMA = {
    "type": "object",
    "required": ["bottleneck", "evidence"],
    "properties": {
        "bottleneck": {"enum": list(BOTTLENECKS)},
        "evidence": {"type": "array", "minItems": 1, "items": {"type": "string"}},
    },
}
MAX_PROFILE_CHARS = 16000  # ~4K tokens


def run(caller: Caller, summary: ProfileSummary, contract: Contract, kernel: str) -> Analysis:
    static = "\n\n".join([contract_text(contract), code(f"The kernel of beam member {summary.member}", kernel)])
    metrics = {k: v for k, v in summary.metrics.items() if isinstance(v, (int, float, str)) and v is not None}
    profile = f"## Profile ({summary.source})\n{summary.text}\n" + (f"Note: {summary.note}\n" if summary.note else "")
    dynamic = profile + "\n" + as_json("Key metrics", metrics, limit=MAX_PROFILE_CHARS - len(profile))
    data = ask(
        caller, "analyst", user(static, dynamic), lambda r: protocol.json_block(r.text, SCHEMA, r.stop_reason), 2
    )
    return Analysis(member=summary.member, bottleneck=data["bottleneck"], evidence=[str(e) for e in data["evidence"]])
