"""Rewrites above the kernel, the analysis half: facts the post-grad FX graph guarantees for every
input of the captured shapes (never from drawn values) that let a subgraph, library calls
included, do asymptotically less work or drop a library call (issue 16).

``analyse(gm)`` returns one finding per match, in graph order: ``{"rewrite", "node" (the FX node
whose value the rewrite computes), "why", "win", "candidate" (whether the heuristic backend has a
generator for it: only those become graph-level units, capture/graphunits.py), "roles"}``.

The catalogue (the ``rewrite`` names):

* ``diag-matmul``: ``mm(diag(a), B)`` or ``mm(B, diag(a))`` with ``diag(a)`` built in the graph
  (Inductor's decomposition ``where(iota == iota[:, None], a, 0)``): a row (column) scaling,
  O(N*M) instead of O(N*N*M), the GEMM and the N x N matrix dropped.  Candidate: yes.
* ``singleton-softmax`` / ``singleton-logsumexp`` / ``singleton-reduction``: a reduction
  (amax, amin, sum, mean, prod) whose reduced dims all have size 1 is the identity; a softmax over
  such a dim is 1 and a logsumexp the identity (finite inputs).  Inductor already lowers these to
  one pointwise kernel, so the rewrite saves arithmetic, not a pass: found, no candidate.
* ``triangular-output``: ``triu``/``tril`` (the decomposition ``where(col - row >= k, X, 0)``) of a
  GEMM's output: only the kept half (and, for triangular operands, a third of it) needs computing.
  Candidate: yes, where the operands are graph inputs or band masks of them of the output's kind
  (search/synth/rewrite_gemm.py: a Triton GEMM over the kept tiles, K cut by the masks).
* ``reduce-through-matmul``: a sum (mean) over the output features of ``addmm``/``mm``:
  ``sum_j (x W + b)_j = x (W 1) + sum(b)``, O(B*I) + O(I*O) instead of O(B*I*O); the GEMM dropped.
  Candidate: yes, where x, W (as stored or transposed: nn.Linear) and b are graph inputs and the
  GEMM feeds the reduction alone.  ``roles.epilogue`` lists the elementwise nodes computed from
  the reduction alone (a size-1 reduction is the identity): where Inductor fuses the reduction
  with them into one kernel, no buffer holds the sum, and the unit extends to the kernel's output
  (``capture/stage.py: graph_rewrites``).
* ``broadcast-then-reduce``: ``sum_j a[i, 1] * b[1, j]`` over the broadcast dim of one factor
  = ``a[i] * sum_j b[j]``.  Candidate: yes, where both factors are graph inputs seen through
  size-1 views (search/synth/rewrite_bcast.py: the sums once, then one pointwise product).
* ``symmetric-operand``: ``X + X^T`` built in the graph feeding a GEMM: no asymptotic rewrite (a
  symmetric product is still a GEMM).  Candidate: yes, the add fused into the GEMM's operand
  loads (the N x N intermediate's write and read saved); gate 4 decides against the library GEMM.
* ``library-pool``: an average pool (``avg_pool{1,2,3}d``) as a graph node: where Inductor did
  not lower it (a window of more than 25 elements with a stride other than the window: ATen's
  kernel runs, ``torch.ops.aten.avg_pool3d.default(...)`` in the wrapper), the pooling templates
  of ``search/synth/pool.py`` can read each input once in one Triton kernel.  Candidate: yes;
  the unit forms only where the wrapper runs the pool as a library call alone
  (``capture/graphunits.py``: a run of library calls, no Triton kernel), so a pool Inductor
  lowered stays a kernel-level unit.
* ``cancelling``: ``neg(neg(x))``, ``relu(relu(x))``, a permutation undone by the next:
  the ops drop (Inductor fuses them into one kernel already: arithmetic only).  With the
  singleton reductions these are applied inside a kernel-level unit's reference before the
  hand-written generator runs (search/synth/simplify.py), not as graph-level units.
"""

