"""Synthesis of pooling units: a pointwise chain, a max pool over the last k dimensions
(``prims._low_memory_max_pool_with_offsets`` as Inductor's post-grad graph has it, or
``aten.max_pool{1,2,3}d_with_indices``; values only) or an average pool (``aten.avg_pool{1,2,3}d``:
``ceil_mode``, ``count_include_pad`` and ``divisor_override`` as PyTorch divides), a pointwise
chain on the pooled values,
and optionally a sum/mean/amax/amin over all the pooled dimensions (a global average pool after
the max pool) followed by more pointwise ops.

One program handles ``BLOCK`` outputs (flat index over the output's logical shape).  Each output
walks its window (``tl.static_range`` over the window's positions), loads the inputs at the
window position, computes the chain before the pool there, and keeps the maximum; positions in
the padding or past the edge (``ceil_mode``) count as -inf, a NaN wins (as in PyTorch).  With a
reduction after the pool, each output loops over the pooled positions at run time.  Values are
computed in float32 and cast on store.

A pool of 2+ dims with stride 1 along its second-to-last pooled dim (H) and nothing reduced after
it has a *rolling* kernel: a program walks a strip of ``RH`` output rows of ``BW`` outputs along
the last dim, reads each input row of the strip once (its window along the other pooled dims,
the loads along W hitting the cache), and keeps the last ``(K_H - 1) * d_H`` rows' window values
in registers, so an output row combines ``K_H`` row values instead of reloading ``K_H`` rows.

Refused, with the reason: the pool's offsets (indices) used, an output that is not the pool's
size (PyTorch's rule, ``ceil_mode`` included) or its reduction, an input after the pool that
would broadcast the pooled values larger, arguments seen through a view, reductions over other
dimensions, keyword arguments.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from dataclasses import dataclass
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
    view_strides,
)
from .pointwise import pointwise_body

POOL_OPS = {"_low_memory_max_pool_with_offsets", "max_pool1d_with_indices", "max_pool2d_with_indices"}
POOL_OPS |= {"max_pool3d_with_indices"}
AVG_OPS = {"avg_pool1d", "avg_pool2d", "avg_pool3d"}
AFTER = {"sum": "sum", "mean": "sum", "amax": "max", "amin": "min"}
ATTEMPTS = [(256, 4), (1024, 4), (128, 2), (512, 8)]  # (BLOCK, num_warps) per attempt
# a pool of 2+ dims with no reduction after it: 2-D output tiles (BH x BW of the last two pooled
# dims, no division per element, loads contiguous along the last dim) on odd attempts.  Flat
# blocks first: the tiles ran slower than the flat kernel (bench/README.md, "Search where
# Inductor is far from its roof")
TILED = [(8, 64, 4), (16, 64, 8), (4, 128, 4), (32, 32, 8)]  # (BH, BW, num_warps)
# a pool the rolling kernel fits: rolling strips on even attempts, flat blocks on odd ones
ROLLING = [(256, 64, 4), (512, 16, 8), (128, 32, 4), (64, 64, 2)]  # (BW, RH, num_warps)


def is_pool(reference_src: str) -> bool:
    return any(f".{op}." in reference_src for op in POOL_OPS | AVG_OPS)


def _literal(node: ast.AST, what: str) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise CannotSynthesize(f"the pool's {what} is not a literal ({ast.unparse(node)})") from None


def _ints(node: ast.AST, what: str) -> list[int]:
    """A pool parameter: a list of ints, or one int for every dimension."""
    v = _literal(node, what)
    v = [v] if isinstance(v, int) else v
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise CannotSynthesize(f"the pool's {what} is {ast.unparse(node)}: not ints")
    return list(v)


def _pool_params(target: str, value: ast.Call, op: str) -> dict[str, Any]:
    """A pool call's parameters (kernel, stride, padding, dilation per pooled dim, ceil_mode)."""
    args = value.args
    if not args or not isinstance(args[0], ast.Name):
        raise CannotSynthesize("a pool of a non-value")
    if value.keywords:
        raise CannotSynthesize("a pool with keyword arguments")
    kernel = _ints(args[1], "kernel size")
    stride = _ints(args[2], "stride") if len(args) > 2 else []
    padding = _ints(args[3], "padding") if len(args) > 3 else [0]
    avg = op in AVG_OPS
    dilation = [1] if avg else (_ints(args[4], "dilation") if len(args) > 4 else [1])
    k = len(kernel)
    stride = stride or kernel
    fill = {"stride": stride, "padding": padding, "dilation": dilation}
    for what, vals in fill.items():
        if len(vals) == 1 and k > 1:
            fill[what] = vals * k
        elif len(vals) != k:
            raise CannotSynthesize(f"a pool with {k} kernel sizes and {len(vals)} {what} values")
    at = 4 if avg else 5  # ceil_mode's position
    ceil_mode = bool(_literal(args[at], "ceil_mode")) if len(args) > at else False
    pool = {"name": target, "input": args[0].id, "kernel": kernel, "ceil_mode": ceil_mode, **fill}
    pool["op"] = "avg" if op in AVG_OPS else "max"
    if op in AVG_OPS:
        pool["count_include_pad"] = bool(_literal(args[5], "count_include_pad")) if len(args) > 5 else True
        pool["divisor"] = _literal(args[6], "divisor_override") if len(args) > 6 else None
    return pool


