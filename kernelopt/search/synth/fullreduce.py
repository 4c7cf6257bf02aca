"""Synthesis of full reductions (a loss): a pointwise chain over the inputs, one sum or mean over
every element, and scalar ops on the result (``/ batch`` of a KL divergence's ``batchmean``).

Two kernels, one pass over the data, deterministic: ``PARTS`` programs each reduce a contiguous
span of the elements (in blocks of ``BLOCK``, the chain computed on the way, float32 accumulation)
into one partial sum; one program then sums the partials in a fixed order and applies the scalar
ops.  Inputs of the chain's shape are read through their strides; an input broadcast along some
dimensions (a label per row) through its own.  The candidate allocates its partials in ``launch``.

Refused, with the reason: a reduction over some dimensions only (the row synthesizer's), a max or
min over everything, several reductions, an output that is not the one scalar.
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
    forward_fn,
    kernel_reference,
    module_head,
    with_libdevice,
)
from .pointwise import pointwise_body

SUMS = {"sum", "mean"}
# (elements per block, programs, num_warps) per attempt
ATTEMPTS = [(4096, 1024, 8), (2048, 2048, 4), (8192, 512, 8), (1024, 4096, 4)]


# a reduction over every element: ``.default(x)``, or ``.dim_IntList(x, None)`` (a norm over
# everything, ``torch.norm(x, p="fro")``, as the post-grad graph writes it)
OVER_EVERY_ELEMENT = r"\.(default\(\w+\)|dim_IntList\(\w+, None\))"


def is_full_reduction(reference_src: str) -> bool:
    """A sum or mean over every element (``OVER_EVERY_ELEMENT``)."""
    return bool(re.search(r"aten\.(sum|mean)" + OVER_EVERY_ELEMENT, reference_src))


def _parse(fwd: ast.FunctionDef, rank: int) -> tuple[list[ast.stmt], dict[str, Any], list[ast.stmt], str]:
    body = [s for s in fwd.body if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant))]
    ret = body[-1]
    if not isinstance(ret, ast.Return):
        raise CannotSynthesize("forward has no return")
    vals = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
    if len(vals) != 1 or not isinstance(vals[0], ast.Name):
        raise CannotSynthesize("a full reduction with more than one output")
    found = []
    for i, s in enumerate(body[:-1]):
        if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Call)):
            continue
        parts = ast.unparse(s.value.func).split(".")
        if len(parts) != 5 or parts[3] not in SUMS | {"amax", "amin", "max", "min", "prod"}:
            continue
        args = s.value.args
        every = parts[4] == "default" and len(args) == 1
        if parts[4] == "dim_IntList" and len(args) >= 2:
            try:
                named = ast.literal_eval(args[1])  # None: every dimension
                dims = list(range(rank)) if named is None else sorted(int(d) % rank for d in named)
            except (ValueError, TypeError):
                dims = []
            keep = len(args) > 2 and bool(ast.literal_eval(args[2]))
            every = dims == list(range(rank)) and not keep and not s.value.keywords
        if parts[3] not in SUMS or not every:
            raise CannotSynthesize(
                f"aten.{parts[3]}.{parts[4]}: only a sum or mean over every element, without keepdim"
            )
        found.append((i, parts[3], args[0]))
    if len(found) != 1:
        raise CannotSynthesize(
            f"{len(found)} reductions in the unit: one sum or mean over every element is synthesised"
        )
    i, op, src = found[0]
    if not isinstance(src, ast.Name):
        raise CannotSynthesize("a reduction of a non-value")
    red = {"op": op, "input": src.id, "name": body[i].targets[0].id}  # type: ignore[attr-defined]
    return body[:i], red, body[i + 1 : -1], vals[0].id


def synthesize_full_reduction(contract: Contract, reference_src: str, attempt: int) -> str:
    fwd, consts, args, ins, outs = kernel_reference(contract, reference_src)
    if len(outs) != 1 or list(consts["OUT_SHAPES"][outs[0]]) not in ([], [1]):
        raise CannotSynthesize("the output is not one scalar")
    for name in ins + outs:
        if args[name].get("dtype") not in FLOAT_DTYPES:
            raise CannotSynthesize(f"argument {name} is {args[name].get('dtype')}: float arguments only")
    S = broadcast_shapes(*[consts["SHAPES"][n] for n in ins])
    pre, red, post, result = _parse(fwd, len(S))
    params = [p.arg for p in fwd.args.args[1:]]
    env = {x: f"v{i}" for i, x in enumerate(params)}
    pre_lines, (pre_res,) = pointwise_body(forward_fn(pre, [red["input"]]), env, within=list(S))
    post_lines, (post_res,) = pointwise_body(forward_fn(post, [result]), {red["name"]: "total"})
    n = int(math.prod(S))
    block, parts, warps = ATTEMPTS[attempt % len(ATTEMPTS)]
    parts = max(1, min(parts, -(-n // block)))
    parts = 1 << (parts - 1).bit_length()  # a power of two: the final program holds them all
    code = "\n".join(pre_lines) + "\n" + pre_res
    used = [i for i in range(len(ins)) if re.search(rf"\bv{i}\b", code)]
    loads = _loads(S, [ins[i] for i in used], used, args, consts)
    span = -(-n // parts)
    span = -(-span // block) * block  # whole blocks per program
    mean = f" / {float(n)!r}" if red["op"] == "mean" else ""
    out = outs[0]
    what = [
        f"a {red['op']} over all {n} elements of {S} (a loss): {parts} programs each reduce a span of",
        f"{span} elements in blocks of BLOCK, one program sums the partials in order, the chains fused.",
    ]
    return with_libdevice(
        "\n".join(
            [
                *module_head(attempt, what),
                "",
                "",
                *_partial_kernel(ins, n, loads, pre_lines, pre_res),
                "",
                "",
                "@triton.jit",
                f"def synth_total(partial, {out}, PARTS: tl.constexpr):",
                "    total = tl.sum(tl.load(partial + tl.arange(0, PARTS)), axis=0)" + mean,
                *[f"    {ln}" for ln in post_lines],
                f"    tl.store({out}, ({post_res}).to({out}.dtype.element_ty))",
                "",
                "",
                *_launch(contract, ins, out, n, block, parts, warps),
            ]
        )
    )


def _loads(S: list[int], names: list[str], used: list[int], args: dict[str, Any], consts: dict[str, Any]) -> list[str]:
    """Lines loading the inputs ``names`` (``v{i}`` for ``i`` in ``used``) at the flat positions
    ``offs``: directly where each is contiguous of the chain's shape ``S``; else through the
    logical indices of the position and each input's strides (broadcast or strided inputs)."""
    flat = all(list(consts["SHAPES"][a]) == S and _contiguous(args[a]) for a in names)
    lines, idx = [], [f"i{d}" for d in range(len(S))]
    if not flat:
        rest = "offs"
        for d in range(len(S)):
            inner = int(math.prod(S[d + 1 :]))
            lines.append(f"        i{d} = ({rest}) // {inner}" if inner > 1 else f"        i{d} = {rest}")
            rest = f"offs % {inner}" if inner > 1 else rest
    for i, a in zip(used, names):
        off = "offs" if flat else arg_offset(args[a], idx)
        lines.append(f"        v{i} = tl.load({a} + ({off}), mask=mask, other=0.0).to(tl.float32)")
    return lines