from __future__ import annotations

import math
from typing import Any

VIEWS = {"unsqueeze", "squeeze", "permute", "view", "reshape", "expand", "_unsafe_view", "clone"}
REDUCTIONS = {"amax", "amin", "sum", "mean", "prod"}


def _op(n: Any) -> str:
    """``mm`` for ``aten.mm.default``, ``iota`` for ``prims.iota.default``, '' for a non-call."""
    if getattr(n, "op", None) != "call_function":
        return ""
    parts = str(n.target).split(".")
    return parts[1] if len(parts) >= 2 else parts[0]


def _shape(n: Any) -> list[int] | None:
    val = n.meta.get("val") if hasattr(n, "meta") else None
    try:
        return [int(s) for s in val.shape]
    except Exception:  # noqa: BLE001 - not a tensor, or symbolic
        return None


def _base(n: Any) -> Any:
    """``n`` with view ops (unsqueeze, permute, expand, ...) stripped."""
    while _op(n) in VIEWS and n.args:
        n = n.args[0]
    return n


def _iota_axis(n: Any) -> tuple[int, int] | None:
    """(length, axis) of an index vector ``iota(n)`` laid out as a row index (axis 0:
    ``iota[:, None]``) or a column index (axis 1: ``iota`` or ``iota[None, :]``) of a 2-d tensor."""
    axis = 1
    if _op(n) == "unsqueeze":
        dim = n.args[1]
        axis = 0 if dim in (-1, 1) else 1
        n = n.args[0]
    if _op(n) != "iota" or n.kwargs.get("start", 0) != 0 or n.kwargs.get("step", 1) != 1:
        return None
    return int(n.args[0]), axis


def _is_zero(n: Any) -> bool:
    if isinstance(n, (int, float)):
        return n == 0
    return _op(n) in ("full", "scalar_tensor") and len(n.args) >= 2 and n.args[1] == 0 and not _shape(n)


def diag_source(n: Any) -> Any:
    """The 1-d node ``a`` if ``n`` is ``diag(a)`` as Inductor decomposes it
    (``where(iota == iota[:, None], a, 0)``), else None."""
    if _op(n) != "where" or len(n.args) != 3 or not _is_zero(n.args[2]):
        return None
    cond, value = n.args[0], n.args[1]
    if _op(cond) != "eq" or len(cond.args) != 2:
        return None
    axes = [_iota_axis(a) for a in cond.args]
    if None in axes or {a[1] for a in axes} != {0, 1} or len({a[0] for a in axes}) != 1:  # type: ignore[index]
        return None
    base = _base(value)
    shape = _shape(base)
    if shape is None or len(shape) != 1 or shape[0] != axes[0][0] or _shape(n) != [shape[0], shape[0]]:  # type: ignore[index]
        return None
    return base


def band_of(n: Any) -> tuple[str, int, Any] | None:
    """("triu" | "tril", diagonal, X) if ``n`` is ``where(col - row >= k, X, 0)`` (triu) or
    ``where(col - row <= k, X, 0)`` (tril), as Inductor decomposes them, else None."""
    if _op(n) != "where" or len(n.args) != 3 or not _is_zero(n.args[2]):
        return None
    cmp = n.args[0]
    if _op(cmp) not in ("ge", "le") or len(cmp.args) != 2 or not isinstance(cmp.args[1], int):
        return None
    sub = cmp.args[0]
    if _op(sub) != "sub" or len(sub.args) != 2:
        return None
    col, row = (_iota_axis(a) for a in sub.args)
    if col is None or row is None or col[1] != 1 or row[1] != 0:
        return None
    return ("triu" if _op(cmp) == "ge" else "tril"), int(cmp.args[1]), n.args[1]


