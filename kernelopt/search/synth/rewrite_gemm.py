"""Candidates of the GEMM rewrites of ``capture/rewrites.py`` (issue 16): one Triton tiled GEMM
(``tl.dot``, fp32 accumulation) in the checked candidate form that computes the unit's output with
the rewrite applied, the library GEMM and the intermediates dropped.

* ``triangular-output``: ``triu``/``tril(A @ B, d)``.  Output tiles entirely in the dropped
  triangle run no K loop and store zeros (the output is write-only: every element is written);
  tiles across the diagonal mask the product with the diagonal offset.  An operand masked to a
  triangle in the graph (``roles.a_mask``/``b_mask``) is masked on load (elements outside its
  triangle load as 0), and the K loop runs over the k range its triangle leaves non-zero for the
  tile (``tril(A) @ tril(B)``: k in [j, i] at tile granularity).
* ``symmetric-operand``: ``(X + X^T) @ B``: each tile of the symmetric operand is loaded as
  ``X[rows, cols]`` plus the transpose of ``X[cols, rows]``, fused into the GEMM; the N x N sum is
  never written.  ``B @ (X + X^T)`` is computed as ``((X + X^T) @ B^T)^T`` (the sum is symmetric)
  through transposed views of B and of the output: the same kernel (the right operand's sum
  spills registers in the fp32 FMA path on sm_90).

Attempts alternate ``input_precision="ieee"`` (fp32 FMA) and ``"tf32x3"`` (three TF32 MMAs,
near-fp32 accuracy) over a few tile configurations (``ATTEMPTS``); attempt 0 is ieee.  Shapes
and strides are the contract's, baked in as constants; offsets are int64.
"""

from __future__ import annotations

from typing import Any

from ...core.records import Contract
from .ops import FLOAT_DTYPES, CannotSynthesize, module_head

# per attempt: (input_precision, BLOCK_M, BLOCK_N, BLOCK_K, warps, stages)
# (none spills registers when compiled for sm_90 at N = 4096, triangular and symmetric alike)
ATTEMPTS = (
    ("ieee", 64, 64, 32, 4, 3),
    ("tf32x3", 128, 128, 32, 8, 3),
    ("ieee", 128, 64, 32, 8, 3),
    ("tf32x3", 128, 64, 32, 8, 3),
    ("ieee", 64, 128, 32, 8, 3),
    ("tf32x3", 64, 64, 32, 4, 4),
)
GROUP_M = 8  # rows of output tiles a group of programs sweeps together (L2 reuse of B's tiles)


def synthesize_gemm_rewrite(contract: Contract, attempt: int) -> str:
    """The candidate module of a ``triangular-output`` or ``symmetric-operand`` unit for ``attempt``."""
    name = contract.rewrite["name"]
    if name == "triangular-output":
        gemm = _triangular(contract)
    elif name == "symmetric-operand":
        gemm = _symmetric(contract)
    else:
        raise CannotSynthesize(f"rewrite_gemm has no generator for the rewrite {name}")
    return _module(contract, attempt, gemm)


def _matrix(args: dict[str, Any], name: str | None, what: str) -> dict[str, Any]:
    """The contract's tensor ``name``, a 2-d matrix of a floating dtype; CannotSynthesize otherwise."""
    if name not in args:
        raise CannotSynthesize(f"the {what} {name} is not an argument of the unit")
    t = args[name]
    if len(t["shape"]) != 2 or len(t["stride"]) != 2 or t["dtype"] not in FLOAT_DTYPES:
        raise CannotSynthesize(f"the {what} {name} ({t['dtype']} {t['shape']}) is not a floating matrix")
    return t


def _operands(contract: Contract, a: str | None, b: str | None) -> tuple[Any, ...]:
    """The GEMM's operands A [M, K], B [K, N] and its output [M, N], checked; and (M, N, K)."""
    args = {x["name"]: x for x in contract.args}
    (out,) = contract.rewrite["outputs"]
    ta, tb, to = _matrix(args, a, "left operand"), _matrix(args, b, "right operand"), _matrix(args, out, "output")
    (m, k), (k2, n) = ta["shape"], tb["shape"]
    if k2 != k or list(to["shape"]) != [m, n] or ta["dtype"] != tb["dtype"]:
        shapes = f"{ta['dtype']} {ta['shape']} x {tb['dtype']} {tb['shape']} -> {to['shape']}"
        raise CannotSynthesize(f"{shapes} is not a GEMM")
    return ta, tb, to, (m, n, k)


def _load(t: dict[str, Any], rows: str, cols: str, n_rows: int, n_cols: int, band: str = "") -> str:
    """The tile ``t[rows, cols]`` (``rows``, ``cols``: 1-d index vectors, bounded by ``n_rows`` and
    ``n_cols``), 0 outside ``t`` and outside ``band`` (an extra mask condition) when given."""
    s0, s1 = t["stride"]
    mask = f"({rows}[:, None] < {n_rows}) & ({cols}[None, :] < {n_cols})" + (f" & {band}" if band else "")
    return f"tl.load({t['name']}_ptr + {rows}[:, None] * {s0} + {cols}[None, :] * {s1}, mask={mask}, other=0.0)"


