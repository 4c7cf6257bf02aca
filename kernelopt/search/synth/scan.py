"""Synthesis of scan units: a pointwise chain, one prefix scan (``aten.cumsum``, ``aten.cumprod``,
the values of ``aten.cummax`` / ``aten.cummin``, ``aten.logcumsumexp``) over one dimension, and
a pointwise chain on the results (and on the chain's values: ``cumsum(x) - x`` is an exclusive
scan); a suffix scan written as ``flip``, ``cumsum``, ``flip`` over the same dimension is scanned
from the end.

The model: the scanned dimension ``d`` of the unit's shape ``S`` (size ``N``) is the row; the other
dimensions are the ``R = numel / N`` independent rows.  One program handles ``ROWS`` rows and walks
them in chunks of ``BLOCK`` columns: each chunk is loaded once, scanned in registers
(``tl.cumsum``, ``tl.cumprod``, ``tl.associative_scan`` with a combine function of the module for
the others), combined with the carry of the chunks before it, stored once, and its total folded
into the carry (block scan + carry: every element read and written once, the copy roof's
traffic).  A sum's carry grows by the chunk's total; for the other scans the chunk's last scanned
value is the next carry (padding columns hold the scan's identity, so the last column has seen
the whole chunk).
Arguments are indexed through their strides (any ``d``, broadcast inputs).  Values are computed
in float32 and cast on store (a sum on the attempts of ``SUM_ACC64`` is scanned and carried in
float64 and rounded once); padding columns scan as the identity (0 for a sum, 1 for a product,
-inf for a maximum and a log-sum-exp, +inf for a minimum).  A NaN propagates as in PyTorch (the
maximum and minimum keep it; a log-sum-exp with one is NaN).

Refused, with the reason: several scans, the indices of cummax / cummin used, a dtype argument,
a flip the scan does not undo, integer outputs, arguments seen through a view.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from ...core.records import Contract
from .ops import (
    FLOAT_DTYPES,
    CannotSynthesize,
    arg_offset,
    broadcast_shapes,
    candidate_module,
    forward_fn,
    kernel_reference,
    row_tile,
)
from .pointwise import pointwise_body

SCANS = {"cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"}
VALUES_AND_INDICES = {"cummax", "cummin"}  # (values, indices): only the values are synthesised
# (rows per program, columns per chunk, num_warps) per attempt
ATTEMPTS = [(1, 2048, 4), (1, 4096, 8), (4, 1024, 8), (2, 8192, 16)]
# attempts whose prefix sums accumulate in float64 (the chunk's scan and the carry; the sums are
# rounded to float32 once): a float32 scan's error on the sums near zero is the luck of the order,
# 30x Inductor's own on some draws of a 256-column row (gate 2's error profile rejected an honest
# suffix sum so); eager PyTorch on the CPU accumulates in double too
SUM_ACC64 = frozenset({0})
INPUT_DTYPES = FLOAT_DTYPES | {"bool"}


def is_scan(reference_src: str) -> bool:
    return any(f"aten.{op}." in reference_src for op in SCANS)


FLIPS = {"flip", "rev"}  # aten.flip, and prims.rev as Inductor's post-grad graph writes it


def _op(stmt: ast.stmt) -> tuple[str, ast.Call] | None:
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
        parts = ast.unparse(stmt.value.func).split(".")
        if parts[:2] == ["torch", "ops"] and parts[2] in ("aten", "prims") and len(parts) == 5:
            return parts[3], stmt.value
    return None


def _dims(node: ast.AST, rank: int) -> list[int]:
    try:
        v = ast.literal_eval(node)
    except ValueError:
        raise CannotSynthesize(f"a dimension that is not a literal ({ast.unparse(node)})") from None
    v = [v] if isinstance(v, int) else list(v)
    return sorted(int(x) % rank for x in v)


def _uses(stmts: list[ast.stmt], name: str) -> int:
    return sum(1 for s in stmts for n in ast.walk(s.value) if isinstance(n, ast.Name) and n.id == name)  # type: ignore[attr-defined]


def _item(stmt: ast.stmt, name: str) -> int | None:
    """``k`` when ``stmt`` is ``x = name[k]``, else None."""
    v = stmt.value if isinstance(stmt, ast.Assign) else None
    if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id == name:
        if isinstance(v.slice, ast.Constant) and isinstance(v.slice.value, int):
            return v.slice.value
    return None


def _flip_of(stmt: ast.stmt, rank: int, dim: int) -> str | None:
    """The value ``stmt`` flips over the scan's dimension only, or None when it is no flip."""
    o = _op(stmt)
    if not o or o[0] not in FLIPS:
        return None
    call = o[1]
    if len(call.args) != 2 or not isinstance(call.args[0], ast.Name) or _dims(call.args[1], rank) != [dim]:
        raise CannotSynthesize(f"a flip over other dimensions than the scan's: {ast.unparse(call)[:80]}")
    return call.args[0].id