def _reduced_dims(n: Any) -> list[int] | None:
    """The dims a reduction node reduces over (normalised), None if not a dim reduction."""
    if _op(n) not in REDUCTIONS or len(n.args) < 2 or not isinstance(n.args[1], (list, tuple)):
        return None
    shape = _shape(n.args[0])
    if shape is None:
        return None
    return [d % len(shape) for d in n.args[1]] if shape else []


def _singleton(n: Any) -> bool:
    dims = _reduced_dims(n)
    shape = _shape(n.args[0]) if dims is not None else None
    return bool(dims) and shape is not None and all(shape[d] == 1 for d in dims)


def _placeholders(n: Any) -> list[str]:
    """The graph inputs ``n`` depends on, in graph order."""
    seen, stack, out = set(), [n], []
    while stack:
        cur = stack.pop()
        if cur in seen:
            continue
        seen.add(cur)
        if cur.op == "placeholder":
            out.append(cur)
        stack.extend(cur.all_input_nodes)
    order = {p: i for i, p in enumerate(n.graph.nodes)}
    return [p.name for p in sorted(out, key=order.get)]


def _finding(rewrite: str, node: Any, why: str, win: str, candidate: bool = False, **roles: Any) -> dict[str, Any]:
    return {
        "rewrite": rewrite,
        "node": node.name,
        "shape": _shape(node),
        "why": why,
        "win": win,
        "candidate": candidate,
        "inputs": _placeholders(node),
        "roles": roles,
    }


def _diag_matmul(n: Any) -> dict[str, Any] | None:
    if _op(n) != "mm":
        return None
    left, right = n.args[0], n.args[1]
    for side, diag, dense in (("left", left, right), ("right", right, left)):
        a = diag_source(diag)
        if a is None:
            continue
        (rows, cols), k = _shape(n) or [0, 0], (_shape(a) or [0])[0]
        other = cols if side == "left" else rows
        return _finding(
            "diag-matmul",
            n,
            f"mm with diag({a.name}) built in the graph ({diag.name}: where(iota == iota[:, None], "
            f"{a.name}, 0)) on the {side}: every output is {'a[i] * B[i, j]' if side == 'left' else 'B[i, j] * a[j]'}",
            f"a {'row' if side == 'left' else 'column'} scaling, O({rows}*{cols}) instead of the GEMM's "
            f"O({k}*{k}*{other}); the library GEMM and the {k}x{k} diagonal matrix are dropped",
            candidate=a.op == "placeholder" and _base(dense).op == "placeholder" and _base(dense) is dense,
            side=side,
            scale=a.name,
            dense=dense.name,
        )
    return None


def _softmax_like(s: Any) -> str | None:
    """``softmax`` if the singleton sum ``s`` is the denominator of a softmax (div(exp, s)),
    ``logsumexp`` if it feeds a log; else None (a plain singleton sum)."""
    e = s.args[0]
    if _op(e) != "exp":
        return None
    if any(_op(u) == "div" and u.args[0] is e and u.args[1] is s for u in s.users):
        return "softmax"
    if any(_op(u) == "log" for u in s.users):
        return "logsumexp"
    return None


def _singleton_reduction(n: Any) -> dict[str, Any] | None:
    if not _singleton(n):
        return None
    dims = _reduced_dims(n)
    like = _softmax_like(n) if _op(n) == "sum" else None
    if like == "softmax":
        return _finding(
            "singleton-softmax",
            n,
            f"a softmax over dim(s) {dims} of size 1 ({n.name} sums one exponential): every output is "
            "exp(x - x) / exp(x - x) = 1 for finite x",
            "the softmax's max, exponential, sum and division drop (Inductor already makes it one "
            "pointwise kernel: arithmetic saved, no pass)",
        )
    if like == "logsumexp":
        return _finding(
            "singleton-logsumexp",
            n,
            f"a logsumexp over dim(s) {dims} of size 1: log(exp(x - m)) + m = x for finite x",
            "the max, exponential, log and their guards drop (one pointwise kernel already: arithmetic saved)",
        )
    return _finding(
        "singleton-reduction",
        n,
        f"{_op(n)} over dim(s) {dims}, each of size 1 in {list(_shape(n.args[0]) or [])}: the identity",
        "the reduction is a view of its input (Inductor lowers it to a pointwise copy already)",
    )


