"""Synthesis of index reductions: a pointwise chain, then ``aten.argmax`` or ``aten.argmin`` over one
dimension (keepdim or not), the int64 index as the output.

The model (as ``scan``): the reduced dimension ``d`` of the chain's shape ``S`` (size ``N``) is the
row, the other dimensions are ``R`` rows.  One program handles ``ROWS`` rows and walks them in
chunks of ``BLOCK`` columns, each element read once: every lane keeps the best value it has seen
and its column (a strictly better value replaces it, so a lane keeps its first best); at the end
the lanes are combined: the best value of the row, the smallest column holding it (PyTorch's first
index).  A NaN is larger and smaller than everything (PyTorch's argmax/argmin return the first
NaN).  Arguments are indexed through their strides.

Refused, with the reason: a reduction over several or all dimensions (``dim=None``), anything after
the index, an input that is not a float.
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
    rows_adjacent,
)
from .pointwise import pointwise_body

OPS = {"argmax": ">", "argmin": "<"}
ATTEMPTS = [(1, 2048, 8), (4, 512, 4), (1, 4096, 8), (8, 256, 4)]  # (rows per program, chunk, num_warps)
# over a middle dimension of inputs whose rows are adjacent in memory (argmax over dim 1 of
# [A, N, B]) a load is coalesced across rows only: one row a program read 4 bytes of each
# 32-byte sector (5.6x Inductor's time on the H100); many rows, few columns a chunk instead
STRIDED_ATTEMPTS = [(64, 32, 8), (32, 64, 8), (128, 16, 8), (16, 128, 4)]


def is_argreduce(reference_src: str) -> bool:
    return any(f"aten.{op}." in reference_src for op in OPS)


def _parse(fwd: ast.FunctionDef) -> tuple[list[ast.stmt], dict[str, Any]]:
    body = [s for s in fwd.body if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant))]
    ret = body[-1]
    if not isinstance(ret, ast.Return):
        raise CannotSynthesize("forward has no return")
    vals = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
    if len(vals) != 1 or not isinstance(vals[0], ast.Name):
        raise CannotSynthesize("an index reduction unit with more than one output")
    last = body[-2] if len(body) > 1 else None
    func = (
        ast.unparse(last.value.func).split(".")
        if isinstance(last, ast.Assign) and isinstance(last.value, ast.Call)
        else []
    )  # type: ignore[union-attr]
    if len(func) != 5 or func[3] not in OPS or last.targets[0].id != vals[0].id:  # type: ignore[union-attr]
        raise CannotSynthesize("the index reduction is not the unit's last op (anything after it is refused)")
    call = last.value  # type: ignore[union-attr]
    if call.keywords or not call.args or not isinstance(call.args[0], ast.Name):
        raise CannotSynthesize(f"aten.{func[3]} with keyword arguments or of a non-value")
    try:
        dim = ast.literal_eval(call.args[1]) if len(call.args) > 1 else None
        keep = bool(ast.literal_eval(call.args[2])) if len(call.args) > 2 else False
    except ValueError:
        raise CannotSynthesize(f"aten.{func[3]}'s dim or keepdim is not a literal") from None
    if not isinstance(dim, int):
        raise CannotSynthesize(f"aten.{func[3]} over every dimension (dim=None): one dimension is synthesised")
    if any(
        isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[3:4] in (["argmax"], ["argmin"])
        for s in body[:-2]
        for n in ast.walk(s)
    ):
        raise CannotSynthesize("two index reductions in one unit")
    return body[:-2], {"op": func[3], "input": call.args[0].id, "dim": dim, "keep": keep}


def synthesize_argreduce(contract: Contract, reference_src: str, attempt: int) -> str:
    fwd, consts, args, ins, outs = kernel_reference(contract, reference_src)
    if len(outs) != 1:
        raise CannotSynthesize("an index reduction unit with more than one output")
    out_name = outs[0]
    if args[out_name].get("dtype") != "int64":
        raise CannotSynthesize(f"the output is {args[out_name].get('dtype')}, not the int64 index")
    for name in ins:
        if args[name].get("dtype") not in FLOAT_DTYPES:
            raise CannotSynthesize(f"argument {name} is {args[name].get('dtype')}: float inputs only")
    pre, red = _parse(fwd)
    S = broadcast_shapes(*[consts["SHAPES"][n] for n in ins])
    d = red["dim"] % len(S)
    lead = [S[k] for k in range(len(S)) if k != d]
    out_shape = lead[:d] + [1] + lead[d:] if red["keep"] else lead
    if list(consts["OUT_SHAPES"][out_name]) != out_shape:
        raise CannotSynthesize(f"the output {consts['OUT_SHAPES'][out_name]} is not the index of {S} over dim {d}")
    params = [p.arg for p in fwd.args.args[1:]]
    lines, (res,) = pointwise_body(forward_fn(pre, [red["input"]]), {x: f"v{i}" for i, x in enumerate(params)})
    code = "\n".join(lines) + "\n" + res
    N, R = S[d], int(math.prod(lead))
    table = STRIDED_ATTEMPTS if rows_adjacent([args[n] for n in ins], S, d) else ATTEMPTS
    rows, chunk, warps = table[attempt % len(table)]
    block = min(chunk, 1 << max(N - 1, 1).bit_length())
    rows = min(rows, 1 << max(R - 1, 0).bit_length())
    cmp = OPS[red["op"]]
    worst = "float('-inf')" if red["op"] == "argmax" else "float('inf')"
    body, at = row_tile(lead, d, R)
    body += [
        f"    best = tl.full([ROWS, BLOCK], {worst}, tl.float32)",
        "    bcol = tl.zeros([ROWS, BLOCK], tl.int64)",
        "    seen = tl.zeros([ROWS, BLOCK], tl.int1)",  # a lane has seen a column (a -inf row keeps its first)
        f"    for c0 in range(0, {N}, BLOCK):",
        "        cols = c0 + tl.arange(0, BLOCK)[None, :]",
        f"        mask = rmask & (cols < {N})",
    ]
    for i, name in enumerate(ins):
        if re.search(rf"\bv{i}\b", code):
            off = arg_offset(args[name], at("cols"))
            body.append(f"        v{i} = tl.load({name} + ({off}), mask=mask, other=0.0).to(tl.float32)")
    body += [f"        {ln}" for ln in lines]
    body += [
        f"        val = {res}",
        f"        take = mask & (((val {cmp} best) | ((val != val) & (best == best))) | (~seen))",
        "        best = tl.where(take, val, best)",
        "        bcol = tl.where(take, cols, bcol)",
        "        seen = seen | mask",
        # the lanes combined: a NaN lane if any, else the lanes holding the row's best value
        "    nan = (best != best) & seen",
        "    anynan = tl.max(nan.to(tl.int32), axis=1)[:, None] > 0",
        f"    top = tl.{red['op'][3:]}(tl.where(seen & ~nan, best, {worst}), axis=1)[:, None]",
        "    pick = tl.where(anynan, nan, seen & (best == top))",
        f"    idx = tl.min(tl.where(pick, bcol, {N}), axis=1)[:, None]",
    ]
    store_idx = at("0") if red["keep"] else at("0")[:d] + at("0")[d + 1 :]
    body.append(f"    tl.store({out_name} + ({arg_offset(args[out_name], store_idx)}), idx, mask=rmask)")
    what = [
        f"aten.{red['op']} over dim {d} of {S} ({R} rows of {N}), each element read once in chunks of {block}, "
        f"{rows} row(s) per program, the chain before it fused."
    ]
    config = {"ROWS": rows, "BLOCK": block}
    return candidate_module(attempt, what, "synth_argreduce", contract, body, config, warps, R, "ROWS")
