"""Structured source transformations of a candidate in ``inductor.py`` form.

A candidate written by isolate (or derived from one) keeps its launch configuration in
module-level constants: ``CONFIG = {'XBLOCK': 64, ...}``, ``NUM_WARPS``, ``NUM_STAGES``.
Transformations edit those through the AST (never by string replacement on the kernel),
plus keyword edits on ``tl.load`` calls (eviction policy) and on ``tl.load``/``tl.store``
masks (masking simplification when every numel is a multiple of its block), and libdevice calls
written in cheaper forms (``fast_math``).  Every function returns new source text; the input is
never modified.
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from dataclasses import dataclass
from typing import Any

from ..core.outputcode import jit_kernel_names
from ..core.records import Contract
from ..core.roofline import tensor_bytes


class TransformError(ValueError):
    """The transformation does not apply to this source."""


@dataclass
class LaunchParams:
    config: dict[str, int]
    num_warps: int | None
    num_stages: int | None


def _module_assign(tree: ast.Module, name: str) -> ast.Assign | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node
    return None


def launch_params(source: str) -> LaunchParams:
    tree = ast.parse(source)
    cfg = _module_assign(tree, "CONFIG")
    if cfg is None:
        raise TransformError("no module-level CONFIG = {...} (not an inductor.py-form candidate)")
    config = ast.literal_eval(cfg.value)
    warps = _module_assign(tree, "NUM_WARPS")
    stages = _module_assign(tree, "NUM_STAGES")
    return LaunchParams(
        config=dict(config),
        num_warps=ast.literal_eval(warps.value) if warps else None,
        num_stages=ast.literal_eval(stages.value) if stages else None,
    )


def _replace_node_text(source: str, node: ast.AST, text: str) -> str:
    lines = source.splitlines(keepends=True)
    start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    prefix = lines[start][: node.col_offset]
    suffix = lines[end][node.end_col_offset :]
    return "".join(lines[:start]) + prefix + text + suffix + "".join(lines[end + 1 :])


def set_launch(
    source: str, *, config: dict[str, int] | None = None, num_warps: int | None = None, num_stages: int | None = None
) -> str:
    """New values for CONFIG entries (only existing keys), NUM_WARPS and NUM_STAGES."""
    tree = ast.parse(source)
    out = source
    if config:
        node = _module_assign(tree, "CONFIG")
        if node is None:
            raise TransformError("no module-level CONFIG")
        current = ast.literal_eval(node.value)
        unknown = set(config) - set(current)
        if unknown:
            raise TransformError(f"CONFIG has no {sorted(unknown)} (it holds {sorted(current)})")
        current.update(config)
        assumes = _module_assign(tree, "ASSUMES_DIVISIBLE")
        if assumes is not None:  # masks were dropped for these block sizes: keep them exact
            for key, numel in ast.literal_eval(assumes.value).items():
                if key in config and numel % int(config[key]):
                    raise TransformError(
                        f"{key}={config[key]} does not divide {numel}, "
                        "and this kernel's masks were dropped on that assumption"
                    )
        out = _replace_node_text(out, node.value, repr(current))
        tree = ast.parse(out)
    for name, value in (("NUM_WARPS", num_warps), ("NUM_STAGES", num_stages)):
        if value is None:
            continue
        node = _module_assign(tree, name)
        if node is None:
            raise TransformError(f"no module-level {name}")
        out = _replace_node_text(out, node.value, repr(int(value)))
        tree = ast.parse(out)
    return out


def set_eviction(source: str, policy: str | None, *, only: str | None = None) -> str:
    """Set (or with ``None`` remove) ``eviction_policy=`` on every ``tl.load`` (or only on
    those whose current policy is ``only``)."""
    tree = ast.parse(source)
    edits: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "tl.load":
            kw = next((k for k in node.keywords if k.arg == "eviction_policy"), None)
            cur = kw.value.value if kw is not None and isinstance(kw.value, ast.Constant) else None
            if only is not None and cur != only:
                continue
            new = ast.Call(
                func=node.func, args=node.args, keywords=[k for k in node.keywords if k.arg != "eviction_policy"]
            )
            if policy is not None:
                new.keywords.append(ast.keyword(arg="eviction_policy", value=ast.Constant(policy)))
            if ast.dump(new) != ast.dump(node):
                edits.append((node, ast.unparse(new)))
    if not edits:
        raise TransformError("no tl.load to change")
    # apply bottom-up so earlier offsets stay valid
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        source = _replace_node_text(source, node, text)
    return source


MASK_NAMES = {"xmask", "ymask", "r0_mask", "r1_mask", "rmask"}
BLOCK_OF = {"xnumel": "XBLOCK", "ynumel": "YBLOCK", "r0_numel": "R0_BLOCK", "rnumel": "RBLOCK", "r1_numel": "R1_BLOCK"}


# the index-bound masks a block size bounds: a mask may be dropped only when its block divides
# its numel (a persistent reduction's R0_BLOCK is a constant of the kernel's body, not CONFIG's:
# its r0_mask stays)
MASKS_OF = {
    "XBLOCK": {"xmask"},
    "YBLOCK": {"ymask"},
    "R0_BLOCK": {"r0_mask", "rmask"},
    "RBLOCK": {"r0_mask", "rmask"},
    "R1_BLOCK": {"r1_mask"},
}


def _is_bound_mask(node: ast.AST | None, names: set[str] = MASK_NAMES) -> bool:
    """A mask made only of Inductor's index-bound masks among ``names`` (``xmask``,
    ``r0_mask & xmask``)."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        return _is_bound_mask(node.left, names) and _is_bound_mask(node.right, names)
    return False