def _triangular_output(n: Any) -> dict[str, Any] | None:
    band = band_of(n)
    if band is None or _op(band[2]) not in ("mm", "bmm"):
        return None
    kind, k, mm = band
    operands = [band_of(a) for a in mm.args[:2]]
    same = all(o is not None and o[0] == kind for o in operands)
    shape = _shape(n) or []

    def operand(a: Any, o: tuple[str, int, Any] | None) -> tuple[str, dict[str, Any] | None] | None:
        """(graph input, its mask or None) of a GEMM operand the generator loads (search/synth/
        rewrite_gemm.py): a graph input as stored, or a band mask of the output's kind of one that
        only the GEMM reads (the mask applied on load); None for anything else."""
        if getattr(a, "op", None) == "placeholder":
            return a.name, None
        if o is None or o[0] != kind or getattr(o[2], "op", None) != "placeholder" or list(a.users) != [mm]:
            return None
        return (o[2].name, {"kind": o[0], "diagonal": o[1]}) if _shape(a.args[0]) == _shape(a) else None

    a, b = (operand(x, o) for x, o in zip(mm.args[:2], operands))
    val = mm.meta.get("val")
    candidate = (
        _op(mm) == "mm"
        and a is not None
        and b is not None
        and list(mm.users) == [n]
        and _shape(n.args[0]) == shape  # the band's row and column indices span the whole output
        and val is not None
        and val.is_floating_point()
    )
    return _finding(
        "triangular-output",
        n,
        f"{kind}(..., {k}) of the GEMM {mm.name}: the other triangle is zeroed, never read"
        + (f"; both operands are {kind} masks built in the graph" if same else ""),
        f"compute only the kept triangle: about half the GEMM's O({'*'.join(map(str, shape))}*K) work"
        + (", a sixth with triangular operands (k runs between the row and the column)" if same else ""),
        candidate=candidate,
        kind=kind,
        diagonal=k,
        matmul=mm.name,
        triangular_operands=same,
        a=a[0] if a else None,
        b=b[0] if b else None,
        a_mask=a[1] if a else None,
        b_mask=b[1] if b else None,
    )


# elementwise ops an epilogue after a reduce-through-matmul may hold (search/synth/rewrites.py
# translates them with the heuristic synthesizer's tables)
EPILOGUE_OPS = {
    "relu", "neg", "exp", "log", "sqrt", "rsqrt", "abs", "sigmoid", "tanh", "reciprocal",
    "add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "where",
}  # fmt: skip


def _scalar_constant(n: Any) -> float | None:
    """The value of ``full([], c)`` (a 0-d constant the graph builds, e.g. logsumexp's 0.0), else None."""
    if _op(n) == "full" and len(n.args) >= 2 and list(n.args[0]) == [] and isinstance(n.args[1], (int, float)):
        return float(n.args[1])
    return None


def _epilogue(n: Any) -> list[dict[str, Any]]:
    """The nodes after ``n`` computed from ``n`` alone (and constants), elementwise in the same
    shape: pointwise ops of ``EPILOGUE_OPS`` and reductions over dims of size 1 (the identity,
    ``op: identity``), in graph order; each ``{node, op, args}`` with every argument
    ``{"node": name}`` or ``{"value": repr(float)}`` (shape facts only: never a drawn value)."""
    shape, inside, out = _shape(n), {n}, []
    nodes = list(n.graph.nodes)
    for m in nodes[nodes.index(n) + 1 :]:
        if m.op != "call_function" or not any(i in inside for i in m.all_input_nodes):
            continue
        if any(i not in inside and _scalar_constant(i) is None for i in m.all_input_nodes):
            continue
        if _shape(m) != shape:
            continue
        op = _op(m)
        if op in REDUCTIONS and _singleton(m) and not m.kwargs.get("dtype"):
            args: list[Any] = [m.args[0]]
            op = "identity"
        elif op in EPILOGUE_OPS and not m.kwargs:
            args = list(m.args)
        else:
            continue
        enc = []
        for a in args:
            if hasattr(a, "op"):
                c = _scalar_constant(a)
                enc.append({"node": a.name} if c is None else {"value": repr(c)})
            elif isinstance(a, (int, float)) and not isinstance(a, bool):
                enc.append({"value": repr(float(a))})
            else:
                break
        else:
            inside.add(m)
            out.append({"node": m.name, "op": op, "args": enc})
    return out


