"""Candidates of graph-level units (issue 16): each rewrite of ``capture/rewrites.py`` that has a
generator here becomes a Triton kernel in the checked candidate form that computes the unit's
output with the rewrite applied, library calls dropped.

* ``diag-matmul``: ``diag(a) @ B`` (``B @ diag(a)``) as a row (column) scaling of ``B``: one pass
  over ``B`` in 2-d tiles, O(N*M) instead of the GEMM's O(N*N*M).
* ``reduce-through-matmul``: ``sum(x @ W + b, dim=1)`` (a mean: divided by N) as
  ``x @ (W 1) + sum(b)``: two launches, the column sums of ``W`` over the output features (and
  ``sum(b)``) into an fp64 scratch vector, then each row's dot product with it in fp64 (in fp32
  the reassociation lost precision: a mean relative error of 1.01e-05 against the FP64
  reference, 17x Inductor's, failed gate 2 on one seed of x10 inputs), O(B*K + K*N)
  instead of the GEMM's O(B*K*N); the elementwise epilogue Inductor fused with the reduction
  (``roles.epilogue`` up to ``roles.output_node``: size-1 reductions are the identity) is applied
  to each row's value before the store.
* ``triangular-output`` and ``symmetric-operand``: ``rewrite_gemm.py`` (a tiled ``tl.dot`` GEMM over
  the kept tiles, or with ``X + X^T`` built in its operand loads).
* ``broadcast-then-reduce``: ``rewrite_bcast.py`` (the summed factor's sums once, then a product).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.records import Contract
from .ops import BINARY, CONSTANT_NAMES, UNARY, CannotSynthesize, candidate_module, module_head, with_libdevice

# (BLOCK_M, BLOCK_N, warps) per attempt
TILES = ((32, 128, 4), (64, 64, 4), (16, 256, 4), (128, 32, 8))
# reduce-through-matmul, per attempt: (BLOCK_K, BLOCK_N) of the column sums, (BLOCK_B, BLOCK_R) of the rows, warps
RTM_TILES = ((64, 64, 16, 128, 4), (32, 128, 32, 64, 4), (128, 32, 8, 256, 8), (16, 256, 64, 32, 4))
# the epilogue's constants as capture/rewrites.py writes them (repr of a float): the references' names, and -inf
CONSTANTS = {**CONSTANT_NAMES, "-inf": "float('-inf')"}


def synthesize_rewrite(contract: Contract, attempt: int) -> str:
    r = contract.rewrite
    if r["name"] == "diag-matmul":
        return diag_matmul(contract, attempt)
    if r["name"] == "reduce-through-matmul":
        return reduce_through_matmul(contract, attempt)
    if r["name"] in ("triangular-output", "symmetric-operand"):
        from .rewrite_gemm import synthesize_gemm_rewrite

        return synthesize_gemm_rewrite(contract, attempt)
    if r["name"] == "broadcast-then-reduce":
        from .rewrite_bcast import broadcast_then_reduce

        return broadcast_then_reduce(contract, attempt)
    raise CannotSynthesize(f"no candidate generator for the rewrite {r['name']} yet")


def diag_matmul(contract: Contract, attempt: int) -> str:
    r = contract.rewrite
    args = {a["name"]: a for a in contract.args}
    scale, dense, (out,) = args[r["roles"]["scale"]], args[r["roles"]["dense"]], r["outputs"]
    o = args[out]
    left = r["roles"]["side"] == "left"
    if len(o["shape"]) != 2 or list(dense["shape"]) != list(o["shape"]) or len(scale["shape"]) != 1:
        raise CannotSynthesize(f"shapes {scale['shape']} x {dense['shape']} -> {o['shape']} are not a diagonal product")
    m, n = o["shape"]
    bm, bn, warps = TILES[attempt % len(TILES)]
    s, d = scale["name"], dense["name"]
    idx = "rm" if left else "rn"
    body = [
        "    pid_m = tl.program_id(0).to(tl.int64)",
        "    pid_n = tl.program_id(1).to(tl.int64)",
        "    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)",
        "    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)",
        f"    mask = (rm[:, None] < {m}) & (rn[None, :] < {n})",
        f"    b = tl.load({d} + rm[:, None] * {dense['stride'][0]} + rn[None, :] * {dense['stride'][1]}, "
        "mask=mask, other=0.0)",
        f"    s = tl.load({s} + {idx} * {scale['stride'][0]}, mask={idx} < {m if left else n}, other=0.0)",
        f"    y = b * s{'[:, None]' if left else '[None, :]'}",
        f"    tl.store({out} + rm[:, None] * {o['stride'][0]} + rn[None, :] * {o['stride'][1]}, "
        f"y.to({out}.dtype.element_ty), mask=mask)",
    ]
    what = [
        f"graph-level rewrite diag-matmul: {'diag(a) @ B' if left else 'B @ diag(a)'} as a "
        f"{'row' if left else 'column'} scaling of B ({m} x {n}), tiles of BLOCK_M x BLOCK_N; "
        "the GEMM and the diagonal matrix are dropped.",
    ]
    grid = f"triton.cdiv({m}, CONFIG['BLOCK_M']), triton.cdiv({n}, CONFIG['BLOCK_N'])"
    cfg = {"BLOCK_M": bm, "BLOCK_N": bn}
    return candidate_module(attempt, what, "diag_scale", contract, body, cfg, warps, m * n, "BLOCK_M", grid)


def epilogue_lines(epilogue: list[dict[str, Any]], start: str, end: str, value: str) -> tuple[list[str], str]:
    """Triton lines computing node ``end`` from node ``start`` (held in ``value``) through the
    elementwise ``epilogue`` (capture/rewrites.py's ``roles.epilogue``), and the expression of its
    value; only the entries ``end`` depends on.  CannotSynthesize for an op outside the tables."""
    by_node = {e["node"]: e for e in epilogue}
    if end != start and end not in by_node:
        raise CannotSynthesize(f"the unit's output {end} is not computed from {start} elementwise")
    need, stack = set(), [end]
    while stack:
        cur = stack.pop()
        if cur in need or cur == start:
            continue
        need.add(cur)
        stack += [a["node"] for a in by_node[cur]["args"] if "node" in a]
    env, lines = {start: value}, []
    for e in epilogue:
        if e["node"] not in need:
            continue
        vals = [env[a["node"]] if "node" in a else CONSTANTS.get(a["value"], a["value"]) for a in e["args"]]
        op = e["op"]
        if op == "identity" and len(vals) == 1:
            env[e["node"]] = vals[0]  # a reduction over dims of size 1
            continue
        if op in UNARY and len(vals) == 1:
            code = UNARY[op].format(*vals)
        elif op in BINARY and len(vals) == 2:
            code = BINARY[op].format(*vals)
        elif op == "where" and len(vals) == 3:
            code = f"tl.where({vals[0]}, {vals[1]}, {vals[2]})"
        else:
            raise CannotSynthesize(f"the epilogue's {op} ({e['node']}) has no Triton translation")
        lines.append(f"    e_{e['node']} = {code}")
        env[e["node"]] = f"e_{e['node']}"
    return lines, env[end]


@dataclass(frozen=True)
class RtmOperands:
    """The reduce-through-matmul unit's operands: x [rows, k] and W as the GEMM's [k, n] operand
    (its strides ``wk``, ``wn``) as contract arguments, the bias [n] or None, the output's name and
    row stride."""

    x: dict[str, Any]
    w: dict[str, Any]
    bias: dict[str, Any] | None
    out: str
    rows: int
    k: int
    n: int
    wk: int
    wn: int
    o_row: int


def _rtm_operands(contract: Contract) -> RtmOperands:
    """The reduce-through-matmul unit's operands, checked (``CannotSynthesize`` says why not)."""
    r = contract.rewrite
    roles = r["roles"]
    args = {a["name"]: a for a in contract.args}
    (out,) = r["outputs"]
    x, w, o = args[roles["x"]], args[roles["weight"]], args[out]
    bias = args[roles["bias"]] if roles.get("bias") else None
    if len(x["shape"]) != 2 or len(w["shape"]) != 2:
        raise CannotSynthesize(f"x {x['shape']} and W {w['shape']} are not matrices")
    rows, k = x["shape"]
    # the GEMM's right operand Wm[k, n]: W itself, or W transposed (nn.Linear's weight is [N, K])
    n, k2 = w["shape"] if roles["weight_transposed"] else reversed(w["shape"])
    wk, wn = (w["stride"][1], w["stride"][0]) if roles["weight_transposed"] else tuple(w["stride"])
    if k2 != k or n != roles["features"]:
        raise CannotSynthesize(f"x {x['shape']} and W {w['shape']} make no product with {roles['features']} features")
    if bias is not None and list(bias["shape"]) != [n]:
        raise CannotSynthesize(f"the bias {bias['shape']} is not one value per output feature ({n})")
    if [s for s in o["shape"] if s != 1] != ([rows] if rows != 1 else []):
        raise CannotSynthesize(f"the output {o['shape']} is not one value per row of x ({rows})")
    o_row = next((st for s, st in zip(o["shape"], o["stride"]) if s == rows), 0)
    return RtmOperands(x, w, bias, out, rows, k, n, wk, wn, o_row)


def reduce_through_matmul(contract: Contract, attempt: int) -> str:
    r = contract.rewrite
    roles = r["roles"]
    ops = _rtm_operands(contract)
    x, w, bias, out = ops.x, ops.w, ops.bias, ops.out
    rows, k, n, wk, wn, o_row = ops.rows, ops.k, ops.n, ops.wk, ops.wn, ops.o_row
    post, res = epilogue_lines(roles.get("epilogue", []), r["node"], roles.get("output_node") or r["node"], "s")
    bk, bn, bb, br, warps = RTM_TILES[attempt % len(RTM_TILES)]
    mean = f" / {float(n)!r}" if roles["reduction"] == "mean" else ""
    xs0, xs1 = x["stride"]
    sig = ", ".join([w["name"]] + ([bias["name"]] if bias else []))
    bias_lines = _rtm_bias_lines(bias, n, k) if bias is not None else []
    plus_b = f" + tl.load(colsum + {k})" if bias is not None else ""
    what = [
        f"graph-level rewrite reduce-through-matmul: {roles['reduction']}(x @ W{' + b' if bias else ''}, dim=1) as",
        f"x @ (W 1){' + sum(b)' if bias else ''} for x {rows} x {k} and W {k} x {n}: the column sums of W (and sum(b))",
        "into an fp64 vector, then each row's dot product with it in fp64"
        + (f", then the fused epilogue up to {roles['output_node']}" if roles.get("output_node") else "")
        + "; the GEMM is dropped.",
    ]
    src = "\n".join(
        [
            *module_head(attempt, what, "rewrite"),
            "",
            "",
            "@triton.jit",
            f"def rtm_colsum({sig}, colsum, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):",
            "    pid = tl.program_id(0)",
            "    rk = pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K)",
            "    acc = tl.zeros([BLOCK_N, BLOCK_K], tl.float64)",
            f"    for n0 in range(0, {n}, BLOCK_N):",
            "        rn = n0 + tl.arange(0, BLOCK_N)",
            f"        mask = (rn[:, None] < {n}) & (rk[None, :] < {k})",
            f"        acc += tl.load({w['name']} + rn[:, None] * {wn} + rk[None, :] * {wk}, mask=mask, other=0.0)"
            ".to(tl.float64)",
            f"    tl.store(colsum + rk, tl.sum(acc, axis=0), mask=rk < {k})",
            *bias_lines,
            "",
            "",
            "@triton.jit",
            f"def rtm_rows({x['name']}, colsum, {out}, BLOCK_B: tl.constexpr, BLOCK_R: tl.constexpr):",
            "    rb = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)",
            "    acc = tl.zeros([BLOCK_B, BLOCK_R], tl.float64)",
            f"    for k0 in range(0, {k}, BLOCK_R):",
            "        rk = k0 + tl.arange(0, BLOCK_R)",
            f"        mask = (rb[:, None] < {rows}) & (rk[None, :] < {k})",
            f"        xv = tl.load({x['name']} + rb[:, None] * {xs0} + rk[None, :] * {xs1}, mask=mask, other=0.0)"
            ".to(tl.float64)",
            f"        cv = tl.load(colsum + rk, mask=rk < {k}, other=0.0)",
            "        acc += xv * cv[None, :]",
            f"    s = ((tl.sum(acc, axis=1){plus_b}){mean}).to(tl.float32)",
            *post,
            f"    tl.store({out} + rb * {o_row}, ({res}).to({out}.dtype.element_ty), mask=rb < {rows})",
            "",
            "",
            f"CONFIG = {{'BLOCK_K': {bk}, 'BLOCK_N': {bn}, 'BLOCK_B': {bb}, 'BLOCK_R': {br}}}",
            f"NUM_WARPS = {warps}",
            "NUM_STAGES = 1",
            "",
            "",
            f"def launch({', '.join(a['name'] for a in contract.args)}):",
            f"    colsum = torch.empty(({k + 1},), dtype=torch.float64, device={out}.device)",
            f"    rtm_colsum[(triton.cdiv({k}, CONFIG['BLOCK_K']),)]({sig}, colsum, CONFIG['BLOCK_K'], "
            "CONFIG['BLOCK_N'], num_warps=NUM_WARPS, num_stages=NUM_STAGES)",
            f"    rtm_rows[(triton.cdiv({rows}, CONFIG['BLOCK_B']),)]({x['name']}, colsum, {out}, CONFIG['BLOCK_B'], "
            "CONFIG['BLOCK_R'], num_warps=NUM_WARPS, num_stages=NUM_STAGES)",
            "",
        ]
    )
    return with_libdevice(src)


def _rtm_bias_lines(bias: dict[str, Any], n: int, k: int) -> list[str]:
    """Program 0 of the column-sum kernel also sums the bias, into ``colsum[k]``."""
    return [
        "    if pid == 0:",
        "        bacc = tl.zeros([BLOCK_N], tl.float64)",
        f"        for n0 in range(0, {n}, BLOCK_N):",
        "            rb = n0 + tl.arange(0, BLOCK_N)",
        f"            bacc += tl.load({bias['name']} + rb * {bias['stride'][0]}, mask=rb < {n}, other=0.0)"
        ".to(tl.float64)",
        f"        tl.store(colsum + {k}, tl.sum(bacc, axis=0))",
    ]