def drop_masks(source: str, contract: Contract) -> str:
    """Masking simplification: when every numel of the kernel is a multiple of its block
    size, the index-bound masks of ``tl.load``/``tl.store`` are always true: drop them (and
    ``other=``).  Records ``ASSUMES_DIVISIBLE`` so that later block-size edits keep it true.
    Only masks made of the bound masks of blocks checked here are dropped (``MASKS_OF``); a
    mask of a block that is not CONFIG's (a persistent reduction's R0_BLOCK), and data-dependent
    masks, stay."""
    params = launch_params(source)
    jit = jit_kernel_names(source)
    if len(jit) > 1:
        raise TransformError(
            f"{len(jit)} kernels in the module (a fused unit's Inductor pair): "
            "CONFIG's block sizes do not bound the others' masks"
        )
    scal = {a["name"]: a.get("value") for a in contract.args if a["kind"] == "scalar"}
    assumes: dict[str, int] = {}
    for numel, block in BLOCK_OF.items():
        if block in params.config:
            n = scal.get(numel)
            if not isinstance(n, int):
                raise TransformError(f"{numel} is not a known constant of the contract")
            if n % int(params.config[block]):
                raise TransformError(
                    f"{block}={params.config[block]} does not divide {numel}={n}: the masks are needed"
                )
            assumes[block] = n
    if not assumes:
        raise TransformError("no Inductor block sizes (XBLOCK, R0_BLOCK, ...) in CONFIG")
    droppable = set().union(*(MASKS_OF[b] for b in assumes if b in MASKS_OF))
    tree = ast.parse(source)
    edits: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = ast.unparse(node.func)
        if fn not in ("tl.load", "tl.store"):
            continue
        pos = 1 if fn == "tl.load" else 2
        args, kws = list(node.args), list(node.keywords)
        changed = False
        if len(args) > pos and _is_bound_mask(args[pos], droppable):
            if len(args) > pos + 1:
                continue  # positional arguments after the mask: leave the call alone
            args = args[:pos]
            changed = True
        km = next((k for k in kws if k.arg == "mask"), None)
        if km is not None and _is_bound_mask(km.value, droppable):
            kws.remove(km)
            changed = True
        if changed:
            kws = [k for k in kws if k.arg != "other"]
            edits.append((node, ast.unparse(ast.Call(func=node.func, args=args, keywords=kws))))
    if not edits:
        raise TransformError("no tl.load/tl.store with an index-bound mask")
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        source = _replace_node_text(source, node, text)
    cfg = _module_assign(ast.parse(source), "CONFIG")
    line = cfg.end_lineno or cfg.lineno
    lines = source.splitlines(keepends=True)
    lines.insert(line, f"ASSUMES_DIVISIBLE = {assumes!r}  # masks dropped: each block size must divide its numel\n")
    return "".join(lines)