def _reduce_through_matmul(n: Any) -> dict[str, Any] | None:
    dims = _reduced_dims(n)
    if _op(n) not in ("sum", "mean") or not dims or _singleton(n):
        return None
    mm = n.args[0]
    shape = _shape(mm)
    if _op(mm) not in ("mm", "addmm") or shape is None or dims != [1]:
        return None
    addmm = _op(mm) == "addmm"
    bias = mm.args[0] if addmm else None
    x, w = (mm.args[1], mm.args[2]) if addmm else (mm.args[0], mm.args[1])
    (rows, k), cols = _shape(x) or [0, 0], shape[1]
    # the unit takes x, W and b as they are: graph inputs (parameters are inputs of the post-grad
    # graph), W as stored or transposed by a view (nn.Linear: permute(W, [1, 0])), b one value per
    # output feature; the GEMM's result is read by the reduction alone, scaled by neither alpha nor beta
    weight, transposed = w, False
    if _op(w) == "permute" and list(w.args[1]) == [1, 0]:
        weight, transposed = w.args[0], True
    candidate = (
        x.op == "placeholder"
        and weight.op == "placeholder"
        and (bias is None or (bias.op == "placeholder" and _shape(bias) == [cols]))
        and all(mm.kwargs.get(a, 1) == 1 for a in ("alpha", "beta"))
        and list(mm.users) == [n]
        and not n.kwargs.get("dtype")
        and all(v is not None and v.is_floating_point() for v in (x.meta.get("val"), n.meta.get("val")))
    )
    plus_b = " + b" if addmm else ""
    return _finding(
        "reduce-through-matmul",
        n,
        f"{_op(n)} over the output features of {_op(mm)} {mm.name}: sum_j (x W{plus_b})_j"
        f" = x (W 1){' + sum(b)' if addmm else ''}" + (f", divided by {cols}" if _op(n) == "mean" else ""),
        f"O({rows}*{k} + {k}*{cols}) instead of the GEMM's O({rows}*{k}*{cols}); the GEMM is dropped",
        candidate=candidate,
        matmul=mm.name,
        x=x.name,
        weight=weight.name,
        weight_transposed=transposed,
        bias=bias.name if bias is not None else None,
        reduction=_op(n),
        features=cols,
        epilogue=_epilogue(n),
    )


# the views a factor of broadcast-then-reduce may reach its graph input through: none moves data
BCAST_VIEWS = {"unsqueeze", "expand", "view", "_unsafe_view", "reshape"}


def _view_step(v: Any, shape: list[int], dims: list[int | None]) -> tuple[list[int], list[int | None]] | None:
    """(shape, dims) after the view ``v`` (an unsqueeze, an expand, or a view that only inserts or
    drops dims of size 1); None for any other view or where the result is not ``v``'s shape."""
    new, op = _shape(v), _op(v)
    if new is None:
        return None
    if op == "unsqueeze":
        k = v.args[1] % (len(shape) + 1)
        shape, dims = shape[:k] + [1] + shape[k:], dims[:k] + [None] + dims[k:]
    elif op == "expand":
        sizes, lead = list(v.args[1]), len(v.args[1]) - len(shape)
        if lead < 0:
            return None
        shape, dims = [1] * lead + shape, [None] * lead + dims
        for i, s in enumerate(sizes):
            if s not in (-1, shape[i]):
                if shape[i] != 1:
                    return None
                shape[i], dims[i] = s, None
    else:  # a view: the dims of size > 1 kept, in order
        if [s for s in new if s != 1] != [s for s in shape if s != 1]:
            return None
        kept = iter([d for d, s in zip(dims, shape) if s != 1])
        shape, dims = list(new), [next(kept) if s != 1 else None for s in new]
    return (shape, dims) if shape == new else None


