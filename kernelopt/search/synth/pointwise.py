"""Synthesis of pointwise chains: every op elementwise, every tensor argument either of the
output's shape or broadcastable to it, float dtypes.  One flat index over the output;
broadcasts through the contract's strides.  Attempts differ in block size and warps.
"""

from __future__ import annotations

import ast
import math

from ...core.records import Contract
from .ops import (
    BINARY,
    FLOAT_DTYPES,
    REDUCTIONS,
    UNARY,
    CannotSynthesize,
    candidate_module,
    expr,
    forward_of,
    full_constant,
    pow_template,
)

ATTEMPTS = [(1024, 4), (4096, 8), (256, 2), (2048, 4)]  # (BLOCK, num_warps) per attempt


def pointwise_body(
    fwd: ast.FunctionDef, inputs: dict[str, str], within: list[int] | None = None
) -> tuple[list[str], list[str]]:
    """Translate forward's statements to Triton lines; returns (lines, output expressions).
    ``within``: the shape the chain is computed over (``full_constant``'s)."""
    env = dict(inputs)
    lines: list[str] = []
    for stmt in fwd.body:
        if isinstance(stmt, ast.Return):
            vals = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
            return lines, [expr(v, env) for v in vals]
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
            continue  # FX's "x = None" frees
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
            raise CannotSynthesize(f"unsupported statement {ast.unparse(stmt)[:80]}")
        func = ast.unparse(stmt.value.func)
        parts = func.split(".")
        if parts[:3] != ["torch", "ops", "aten"] or len(parts) != 5:
            raise CannotSynthesize(f"{func} is not an ATen op")
        op, overload = parts[3], parts[4]
        if op in REDUCTIONS:
            raise CannotSynthesize(f"aten.{op} is a reduction: not a pointwise chain")
        constant = full_constant(stmt.value, within) if op == "full" else None
        if constant is not None:
            env[stmt.targets[0].id] = constant  # type: ignore[attr-defined]
            continue
        if stmt.value.keywords:
            raise CannotSynthesize(f"aten.{op} with keyword arguments")
        args = [expr(a, env) for a in stmt.value.args]
        if op in UNARY and len(args) == 1:
            code = UNARY[op].format(*args)
        elif op in BINARY and len(args) == 2:
            code = BINARY[op].format(*args)
        elif op == "pow" and overload == "Tensor_Scalar" and len(args) == 2:
            code = pow_template(args[1]).format(args[0])
        elif op == "where" and overload == "self" and len(args) == 3:
            code = f"tl.where({args[0]}, {args[1]}, {args[2]})"
        elif op in ("clamp_min", "clamp_max") and len(args) == 2:
            code = f"tl.{'maximum' if op == 'clamp_min' else 'minimum'}({args[0]}, {args[1]})"
        else:
            raise CannotSynthesize(f"aten.{op}.{overload} is not a supported pointwise op")
        target = stmt.targets[0].id  # type: ignore[attr-defined]
        name = f"t_{target}"
        lines.append(f"{name} = {code}")
        env[target] = name
    raise CannotSynthesize("forward has no return")


def _index(shape: list[int], stride: list[int], out_shape: list[int]) -> str:
    """Element offset of a (broadcast) argument for the output's logical indices i0..i{n-1}."""
    pad = len(out_shape) - len(shape)
    if pad < 0:
        raise CannotSynthesize("an input has more dimensions than the output")
    terms = []
    for d, size in enumerate(out_shape):
        k = d - pad
        if k < 0:
            continue
        if shape[k] == 1 and size != 1:
            continue  # broadcast dimension
        if shape[k] != size:
            raise CannotSynthesize(f"shape {shape} does not broadcast to {out_shape}")
        if stride[k]:
            terms.append(f"i{d} * {stride[k]}" if stride[k] != 1 else f"i{d}")
    return " + ".join(terms) or "0"


def _fastest_dim(shape: list[int], stride: list[int], out_shape: list[int]) -> int | None:
    """The output dimension along which an argument (seen broadcast to ``out_shape``) is
    contiguous: its smallest nonzero stride among the dimensions it does not broadcast over (of
    size > 1); None for an argument that is one value."""
    pad = len(out_shape) - len(shape)
    seen = [(stride[d - pad], d) for d in range(pad, len(out_shape)) if shape[d - pad] > 1 and stride[d - pad]]
    return min(seen)[1] if seen else None


class TransposingCopy(CannotSynthesize):
    """The chain transposes (``_refuse_transposing``): no other synthesizer is tried either."""