# libdevice's accurate functions and the cheaper forms ``fast_math`` writes instead: Triton's
# own exp and log (one ex2/lg2.approx after a multiply) and tanh through one exp and one
# division.  Their error is a few units in the last place of the result's magnitude (tanh and
# expm1 near 0, log1p of tiny values: an absolute error of ~1e-7), far inside gate 2's and gate
# 3's tolerances; the gates still decide.
FAST_MATH = {
    "libdevice.tanh": "(1.0 - 2.0 / (tl.exp(2.0 * ({0})) + 1.0))",
    "libdevice.exp": "tl.exp({0})",
    "libdevice.expm1": "(tl.exp({0}) - 1.0)",
    "libdevice.log": "tl.log({0})",
    "libdevice.log1p": "tl.log(1.0 + ({0}))",
}


def _math_calls(tree: ast.Module) -> list[ast.Call]:
    """The calls of ``FAST_MATH`` functions inside the module's Triton kernels, innermost first
    (a call that holds another comes after it)."""
    jit = set(jit_kernel_names(ast.unparse(tree)))
    out = []
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name in jit:
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Call)
                    and ast.unparse(node.func) in FAST_MATH
                    and len(node.args) == 1
                    and not node.keywords
                ):
                    out.append(node)
    return sorted(out, key=lambda n: sum(1 for _ in ast.walk(n)))


def fast_math_calls(source: str) -> list[str]:
    """The libdevice functions of the source's Triton kernels that ``fast_math`` would make
    cheaper, one entry per call (an empty list when none, or when the source does not parse)."""
    try:
        return [ast.unparse(n.func) for n in _math_calls(ast.parse(source))]
    except SyntaxError:
        return []


def fast_math(source: str) -> str:
    """Cheaper math: every ``FAST_MATH`` call in the Triton kernels written in its cheaper form
    (nested calls from the inside out).  For a kernel whose arithmetic, not its memory, is the
    limit: libdevice's tanh and exp are 9 and 4 instructions an element more than these forms
    (conv + GroupNorm + tanh + LogSumExp's apply kernel, compiled for sm_90: 576 -> 472)."""
    if not fast_math_calls(source):
        raise TransformError(f"no {', '.join(sorted(FAST_MATH))} call in the kernels")
    while calls := _math_calls(ast.parse(source)):
        node = calls[0]
        arg = ast.get_source_segment(source, node.args[0])
        source = _replace_node_text(source, node, FAST_MATH[ast.unparse(node.func)].format(arg))
    return source


PROGRAMS_NOTE = "persistent grid: programs launched, each looping over blocks of XBLOCK (grid-stride)"


def _launched_kernel(source: str, tree: ast.Module) -> ast.FunctionDef:
    """The module's one ``@triton.jit`` kernel (the one ``launch`` launches)."""
    jit = jit_kernel_names(source)
    if len(jit) != 1:
        raise TransformError(f"{len(jit)} jit kernels in the module: a persistent grid needs exactly one")
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == jit[0])


def _launch_subscript(tree: ast.Module, kernel: str) -> ast.Subscript:
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "launch"), None)
    subs = [
        n
        for n in (ast.walk(fn) if fn is not None else [])
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == kernel
    ]
    if len(subs) != 1:
        raise TransformError(f"launch() does not launch {kernel}[grid](...) exactly once")
    return subs[0]


def _targets(node: ast.AST) -> list[ast.Name]:
    """Names an assignment (plain, augmented, annotated) or a for loop binds."""
    if isinstance(node, ast.Assign):
        tops = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
        tops = [node.target]
    else:
        return []
    return [n for t in tops for n in ast.walk(t) if isinstance(n, ast.Name)]


def _blocks_kernel(source: str, tree: ast.Module) -> tuple[ast.FunctionDef, list[ast.Call]]:
    """The module's kernel, if it is one of blocks of XBLOCK over xnumel on a 1-D grid, and its
    ``tl.program_id(0)`` calls (set_programs and set_swizzle re-map them)."""
    if "XBLOCK" not in launch_params(source).config:
        raise TransformError("no XBLOCK in CONFIG: not a kernel of blocks over xnumel")
    kernel = _launched_kernel(source, tree)
    if "xnumel" not in [a.arg for a in kernel.args.args]:
        raise TransformError("the kernel takes no xnumel")
    pids = [
        n
        for n in ast.walk(kernel)
        if isinstance(n, ast.Call) and ast.unparse(n.func) in ("tl.program_id", "tl.num_programs")
    ]
    if not pids or any(ast.unparse(n) != "tl.program_id(0)" for n in pids):
        raise TransformError("the kernel does not read exactly tl.program_id(0) (a 2-D grid, or a persistent one)")
    return kernel, pids