def _parse(fwd: ast.FunctionDef) -> dict[str, Any]:
    """Split forward into the chain before the pool, the pool, the chain after it, an optional
    reduction over the pooled dims and the chain after that."""
    segs: dict[str, Any] = {"pre": [], "mid": [], "post": [], "pool": None, "values": None, "red": None}
    stage = "pre"
    alias: dict[str, str] = {}  # squeezed values: the value they squeeze
    for stmt in fwd.body:
        if isinstance(stmt, ast.Return):
            vals = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
            if len(vals) != 1 or not isinstance(vals[0], ast.Name):
                raise CannotSynthesize("a pool unit with more than one output")
            segs["result"] = alias.get(vals[0].id, vals[0].id)
            break
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
            continue
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
            raise CannotSynthesize(f"unsupported statement {ast.unparse(stmt)[:80]}")
        target, value = stmt.targets[0].id, stmt.value
        if isinstance(value, ast.Subscript):
            if stage != "pooled" or ast.unparse(value.value) != segs["pool"]["name"]:
                raise CannotSynthesize(f"unsupported statement {ast.unparse(stmt)[:80]}")
            if _literal(value.slice, "output index") != 0:
                raise CannotSynthesize("the max pool's offsets (indices) are used: only its values are synthesised")
            segs["values"], stage = target, "mid"
            continue
        if not isinstance(value, ast.Call):
            raise CannotSynthesize(f"unsupported statement {ast.unparse(stmt)[:80]}")
        parts = ast.unparse(value.func).split(".")
        op = parts[3] if len(parts) == 5 else ""
        if op in POOL_OPS | AVG_OPS:
            if stage != "pre":
                raise CannotSynthesize("two pools in one unit")
            pool = _pool_params(target, value, op)
            if op in AVG_OPS:
                segs["pool"], segs["values"], stage = pool, target, "mid"  # an average pool returns its values
            else:
                segs["pool"], stage = pool, "pooled"
            continue
        if stage == "pooled":
            raise CannotSynthesize("the max pool's result is used before its values are taken")
        if op == "squeeze" and stage == "mid" and value.args and isinstance(value.args[0], ast.Name):
            # a squeeze of the pooled values (a 1-d pool lowered as 2-d): the same elements; the
            # output is indexed as the pool's shape (_squeezed_output)
            alias[target] = alias.get(value.args[0].id, value.args[0].id)
            continue
        for node in ast.walk(stmt.value):
            if isinstance(node, ast.Name) and node.id in alias:
                node.id = alias[node.id]
        if op in AFTER and stage == "mid":
            if value.keywords:
                raise CannotSynthesize(f"aten.{op} with keyword arguments")
            if not value.args or not isinstance(value.args[0], ast.Name):
                raise CannotSynthesize(f"aten.{op} of a non-value")
            dims = _literal(value.args[1], "reduction dims") if len(value.args) > 1 else None
            keep = bool(_literal(value.args[2], "keepdim")) if len(value.args) > 2 else False
            segs["red"] = {"op": op, "input": value.args[0].id, "dims": dims, "keep": keep, "name": target}
            stage = "post"
            continue
        segs[stage].append(stmt)
    if segs["pool"] is None or segs["values"] is None:
        raise CannotSynthesize("no max pool values in the unit")
    if "result" not in segs:
        raise CannotSynthesize("forward has no return")
    return segs