def _broadcast_map(a: Any, out: list[int]) -> tuple[Any, list[int | None]]:
    """(base, dims): for each dim of the product ``out`` the dim of ``base`` that indexes the
    operand ``a`` there, None where ``a`` does not vary along it (inserted, expanded, broadcast by
    the product or of size 1); ``base`` is the node under the chain of ``BCAST_VIEWS`` (``a``
    itself where another op is in the chain)."""
    chain, base = [], a
    while _op(base) in BCAST_VIEWS and base.args:
        chain.append(base)
        base = base.args[0]
    shape = _shape(base) or []
    dims: list[int | None] = list(range(len(shape)))
    for v in reversed(chain):
        step = _view_step(v, shape, dims)
        if step is None:
            base, shape = a, _shape(a) or []
            dims = list(range(len(shape)))
            break
        shape, dims = step
    lead = len(out) - len(shape)
    shape, dims = [1] * lead + shape, [None] * lead + dims
    return base, [None if s == 1 else d for s, d in zip(shape, dims)]


def _broadcast_then_reduce(n: Any) -> dict[str, Any] | None:
    dims = _reduced_dims(n)
    if _op(n) != "sum" or not dims or _op(n.args[0]) != "mul" or _singleton(n):
        return None
    mul = n.args[0]
    out = _shape(mul)
    if out is None or len(mul.args) != 2 or not all(hasattr(a, "meta") and _shape(a) is not None for a in mul.args):
        return None
    if any(len(_shape(a)) > len(out) for a in mul.args):  # type: ignore[arg-type]
        return None
    maps = [_broadcast_map(a, out) for a in mul.args]
    for i in (0, 1):
        (fbase, fdims), (sbase, sdims) = maps[i], maps[1 - i]
        if any(fdims[d] is not None for d in dims) or all(sdims[d] is None for d in dims):
            continue
        keepdim = bool(n.args[2] if len(n.args) > 2 else n.kwargs.get("keepdim", False))
        vals = [fbase.meta.get("val"), sbase.meta.get("val"), n.meta.get("val")]
        candidate = (
            fbase.op == "placeholder"
            and sbase.op == "placeholder"
            and list(mul.users) == [n]
            and not n.kwargs.get("dtype")
            and all(v is not None and v.is_floating_point() for v in vals)
        )
        reduced = math.prod(out[d] for d in dims)
        again = math.prod(out[d] for d in range(len(out)) if d not in dims and sdims[d] is None)
        return _finding(
            "broadcast-then-reduce",
            n,
            f"sum over dim(s) {dims} of {mul.name} = {mul.args[0].name} * {mul.args[1].name}, where "
            f"{mul.args[i].name} does not vary along them (size 1 or broadcast): it factors out of the sum",
            f"{math.prod(out) // reduced} products after one sum of {sbase.name} instead of "
            f"{math.prod(out)} products summed: {reduced}x fewer multiplications"
            + (f"; {sbase.name} is read once, not again for each of the {again} factor values" if again > 1 else ""),
            candidate=candidate,
            factor=fbase.name,
            factor_dims=fdims,
            summed=sbase.name,
            summed_dims=sdims,
            dims=dims,
            keepdim=keepdim,
            shape=out,
        )
    return None