def set_programs(source: str, programs: int) -> str:
    """Programs per SM as a knob: the kernel becomes persistent over a capped 1-D grid.

    The first time, the body of a kernel whose only program id is ``tl.program_id(0)`` and whose
    blocks are ``XBLOCK`` elements of ``xnumel`` is wrapped in a grid-stride loop (``for pid in
    tl.range(tl.program_id(0), cdiv(xnumel, XBLOCK), tl.num_programs(0))``, the statements before
    the first use of the program id, Inductor's constants, hoisted out of it), and ``launch`` caps
    the x of the grid at the module-level ``PROGRAMS``.  On such a kernel, only ``PROGRAMS``
    changes.  Gates 1-2 judge the result as any other candidate."""
    programs = int(programs)
    if programs < 1:
        raise TransformError("PROGRAMS must be at least 1")
    tree = ast.parse(source)
    node = _module_assign(tree, "PROGRAMS")
    if node is not None:
        if ast.literal_eval(node.value) == programs:
            raise TransformError(f"PROGRAMS is already {programs}")
        return _replace_node_text(source, node.value, repr(programs))
    kernel, pids = _blocks_kernel(source, tree)
    names = [a.arg for a in kernel.args.args]
    if any(isinstance(n, (ast.Return, ast.FunctionDef)) for b in kernel.body for n in ast.walk(b)):
        raise TransformError("a return (or nested function) in the kernel: its body cannot become a loop body")
    first = next(i for i, st in enumerate(kernel.body) if any(n in pids for n in ast.walk(st)))
    # a name the loop body assigns that the prologue (or the kernel's arguments) already holds
    # would carry one iteration's value into the next (an accumulator, an advanced pointer)
    before = set(names) | {t.id for st in kernel.body[:first] for n in ast.walk(st) for t in _targets(n)}
    carried = sorted(before & {t.id for st in kernel.body[first:] for n in ast.walk(st) for t in _targets(n)})
    if carried:
        raise TransformError(f"the body reassigns {carried}, set before it: a grid-stride loop would carry them over")
    sub = _launch_subscript(tree, kernel.name)
    if sub.lineno - 1 < kernel.body[-1].lineno:
        raise TransformError("launch() comes before the kernel")
    # the launch first (it lies below the kernel, so the kernel's lines keep their numbers)
    seg = ast.get_source_segment(source, sub.slice) or ast.unparse(sub.slice)
    source = _replace_node_text(source, sub.slice, f"_capped({seg})")
    lines = source.splitlines(keepends=True)
    body_start, body_end = kernel.body[first].lineno - 1, kernel.body[-1].end_lineno or kernel.body[-1].lineno
    indent = " " * kernel.body[first].col_offset
    loop = (
        f"{indent}for _kpid in tl.range(tl.program_id(0), tl.cdiv(xnumel, XBLOCK), tl.num_programs(0)):"
        f"  # {PROGRAMS_NOTE}\n"
    )
    body = "".join(lines[body_start:body_end]).replace("tl.program_id(0)", "_kpid")
    body = "".join(("    " + l if l.strip() else l) for l in body.splitlines(keepends=True))
    lines[body_start:body_end] = [loop, body]
    out = "".join(lines)
    # after the launch constants (CONFIG, NUM_WARPS, NUM_STAGES, ASSUMES_DIVISIBLE)
    at = max(
        n.end_lineno or n.lineno
        for n in ast.parse(out).body
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id in (*LAUNCH_GLOBALS, "ASSUMES_DIVISIBLE") for t in n.targets)
    )
    outl = out.splitlines(keepends=True)
    outl[at:at] = [
        f"PROGRAMS = {programs}  # {PROGRAMS_NOTE}\n",
        "\n",
        "\n",
        "def _capped(g):\n",
        "    return (min(int(g[0]), PROGRAMS), *g[1:])\n",
    ]
    out = "".join(outl)
    try:
        ast.parse(out)
    except SyntaxError as e:
        raise TransformError(f"the persistent form does not parse: {e}") from None
    return out


SWIZZLE_NOTE = "blocks re-ordered: the programs in flight share one chunk of the broadcast operand"
# a broadcast operand's period (the elements between two reads of one of its values, over every
# stream the kernel touches) from which block order matters: below it, the operand stays in the
# H200's 60 MiB L2 (core/hardware.py) between its reads whatever the order
SWIZZLE_MIN_PERIOD_BYTES = 16 << 20


