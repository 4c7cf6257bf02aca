"""Rewrites inside a kernel-level unit's reference (issue 16's arithmetic-only rewrites): the
hand-written generator synthesizes from the simplified reference, so a candidate does not compute
what the graph makes an identity.  Each rewrite holds for every input of the reference's shapes
(never for drawn values only), exactly, NaN and infinity included:

* ``singleton-reduction``: ``amax``/``amin``/``sum``/``mean``/``prod`` over dims that all have
  size 1 in the captured shapes, with ``keepdim`` and no ``dtype``, is its input (one element
  summed, averaged, multiplied or compared with nothing else).  A softmax or a logsumexp over
  such a dim is left as the pointwise ops that remain (``exp(x - x) / exp(x - x)``): with the
  reductions gone the pointwise synthesizer takes it;
* ``cancelling``: ``neg(neg(x))`` is ``x``, ``relu(relu(x))`` is ``relu(x)``.

Shapes come from running the reference's forward on meta tensors of the reference's input
shapes, one statement at a time (no data, no device).  A reference that reads its own constants
(``self.*``) or any statement the meta run cannot evaluate is left as it is.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from ...core.outputcode import renamed
from ...isolate.reference import NoForward, reference_forward

REDUCTIONS = {"amax", "amin", "sum", "mean", "prod"}


def _aten(call: ast.AST) -> tuple[str, str] | None:
    """(op, overload) of ``torch.ops.aten.<op>.<overload>(...)``, else None."""
    if not isinstance(call, ast.Call):
        return None
    parts = ast.unparse(call.func).split(".")
    return (parts[3], parts[4]) if parts[:3] == ["torch", "ops", "aten"] and len(parts) == 5 else None


def _meta_shapes(fwd: ast.FunctionDef, consts: dict[str, Any]) -> dict[str, list[int]] | None:
    """Each forward variable's shape, from a run on meta tensors; None if it cannot be run."""
    import torch

    # forward's parameters (x0, x1, ...) are the INPUTS in order, SHAPES is keyed by the latter
    shapes, names = consts.get("SHAPES") or {}, consts.get("INPUTS") or []
    params = [a.arg for a in fwd.args.args[1:]]
    if len(params) != len(names) or any(n not in shapes for n in names):
        return None
    env: dict[str, Any] = {p: torch.empty(shapes[n], device="meta") for p, n in zip(params, names)}
    scope = {"torch": torch, "inf": math.inf, "nan": math.nan, "device": torch.device}
    for stmt in fwd.body:
        if isinstance(stmt, ast.Return):
            break
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
            continue  # FX's frees ("a = b = None")
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return None
        try:
            value = eval(compile(ast.Expression(stmt.value), "<reference>", "eval"), scope, dict(env))  # noqa: S307
        except Exception:  # noqa: BLE001 - self.* constants, an op without a meta kernel: left as it is
            return None
        env[stmt.targets[0].id] = value
    return {k: list(v.shape) for k, v in env.items() if isinstance(v, torch.Tensor)}


def _identity_of(stmt: ast.Assign, shapes: dict[str, list[int]], made: dict[str, tuple[str, str]]) -> tuple | None:
    """(rewrite, the variable the statement's value equals, or None) if a rewrite applies."""
    op = _aten(stmt.value)
    call = stmt.value
    if op is None or call.keywords or not call.args or not isinstance(call.args[0], ast.Name):  # type: ignore[attr-defined]
        return None
    src = call.args[0].id  # type: ignore[attr-defined]
    if op[0] in REDUCTIONS and len(call.args) == 3:  # type: ignore[attr-defined]
        dims, keep = call.args[1], call.args[2]  # type: ignore[attr-defined]
        shape = shapes.get(src)
        if shape is None or not isinstance(keep, ast.Constant) or keep.value is not True:
            return None
        try:
            ds = ast.literal_eval(dims)
        except ValueError:
            return None
        ds = list(ds) if isinstance(ds, (list, tuple)) else [ds]
        if ds and all(isinstance(d, int) and shape[d % len(shape)] == 1 for d in ds):
            return "singleton-reduction", src
        return None
    if op[0] in ("neg", "relu") and len(call.args) == 1 and made.get(src, ("", ""))[0] == op[0]:  # type: ignore[attr-defined]
        return "cancelling", (made[src][1] if op[0] == "neg" else src)
    return None


def simplify(reference_src: str) -> tuple[str, list[str]]:
    """The reference with every rewrite above applied, and the rewrites applied (in order; empty
    when none applies: the source is returned unchanged)."""
    try:
        fwd, consts = reference_forward(reference_src)
    except (NoForward, SyntaxError):
        return reference_src, []
    shapes = _meta_shapes(fwd, consts)
    if shapes is None:
        return reference_src, []
    rename: dict[str, str] = {}
    made: dict[str, tuple[str, str]] = {}  # variable -> (op, its first argument), after renames
    applied, body = [], []
    for stmt in fwd.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
            continue  # FX's frees: an aliased variable may outlive its source's
        stmt = renamed(stmt, rename, loads_only=True)
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            hit = _identity_of(stmt, shapes, made)
            if hit is not None and hit[1] is not None:
                rename[target] = hit[1]
                applied.append(f"{hit[0]}: {target} = {hit[1]}")
                continue
            op = _aten(stmt.value)
            if op and stmt.value.args and isinstance(stmt.value.args[0], ast.Name):  # type: ignore[attr-defined]
                made[target] = (op[0], stmt.value.args[0].id)  # type: ignore[attr-defined]
        body.append(stmt)
    if not applied:
        return reference_src, []
    fwd.body = body
    lines = reference_src.splitlines()
    head, tail = lines[: fwd.lineno - 1], lines[fwd.end_lineno :]  # type: ignore[operator]
    indent = " " * fwd.col_offset
    new = ast.unparse(fwd).splitlines()
    return "\n".join([*head, *(indent + line for line in new), *tail]) + "\n", applied