def _transposed(t: dict[str, Any]) -> dict[str, Any]:
    """The tensor argument ``t`` seen as its transpose (shape and strides reversed, the same memory)."""
    return {**t, "shape": list(t["shape"])[::-1], "stride": list(t["stride"])[::-1]}


def _symmetric_tile(x: dict[str, Any], rows: str, cols: str, n_rows: int, n_cols: int) -> str:
    """The tile ``(X + X^T)[rows, cols]``: ``X[rows, cols]`` plus ``X[cols, rows]`` (loaded along
    X's own layout, [cols, rows]) transposed."""
    mirror = _load(x, cols, rows, n_cols, n_rows)
    return f"{_load(x, rows, cols, n_rows, n_cols)} + tl.trans({mirror})"


def _band(kind: str, diagonal: int, rows: str, cols: str) -> str:
    """Whether element (row, col) is in ``kind``'s triangle (triu: col - row >= d, tril: <= d)."""
    return f"({cols} - {rows} {'>=' if kind == 'triu' else '<='} {diagonal})"


def _triangular(contract: Contract) -> dict[str, Any]:
    """``triu``/``tril`` of ``A @ B`` (operands optionally masked): the tile loads, the K range
    (``k_lo``, ``k_hi``: lines computing them from the tile's first row ``m0`` and column ``n0``)
    and the store's value."""
    roles = contract.rewrite["roles"]
    kind, d = roles["kind"], int(roles["diagonal"])
    if kind not in ("triu", "tril"):
        raise CannotSynthesize(f"the band {kind} is neither triu nor tril")
    ta, tb, to, (m, n, k) = _operands(contract, roles.get("a"), roles.get("b"))
    am, bm = roles.get("a_mask"), roles.get("b_mask")
    for mask in (am, bm):
        if mask is not None and mask.get("kind") not in ("triu", "tril"):
            raise CannotSynthesize(f"the operand mask {mask} is neither triu nor tril")
    lo, hi = ["0"], [str(k)]  # the k range the operands' triangles leave non-zero for the tile
    a_band = b_band = ""
    if am is not None:  # A[i, k] != 0 only where k - i <= d (tril) or >= d (triu), i over the tile's rows
        ad = int(am["diagonal"])
        a_band = _band(am["kind"], ad, "rm[:, None]", "rk[None, :]")
        if am["kind"] == "tril":
            hi.append(_plus("m0 + BLOCK_M", ad))
        else:
            lo.append(_plus("m0", ad))
    if bm is not None:  # B[k, j] != 0 only where j - k <= d (tril: k >= j - d) or >= d (triu: k <= j - d)
        bd = int(bm["diagonal"])
        b_band = _band(bm["kind"], bd, "rk[:, None]", "rn[None, :]")
        if bm["kind"] == "tril":
            lo.append(_plus("n0", -bd))
        else:
            hi.append(_plus("n0 + BLOCK_N", -bd))
    # a tile wholly outside the kept triangle runs no K loop and stores zeros
    dropped = f"n0 + BLOCK_N - 1 - m0 < {d}" if kind == "triu" else f"n0 - (m0 + BLOCK_M - 1) > {d}"
    k_lines = [
        f"    k_lo = {_fold('tl.maximum', lo)}",
        "    k_lo = (k_lo // BLOCK_K) * BLOCK_K",  # tile-aligned loads; the masks zero what lies before
        f"    k_hi = tl.where({dropped}, k_lo, {_fold('tl.minimum', hi)})",
    ]
    a_text, b_text = (x if mm is None else f"{mm['kind']}({x}, {mm['diagonal']})" for x, mm in (("A", am), ("B", bm)))
    what = [
        f"graph-level rewrite triangular-output: {kind}({a_text} @ {b_text}, {d}) for A {m} x {k} and B {k} x {n}:",
        "a tiled GEMM (tl.dot) over the output tiles that meet the kept triangle, zeros stored elsewhere"
        + (", the K loop over the k range the triangular operands leave non-zero" if am or bm else "")
        + "; the library GEMM is dropped.",
    ]
    return {
        "a": _load(ta, "rm", "rk", m, k, a_band),
        "b": _load(tb, "rk", "rn", k, n, b_band),
        "k_lines": k_lines,
        "value": f"tl.where({_band(kind, d, 'rm[:, None]', 'rn[None, :]')}, acc, 0.0)",
        "out": to,
        "mnk": (m, n, k),
        "what": what,
    }


def _plus(expr: str, c: int) -> str:
    """``expr + c`` written without a ``+ 0``."""
    return expr if c == 0 else f"{expr} {'+' if c > 0 else '-'} {abs(c)}"


def _fold(fn: str, terms: list[str]) -> str:
    """``fn(fn(t0, t1), t2) ...`` over ``terms`` (``t0`` alone when there is one)."""
    out = terms[0]
    for t in terms[1:]:
        out = f"{fn}({out}, {t})"
    return out


