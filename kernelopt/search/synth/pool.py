"""Synthesis of max-pooling units: a pointwise chain, a max pool over the last k dimensions
(``prims._low_memory_max_pool_with_offsets`` as Inductor's post-grad graph has it, or
``aten.max_pool{1,2,3}d_with_indices``; values only), a pointwise chain on the pooled values,
and optionally a sum/mean/amax/amin over all the pooled dimensions (a global average pool after
the max pool) followed by more pointwise ops.

One program handles ``BLOCK`` outputs (flat index over the output's logical shape).  Each output
walks its window (``tl.static_range`` over the window's positions), loads the inputs at the
window position, computes the chain before the pool there, and keeps the maximum; positions in
the padding or past the edge (``ceil_mode``) count as -inf, a NaN wins (as in PyTorch).  With a
reduction after the pool, each output loops over the pooled positions at run time.  Values are
computed in float32 and cast on store.

Refused, with the reason: the pool's offsets (indices) used, an output that is not the pool's
size (PyTorch's rule, ``ceil_mode`` included) or its reduction, an input after the pool that
would broadcast the pooled values larger, arguments seen through a view, reductions over other
dimensions, keyword arguments.
"""

from __future__ import annotations

import ast
import copy
import math
import re
from typing import Any

from .ops import FLOAT_DTYPES, CannotSynthesize, broadcast_shapes, candidate_module, forward_of
from .pointwise import pointwise_body

POOL_OPS = {"_low_memory_max_pool_with_offsets", "max_pool1d_with_indices", "max_pool2d_with_indices"}
POOL_OPS |= {"max_pool3d_with_indices"}
AFTER = {"sum": "sum", "mean": "sum", "amax": "max", "amin": "min"}
ATTEMPTS = [(256, 4), (1024, 4), (128, 2), (512, 8)]  # (BLOCK, num_warps) per attempt


def is_pool(reference_src: str) -> bool:
    return any(f".{op}." in reference_src for op in POOL_OPS)


def _fn(body: list[ast.stmt], result: list[str]) -> ast.FunctionDef:
    """A forward holding ``body`` that returns the names ``result`` (for ``pointwise_body``)."""
    ret = ast.Return(value=ast.Tuple(elts=[ast.Name(id=r, ctx=ast.Load()) for r in result], ctx=ast.Load()))
    fn = ast.FunctionDef(name="forward", args=ast.arguments([], [], None, [], [], None, []), body=[*body, ret])
    fn.decorator_list, fn.returns, fn.type_params = [], None, []
    return copy.deepcopy(fn)


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


def _parse(fwd: ast.FunctionDef) -> dict[str, Any]:
    """Split forward into the chain before the pool, the pool, the chain after it, an optional
    reduction over the pooled dims and the chain after that."""
    segs: dict[str, Any] = {"pre": [], "mid": [], "post": [], "pool": None, "values": None, "red": None}
    stage = "pre"
    for stmt in fwd.body:
        if isinstance(stmt, ast.Return):
            vals = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
            if len(vals) != 1 or not isinstance(vals[0], ast.Name):
                raise CannotSynthesize("a pool unit with more than one output")
            segs["result"] = vals[0].id
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
        if op in POOL_OPS:
            if stage != "pre":
                raise CannotSynthesize("two max pools in one unit")
            args = value.args
            if not args or not isinstance(args[0], ast.Name):
                raise CannotSynthesize("a max pool of a non-value")
            if value.keywords:
                raise CannotSynthesize("a max pool with keyword arguments")
            kernel = _ints(args[1], "kernel size")
            stride = _ints(args[2], "stride") if len(args) > 2 else []
            padding = _ints(args[3], "padding") if len(args) > 3 else [0]
            dilation = _ints(args[4], "dilation") if len(args) > 4 else [1]
            k = len(kernel)
            stride = stride or kernel
            fill = {"stride": stride, "padding": padding, "dilation": dilation}
            for what, vals in fill.items():
                if len(vals) == 1 and k > 1:
                    fill[what] = vals * k
                elif len(vals) != k:
                    raise CannotSynthesize(f"a max pool with {k} kernel sizes and {len(vals)} {what} values")
            ceil_mode = bool(_literal(args[5], "ceil_mode")) if len(args) > 5 else False
            segs["pool"] = {"name": target, "input": args[0].id, "kernel": kernel, "ceil_mode": ceil_mode, **fill}
            stage = "pooled"
            continue
        if stage == "pooled":
            raise CannotSynthesize("the max pool's result is used before its values are taken")
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


