"""Stage 4, synthesize: an independent Triton implementation of a unit, generated from its
eager reference (the ATen ops of the post-grad graph), not from Inductor's kernel.

The heuristic synthesizer handles pointwise chains here (every op elementwise, every tensor
argument either of the output's shape or broadcastable to it, float dtypes) and reductions
over the last dimension mixed with pointwise ops in ``synth_rows`` (softmax, log-softmax,
layernorm, RMSNorm, sum/mean/amax/amin).  It writes the candidate in ``inductor.py`` form
(module-level CONFIG / NUM_WARPS / NUM_STAGES), so the search can transform it.  Attempts
differ in block size and warps.  Anything else (other reductions, views that move the
reduced dimension, integer outputs) is answered with "cannot synthesize" and the reason.
"""
from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

ATTEMPTS = [(1024, 4), (4096, 8), (256, 2), (2048, 4)]  # (BLOCK, num_warps) per attempt

UNARY = {
    "relu": "tl.maximum({0}, 0.0)",
    "neg": "(-{0})",
    "exp": "tl.exp({0})",
    "log": "tl.log({0})",
    "sqrt": "tl.sqrt({0})",
    "rsqrt": "(1.0 / tl.sqrt({0}))",
    "abs": "tl.abs({0})",
    "sigmoid": "tl.sigmoid({0})",
    "tanh": "(2.0 * tl.sigmoid(2.0 * {0}) - 1.0)",
    "erf": "tl.math.erf({0})",
    "reciprocal": "(1.0 / {0})",
}
BINARY = {"add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})", "div": "({0} / {1})",
          "maximum": "tl.maximum({0}, {1})", "minimum": "tl.minimum({0}, {1})"}
FLOAT_DTYPES = {"float32", "float16", "bfloat16"}
REDUCTIONS = {"sum", "amax", "amin", "mean", "var_mean", "var", "max", "min", "argmax", "argmin", "prod", "any", "all", "_softmax", "_log_softmax", "cumsum", "logsumexp"}


class CannotSynthesize(Exception):
    pass


def reference_constants(reference_src: str) -> dict[str, Any]:
    """LEVEL, INPUTS, OUTPUTS, SHAPES, OUT_SHAPES of a reference.py (those it defines)."""
    consts: dict[str, Any] = {}
    for node in ast.parse(reference_src).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in ("LEVEL", "INPUTS", "OUTPUTS", "SHAPES", "OUT_SHAPES"):
            consts[node.targets[0].id] = ast.literal_eval(node.value)
    return consts


def _reference_forward(reference_src: str) -> tuple[ast.FunctionDef, dict[str, Any]]:
    tree = ast.parse(reference_src)
    consts = reference_constants(reference_src)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Reference"), None)
    fwd = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None) if cls else None
    if fwd is None:
        raise CannotSynthesize("reference.py has no Reference.forward")
    return fwd, consts


