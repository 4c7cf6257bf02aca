"""What the heuristic synthesizers share: the ATen ops they translate (pointwise tables), the
reductions they recognise, their refusal, and the translation of a reference's arguments.
"""

from __future__ import annotations

import ast
import copy
import math
from typing import Any

from ...core.records import Contract
from ...isolate.reference import NoForward, reference_forward

UNARY = {
    "relu": "tl.maximum({0}, 0.0, propagate_nan=tl.PropagateNan.ALL)",  # NaN stays NaN, as in torch
    "neg": "(-{0})",
    "exp": "tl.exp({0})",
    "log": "tl.log({0})",
    "log1p": "libdevice.log1p({0})",  # log(1 + x) loses small x (BCE with logits: log1p(exp(-|x|)))
    "expm1": "libdevice.expm1({0})",
    "sqrt": "tl.sqrt({0})",
    "rsqrt": "(1.0 / tl.sqrt({0}))",
    "abs": "tl.abs({0})",
    "sigmoid": "tl.sigmoid({0})",
    "tanh": "libdevice.tanh({0})",  # 2 * sigmoid(2x) - 1 loses the relative precision of small x
    "erf": "tl.math.erf({0})",
    "reciprocal": "(1.0 / {0})",
    "isnan": "({0} != {0})",
    "sign": "tl.where({0} > 0, 1.0, tl.where({0} < 0, -1.0, 0.0))",  # torch.sign(NaN) is 0 too (LPPool2d)
}
BINARY = {
    "add": "({0} + {1})",
    "sub": "({0} - {1})",
    "mul": "({0} * {1})",
    "div": "({0} / {1})",
    "maximum": "tl.maximum({0}, {1}, propagate_nan=tl.PropagateNan.ALL)",
    "minimum": "tl.minimum({0}, {1}, propagate_nan=tl.PropagateNan.ALL)",
    "eq": "({0} == {1})",
    "ne": "({0} != {1})",
    "lt": "({0} < {1})",
    "le": "({0} <= {1})",
    "gt": "({0} > {1})",
    "ge": "({0} >= {1})",
}
# names a reference prints for float constants (``from math import inf, nan``)
CONSTANT_NAMES = {"inf": "float('inf')", "nan": "float('nan')"}
FLOAT_DTYPES = {"float32", "float16", "bfloat16"}
REDUCTIONS = {
    "sum",
    "amax",
    "amin",
    "mean",
    "var_mean",
    "var",
    "max",
    "min",
    "argmax",
    "argmin",
    "prod",
    "any",
    "all",
    "_softmax",
    "_log_softmax",
    "cumsum",
    "logsumexp",
}


class CannotSynthesize(Exception):
    pass


def full_constant(call: ast.Call, within: list[int] | None = None) -> str | None:
    """The value of ``aten.full.default([], c, ...)`` (a 0-d constant Inductor's graph makes,
    e.g. the 0.0 of logsumexp's guard against an infinite max), or None.  ``within``: a fill of
    a shape that broadcasts to it is the constant too (a hinge loss's zeros of its inputs'
    shape); a larger one is not (it would change the count of a mean over ``within``)."""
    try:
        shape = ast.literal_eval(call.args[0]) if call.args else None
        fits = (
            shape == []
            or within is not None
            and len(shape) <= len(within)
            and broadcast_shapes(shape, within) == within
        )
    except (ValueError, TypeError, CannotSynthesize):
        return None
    if not fits or len(call.args) < 2:
        return None
    return expr(call.args[1], {})


def pow_template(exponent_code: str) -> str:
    """``x ** exponent`` for a constant exponent (``aten.pow.Tensor_Scalar``, e.g. the cube of a
    tanh-GELU written with ``torch.pow(x, 3.0)``; ``exponent_code`` as ``expr`` wrote it), as
    Inductor lowers it: integer exponents as products, 0.5 and -0.5 as square roots; anything
    else (another exponent, a tensor one) is refused (a general ``pow`` of a negative base has no
    closed form here)."""
    try:
        exponent = float(exponent_code)
    except ValueError:
        raise CannotSynthesize(f"aten.pow with exponent {exponent_code}: not a finite constant") from None
    if exponent == int(exponent) and 1 <= abs(exponent) <= 8:
        prod = " * ".join(["{0}"] * int(abs(exponent)))
        return f"({prod})" if exponent > 0 else f"(1.0 / ({prod}))"
    if exponent == 0.5:
        return "tl.sqrt({0})"
    if exponent == -0.5:
        return "(1.0 / tl.sqrt({0}))"
    raise CannotSynthesize(f"aten.pow with exponent {exponent:g}: only integer exponents 1-8 and +-0.5")