def _parse(fwd: ast.FunctionDef, rank: int) -> dict[str, Any]:
    """Split forward into the chain before the scan (``pre``), the scan (its input, output name,
    dimension) and the statements after it (``post``).  A flip over the scan's dimension of the
    scan's input (used by nothing else) is read in reverse (``in_rev``); a flip of the scan's
    result (its one use) is stored in reverse (``out_rev``); both together are a suffix sum."""
    body = [s for s in fwd.body if not isinstance(s, ast.Return)]
    body = [s for s in body if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant))]
    scans = [i for i, s in enumerate(body) if (o := _op(s)) and o[0] in SCANS]
    if len(scans) != 1:
        raise CannotSynthesize(f"{len(scans)} scans in one unit: one is synthesised")
    i = scans[0]
    op, call = _op(body[i])  # type: ignore[misc]
    if call.keywords or len(call.args) != 2 or not isinstance(call.args[0], ast.Name):
        raise CannotSynthesize(f"aten.{op} with a dtype or keyword arguments: {ast.unparse(call)[:80]}")
    dim = _dims(call.args[1], rank)[0]
    scan = {"op": op, "input": call.args[0].id, "dim": dim, "in_rev": False, "out_rev": False}
    scan["name"] = body[i].targets[0].id  # type: ignore[attr-defined]
    pre, post = body[:i], body[i + 1 :]
    if op in VALUES_AND_INDICES:  # the scan's value is its tuple's item 0, its one use
        got = [s for s in post if _item(s, scan["name"]) is not None]
        if _uses(post, scan["name"]) != 1 or len(got) != 1 or _item(got[0], scan["name"]) != 0:
            raise CannotSynthesize(f"the indices of aten.{op} are used: only its values are synthesised")
        post = [x for x in post if x is not got[0]]
        scan["name"] = got[0].targets[0].id  # type: ignore[attr-defined]
    for s in pre:
        if s.targets[0].id == scan["input"] and (src := _flip_of(s, rank, dim)) is not None:  # type: ignore[attr-defined]
            if _uses(pre + post, scan["input"]) != 0:  # the scan itself is in neither
                raise CannotSynthesize("the flipped values are used besides the scan")
            pre = [x for x in pre if x is not s]
            scan.update(input=src, in_rev=True)
    outs = [s for s in post if _flip_of(s, rank, dim) == scan["name"]]
    if outs:
        if _uses(post, scan["name"]) != 1:
            raise CannotSynthesize("the scan's result is used besides its flip")
        post = [x for x in post if x is not outs[0]]
        scan.update(name=outs[0].targets[0].id, out_rev=True)  # type: ignore[attr-defined]
    if any(_flip_of(s, rank, dim) is not None for s in pre + post):
        raise CannotSynthesize("a flip that is not of the scan's input or result")
    ret = fwd.body[-1]
    if not isinstance(ret, ast.Return):
        raise CannotSynthesize("forward has no return")
    vals = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
    if len(vals) != 1 or not isinstance(vals[0], ast.Name):
        raise CannotSynthesize("a scan unit with more than one output")
    return {"pre": pre, "post": post, "scan": scan, "result": vals[0].id}


