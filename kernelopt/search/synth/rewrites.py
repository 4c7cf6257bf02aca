"""Candidates of graph-level units (issue 16): each rewrite of ``capture/rewrites.py`` that has a
generator here becomes a Triton kernel in the checked candidate form that computes the unit's
output with the rewrite applied, library calls dropped.

* ``diag-matmul``: ``diag(a) @ B`` (``B @ diag(a)``) as a row (column) scaling of ``B``: one pass
  over ``B`` in 2-d tiles, O(N*M) instead of the GEMM's O(N*N*M).
"""

from __future__ import annotations

from typing import Any

from .ops import CannotSynthesize, candidate_module

# (BLOCK_M, BLOCK_N, warps) per attempt
TILES = ((32, 128, 4), (64, 64, 4), (16, 256, 4), (128, 32, 8))


def synthesize_rewrite(contract: dict[str, Any], attempt: int) -> str:
    r = contract["rewrite"]
    if r["name"] == "diag-matmul":
        return diag_matmul(contract, attempt)
    raise CannotSynthesize(f"no candidate generator for the rewrite {r['name']} yet")


def diag_matmul(contract: dict[str, Any], attempt: int) -> str:
    r = contract["rewrite"]
    args = {a["name"]: a for a in contract["args"]}
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