def _unsqueezed_inputs(
    segs: dict[str, Any], params: list[str], ins: list[str], args: dict[str, Any], consts: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An input the chain before the pool only unsqueezes (a 1-d pool as Inductor lowers it: a 2-d
    pool over ``x.unsqueeze(-2)``) becomes that input seen with the size-1 dimension inserted
    (stride 0); the unsqueeze leaves the chain."""
    args, shapes = dict(args), dict(consts["SHAPES"])
    for stmt in list(segs["pre"]):
        call = stmt.value  # type: ignore[attr-defined]
        if ast.unparse(call.func) != "torch.ops.aten.unsqueeze.default" or len(call.args) != 2:
            continue
        src = call.args[0]
        if not isinstance(src, ast.Name) or src.id not in params:
            raise CannotSynthesize("an unsqueeze of a computed value before the pool")
        uses = sum(
            1
            for s in segs["pre"]
            for n in ast.walk(s.value)
            if isinstance(n, ast.Name) and n.id == src.id  # type: ignore[attr-defined]
        )
        if uses != 1:
            raise CannotSynthesize(f"the input {src.id} is used besides its unsqueeze")
        i = params.index(src.id)
        a = args[ins[i]]
        rank = len(a["shape"]) + 1
        d = _literal(call.args[1], "unsqueeze dim") % rank
        args[ins[i]] = {
            **a,
            "shape": a["shape"][:d] + [1] + a["shape"][d:],
            "stride": a["stride"][:d] + [0] + a["stride"][d:],
        }
        shapes[ins[i]] = args[ins[i]]["shape"]
        params[i] = stmt.targets[0].id  # type: ignore[attr-defined]
        segs["pre"].remove(stmt)
    return args, {**consts, "SHAPES": shapes}


def _program_lines(space: list[int], rows: str) -> list[str]:
    """A 2-D-tiled kernel's first lines: the program's tile along ``space``'s last dim (``tw``, of
    ``BW``) and second-to-last (``th``, of ``rows``), and one index per program of the other dims."""
    outer = space[:-2]
    body = [
        "    pid = tl.program_id(0).to(tl.int64)",
        f"    ntw = tl.cdiv({space[-1]}, BW)",
        f"    nth = tl.cdiv({space[-2]}, {rows})",
        "    tw = pid % ntw",
        "    th = (pid // ntw) % nth",
        "    po = pid // (ntw * nth)",
    ]
    for d in range(len(outer)):
        inner = int(math.prod(outer[d + 1 :]))
        body.append(f"    i{d} = (po // {inner}) % {outer[d]}" if inner > 1 else f"    i{d} = po % {outer[d]}")
    return body


def _grid(space: list[int], rows: str) -> str:
    outer = int(math.prod(space[:-2]))
    return f"{outer} * triton.cdiv({space[-2]}, CONFIG['{rows}']) * triton.cdiv({space[-1]}, CONFIG['BW'])"


def _tiled_index(space: list[int]) -> tuple[list[str], str]:
    """The kernel's opening lines for 2-D output tiles of ``space``'s last two dims (BH x BW, the
    other dims one index per program, no division per element), and the launch grid."""
    OH, OW = space[-2], space[-1]
    d_h, d_w = len(space) - 2, len(space) - 1
    body = _program_lines(space, "BH") + [
        f"    i{d_h} = th * BH + tl.arange(0, BH)[:, None]",
        f"    i{d_w} = tw * BW + tl.arange(0, BW)[None, :]",
        f"    mask = (i{d_h} < {OH}) & (i{d_w} < {OW})",
        "    zero = tl.zeros([BH, BW], tl.int64)",  # every pointer a tile (a per-channel input is not)
    ]
    return body, _grid(space, "BH")


def _rolling_index(space: list[int]) -> tuple[list[str], str]:
    """The rolling kernel's opening lines: a strip of ``RH`` output rows (``space``'s second-to-last
    dim) of ``BW`` outputs along its last, the other dims one index per program; and the grid."""
    body = _program_lines(space, "RH") + [
        f"    i{len(space) - 1} = tw * BW + tl.arange(0, BW)",
        f"    wmask = i{len(space) - 1} < {space[-1]}",
        "    oh0 = th * RH",
        "    zero = tl.zeros([BW], tl.int64)",  # every pointer a vector (a per-channel input is not)
    ]
    return body, _grid(space, "RH")


def rolls(pool: dict[str, Any], red: dict[str, Any] | None) -> bool:
    """Whether the rolling kernel fits the pool: 2+ pooled dims, nothing reduced after it, stride 1
    and a window of 2+ along the second-to-last pooled dim."""
    k = len(pool["kernel"])
    return red is None and k >= 2 and pool["stride"][k - 2] == 1 and pool["kernel"][k - 2] >= 2


def _flat_index(space: list[int]) -> list[str]:
    """The kernel's opening lines for BLOCK outputs at a flat index over ``space``."""
    body = [
        "    pid = tl.program_id(0).to(tl.int64)",
        "    offs = pid * BLOCK + tl.arange(0, BLOCK)",
        f"    mask = offs < {int(math.prod(space))}",
    ]
    rest = "offs"
    for d in range(len(space)):
        inner = int(math.prod(space[d + 1 :]))
        body.append(f"    i{d} = ({rest}) // {inner}" if inner > 1 else f"    i{d} = {rest}")
        rest = f"offs % {inner}" if inner > 1 else rest
    return body