# the combine functions of ``tl.associative_scan`` (a: the earlier value, b: the later one) and
# the identity padding columns hold; a NaN wins a maximum and a minimum, as in PyTorch
COMBINES = {
    "cummax": ("float('-inf')", "_scan_max", ["return tl.where((a > b) | (a != a), a, b)"]),
    "cummin": ("float('inf')", "_scan_min", ["return tl.where((a < b) | (a != a), a, b)"]),
    "logcumsumexp": (
        "float('-inf')",
        "_scan_logaddexp",
        [
            "m = tl.where(a > b, a, b)",
            "n = tl.where(a > b, b, a)",
            "same = m == n  # both infinite of one sign too: m + log 2 is m then",
            "e = tl.where(same | (n == float('-inf')), 0.0, tl.exp(n - m))",
            "return tl.where(same, m + 0.6931471805599453, m + tl.log(1.0 + e))",
        ],
    ),
}


def scan_helpers(op: str) -> list[str]:
    """The module-level ``@triton.jit`` combine function the scan ``op`` needs (none for a sum or
    a product: ``tl.cumsum`` / ``tl.cumprod``)."""
    if op not in COMBINES:
        return []
    _, fn, body = COMBINES[op]
    return ["@triton.jit", f"def {fn}(a, b):", *(f"    {ln}" for ln in body), "", ""]


def _scan_step(op: str, value: str, acc64: bool = False) -> tuple[str, list[str]]:
    """The carry's start and one chunk's scan of ``value`` (padding columns hold the identity):
    a sum adds the chunk's total to the carry; for the others the chunk's last scanned value
    (carry included) is the next carry.  ``acc64``: a sum accumulated in float64."""
    last = "tl.arange(0, BLOCK)[None, :] == BLOCK - 1"
    if op == "cumsum" and acc64:
        return "tl.zeros([ROWS, 1], tl.float64)", [
            f"val = tl.where(mask, {value}, 0.0).to(tl.float64)",
            "s = (tl.cumsum(val, axis=1) + carry).to(tl.float32)",
            "carry = carry + tl.sum(val, axis=1)[:, None]",
        ]
    if op == "cumsum":
        return "tl.zeros([ROWS, 1], tl.float32)", [
            f"val = tl.where(mask, {value}, 0.0)",
            "s = tl.cumsum(val, axis=1) + carry",
            "carry = carry + tl.sum(val, axis=1)[:, None]",
        ]
    if op == "cumprod":
        ident, scanned = "1.0", "tl.cumprod(val, axis=1) * carry"
    else:
        ident, fn, _ = COMBINES[op]
        scanned = f"{fn}(carry, tl.associative_scan(val, 1, {fn}))"
    return f"tl.full([ROWS, 1], {ident}, tl.float32)", [
        f"val = tl.where(mask, {value}, {ident})",
        f"s = {scanned}",
        f"carry = tl.sum(tl.where({last}, s, 0.0), axis=1)[:, None]",
    ]