def rows_adjacent(inputs: list[dict[str, Any]], S: list[int], d: int) -> bool:
    """Whether a reduction over dim ``d`` of ``S`` reduces a middle dimension of inputs whose rows
    are adjacent in memory: every input of shape ``S`` has stride 1 on its last dim, not on ``d``
    (a load is then coalesced across a program's rows only)."""
    big = [a for a in inputs if list(a.get("shape") or []) == list(S)]
    return d != len(S) - 1 and bool(big) and all(a["stride"][d] != 1 and a["stride"][-1] == 1 for a in big)


def broadcast_shapes(*shapes: list[int]) -> list[int]:
    """The shape ``shapes`` broadcast to (PyTorch's rule, right-aligned); CannotSynthesize when
    they do not broadcast."""
    rank = max(len(s) for s in shapes)
    out = [1] * rank
    for s in shapes:
        for d, size in enumerate(s):
            k = d + rank - len(s)
            if size != 1:
                if out[k] not in (1, size):
                    raise CannotSynthesize(f"shapes {[list(x) for x in shapes]} do not broadcast")
                out[k] = size
    return out


def module_head(attempt: int, what: list[str], origin: str = "eager reference", torch: bool = True) -> list[str]:
    """The first lines of a synthesised candidate module: the docstring that says what made it
    (``origin``: the unit's "eager reference" or its "rewrite") and what it computes (``what``,
    the lines ``classes.py`` reads back), then the imports (``torch`` for a module whose
    ``launch`` allocates a workspace or an intermediate)."""
    return [
        f'"""Synthesised by kernelopt (heuristic backend, attempt {attempt}) from the unit\'s {origin}:',
        *what,
        '"""',
        *(["import torch"] if torch else []),
        "import triton",
        "import triton.language as tl",
    ]


LIBDEVICE = "from torch._inductor.runtime.triton_helpers import libdevice"


def with_libdevice(src: str) -> str:
    """A candidate module's source with libdevice imported where its kernels use it (tanh)."""
    if "libdevice." not in src or LIBDEVICE in src:
        return src
    return src.replace("import triton.language as tl\n", f"import triton.language as tl\n{LIBDEVICE}\n", 1)


def candidate_module(
    attempt: int,
    what: list[str],
    kernel: str,
    contract: Contract,
    body: list[str],
    config: dict[str, int],
    warps: int,
    count: int,
    block_key: str,
    grid: str | None = None,
    helpers: list[str] | None = None,
) -> str:
    """A synthesised candidate in ``inductor.py`` form: the docstring (``what``: the lines that
    say what it computes), ``helpers`` (lines: ``@triton.jit`` functions the kernel calls, e.g. a
    scan's combine function), one ``@triton.jit`` kernel over the contract's tensors with
    ``config``'s keys as constexprs (``body``: its lines, indented), module-level CONFIG /
    NUM_WARPS / NUM_STAGES (so the search can transform it), and ``launch`` with the contract's
    argument names over ``cdiv(count, CONFIG[block_key])`` programs (or ``grid``, an expression
    over ``CONFIG``, for a kernel tiled in several dimensions)."""
    ptrs = [a["name"] for a in contract.args if a["kind"] == "tensor"]
    constexprs = ", ".join(f"{k}: tl.constexpr" for k in config)
    return with_libdevice(
        "\n".join(
            [
                *module_head(attempt, what, torch=False),
                "",
                "",
                *(helpers or []),
                "@triton.jit",
                f"def {kernel}({', '.join(ptrs)}, {constexprs}):",
                *body,
                "",
                "",
                f"CONFIG = {config!r}",
                f"NUM_WARPS = {warps}",
                "NUM_STAGES = 1",
                "",
                "",
                f"def launch({', '.join(a['name'] for a in contract.args)}):",
                f"    {kernel}[({grid or f'triton.cdiv({count}, CONFIG[{block_key!r}])'},)]({', '.join(ptrs)}, "
                "**CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)",
                "",
            ]
        )
    )


def forward_of(reference_src: str) -> tuple[ast.FunctionDef, dict[str, Any]]:
    """The reference's ``Reference.forward`` and constants; CannotSynthesize when it has none."""
    try:
        return reference_forward(reference_src)
    except NoForward as e:
        raise CannotSynthesize(str(e)) from None