def _expr(node: ast.AST, env: dict[str, str]) -> str:
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise CannotSynthesize(f"unknown value {node.id}")
        return env[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return repr(float(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return repr(-float(node.operand.value))
    raise CannotSynthesize(f"unsupported argument {ast.unparse(node)}")


def pointwise_body(fwd: ast.FunctionDef, inputs: dict[str, str]) -> tuple[list[str], list[str]]:
    """Translate forward's statements to Triton lines; returns (lines, output expressions)."""
    env = dict(inputs)
    lines: list[str] = []
    for stmt in fwd.body:
        if isinstance(stmt, ast.Return):
            vals = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
            return lines, [_expr(v, env) for v in vals]
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
        if stmt.value.keywords:
            raise CannotSynthesize(f"aten.{op} with keyword arguments")
        args = [_expr(a, env) for a in stmt.value.args]
        if op in UNARY and len(args) == 1:
            code = UNARY[op].format(*args)
        elif op in BINARY and len(args) == 2:
            code = BINARY[op].format(*args)
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


def synthesize_pointwise(contract: dict[str, Any], reference_src: str, attempt: int) -> str:
    fwd, consts = _reference_forward(reference_src)
    if consts.get("LEVEL", "kernel") != "kernel":
        raise CannotSynthesize("the reference is graph-level (the kernel reads a buffer no FX node holds)")
    args = {a["name"]: a for a in contract["args"]}
    outs = consts["OUTPUTS"]
    out_shapes = [consts["OUT_SHAPES"][o] for o in outs]
    out_shape = out_shapes[0]
    if any(s != out_shape for s in out_shapes):
        raise CannotSynthesize("outputs of different shapes")
    for name in consts["INPUTS"] + outs:
        a = args[name]
        if a.get("dtype") not in FLOAT_DTYPES:
            raise CannotSynthesize(f"argument {name} is {a.get('dtype')}, only float pointwise chains are synthesised")
        ref_shape = (consts["SHAPES"].get(name) if name in consts["INPUTS"] else None) or consts["OUT_SHAPES"].get(name)
        if list(a["shape"]) != list(ref_shape):
            raise CannotSynthesize(f"argument {name} is seen through a view ({a['shape']} vs {ref_shape})")
    n = int(math.prod(out_shape))
    inputs = {f"x{i}": f"v{i}" for i in range(len(consts["INPUTS"]))}
    lines, results = pointwise_body(fwd, inputs)
    ptrs = [a["name"] for a in contract["args"] if a["kind"] == "tensor"]
    block, warps = ATTEMPTS[attempt % len(ATTEMPTS)]
    # logical indices of the flat output position
    idx, rest = [], "offs"
    for d in range(len(out_shape)):
        inner = int(math.prod(out_shape[d + 1:]))
        idx.append(f"    i{d} = ({rest}) // {inner}" if inner > 1 else f"    i{d} = {rest}")
        rest = f"offs % {inner}" if inner > 1 else rest
    body = [f"    pid = tl.program_id(0).to(tl.int64)", f"    offs = pid * BLOCK + tl.arange(0, BLOCK)", f"    mask = offs < {n}"] + idx
    for i, name in enumerate(consts["INPUTS"]):
        a = args[name]
        body.append(f"    v{i} = tl.load({name} + ({_index(a['shape'], a['stride'], out_shape)}), mask=mask, other=0.0).to(tl.float32)")
    body += [f"    {l}" for l in lines]
    for name, res in zip(outs, results):
        a = args[name]
        body.append(f"    tl.store({name} + ({_index(a['shape'], a['stride'], out_shape)}), ({res}).to({name}.dtype.element_ty), mask=mask)")
    kernel = "synth_pointwise"
    return "\n".join([
        f'"""Synthesised by kernelopt (heuristic backend, attempt {attempt}) from the unit\'s eager reference:',
        f"a pointwise chain over {n} elements, one flat index, broadcasts through the contract's strides.",
        '"""',
        "import triton",
        "import triton.language as tl",
        "",
        "",
        "@triton.jit",
        f"def {kernel}({', '.join(ptrs)}, BLOCK: tl.constexpr):",
        *body,
        "",
        "",
        f"CONFIG = {{'BLOCK': {block}}}",
        f"NUM_WARPS = {warps}",
        "NUM_STAGES = 1",
        "",
        "",
        f"def launch({', '.join(a['name'] for a in contract['args'])}):",
        f"    {kernel}[(triton.cdiv({n}, CONFIG['BLOCK']),)]({', '.join(ptrs)}, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)",
        "",
    ])


def synthesize_fused(paths: Any, contract: dict[str, Any], attempt: int) -> str:
    """A fused unit (fusion.py): attempt 0 is the consumer with the producer inlined at its loads,
    launched with the consumer's config; the search then tunes that launch."""
    from . import fusion
    from .isolate import render_inductor

    f = contract["fused"]
    if attempt > 0:
        raise CannotSynthesize("a fused unit has one generated kernel (attempt 0: the producer inlined into the consumer); the search tunes its launch")
    p_src, c_src = ((paths.kernels_dir / f"{u}.py").read_text() for u in (f["producer_unit"], f["consumer_unit"]))
    try:
        kernel_src = fusion.fuse_source(p_src, c_src, f)
    except fusion.NotFusible as e:
        raise CannotSynthesize(str(e)) from None
    title = (f"Neighbour fusion of unit {contract['unit']} (kernelopt, heuristic backend): {f['producer']} inlined into\n"
             f"{f['consumer']} at each load of {f['buffer']}, so {f['buffer']} is neither written nor re-read.  launch(*args)\n"
             f"takes {f['consumer']}'s arguments, then {f['producer']}'s other inputs (p_*); config: the consumer's.")
    return render_inductor(contract, kernel_src, title)


def synthesize(contract: dict[str, Any], reference_src: str, attempt: int) -> str:
    """A pointwise kernel for pointwise chains, a row kernel for last-dimension reductions
    (``synth_rows``); CannotSynthesize with the most relevant reason otherwise."""
    from .synth_rows import synthesize_rows

    try:
        return synthesize_pointwise(contract, reference_src, attempt)
    except CannotSynthesize as pointwise:
        try:
            return synthesize_rows(contract, reference_src, attempt)
        except CannotSynthesize as rows:
            reduces = any(f"aten.{op}." in reference_src or f"prims.{op}." in reference_src for op in REDUCTIONS | {"prepare_softmax_online"})
            raise CannotSynthesize(str(rows) if reduces else f"{pointwise} (row synthesizer: {rows})") from None


def run(paths: Any, unit: str, attempt: int, cfg: dict[str, Any]) -> dict[str, Any]:
    """Rule synthesize: writes synth/a<k>/candidate.py and slot.json (empty with the reason
    when the unit cannot be synthesised, or when attempt >= search.synthesis_attempts)."""
    import json

    d = paths.unit(unit) / "synth" / f"a{attempt}"
    d.mkdir(parents=True, exist_ok=True)
    info: dict[str, Any] = {"slot": attempt, "empty": True}
    contract = json.loads(paths.contract(unit).read_text())
    ref = paths.reference(unit)
    try:
        if not ref.exists():
            raise CannotSynthesize("the unit has no eager reference")
        src = synthesize_fused(paths, contract, attempt) if contract.get("fused") else synthesize(contract, ref.read_text(), attempt)
        (d / "candidate.py").write_text(src)
        from .agents.heuristic import signature

        info = {"slot": attempt, "empty": False, "origin": "synthesis:heuristic", "signature": signature(src)}
    except CannotSynthesize as e:
        (d / "candidate.py").unlink(missing_ok=True)
        info["reason"] = f"cannot synthesize: {e}"
    (d / "slot.json").write_text(json.dumps(info, indent=2) + "\n")
    print(f"[synthesize] {paths.problem}/{unit}/a{attempt}: " + ("written" if not info["empty"] else info["reason"]))
    return info