def _refuse_transposing(args: dict, names: list[str], outs: list[str], out_shape: list[int]) -> None:
    """A chain whose inputs and outputs are contiguous along different dimensions (a layout copy
    to channels-last before a convolution, a permute made contiguous) is refused: one flat index
    reads or writes one side strided, 4.5-7.6x Inductor's time on the H100 (2026-12-05), whose
    own kernel tiles such a copy in 2-D and converts through shared memory."""
    out_dims = {_fastest_dim(args[o]["shape"], args[o]["stride"], out_shape) for o in outs} - {None}
    for name in names:
        if math.prod(args[name]["shape"]) != math.prod(out_shape):
            continue  # a broadcast operand (a per-channel scale) is small: its order is no cost
        d = _fastest_dim(args[name]["shape"], args[name]["stride"], out_shape)
        if d is not None and out_dims and d not in out_dims:
            raise TransposingCopy(
                f"a transposing copy: {name} is contiguous along dimension {d}, the output along "
                f"{sorted(out_dims)}; one flat index would access one side strided (Inductor's "
                "kernel tiles it in 2-D)"
            )


def refuse_transposing_chain(contract: Contract, reference_src: str) -> None:
    """``_refuse_transposing`` for a chain the pointwise generator refused for another reason (a
    view of a per-channel parameter: a batch norm between a channels-last convolution and an
    NCHW output), before the row generator takes it as rows with no reduction.  A reference it
    cannot read is left to the row generator, which says why."""
    try:
        _, consts = forward_of(reference_src)
    except CannotSynthesize:
        return
    shapes = [consts.get("OUT_SHAPES", {}).get(o) for o in consts.get("OUTPUTS", [])]
    args = {a["name"]: a for a in contract.args if a.get("kind", "tensor") == "tensor" and "stride" in a}
    names = [n for n in consts.get("INPUTS", []) if n in args]
    if consts.get("LEVEL", "kernel") != "kernel" or not shapes or any(s != shapes[0] for s in shapes):
        return
    if all(o in args for o in consts["OUTPUTS"]):
        _refuse_transposing(args, names, consts["OUTPUTS"], list(shapes[0]))


def synthesize_pointwise(contract: Contract, reference_src: str, attempt: int) -> str:
    fwd, consts = forward_of(reference_src)
    if consts.get("LEVEL", "kernel") != "kernel":
        raise CannotSynthesize("the reference is graph-level (the kernel reads a buffer no FX node holds)")
    args = {a["name"]: a for a in contract.args}
    outs = consts["OUTPUTS"]
    out_shapes = [consts["OUT_SHAPES"][o] for o in outs]
    out_shape = out_shapes[0]
    if any(s != out_shape for s in out_shapes):
        raise CannotSynthesize("outputs of different shapes")
    for name in consts["INPUTS"] + outs:
        a = args[name]
        if a.get("dtype") not in FLOAT_DTYPES:
            raise CannotSynthesize(f"argument {name} is {a.get('dtype')}, only float pointwise chains are synthesised")
        # a 0-d input (a norm computed before: ``x / norm``) has the shape [], not "no shape"
        ref_shape = consts["SHAPES"][name] if name in consts["INPUTS"] else consts["OUT_SHAPES"][name]
        if list(a["shape"]) != list(ref_shape):
            raise CannotSynthesize(f"argument {name} is seen through a view ({a['shape']} vs {ref_shape})")
    n = int(math.prod(out_shape))
    inputs = {f"x{i}": f"v{i}" for i in range(len(consts["INPUTS"]))}
    lines, results = pointwise_body(fwd, inputs)
    _refuse_transposing(args, consts["INPUTS"], outs, out_shape)
    block, warps = ATTEMPTS[attempt % len(ATTEMPTS)]
    # logical indices of the flat output position
    idx, rest = [], "offs"
    for d in range(len(out_shape)):
        inner = int(math.prod(out_shape[d + 1 :]))
        idx.append(f"    i{d} = ({rest}) // {inner}" if inner > 1 else f"    i{d} = {rest}")
        rest = f"offs % {inner}" if inner > 1 else rest
    body = [
        "    pid = tl.program_id(0).to(tl.int64)",
        "    offs = pid * BLOCK + tl.arange(0, BLOCK)",
        f"    mask = offs < {n}",
    ] + idx
    for i, name in enumerate(consts["INPUTS"]):
        a = args[name]
        at = _index(a["shape"], a["stride"], out_shape)
        if at == "0":  # one value for every element (a 0-d input): a scalar load, unmasked
            body.append(f"    v{i} = tl.load({name}).to(tl.float32)")
            continue
        body.append(f"    v{i} = tl.load({name} + ({at}), mask=mask, other=0.0).to(tl.float32)")
    body += [f"    {l}" for l in lines]
    for name, res in zip(outs, results):
        a = args[name]
        body.append(
            f"    tl.store({name} + ({_index(a['shape'], a['stride'], out_shape)}), "
            f"({res}).to({name}.dtype.element_ty), mask=mask)"
        )
    what = [f"a pointwise chain over {n} elements, one flat index, broadcasts through the contract's strides."]
    return candidate_module(attempt, what, "synth_pointwise", contract, body, {"BLOCK": block}, warps, n, "BLOCK")