def expr(node: ast.AST, env: dict[str, str]) -> str:
    if isinstance(node, ast.Name):
        if node.id not in env:
            if node.id in CONSTANT_NAMES:
                return CONSTANT_NAMES[node.id]
            raise CannotSynthesize(f"unknown value {node.id}")
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Name):
        if node.operand.id == "inf" and "inf" not in env:
            return "float('-inf')"
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return repr(float(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return repr(-float(node.operand.value))
    raise CannotSynthesize(f"unsupported argument {ast.unparse(node)}")


def kernel_reference(
    contract: Contract, reference_src: str
) -> tuple[ast.FunctionDef, dict[str, Any], dict[str, Any], list[str], list[str]]:
    """A kernel-level reference's forward and constants, the contract's arguments by name, the
    input and output names; CannotSynthesize for a graph-level reference or an argument the
    kernel sees through a view of another shape than the reference's value."""
    fwd, consts = forward_of(reference_src)
    if consts.get("LEVEL", "kernel") != "kernel":
        raise CannotSynthesize("the reference is graph-level (the kernel reads a buffer no FX node holds)")
    args = {a["name"]: a for a in contract.args}
    ins, outs = consts["INPUTS"], consts["OUTPUTS"]
    for name in ins + outs:
        ref_shape = consts["SHAPES"].get(name) if name in ins else consts["OUT_SHAPES"].get(name)
        if list(args[name]["shape"]) != list(ref_shape):
            raise CannotSynthesize(f"argument {name} is seen through a view ({args[name]['shape']} vs {ref_shape})")
    return fwd, consts, args, ins, outs


def forward_fn(body: list[ast.stmt], result: list[str]) -> ast.FunctionDef:
    """A forward holding ``body`` that returns the names ``result`` (for ``pointwise_body``):
    a piece of a reference translated on its own."""
    ret = ast.Return(value=ast.Tuple(elts=[ast.Name(id=r, ctx=ast.Load()) for r in result], ctx=ast.Load()))
    fn = ast.FunctionDef(name="forward", args=ast.arguments([], [], None, [], [], None, []), body=[*body, ret])
    fn.decorator_list, fn.returns, fn.type_params = [], None, []
    return copy.deepcopy(fn)


def arg_offset(a: dict[str, Any], idx: list[str]) -> str:
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


def row_tile(lead: list[int], d: int, R: int):
    """The opening lines of a kernel whose program handles ``ROWS`` rows along dimension ``d``
    (the other dimensions, ``lead``, numbered row-major: ``R`` rows): ``rows``, ``rmask`` and each
    row's index ``l<k>`` in every lead dimension; and ``at(col)``, the logical index of every
    dimension with ``col`` at ``d`` (for ``arg_offset``)."""
    body = [
        "    pid = tl.program_id(0).to(tl.int64)",
        "    rows = pid * ROWS + tl.arange(0, ROWS)[:, None]",
        f"    rmask = rows < {R}",
    ]
    lead_idx, rest = [], "rows"
    for k in range(len(lead)):
        inner = int(math.prod(lead[k + 1 :]))
        body.append(f"    l{k} = ({rest}) // {inner}" if inner > 1 else f"    l{k} = {rest}")
        rest = f"rows % {inner}" if inner > 1 else rest
        lead_idx.append(f"l{k}")

    def at(col: str) -> list[str]:
        return lead_idx[:d] + [col] + lead_idx[d:]

    return body, at


def view_strides(old: list[int], strides: list[int], new: list[int]) -> list[int] | None:
    """The strides of ``new``-shaped view of a tensor of shape ``old`` and ``strides``, or None
    where no view has them (PyTorch's ``computeStride``: runs of the old dims that are contiguous
    in memory may be split and merged; nothing else)."""
    if math.prod(old) != math.prod(new) or math.prod(old) == 0:
        return None
    if not old:
        return [1] * len(new)
    out = [0] * len(new)
    view_d, base, t_numel, v_numel = len(new) - 1, strides[-1], 1, 1
    for d in range(len(old) - 1, -1, -1):
        t_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and strides[d - 1] != t_numel * base):
            while view_d >= 0 and (v_numel < t_numel or new[view_d] == 1):
                out[view_d] = v_numel * base
                v_numel *= new[view_d]
                view_d -= 1
            if v_numel != t_numel:
                return None
            if d > 0:
                base, t_numel, v_numel = strides[d - 1], 1, 1
    return out if view_d == -1 else None