def _partial_kernel(ins: list[str], n: int, loads: list[str], pre_lines: list[str], pre_res: str) -> list[str]:
    """The first kernel: each program reduces its span of the ``n`` elements, the chain computed on
    the way, into one partial sum."""
    return [
        "@triton.jit",
        f"def synth_partial({', '.join(ins)}, partial, SPAN: tl.constexpr, BLOCK: tl.constexpr):",
        "    pid = tl.program_id(0).to(tl.int64)",
        "    acc = tl.zeros([BLOCK], tl.float32)",
        "    for start in range(0, SPAN, BLOCK):",
        "        offs = pid * SPAN + start + tl.arange(0, BLOCK)",
        f"        mask = offs < {n}",
        *loads,
        *[f"        {ln}" for ln in pre_lines],
        f"        acc = acc + tl.where(mask, {pre_res}, 0.0)",
        "    tl.store(partial + pid, tl.sum(acc, axis=0))",
    ]


def _launch(contract: Contract, ins: list[str], out: str, n: int, block: int, parts: int, warps: int) -> list[str]:
    """The attempt's configuration and ``launch``: the partials allocated, the two kernels run."""
    return [
        f"CONFIG = {{'BLOCK': {block}, 'PARTS': {parts}}}",
        f"NUM_WARPS = {warps}",
        "NUM_STAGES = 1",
        "",
        "",
        f"def launch({', '.join(a['name'] for a in contract.args)}):",
        f"    partial = torch.empty((CONFIG['PARTS'],), dtype=torch.float32, device={out}.device)",
        f"    span = triton.cdiv(triton.cdiv({n}, CONFIG['PARTS']), CONFIG['BLOCK']) * CONFIG['BLOCK']",
        f"    synth_partial[(CONFIG['PARTS'],)]({', '.join(ins)}, partial, span, CONFIG['BLOCK'], "
        "num_warps=NUM_WARPS, num_stages=NUM_STAGES)",
        f"    synth_total[(1,)](partial, {out}, CONFIG['PARTS'], num_warps=4, num_stages=1)",
        "",
    ]


def _contiguous(a: dict[str, Any]) -> bool:
    shape, stride = a["shape"], a["stride"]
    expect = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size != 1 and st != expect:
            return False
        expect *= size
    return True