def _check_arguments(args: dict[str, Any], ins: list[str], outs: list[str]) -> None:
    if len(outs) != 1:
        raise CannotSynthesize("a pool unit with more than one output")
    for name in ins + outs:
        a = args[name]
        if a.get("dtype") not in FLOAT_DTYPES:
            raise CannotSynthesize(f"argument {name} is {a.get('dtype')}, only float pools are synthesised")


def _pre_chain(segs: dict[str, Any], params: list[str], n_ins: int) -> tuple[list[str], str, list[int]]:
    """The chain before the pool, per window position (inputs ``v{i}``): its lines, its result and
    the inputs it reads."""
    pre_lines, (pre_res,) = pointwise_body(
        forward_fn(segs["pre"], [segs["pool"]["input"]]), {x: f"v{i}" for i, x in enumerate(params)}
    )
    pre_used = [i for i in range(n_ins) if re.search(rf"\bv{i}\b", "\n".join(pre_lines) + pre_res)]
    if not pre_used:
        raise CannotSynthesize("the max pool's input depends on no argument")
    return pre_lines, pre_res, pre_used


def _pooled_sizes(pool: dict[str, Any], sp_in: list[int]) -> list[int]:
    """The pooled sizes, from the input's and the pool's (PyTorch's rule, ``ceil_mode`` included)."""
    sp_out = []
    for j in range(len(sp_in)):
        h, kk, s, p, d = sp_in[j], pool["kernel"][j], pool["stride"][j], pool["padding"][j], pool["dilation"][j]
        span = h + 2 * p - d * (kk - 1) - 1
        if span < 0 or s <= 0:
            raise CannotSynthesize(f"a max pool window larger than its padded input ({pool})")
        o = (-(-span // s) if pool["ceil_mode"] else span // s) + 1
        if pool["ceil_mode"] and (o - 1) * s >= h + p:
            o -= 1  # the last window must start inside the input or its left padding
        sp_out.append(o)
    return sp_out


def _squeezed_output(args: dict[str, Any], name: str, out_shape: list[int], pooled: list[int]) -> dict[str, Any]:
    """An output that is the pool's with size-1 dims squeezed (a 1-d pool Inductor computes as a
    2-d one of an unsqueezed input): indexed as the pool's shape, with the strides of that view."""
    a = args[name]
    if [x for x in out_shape if x != 1] != [x for x in pooled if x != 1] or list(a["shape"]) != out_shape:
        return args
    strides = view_strides(list(a["shape"]), list(a["stride"]), list(pooled))
    return args if strides is None else {**args, name: {**a, "shape": list(pooled), "stride": strides}}


def _check_output(segs: dict[str, Any], out_shape: list[int], pooled_shape: list[int], in_shape: list[int]) -> None:
    """The output is the pool's, or the reduction after it reduces all the pooled dims of the
    chain's last value."""
    red, rank, k = segs["red"], len(in_shape), len(segs["pool"]["kernel"])
    if red is None:
        if out_shape != pooled_shape:
            raise CannotSynthesize(f"the output {out_shape} is not the pool's {pooled_shape} of {in_shape}")
        return
    dims = red["dims"]
    if dims is None or sorted(d % rank for d in dims) != list(range(rank - k, rank)):
        raise CannotSynthesize(f"aten.{red['op']} over dims {dims}: only over all the pooled dims")
    last = segs["mid"][-1].targets[0].id if segs["mid"] else segs["values"]  # type: ignore[attr-defined]
    if red["input"] != last:
        raise CannotSynthesize("the reduction after the pool does not reduce the chain's last value")


Chain = tuple[list[str], str]  # a pointwise chain's lines and its result


def _chains_after(segs: dict[str, Any], params: list[str]) -> tuple[Chain, Chain]:
    """The chain after the pool (per pooled position: value ``acc``, inputs ``p{i}`` at pooled
    indices), and the one after the reduction (value ``red``, inputs ``q{i}``)."""
    red = segs["red"]
    final = red["input"] if red else segs["result"]
    env_mid = {x: f"p{i}" for i, x in enumerate(params)}
    env_mid[segs["values"]] = "acc"
    mid_lines, (mid_res,) = pointwise_body(forward_fn(segs["mid"], [final]), env_mid)
    post_lines, post_res = [], "red"
    if red is not None:
        env_post = {x: f"q{i}" for i, x in enumerate(params)}
        env_post[red["name"]] = "red"
        post_lines, (post_res,) = pointwise_body(forward_fn(segs["post"], [segs["result"]]), env_post)
    return (mid_lines, mid_res), (post_lines, post_res)


@dataclass
class _Emit:
    """The lines of the kernel body for one pool: its window, its divisor and the loads of the
    chains around it."""

    pool: dict[str, Any]
    lead: list[int]  # the dims before the pooled ones
    sp_in: list[int]  # the pooled dims' input sizes
    ins: list[str]
    args: dict[str, Any]
    shapes: dict[str, list[int]]  # the reference's value shape of each input
    pre: Chain  # the chain before the pool (inputs ``v{i}``)
    pre_used: list[int]  # the inputs it reads
    tiled: bool  # 2-D output tiles (else flat blocks)
    rolling: bool = False  # strips of output rows, window rows kept in registers

    @property
    def k(self) -> int:
        return len(self.pool["kernel"])

    @property
    def lead_idx(self) -> list[str]:
        return [f"i{d}" for d in range(len(self.lead))]

    @property
    def shape(self) -> str:
        return "[BH, BW]" if self.tiled else "[BW]" if self.rolling else "[BLOCK]"

    @property
    def z(self) -> str:
        return " + zero" if self.tiled or self.rolling else ""

    def window(self, ind: str, o: list[str], fixed: dict[int, str] | None = None, divide: bool = True) -> list[str]:
        """Lines computing ``acc`` (the window max, or average) for pooled indices ``o``; the
        pooled dims in ``fixed`` are not walked: their input index is the expression given (the
        rolling kernel's input row), and an average is left undivided without ``divide``."""
        pool, avg, fixed = self.pool, self.pool["op"] == "avg", fixed or {}
        start = "0.0" if avg else "float('-inf')"
        lines = [f"{ind}acc = tl.full({self.shape}, {start}, tl.float32)"]
        walked = [j for j in range(self.k) if j not in fixed]
        win = int(math.prod(pool["kernel"][j] for j in walked))
        lines.append(f"{ind}for w in tl.static_range({win}):")
        h = []
        for j in range(self.k):
            if j in fixed:
                lines.append(f"{ind}    h{j} = {fixed[j]}")
                h.append(f"h{j}")
                continue
            inner = int(math.prod(pool["kernel"][i] for i in walked if i > j))
            wj = f"((w // {inner}) % {pool['kernel'][j]})" if inner > 1 else f"(w % {pool['kernel'][j]})"
            s, p, d = pool["stride"][j], pool["padding"][j], pool["dilation"][j]
            lines.append(f"{ind}    h{j} = {o[j]} * {s} - {p} + {wj} * {d}")
            h.append(f"h{j}")
        inb = " & ".join(["mask"] + [f"(h{j} >= 0) & (h{j} < {self.sp_in[j]})" for j in range(self.k)])
        lines.append(f"{ind}    inb = {inb}")
        for i in self.pre_used:
            off = arg_offset(self.args[self.ins[i]], self.lead_idx + h)
            lines.append(
                f"{ind}    v{i} = tl.load({self.ins[i]} + ({off}){self.z}, mask=inb, other=0.0).to(tl.float32)"
            )
        pre_lines, pre_res = self.pre
        lines += [f"{ind}    {ln}" for ln in pre_lines]
        if avg:
            lines.append(f"{ind}    acc = acc + tl.where(inb, {pre_res}, 0.0)")
            if divide:
                lines.append(f"{ind}acc = acc / ({self.divisor(o)})")
        else:
            lines.append(f"{ind}    val = tl.where(inb, {pre_res}, float('-inf'))")
            lines.append(f"{ind}    acc = {self.combine('val', 'acc')}")
        return lines

    def window_values(self, ind: str, o: list[str], jh: int) -> list[str]:
        """An average's rolling row, unrolled: ``c<w>`` the value (0 where outside the input) at
        each position ``w`` of the window along the pooled dims but ``jh`` (row-major), at input
        row ``h`` of dim ``jh``; kept apart so that the output sums them in Inductor's order."""
        pool, lines = self.pool, []
        walked = [j for j in range(self.k) if j != jh]
        pre_lines, pre_res = self.pre
        for w, pos in enumerate(itertools.product(*(range(pool["kernel"][j]) for j in walked))):
            at = dict(zip(walked, pos, strict=True))
            h = [
                "h"
                if j == jh
                else f"({o[j]} * {pool['stride'][j]} - {pool['padding'][j]} + {at[j] * pool['dilation'][j]})"
                for j in range(self.k)
            ]
            inb = " & ".join(["mask"] + [f"({h[j]} >= 0) & ({h[j]} < {self.sp_in[j]})" for j in range(self.k)])
            lines.append(f"{ind}inb = {inb}")
            for i in self.pre_used:
                off = arg_offset(self.args[self.ins[i]], self.lead_idx + h)
                lines.append(
                    f"{ind}v{i} = tl.load({self.ins[i]} + ({off}){self.z}, mask=inb, other=0.0).to(tl.float32)"
                )
            lines += [f"{ind}{ln}" for ln in pre_lines]
            lines.append(f"{ind}c{w} = tl.where(inb, {pre_res}, 0.0)")
        return lines

    def combine(self, new: str, acc: str) -> str:
        """The pool's combine of a value into an accumulator (a NaN wins the max)."""
        if self.pool["op"] == "avg":
            return f"{acc} + {new}"
        return f"tl.where(({new} > {acc}) | ({new} != {new}), {new}, {acc})"

    def divisor(self, o: list[str]) -> str:
        """An average pool's divisor at pooled indices ``o`` (PyTorch's rule: the window clipped
        to the padded input with ``count_include_pad``, to the input without it)."""
        pool = self.pool
        if pool.get("divisor"):
            return repr(float(pool["divisor"]))
        sizes = []
        for j in range(self.k):
            kk, s, p, h = pool["kernel"][j], pool["stride"][j], pool["padding"][j], self.sp_in[j]
            start = f"({o[j]} * {s} - {p})"
            if pool["count_include_pad"]:
                sizes.append(f"(tl.minimum({start} + {kk}, {h + p}) - {start})")
            else:
                sizes.append(f"(tl.minimum({start} + {kk}, {h}) - tl.maximum({start}, 0))")
        return " * ".join(sizes) + " * 1.0"

    def loads(self, prefix: str, code: str, idx: list[str], ind: str, within: list[int]) -> list[str]:
        """The inputs ``code`` uses, loaded at indices ``idx`` of the values of shape ``within``
        (an input that would broadcast them larger is refused: the kernel has one output per
        element of ``within``)."""
        out = []
        for i, name in enumerate(self.ins):
            if re.search(rf"\b{prefix}{i}\b", code):
                shape = list(self.shapes[name])
                if len(shape) > len(within) or broadcast_shapes(shape, within) != within:
                    raise CannotSynthesize(f"input {name} of shape {shape} broadcasts the pooled values {within}")
                off = arg_offset(self.args[name], idx)
                out.append(f"{ind}{prefix}{i} = tl.load({name} + ({off}){self.z}, mask=mask, other=0.0).to(tl.float32)")
        return out


Body = tuple[list[str], list[str], str]  # (lines, the output's store indices, the stored value)


def _pooled_body(e: _Emit, mid: Chain, sp_out: list[int]) -> Body:
    """One output per pooled position: its window, then the chain after the pool."""
    mid_lines, mid_res = mid
    o = [f"i{len(e.lead) + j}" for j in range(e.k)]
    lines = e.window("    ", o)
    lines += e.loads("p", "\n".join(mid_lines) + "\n" + mid_res, e.lead_idx + o, "    ", e.lead + sp_out)
    lines += [f"    {ln}" for ln in mid_lines]
    return lines, e.lead_idx + o, mid_res


def _rolling_body(e: _Emit, mid: Chain, sp_out: list[int], out: str) -> list[str]:
    """The rolling kernel's loop: input row ``h`` of the strip (its window along the other
    pooled dims, ``row``), combined with the ``(K_H - 1) * d_H`` rows before it kept in registers
    (``b1`` the row before), makes output row ``h + p_H - (K_H - 1) * d_H``: its divisor (an
    average), the chain after the pool and the store, inside the loop."""
    jh, dh = e.k - 2, len(e.lead) + e.k - 2  # the rolled pooled dim, and its index in the output
    kh, ph, dil = e.pool["kernel"][jh], e.pool["padding"][jh], e.pool["dilation"][jh]
    span = (kh - 1) * dil
    o = [f"i{len(e.lead) + j}" for j in range(e.k)]
    head = [f"    for t in range(RH + {span}):", f"        h = oh0 - {ph} + t", "        mask = wmask"]
    tail = [f"        i{dh} = oh0 + t - {span}", f"        mask = wmask & (t >= {span}) & (i{dh} < {sp_out[jh]})"]
    if e.pool["op"] == "avg":
        lines, shift = _rolling_sum(e, o, jh, span, dil, head, tail)
    else:
        lines = [f"    b{r} = tl.full([BW], float('-inf'), tl.float32)" for r in range(1, span + 1)] + head
        lines += e.window("        ", o, fixed={jh: "h"}, divide=False)
        lines.append("        row = acc")
        lines += [f"        acc = {e.combine(f'b{r * dil}', 'acc')}" for r in range(1, kh)] + tail
        shift = [f"        b{r} = b{r - 1}" for r in range(span, 1, -1)] + ["        b1 = row"]
    mid_lines, mid_res = mid
    lines += e.loads("p", "\n".join(mid_lines) + "\n" + mid_res, e.lead_idx + o, "        ", e.lead + sp_out)
    lines += [f"        {ln}" for ln in mid_lines]
    lines.append(
        f"        tl.store({out} + ({arg_offset(e.args[out], e.lead_idx + o)}){e.z}, "
        f"({mid_res}).to({out}.dtype.element_ty), mask=mask)"
    )
    return lines + shift


def _rolling_sum(
    e: _Emit, o: list[str], jh: int, span: int, dil: int, head: list[str], tail: list[str]
) -> tuple[list[str], list[str]]:
    """An average pool's rolling loop up to its divide, and the registers' shift: each window
    value of the rows kept (``b<r>_<w>``: ``r`` rows before, position ``w`` along the other
    dims), summed in the order of Inductor's kernel (row-major over the whole window, from 0.0),
    so that a sum of values that cancel is rounded as Inductor rounds it."""
    pool = e.pool
    walked = [j for j in range(e.k) if j != jh]
    m = int(math.prod(pool["kernel"][j] for j in walked))
    lines = [f"    b{r}_{w} = tl.zeros([BW], tl.float32)" for r in range(1, span + 1) for w in range(m)] + head
    lines += e.window_values("        ", o, jh) + tail
    lines.append("        acc = tl.zeros([BW], tl.float32)")
    for pos in itertools.product(*(range(k) for k in pool["kernel"])):
        w = 0
        for j in walked:
            w = w * pool["kernel"][j] + pos[j]
        back = (pool["kernel"][jh] - 1 - pos[jh]) * dil
        lines.append(f"        acc = acc + {f'b{back}_{w}' if back else f'c{w}'}")
    lines.append(f"        acc = acc / ({e.divisor(o)})")
    shift = [f"        b{r}_{w} = b{r - 1}_{w}" for r in range(span, 1, -1) for w in range(m)]
    return lines, shift + [f"        b1_{w} = c{w}" for w in range(m)]


def _reduced_body(
    e: _Emit, red: dict[str, Any], mid: Chain, post: Chain, sp_out: list[int], out_shape: list[int]
) -> Body:
    """One output per lead index: a loop over the pooled positions (each one's window and the chain
    after the pool) that reduces them, then the chain after the reduction."""
    mid_lines, mid_res = mid
    combine, start = AFTER[red["op"]], "0.0" if AFTER[red["op"]] == "sum" else None
    init = start or ("float('-inf')" if combine == "max" else "float('inf')")
    lines = [f"    red = tl.full([BLOCK], {init}, tl.float32)"]
    npos = int(math.prod(sp_out))
    lines.append(f"    for q in range({npos}):")
    o = []
    for j in range(e.k):
        inner = int(math.prod(sp_out[j + 1 :]))
        pos = f"(q // {inner}) % {sp_out[j]}" if inner > 1 else f"q % {sp_out[j]}"
        lines.append(f"        o{j} = {pos}")
        o.append(f"o{j}")
    lines += e.window("        ", o)
    lines += e.loads("p", "\n".join(mid_lines) + "\n" + mid_res, e.lead_idx + o, "        ", e.lead + sp_out)
    lines += [f"        {ln}" for ln in mid_lines]
    if combine == "sum":
        lines.append(f"        red = red + {mid_res}")
    else:
        fn = "maximum" if combine == "max" else "minimum"
        nan = f"({mid_res} != {mid_res}) | (red != red)"
        lines.append(f"        red = tl.where({nan}, red + {mid_res}, tl.{fn}(red, {mid_res}))")
    if red["op"] == "mean":
        lines.append(f"    red = red / {float(npos)!r}")
    store_idx = e.lead_idx + ["0"] * e.k if red["keep"] else e.lead_idx
    reduced = e.lead + [1] * e.k if red["keep"] else e.lead
    if out_shape != reduced:
        in_shape = e.lead + e.sp_in
        raise CannotSynthesize(f"the output {out_shape} is not the {red['op']} {reduced} of a pool of {in_shape}")
    post_lines, post_res = post
    lines += e.loads("q", "\n".join(post_lines) + "\n" + post_res, store_idx, "    ", reduced)
    lines += [f"    {ln}" for ln in post_lines]
    return lines, store_idx, post_res


def _module(
    contract: Contract,
    attempt: int,
    e: _Emit,
    red: dict[str, Any] | None,
    space: list[int],
    body: list[str],
    grid: str | None,
) -> str:
    """The candidate module: the attempt's launch configuration (tiles or flat blocks) around the body."""
    pool, k, n_out = e.pool, e.k, int(math.prod(space))
    what = f"a {k}-d {pool['op']} pool (kernel {pool['kernel']}, stride {pool['stride']}, padding {pool['padding']})"
    if red is not None:
        what += f" then a {red['op']} over the pooled dims"
    what_lines = [f"{what} of {e.lead + e.sp_in}, {n_out} outputs, the chains around it fused."]
    if e.rolling:
        bw, rh, warps = ROLLING[(attempt // 2) % len(ROLLING)]
        what_lines.append(f"Strips of RH output rows x BW outputs, window rows kept in registers ({rh} x {bw} here).")
        config = {"BW": bw, "RH": rh}
        return candidate_module(attempt, what_lines, "synth_pool", contract, body, config, warps, n_out, "BW", grid)
    if e.tiled:
        bh, bw, warps = TILED[(attempt // 2) % len(TILED)]
        what_lines.append(f"Tiles of BH x BW outputs of the last two pooled dims ({bh} x {bw} here).")
        config = {"BH": bh, "BW": bw}
        return candidate_module(attempt, what_lines, "synth_pool", contract, body, config, warps, n_out, "BW", grid)
    block, warps = ATTEMPTS[(attempt // 2 if red is None and k >= 2 else attempt) % len(ATTEMPTS)]
    return candidate_module(attempt, what_lines, "synth_pool", contract, body, {"BLOCK": block}, warps, n_out, "BLOCK")


def synthesize_pool(contract: Contract, reference_src: str, attempt: int) -> str:
    fwd, consts, args, ins, outs = kernel_reference(contract, reference_src)
    segs = _parse(fwd)
    _check_arguments(args, ins, outs)
    pool, red = segs["pool"], segs["red"]
    k = len(pool["kernel"])
    params = [p.arg for p in fwd.args.args[1:]]  # forward(self, x0, x1, ...)
    if len(params) != len(ins):
        raise CannotSynthesize(f"forward takes {len(params)} values for {len(ins)} inputs")
    args, consts = _unsqueezed_inputs(segs, params, ins, args, consts)
    pre_lines, pre_res, pre_used = _pre_chain(segs, params, len(ins))
    in_shape = broadcast_shapes(*[consts["SHAPES"][ins[i]] for i in pre_used])
    out_name = outs[0]
    out_shape = list(consts["OUT_SHAPES"][out_name])
    rank = len(in_shape)
    if rank < k + 1:
        raise CannotSynthesize(f"a {k}-d max pool of a {rank}-d value")
    lead, sp_in = in_shape[: rank - k], in_shape[rank - k :]
    sp_out = _pooled_sizes(pool, sp_in)
    if red is None and out_shape != lead + sp_out:
        args = _squeezed_output(args, out_name, out_shape, lead + sp_out)
        out_shape = list(args[out_name]["shape"])
    _check_output(segs, out_shape, lead + sp_out, in_shape)
    mid, post = _chains_after(segs, params)
    rolling = rolls(pool, red) and attempt % 2 == 0
    tiled = red is None and k >= 2 and attempt % 2 == 1 and not rolls(pool, red)
    e = _Emit(pool, lead, sp_in, ins, args, consts["SHAPES"], (pre_lines, pre_res), pre_used, tiled, rolling)
    # output index space: lead + pooled dims (no reduction), lead (+ size-1 dims) with one
    space = lead + sp_out if red is None else lead
    if rolling:
        body, grid = _rolling_index(space)
        body += _rolling_body(e, mid, sp_out, out_name)
        return _module(contract, attempt, e, red, space, body, grid)
    body, grid = _tiled_index(space) if tiled else (_flat_index(space), None)
    lines, store_idx, result = (
        _pooled_body(e, mid, sp_out) if red is None else _reduced_body(e, red, mid, post, sp_out, out_shape)
    )
    body += lines
    body.append(
        f"    tl.store({out_name} + ({arg_offset(args[out_name], store_idx)}){e.z}, "
        f"({result}).to({out_name}.dtype.element_ty), mask=mask)"
    )
    return _module(contract, attempt, e, red, space, body, grid)