def broadcast_period(source: str, contract: Contract) -> dict[str, Any] | None:
    """A pointwise kernel that reads an operand of K elements at ``xindex % K`` (a weight over the
    trailing dims of a normalization, a bias over rows) re-reads it once per row of K outputs.
    Where one row's traffic is larger than the L2, every re-read comes from DRAM (bench/README.md,
    "The block order").  Returns {"rows", "period", "operands", "period_bytes"} for the largest
    such K, or None."""
    try:
        tree = ast.parse(source)
        kernel = _launched_kernel(source, tree)
        config = launch_params(source).config
    except (SyntaxError, TransformError, ValueError, TypeError):  # e.g. a free-form candidate: no CONFIG
        return None
    scal = {a["name"]: a.get("value") for a in contract.args if a.get("kind") == "scalar"}
    xn = scal.get("xnumel")
    if not isinstance(xn, int) or "r0_numel" in scal or "XBLOCK" not in config:
        return None
    mods: dict[str, int] = {}  # name -> K of ``name = xindex % K``
    for n in ast.walk(kernel):
        v = n.value if isinstance(n, ast.Assign) and len(n.targets) == 1 else None
        if (
            isinstance(v, ast.BinOp)
            and isinstance(v.op, ast.Mod)
            and isinstance(v.left, ast.Name)
            and v.left.id == "xindex"
            and isinstance(v.right, ast.Constant)
            and isinstance(v.right.value, int)
            and isinstance(n.targets[0], ast.Name)
        ):
            mods[n.targets[0].id] = v.right.value
    tensors = {a["name"]: a for a in contract.args if a.get("kind") == "tensor"}
    by_k: dict[int, list[str]] = {}
    for n in ast.walk(kernel):
        if not (isinstance(n, ast.Call) and ast.unparse(n.func) == "tl.load" and n.args):
            continue
        names = {m.id for m in ast.walk(n.args[0]) if isinstance(m, ast.Name)}
        ptrs = [m for m in names if m in tensors]
        ks = {mods[m] for m in names if m in mods}
        if len(ptrs) == 1 and len(ks) == 1 and names <= {ptrs[0], *mods}:
            k = ks.pop()
            if 1 < k < xn and xn % k == 0 and math.prod(tensors[ptrs[0]].get("shape") or [1]) == k:
                by_k.setdefault(k, []).append(ptrs[0])
    if not by_k:
        return None
    k = max(by_k)
    operands = sorted(set(by_k[k]))
    # one row of K outputs: every full-size stream's K elements plus the broadcast operands
    full = sum(tensor_bytes(a) for a in tensors.values() if math.prod(a.get("shape") or [1]) == xn)
    period_bytes = full // (xn // k) + sum(tensor_bytes(tensors[p]) for p in operands)
    return {"rows": xn // k, "period": k, "operands": operands, "period_bytes": period_bytes}


def set_swizzle(source: str, rows: int) -> str:
    """Block order as a knob: program ``p`` of a 1-D grid of ``nb`` blocks of XBLOCK takes block
    ``(p % rows) * (nb // rows) + p // rows`` (the tail past ``rows * (nb // rows)`` in order), a
    permutation of the blocks, so the ``rows`` programs launched together cover the same offset
    of each of ``rows`` equal parts of the output: for an operand read at ``xindex % K`` with
    ``rows = xnumel / K``, one chunk of it serves them all from L2.  Gates 1-2 judge the result."""
    rows = int(rows)
    if rows < 2:
        raise TransformError("a swizzle needs at least 2 rows")
    if SWIZZLE_NOTE in source:
        raise TransformError("the blocks are already re-ordered")
    tree = ast.parse(source)
    if _module_assign(tree, "PROGRAMS") is not None:
        raise TransformError("a persistent kernel: its programs do not map to one block each")
    kernel, pids = _blocks_kernel(source, tree)
    first = next(i for i, st in enumerate(kernel.body) if any(n in pids for n in ast.walk(st)))
    lines = source.splitlines(keepends=True)
    start, end = kernel.body[first].lineno - 1, kernel.body[-1].end_lineno or kernel.body[-1].lineno
    indent = " " * kernel.body[first].col_offset
    head = [
        f"{indent}_kper = tl.cdiv(xnumel, XBLOCK) // {rows}  # {SWIZZLE_NOTE} ({rows} rows)\n",
        f"{indent}_kp = tl.program_id(0)\n",
        f"{indent}_kp = tl.where(_kp < _kper * {rows}, (_kp % {rows}) * _kper + _kp // {rows}, _kp)\n",
    ]
    body = "".join(lines[start:end]).replace("tl.program_id(0)", "_kp")
    lines[start:end] = [*head, body]
    out = "".join(lines)
    try:
        ast.parse(out)
    except SyntaxError as e:
        raise TransformError(f"the re-ordered kernel does not parse: {e}") from None
    return out


def swizzle_of(source: str) -> int | None:
    """The rows of a kernel's block re-ordering (set_swizzle), None if it has none."""
    m = re.search(r"_kp // (\d+), _kp\)", source) if SWIZZLE_NOTE in source else None
    return int(m.group(1)) if m else None


def programs_of(source: str) -> int | None:
    """The persistent grid's ``PROGRAMS`` (None: not persistent)."""
    try:
        node = _module_assign(ast.parse(source), "PROGRAMS")
    except SyntaxError:
        return None
    return ast.literal_eval(node.value) if node is not None else None


def retitle(source: str, note: str) -> str:
    """Prepend a comment saying how this candidate was derived."""
    return "".join(f"# kernelopt: {line}\n" for line in note.splitlines()) + source


def describe(params: LaunchParams) -> str:
    parts = [f"{k}={v}" for k, v in sorted(params.config.items())]
    if params.num_warps is not None:
        parts.append(f"num_warps={params.num_warps}")
    if params.num_stages is not None:
        parts.append(f"num_stages={params.num_stages}")
    return ", ".join(parts)


def apply(source: str, direction: dict[str, Any], contract: Contract | None = None) -> str:
    """Apply one planner direction (data, see agents.base.Direction) to a candidate's source."""
    kind = direction["kind"]
    args = direction.get("args", {})
    if kind == "launch":
        return set_launch(
            source, config=args.get("config"), num_warps=args.get("num_warps"), num_stages=args.get("num_stages")
        )
    if kind == "eviction":
        return set_eviction(source, args.get("policy"), only=args.get("only"))
    if kind == "programs":
        return set_programs(source, int(args["programs"]))
    if kind == "swizzle":
        return set_swizzle(source, int(args["rows"]))
    if kind == "drop-masks":
        if contract is None:
            raise TransformError("drop-masks needs the unit's contract")
        return drop_masks(source, contract)
    if kind == "fast-math":
        return fast_math(source)
    raise TransformError(f"unknown direction kind {kind!r}")


def is_inductor_form(source: str) -> bool:
    """Whether the AST transforms apply: a module-level CONFIG / NUM_WARPS / NUM_STAGES."""
    try:
        launch_params(source)
    except (TransformError, SyntaxError, ValueError):
        return False
    return True


LAUNCH_GLOBALS = ("CONFIG", "NUM_WARPS", "NUM_STAGES")


def signature(source: str) -> str:
    """Launch parameters + eviction policies + a hash of the kernel code: what makes two
    candidates differ (two kernels with the same launch are different candidates).  A
    free-form candidate (no module-level CONFIG, e.g. written by an LLM) is told apart by a
    hash of its whole module, launch code included; one that does not parse by its text."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return f"does not parse; text={hashlib.sha256(source.encode()).hexdigest()[:8]}"
    try:
        launch = describe(launch_params(source))
        # the kernels, the module-level values they read (Helion's block sizes are constexpr
        # globals) and the launch (its grid): not CONFIG / NUM_WARPS / NUM_STAGES, in ``launch``
        kernels = [
            ast.unparse(n)
            for n in tree.body
            if (isinstance(n, ast.FunctionDef) and (n.decorator_list or n.name == "launch"))
            or (
                isinstance(n, ast.Assign)
                and not any(isinstance(t, ast.Name) and t.id in LAUNCH_GLOBALS for t in n.targets)
            )
        ]
    except (TransformError, ValueError, TypeError):  # no CONFIG, or one that is not a literal
        launch = "free-form launch"
        kernels = [ast.unparse(tree)]  # comments and formatting do not count
    body = hashlib.sha256("\n".join(kernels).encode()).hexdigest()[:8]
    ev = sorted(
        {
            k.value.value
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and ast.unparse(n.func) == "tl.load"
            for k in n.keywords
            if k.arg == "eviction_policy" and isinstance(k.value, ast.Constant)
        }
    )
    return f"{launch}; eviction={','.join(ev) or 'default'}; kernel={body}"