def _symmetric_operand(n: Any) -> dict[str, Any] | None:
    if _op(n) != "mm":
        return None
    for side, a, other in (("left", n.args[0], n.args[1]), ("right", n.args[1], n.args[0])):
        if _op(a) == "add" and len(a.args) == 2:
            x, y = a.args
            for p, q in ((x, y), (y, x)):
                if _op(q) == "permute" and q.args[0] is p and list(q.args[1]) == [1, 0]:
                    shape, val = _shape(p), n.meta.get("val")
                    # the generator (search/synth/rewrite_gemm.py) loads X and the other operand as
                    # stored: graph inputs, X square, the sum read by the GEMM alone
                    candidate = (
                        p.op == "placeholder"
                        and getattr(other, "op", None) == "placeholder"
                        and list(a.users) == [n]
                        and a.kwargs.get("alpha", 1) == 1
                        and shape is not None
                        and len(shape) == 2
                        and shape[0] == shape[1]
                        and val is not None
                        and val.is_floating_point()
                    )
                    return _finding(
                        "symmetric-operand",
                        n,
                        f"{a.name} = {p.name} + {p.name}^T is symmetric by construction",
                        f"the add is fused into the GEMM's operand loads ({p.name}[i, k] + {p.name}[k, i] per tile),"
                        f" saving the {'x'.join(map(str, shape or []))} intermediate's write and read; no asymptotic"
                        " win (the GEMM stays): gate 4 decides whether the fused GEMM beats the library's",
                        candidate=candidate,
                        side=side,
                        x=p.name,
                        other=other.name if hasattr(other, "name") else None,
                    )
    return None


def _cancelling(n: Any) -> dict[str, Any] | None:
    op = _op(n)
    if op in ("neg", "relu") and n.args and _op(n.args[0]) == op:
        what = "neg(neg(x)) = x" if op == "neg" else "relu(relu(x)) = relu(x)"
        return _finding(
            "cancelling",
            n,
            f"{what} ({n.args[0].name} -> {n.name})",
            "the op drops (fused into one kernel already: arithmetic saved)",
        )
    if op == "permute" and _op(n.args[0]) == "permute":
        p, q = list(n.args[0].args[1]), list(n.args[1])
        if [p[i] for i in q] == list(range(len(q))):
            return _finding("cancelling", n, "a permutation undone by the next", "two views drop")
    return None


LIBRARY_POOLS = {"avg_pool1d", "avg_pool2d", "avg_pool3d"}


def _library_pool(n: Any) -> dict[str, Any] | None:
    """An average pool of a graph input, or of a node's value (a convolution's output: the unit
    then starts at the buffer holding it, after the library call that wrote it)."""
    src = n.args[0] if n.args else None
    if _op(n) not in LIBRARY_POOLS or getattr(src, "op", None) not in ("placeholder", "call_function"):
        return None
    if _shape(src) is None:
        return None
    f = _finding(
        "library-pool",
        n,
        f"{_op(n)} of {src.name}: ATen's kernel runs where Inductor's lowering falls back (a window of "
        "more than 25 elements)",
        "one Triton kernel that walks each output's window (search/synth/pool.py); where Inductor lowered "
        "the pool, no graph-level unit forms (a kernel-level unit covers it)",
        candidate=True,
        op=_op(n),
    )
    f["inputs"] = [src.name]  # the pool's input alone, a graph input or the buffer of a node's value
    return f


CATALOGUE = (
    _diag_matmul,
    _triangular_output,
    _reduce_through_matmul,
    _broadcast_then_reduce,
    _symmetric_operand,
    _singleton_reduction,
    _cancelling,
    _library_pool,
)


def analyse(gm: Any) -> list[dict[str, Any]]:
    """Every finding of the catalogue in ``gm`` (a post-grad FX GraphModule), in graph order."""
    out = []
    for n in gm.graph.nodes:
        if n.op != "call_function":
            continue
        for rule in CATALOGUE:
            f = rule(n)
            if f is not None:
                out.append(f)
    return out