def _symmetric(contract: Contract) -> dict[str, Any]:
    """``(X + X^T) @ B`` (side left) or ``B @ (X + X^T)`` (right): the symmetric operand's tile as
    ``X[rows, cols] + trans(X[cols, rows])``, the other operand's tile as stored."""
    roles = contract.rewrite["roles"]
    side, x = roles.get("side"), roles.get("x")
    if side not in ("left", "right"):
        raise CannotSynthesize(f"the symmetric operand's side {side} is neither left nor right")
    a, b = (x, roles.get("other")) if side == "left" else (roles.get("other"), x)
    ta, tb, to, (m, n, k) = _operands(contract, a, b)
    tx = ta if side == "left" else tb
    if tx["shape"][0] != tx["shape"][1]:
        raise CannotSynthesize(f"X {tx['shape']} is not square: X + X^T is no symmetric matrix")
    what = [
        f"graph-level rewrite symmetric-operand: {'(X + X^T) @ B' if side == 'left' else 'B @ (X + X^T)'} for X "
        f"{k} x {k} and the product {m} x {n}: a tiled GEMM (tl.dot) whose symmetric operand's tiles are",
        "X[rows, cols] + X[cols, rows]^T summed on load"
        + ("" if side == "left" else ", computed as (S @ B^T)^T through transposed views")
        + "; the sum's buffer and the library GEMM are dropped.",
    ]
    if side == "left":  # S[i, k] = X[i, k] + X[k, i]
        a_tile, b_tile = _symmetric_tile(tx, "rm", "rk", m, k), _load(tb, "rk", "rn", k, n)
    else:  # B @ S as (S @ B^T)^T (S = S^T): the left case over transposed views of B and of the output
        to, m, n = _transposed(to), n, m
        a_tile, b_tile = _symmetric_tile(tx, "rm", "rk", m, k), _load(_transposed(ta), "rk", "rn", k, n)
    return {
        "a": a_tile,
        "b": b_tile,
        "k_lines": ["    k_lo = 0", f"    k_hi = {k}"],
        "value": "acc",
        "out": to,
        "mnk": (m, n, k),
        "what": what,
    }


def _module(contract: Contract, attempt: int, gemm: dict[str, Any]) -> str:
    """The candidate module: one ``@triton.jit`` GEMM over grouped output tiles, CONFIG / NUM_WARPS /
    NUM_STAGES of the attempt, and ``launch`` with the contract's arguments over one program per tile."""
    precision, bm, bn, bk, warps, stages = ATTEMPTS[attempt % len(ATTEMPTS)]
    (m, n, _), out = gemm["mnk"], gemm["out"]
    tensors = [a["name"] for a in contract.args if a["kind"] == "tensor"]
    so0, so1 = out["stride"]
    grid = f"triton.cdiv({m}, CONFIG['BLOCK_M']) * triton.cdiv({n}, CONFIG['BLOCK_N'])"
    what = [
        *gemm["what"],
        f"fp32 accumulation, input_precision {precision}; tiles of BLOCK_M x BLOCK_N outputs, BLOCK_K deep.",
    ]
    return "\n".join(
        [
            *module_head(attempt, what, "rewrite", torch=False),
            "",
            "",
            "@triton.jit",
            f"def gemm_rewrite({', '.join(f'{t}_ptr' for t in tensors)}, "
            "BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):",
            "    pid = tl.program_id(0)",
            f"    grid_m = ({m} + BLOCK_M - 1) // BLOCK_M",
            f"    width = GROUP_M * (({n} + BLOCK_N - 1) // BLOCK_N)",
            "    first_m = (pid // width) * GROUP_M",
            "    size_m = tl.minimum(grid_m - first_m, GROUP_M)",
            "    m0 = (first_m + (pid % width) % size_m).to(tl.int64) * BLOCK_M",
            "    n0 = ((pid % width) // size_m).to(tl.int64) * BLOCK_N",
            "    rm = m0 + tl.arange(0, BLOCK_M)",
            "    rn = n0 + tl.arange(0, BLOCK_N)",
            *gemm["k_lines"],
            "    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)",
            "    for k0 in range(k_lo, k_hi, BLOCK_K):",
            "        rk = k0 + tl.arange(0, BLOCK_K)",
            f"        a = {gemm['a']}",
            f"        b = {gemm['b']}",
            f'        acc = tl.dot(a, b, acc, input_precision="{precision}")',
            f"    c = {gemm['value']}",
            f"    mask = (rm[:, None] < {m}) & (rn[None, :] < {n})",
            f"    tl.store({out['name']}_ptr + rm[:, None] * {so0} + rn[None, :] * {so1}, "
            f"c.to({out['name']}_ptr.dtype.element_ty), mask=mask)",
            "",
            "",
            f"CONFIG = {{'BLOCK_M': {bm}, 'BLOCK_N': {bn}, 'BLOCK_K': {bk}, 'GROUP_M': {GROUP_M}}}",
            f"NUM_WARPS = {warps}",
            f"NUM_STAGES = {stages}",
            "",
            "",
            f"def launch({', '.join(a['name'] for a in contract.args)}):",
            f"    gemm_rewrite[({grid},)]({', '.join(tensors)}, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)",
            "",
        ]
    )
