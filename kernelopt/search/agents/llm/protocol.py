"""The reply protocol: plain text.  A kernel is the last fenced ```python block that contains
``@triton.jit``; an analysis, a plan or a memory is the last fenced ```json block, validated
against the role's schema.  Anything else raises ``Unparseable`` with the reason, which the
caller records as a failed attempt (the reply stays in its transcript).  A reply cut by
``max_tokens`` is always a failed attempt: a complete block before the cut may only quote the
prompt."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.DOTALL)


class Unparseable(ValueError):
    pass


def blocks(text: str, lang: str) -> list[str]:
    return [body for tag, body in FENCE.findall(text) if tag.lower() in ({lang, "py"} if lang == "python" else {lang})]


def _not_cut(stop_reason: str | None) -> None:
    if stop_reason == "max_tokens":  # an earlier complete block may only quote the input
        raise Unparseable("the reply was cut by max_tokens")


def kernel(text: str, stop_reason: str | None = None) -> str:
    _not_cut(stop_reason)
    found = [b for b in blocks(text, "python") if "@triton.jit" in b]
    if not found:
        raise Unparseable("no fenced ```python block containing @triton.jit in the reply")
    src = found[-1]
    return src if src.endswith("\n") else src + "\n"


def json_block(text: str, schema: dict[str, Any], stop_reason: str | None = None) -> dict[str, Any]:
    _not_cut(stop_reason)
    found = blocks(text, "json")
    if not found:
        raise Unparseable("no fenced ```json block in the reply")
    try:
        data = json.loads(found[-1])
    except json.JSONDecodeError as e:
        raise Unparseable(f"the ```json block is not JSON: {e}") from None
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as e:
        where = "/".join(str(p) for p in e.absolute_path) or "(top level)"
        raise Unparseable(f"the ```json block does not match the schema at {where}: {e.message}") from None
    return data