def _offset(a: dict[str, Any], idx: list[str]) -> str:
    """Element offset of argument ``a`` (right-aligned, broadcast) for logical indices ``idx``."""
    shape, stride = list(a["shape"]), list(a["stride"])
    pad = len(idx) - len(shape)
    if pad < 0:
        raise CannotSynthesize(f"argument {a['name']} has more dimensions than the values it is used with")
    terms = []
    for k, (size, st) in enumerate(zip(shape, stride)):
        if size != 1 and st:
            terms.append(f"({idx[k + pad]}) * {st}" if st != 1 else f"({idx[k + pad]})")
    return " + ".join(terms) or "0"


def synthesize_pool(contract: dict[str, Any], reference_src: str, attempt: int) -> str:
    fwd, consts = forward_of(reference_src)
    if consts.get("LEVEL", "kernel") != "kernel":
        raise CannotSynthesize("the reference is graph-level (the kernel reads a buffer no FX node holds)")
    segs = _parse(fwd)
    args = {a["name"]: a for a in contract["args"]}
    ins, outs = consts["INPUTS"], consts["OUTPUTS"]
    if len(outs) != 1:
        raise CannotSynthesize("a pool unit with more than one output")
    for name in ins + outs:
        a = args[name]
        if a.get("dtype") not in FLOAT_DTYPES:
            raise CannotSynthesize(f"argument {name} is {a.get('dtype')}, only float pools are synthesised")
        ref_shape = consts["SHAPES"].get(name) if name in ins else consts["OUT_SHAPES"].get(name)
        if list(a["shape"]) != list(ref_shape):
            raise CannotSynthesize(f"argument {name} is seen through a view ({a['shape']} vs {ref_shape})")
    pool, red = segs["pool"], segs["red"]
    k = len(pool["kernel"])
    params = [p.arg for p in fwd.args.args[1:]]  # forward(self, x0, x1, ...)
    if len(params) != len(ins):
        raise CannotSynthesize(f"forward takes {len(params)} values for {len(ins)} inputs")

    # the chain before the pool, per window position: inputs v{i}
    pre_lines, (pre_res,) = pointwise_body(
        _fn(segs["pre"], [pool["input"]]), {x: f"v{i}" for i, x in enumerate(params)}
    )
    pre_used = [i for i in range(len(ins)) if re.search(rf"\bv{i}\b", "\n".join(pre_lines) + pre_res)]
    if not pre_used:
        raise CannotSynthesize("the max pool's input depends on no argument")
    in_shape = broadcast_shapes(*[consts["SHAPES"][ins[i]] for i in pre_used])
    out_name = outs[0]
    out_shape = list(consts["OUT_SHAPES"][out_name])
    rank = len(in_shape)
    if rank < k + 1:
        raise CannotSynthesize(f"a {k}-d max pool of a {rank}-d value")
    lead = in_shape[: rank - k]
    sp_in = in_shape[rank - k :]
    # the pooled sizes, from the input's and the pool's (PyTorch's rule, ceil_mode included)
    sp_out = []
    for j in range(k):
        h, kk, s, p, d = sp_in[j], pool["kernel"][j], pool["stride"][j], pool["padding"][j], pool["dilation"][j]
        span = h + 2 * p - d * (kk - 1) - 1
        if span < 0 or s <= 0:
            raise CannotSynthesize(f"a max pool window larger than its padded input ({pool})")
        o = (-(-span // s) if pool["ceil_mode"] else span // s) + 1
        if pool["ceil_mode"] and (o - 1) * s >= h + p:
            o -= 1  # the last window must start inside the input or its left padding
        sp_out.append(o)
    pooled_shape = lead + sp_out
    if red is None:
        if out_shape != pooled_shape:
            raise CannotSynthesize(f"the output {out_shape} is not the pool's {pooled_shape} of {in_shape}")
    else:
        dims = red["dims"]
        if dims is None or sorted(d % rank for d in dims) != list(range(rank - k, rank)):
            raise CannotSynthesize(f"aten.{red['op']} over dims {dims}: only over all the pooled dims")
        last = segs["mid"][-1].targets[0].id if segs["mid"] else segs["values"]  # type: ignore[attr-defined]
        if red["input"] != last:
            raise CannotSynthesize("the reduction after the pool does not reduce the chain's last value")

    # the chain after the pool (per pooled position: value "acc", inputs p{i} at pooled indices)
    final = red["input"] if red else segs["result"]
    env_mid = {x: f"p{i}" for i, x in enumerate(params)}
    env_mid[segs["values"]] = "acc"
    mid_lines, (mid_res,) = pointwise_body(_fn(segs["mid"], [final]), env_mid)
    post_lines, post_res = [], "red"
    if red is not None:
        env_post = {x: f"q{i}" for i, x in enumerate(params)}
        env_post[red["name"]] = "red"
        post_lines, (post_res,) = pointwise_body(_fn(segs["post"], [segs["result"]]), env_post)

    block, warps = ATTEMPTS[attempt % len(ATTEMPTS)]
    n_lead = len(lead)
    # output index space: lead + pooled dims (no reduction), lead (+ size-1 dims) with one
    space = lead + sp_out if red is None else lead
    n_out = int(math.prod(space))
    body = [
        "    pid = tl.program_id(0).to(tl.int64)",
        "    offs = pid * BLOCK + tl.arange(0, BLOCK)",
        f"    mask = offs < {n_out}",
    ]
    rest = "offs"
    for d in range(len(space)):
        inner = int(math.prod(space[d + 1 :]))
        body.append(f"    i{d} = ({rest}) // {inner}" if inner > 1 else f"    i{d} = {rest}")
        rest = f"offs % {inner}" if inner > 1 else rest
    lead_idx = [f"i{d}" for d in range(n_lead)]

    def window(ind: str, o: list[str]) -> list[str]:
        """Lines computing ``acc`` (the window max) for pooled indices ``o``."""
        lines = [f"{ind}acc = tl.full([BLOCK], float('-inf'), tl.float32)"]
        win = int(math.prod(pool["kernel"]))
        lines.append(f"{ind}for w in tl.static_range({win}):")
        h = []
        for j in range(k):
            inner = int(math.prod(pool["kernel"][j + 1 :]))
            wj = f"((w // {inner}) % {pool['kernel'][j]})" if inner > 1 else f"(w % {pool['kernel'][j]})"
            s, p, d = pool["stride"][j], pool["padding"][j], pool["dilation"][j]
            lines.append(f"{ind}    h{j} = {o[j]} * {s} - {p} + {wj} * {d}")
            h.append(f"h{j}")
        inb = " & ".join(["mask"] + [f"(h{j} >= 0) & (h{j} < {sp_in[j]})" for j in range(k)])
        lines.append(f"{ind}    inb = {inb}")
        for i in pre_used:
            a = args[ins[i]]
            off = _offset(a, lead_idx + h)
            lines.append(f"{ind}    v{i} = tl.load({ins[i]} + ({off}), mask=inb, other=0.0).to(tl.float32)")
        lines += [f"{ind}    {ln}" for ln in pre_lines]
        lines.append(f"{ind}    val = tl.where(inb, {pre_res}, float('-inf'))")
        lines.append(f"{ind}    acc = tl.where((val > acc) | (val != val), val, acc)")
        return lines

    def loads(prefix: str, code: str, idx: list[str], ind: str, within: list[int]) -> list[str]:
        """The inputs ``code`` uses, loaded at indices ``idx`` of the values of shape ``within``
        (an input that would broadcast them larger is refused: the kernel has one output per
        element of ``within``)."""
        out = []
        for i, name in enumerate(ins):
            if re.search(rf"\b{prefix}{i}\b", code):
                shape = list(consts["SHAPES"][name])
                if len(shape) > len(within) or broadcast_shapes(shape, within) != within:
                    raise CannotSynthesize(f"input {name} of shape {shape} broadcasts the pooled values {within}")
                off = _offset(args[name], idx)
                out.append(f"{ind}{prefix}{i} = tl.load({name} + ({off}), mask=mask, other=0.0).to(tl.float32)")
        return out

    out_arg = args[out_name]
    mid_code = "\n".join(mid_lines) + "\n" + mid_res
    if red is None:
        o = [f"i{n_lead + j}" for j in range(k)]
        body += window("    ", o)
        body += loads("p", mid_code, lead_idx + o, "    ", pooled_shape)
        body += [f"    {ln}" for ln in mid_lines]
        store_idx = lead_idx + o
        result = mid_res
    else:
        combine, start = AFTER[red["op"]], "0.0" if AFTER[red["op"]] == "sum" else None
        init = start or ("float('-inf')" if combine == "max" else "float('inf')")
        body.append(f"    red = tl.full([BLOCK], {init}, tl.float32)")
        npos = int(math.prod(sp_out))
        body.append(f"    for q in range({npos}):")
        o = []
        for j in range(k):
            inner = int(math.prod(sp_out[j + 1 :]))
            pos = f"(q // {inner}) % {sp_out[j]}" if inner > 1 else f"q % {sp_out[j]}"
            body.append(f"        o{j} = {pos}")
            o.append(f"o{j}")
        body += window("        ", o)
        body += loads("p", mid_code, lead_idx + o, "        ", pooled_shape)
        body += [f"        {ln}" for ln in mid_lines]
        if combine == "sum":
            body.append(f"        red = red + {mid_res}")
        else:
            fn = "maximum" if combine == "max" else "minimum"
            nan = f"({mid_res} != {mid_res}) | (red != red)"
            body.append(f"        red = tl.where({nan}, red + {mid_res}, tl.{fn}(red, {mid_res}))")
        if red["op"] == "mean":
            body.append(f"    red = red / {float(npos)!r}")
        store_idx = lead_idx + ["0"] * k if red["keep"] else lead_idx
        reduced = lead + [1] * k if red["keep"] else lead
        if out_shape != reduced:
            raise CannotSynthesize(f"the output {out_shape} is not the {red['op']} {reduced} of a pool of {in_shape}")
        post_code = "\n".join(post_lines) + "\n" + post_res
        body += loads("q", post_code, store_idx, "    ", reduced)
        body += [f"    {ln}" for ln in post_lines]
        result = post_res
    body.append(
        f"    tl.store({out_name} + ({_offset(out_arg, store_idx)}), "
        f"({result}).to({out_name}.dtype.element_ty), mask=mask)"
    )
    what = f"a {k}-d max pool (kernel {pool['kernel']}, stride {pool['stride']}, padding {pool['padding']})"
    if red is not None:
        what += f" then a {red['op']} over the pooled dims"
    what_lines = [f"{what} of {in_shape}, {n_out} outputs, the chains around it fused."]
    return candidate_module(attempt, what_lines, "synth_pool", contract, body, {"BLOCK": block}, warps, n_out, "BLOCK")