def synthesize_scan(contract: Contract, reference_src: str, attempt: int) -> str:
    fwd, consts, args, ins, outs = kernel_reference(contract, reference_src)
    if len(outs) != 1:
        raise CannotSynthesize("a scan unit with more than one output")
    out_name = outs[0]
    S = list(consts["OUT_SHAPES"][out_name])
    for name in ins + outs:
        a = args[name]
        ok = INPUT_DTYPES if name in ins else FLOAT_DTYPES
        if a.get("dtype") not in ok:
            raise CannotSynthesize(f"argument {name} is {a.get('dtype')}: scans of float values are synthesised")
    for name in ins:
        if len(consts["SHAPES"][name]) > len(S) or broadcast_shapes(consts["SHAPES"][name], S) != S:
            raise CannotSynthesize(f"input {name} of shape {consts['SHAPES'][name]} is larger than the output {S}")
    segs = _parse(fwd, len(S))
    scan = segs["scan"]
    d = scan["dim"]
    params = [p.arg for p in fwd.args.args[1:]]  # forward(self, x0, x1, ...)
    same = scan["in_rev"] == scan["out_rev"]  # the chain before and after the scan at one column
    if not same and out_name in ins:
        # read at one end of the row, written at the other: in place, a store would overwrite
        # elements a later chunk still reads
        raise CannotSynthesize(f"{out_name} is read and written in place, in opposite directions")
    pre_lines, (pre_res,) = pointwise_body(
        forward_fn(segs["pre"], [scan["input"]]), {x: f"v{i}" for i, x in enumerate(params)}
    )
    post_env = {x: f"{'v' if same else 'w'}{i}" for i, x in enumerate(params)}
    post_lines, (post_res,) = pointwise_body(
        forward_fn(segs["pre"] + segs["post"], [segs["result"]]), {**post_env, scan["name"]: "s"}
    )
    pre_code, post_code = "\n".join(pre_lines) + f"\n{pre_res}", "\n".join(post_lines) + f"\n{post_res}"

    N = S[d]
    lead = [S[k] for k in range(len(S)) if k != d]
    R = int(math.prod(lead))
    rows, chunk, warps = ATTEMPTS[attempt % len(ATTEMPTS)]
    block = min(chunk, 1 << max(N - 1, 1).bit_length())
    rows = min(rows, 1 << max(R - 1, 0).bit_length())
    body, at = row_tile(lead, d, R)

    init, step = _scan_step(scan["op"], pre_res, attempt % len(ATTEMPTS) in SUM_ACC64)
    col_in = f"({N - 1} - cols)" if scan["in_rev"] else "cols"
    col_out = f"({N - 1} - cols)" if scan["out_rev"] else "cols"
    body += [
        f"    carry = {init}",
        f"    for c0 in range(0, {N}, BLOCK):",
        "        cols = c0 + tl.arange(0, BLOCK)[None, :]",
        f"        mask = rmask & (cols < {N})",
    ]
    loads = [("v", col_in, pre_code if not same else f"{pre_code}\n{post_code}")]
    if not same:
        loads.append(("w", col_out, post_code))
    for prefix, col, code in loads:
        for i, name in enumerate(ins):
            if re.search(rf"\b{prefix}{i}\b", code):
                off = arg_offset(args[name], at(col))
                body.append(f"        {prefix}{i} = tl.load({name} + ({off}), mask=mask, other=0).to(tl.float32)")
    body += [f"        {ln}" for ln in pre_lines]
    body += [f"        {ln}" for ln in step]
    body += [f"        {ln}" for ln in post_lines]
    body.append(
        f"        tl.store({out_name} + ({arg_offset(args[out_name], at(col_out))}), "
        f"({post_res}).to({out_name}.dtype.element_ty), mask=mask)"
    )
    kind = {(False, False): "prefix", (True, True): "suffix"}.get((scan["in_rev"], scan["out_rev"]), "prefix")
    if scan["in_rev"] != scan["out_rev"]:
        kind += f" ({'read' if scan['in_rev'] else 'stored'} in reverse)"
    kind += {"cumsum": " sum", "cumprod": " product", "cummax": " maximum", "cummin": " minimum"}.get(
        scan["op"], " log-sum-exp"
    )
    what = [
        f"a {kind} over dim {d} of {S} ({R} rows of {N}), block scan + "
        f"carry in chunks of {block}, {rows} row(s) per program, the chains around it fused"
        + (", accumulated in float64." if scan["op"] == "cumsum" and attempt % len(ATTEMPTS) in SUM_ACC64 else ".")
    ]
    config = {"ROWS": rows, "BLOCK": block}
    return candidate_module(
        attempt, what, "synth_scan", contract, body, config, warps, R, "ROWS", helpers=scan_helpers(scan["op"])
    )
