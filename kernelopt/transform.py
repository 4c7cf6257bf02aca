"""Structured source transformations of a candidate in ``inductor.py`` form.

A candidate written by isolate (or derived from one) keeps its launch configuration in
module-level constants: ``CONFIG = {'XBLOCK': 64, ...}``, ``NUM_WARPS``, ``NUM_STAGES``.
Transformations edit those through the AST (never by string replacement on the kernel),
plus keyword edits on ``tl.load`` calls (eviction policy).  Every function returns new source
text; the input is never modified.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any


class TransformError(ValueError):
    """The transformation does not apply to this source."""


@dataclass
class LaunchParams:
    config: dict[str, int]
    num_warps: int | None
    num_stages: int | None


def _module_assign(tree: ast.Module, name: str) -> ast.Assign | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node
    return None


def launch_params(source: str) -> LaunchParams:
    tree = ast.parse(source)
    cfg = _module_assign(tree, "CONFIG")
    if cfg is None:
        raise TransformError("no module-level CONFIG = {...} (not an inductor.py-form candidate)")
    config = ast.literal_eval(cfg.value)
    warps = _module_assign(tree, "NUM_WARPS")
    stages = _module_assign(tree, "NUM_STAGES")
    return LaunchParams(
        config=dict(config),
        num_warps=ast.literal_eval(warps.value) if warps else None,
        num_stages=ast.literal_eval(stages.value) if stages else None,
    )


def _replace_node_text(source: str, node: ast.AST, text: str) -> str:
    lines = source.splitlines(keepends=True)
    start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    prefix = lines[start][: node.col_offset]
    suffix = lines[end][node.end_col_offset:]
    return "".join(lines[:start]) + prefix + text + suffix + "".join(lines[end + 1:])


def set_launch(source: str, *, config: dict[str, int] | None = None, num_warps: int | None = None, num_stages: int | None = None) -> str:
    """New values for CONFIG entries (only existing keys), NUM_WARPS and NUM_STAGES."""
    tree = ast.parse(source)
    out = source
    if config:
        node = _module_assign(tree, "CONFIG")
        if node is None:
            raise TransformError("no module-level CONFIG")
        current = ast.literal_eval(node.value)
        unknown = set(config) - set(current)
        if unknown:
            raise TransformError(f"CONFIG has no {sorted(unknown)} (it holds {sorted(current)})")
        current.update(config)
        out = _replace_node_text(out, node.value, repr(current))
        tree = ast.parse(out)
    for name, value in (("NUM_WARPS", num_warps), ("NUM_STAGES", num_stages)):
        if value is None:
            continue
        node = _module_assign(tree, name)
        if node is None:
            raise TransformError(f"no module-level {name}")
        out = _replace_node_text(out, node.value, repr(int(value)))
        tree = ast.parse(out)
    return out


def set_eviction(source: str, policy: str | None, *, only: str | None = None) -> str:
    """Set (or with ``None`` remove) ``eviction_policy=`` on every ``tl.load`` (or only on
    those whose current policy is ``only``)."""
    tree = ast.parse(source)
    edits: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "tl.load":
            kw = next((k for k in node.keywords if k.arg == "eviction_policy"), None)
            cur = kw.value.value if kw is not None and isinstance(kw.value, ast.Constant) else None
            if only is not None and cur != only:
                continue
            new = ast.Call(func=node.func, args=node.args, keywords=[k for k in node.keywords if k.arg != "eviction_policy"])
            if policy is not None:
                new.keywords.append(ast.keyword(arg="eviction_policy", value=ast.Constant(policy)))
            if ast.dump(new) != ast.dump(node):
                edits.append((node, ast.unparse(new)))
    if not edits:
        raise TransformError("no tl.load to change")
    # apply bottom-up so earlier offsets stay valid
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        source = _replace_node_text(source, node, text)
    return source


def retitle(source: str, note: str) -> str:
    """Prepend a comment saying how this candidate was derived."""
    return "".join(f"# kernelopt: {line}\n" for line in note.splitlines()) + source


def describe(params: LaunchParams) -> str:
    parts = [f"{k}={v}" for k, v in sorted(params.config.items())]
    if params.num_warps is not None:
        parts.append(f"num_warps={params.num_warps}")
    if params.num_stages is not None:
        parts.append(f"num_stages={params.num_stages}")
    return ", ".join(parts)


def apply(source: str, direction: dict[str, Any]) -> str:
    """Apply one planner direction (data, see agents.base.Direction) to a candidate's source."""
    kind = direction["kind"]
    args = direction.get("args", {})
    if kind == "launch":
        return set_launch(source, config=args.get("config"), num_warps=args.get("num_warps"), num_stages=args.get("num_stages"))
    if kind == "eviction":
        return set_eviction(source, args.get("policy"), only=args.get("only"))
    raise TransformError(f"unknown direction kind {kind!r}")
