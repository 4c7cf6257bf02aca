"""Synthesis of row kernels: pointwise ops mixed with reductions over one dimension
(softmax, log-softmax, layernorm, RMSNorm, sum/mean/amax/amin/prod, var_mean, logsumexp as Inductor
decomposes it, Inductor's ``prepare_softmax_online``), generated from the unit's eager reference.

The model: the unit's largest tensor has shape ``S``; every reduction reduces the same dimension
``d`` of it (the last by default), of size ``N``: the columns.  The other dimensions are the
``R = numel / N`` independent rows, numbered in row-major order of the remaining dimensions; a
reduction over a middle dimension (a sum over dim 1 of ``[A, N, B]``) loads its rows and columns
with the tensors' strides; its rows are adjacent in memory, so a program takes many of them
(``STRIDED_*``: each load coalesced across rows, the row walked in narrow chunks when every
output is a value per row).  One program handles ``ROWS`` rows and holds each row whole in registers
(``BLOCK_N = next_pow2(N)``, up to ``MAX_BLOCK_N``).  Longer rows get the looped variant:
the row is walked in chunks of ``BLOCK_N`` columns, one pass per reduction (each pass
recomputes the element-wise values it needs from the loads and accumulates the reduction
per row), then a last pass computes and stores the element-wise outputs.  On a GPU, some
attempts (``TEAM_ATTEMPTS``) split such a row over a team of programs instead: each holds its
part in registers, the team exchanges each reduction's partials through a zeroed workspace (a
ticket taken with ``atomic_add``, the parts combined in a fixed order: the same bits on every
run), and every program writes its part from registers, so the row is read once; where a
row's columns lie apart in memory and consecutive rows are adjacent (a channel of a
channels-last tensor), a member holds several rows (``TEAM_ROWS``) and publishes a partial per
row.  Other attempts (``SPLIT_ATTEMPTS``, any device) split the row the same way over two
launches where its reductions are one round: the first publishes the parts' partials, the
second combines them and writes (the row read twice, no program waiting for another).  A unit
whose first row dimension alone indexes an argument (a scale per sample and channel) gets a 2-D
grid: a program's rows share that index and the argument is one load of its columns.  Two
reductions that one round can serve share it: a mean and the variance about it (each member
publishes its part's sum and its squares about its own mean, combined by Chan's formula) and a
max and the sum of ``exp`` about it (each member's max and its sum about that, rescaled to the
row's max), as var_mean and softmax decompose; the values they combine are scalars (as [1, 1]
tensors of the partials' layout Triton once moved the whole row part through shared memory,
``tests/conftest.py: sm90_kernels`` checks the compiled code).  Every value
of the reference is either a
full tile ``[ROWS, BLOCK_N]``, a per-row value ``[ROWS, 1]`` (a reduction, keepdim or not, or a
value per row of another grouping of the rows: an InstanceNorm1d's ``[N*C, 1]`` weight), a
per-column value ``[1, BLOCK_N]`` (a weight of shape ``[N]``) or a constant.  Padding
columns are replaced by the reduction's neutral element before every reduction, so masking
never changes a result.  Values are computed in float32 and cast on store.

An argument read through a permute (a transpose before a norm) is indexed with its permuted
strides, and the unit's shape is the permuted view's.  Several reduced dims are folded into one
column index (``Fold``): where a tensor is not contiguous across them (a channels-last
convolution's output) or varies along only part of them (a per-channel weight inside a group
norm's group), each folded dim's index is a term of its own (``Terms``); reduced dims that are
not adjacent (a mean over dims 0, 2 and 3) are moved after the others.  Reductions over a view
that regroups the unit's values (a group norm's [N, G, C/G, H*W] of [N, C, H, W]) are
synthesized in the common refinement of both shapes; an argument's views (reshape, unsqueeze,
``repeat``: an instance norm's weight per sample, ``Rep``) are computed on its own strides.
Anything outside that model (reductions over different dimensions, views that move the reduced
dimension, integer outputs, graph-level references) raises ``CannotSynthesize`` with the reason.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, replace
from typing import Any

from ...core.outputcode import names_in, renamed
from ...core.records import Contract
from .ops import (
    BINARY,
    CONSTANT_NAMES,
    FLOAT_DTYPES,
    UNARY,
    CannotSynthesize,
    broadcast_shapes,
    candidate_module,
    expr,
    forward_of,
    full_constant,
    module_head,
    pow_template,
    rows_adjacent,
    view_strides,
    with_libdevice,
)

MAX_BLOCK_N = 32768
NEG_INF = "float('-inf')"
LOOPED = (
    "each row walked in chunks of BLOCK_N columns: one pass per depth of reductions, "
    "then one pass for the element-wise outputs"
)
# (elements one program holds, elements per thread) per attempt: ROWS and num_warps follow
ATTEMPTS = [(8192, 16), (16384, 16), (4096, 8), (32768, 32)]
# looped variant, per attempt: (rows per program, chunk of columns per pass, num_warps)
LOOPED_ATTEMPTS = [(1, 4096, 8), (1, 8192, 16), (1, 2048, 4), (2, 4096, 16)]
# a reduction over a middle dimension whose rows are adjacent in memory (a min over dim 1 of
# [A, N, B], B contiguous): a load is coalesced across a program's rows only, and ROWS of 1-2
# read 4-8 bytes of each 32-byte sector (that min on the H100: 3.3x Inductor's time).  Per
# attempt, (rows per program, columns per pass, num_warps) where one pass reads the row (every
# output a value per row), and the rows held whole (one read) otherwise, at least 8 (a sector):
STRIDED_ONE_PASS = [(64, 32, 8), (32, 64, 8), (128, 16, 8), (16, 128, 4)]
STRIDED_WHOLE = [(8, 16), (16, 16), (32, 32), (8, 8)]  # (rows at least, elements per thread)
STRIDED_MAX_ELEMS = 32768  # whole rows beyond this many elements a program: the looped tile
# the team variant of rows too long for one program (GPU only), per attempt that tries it:
# (columns each program of the team holds in registers, num_warps)
TEAM_ATTEMPTS = {0: (8192, 4), 2: (16384, 8)}
# a team's rows when consecutive rows are adjacent in memory (an instance norm of a channels-last
# convolution's output: a row is a channel, its columns 64 elements apart): ROWS of them per
# member for every 8192 elements it holds, so a load reads whole 32-byte sectors (8 rows: 0.969x
# Inductor's time on the H100, one row: 2.25x); at most this many members in a team (they must
# run side by side: one program per SM of the H100/H200's 132 is enough)
TEAM_ROWS, TEAM_MAX_T = 8, 64
# the split variant of rows too long for one program, on any device, where the unit's reductions
# are one round of exchange (a var_mean, a softmax's max and sum, one sum): per attempt that
# tries it, (columns a program holds, num_warps).  The team's members in two launches: the first
# publishes each part's partials, the second combines them in member order and writes its part
# (the row is read twice, as by Inductor's split reduction, but no program waits for another)
# (the GELU + GroupNorm region of 532,512-value groups on the H100: 2,048 columns and 8 warps
# 0.773 ms, 1,024 and 2 warps 0.834 ms, 8,192 and 8 warps 1.05 ms; Inductor's three kernels
# 0.807 ms in the pipeline's capture; the best team 0.917 ms; bench/README.md)
SPLIT_ATTEMPTS = {1: (2048, 8), 3: (1024, 2)}
# a unit whose first row dimension alone indexes an argument (``_outer_split``): programs take
# their rows within one value of it, where that value holds this many programs' rows at least
OUTER_MIN_PROGRAMS = 8
DIFFERENT_DIMS = "reductions over different dimensions"  # (generate.py then tries a chain)
SPLIT_ROUND = "# (the parts' partials: published by synth_part, whose launch has ended)"
OUTER_WHY = "an argument indexed by it alone is loaded once per program"
TEAM_ZERO = [  # the kernel that zeroes a team's tickets and counts
    "@triton.jit",
    "def synth_team_zero(ws_i, n, BLOCK: tl.constexpr):",
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
    "    tl.store(ws_i + offs, tl.zeros([BLOCK], tl.int32), mask=offs < n)",
]
COMBINE = {
    "tl.sum": "{acc} + {part}",
    "tl.max": "tl.maximum({acc}, {part})",
    "tl.min": "tl.minimum({acc}, {part})",
    "tl.prod": "{acc} * {part}",
}
VIEW_OPS = {"view", "reshape", "_unsafe_view", "clone", "alias"}
REGROUPS = VIEW_OPS | {"as_strided", "unsqueeze", "squeeze"}  # views that keep a value's element order
REDUCE = {
    "sum": ("tl.sum", "0.0"),
    "mean": ("tl.sum", "0.0"),
    "amax": ("tl.max", "float('-inf')"),
    "amin": ("tl.min", "float('inf')"),
    "prod": ("tl.prod", "1.0"),  # Triton has no tl.prod: _reduce_call writes it
}


_NAME = re.compile(r"\b([tv]\d+)\b")


def _reduce_call(fn: str, x: str) -> str:
    """``fn`` of the tile ``x`` along its columns.  A product is the last column of the running
    product (padding columns hold 1, the neutral element, so that column is the whole row's)."""
    if fn == "tl.prod":
        return f"tl.sum(tl.where(tl.arange(0, BLOCK_N)[None, :] == BLOCK_N - 1, tl.cumprod({x}, 1), 0.0), 1)"
    return f"{fn}({x}, 1)"


def _keep(shape: list[int], dim: int) -> list[int]:
    """``shape`` with dimension ``dim`` reduced to 1 (a keepdim reduction's shape)."""
    return shape[:dim] + [1] + shape[dim + 1 :]


@dataclass(frozen=True)
class Rep:
    """The stride of a dim of a repeated argument (an instance norm's weight repeated for each
    sample, ``repeat(w, [N])``): index ``i`` reads element ``i % period`` at ``stride``."""

    period: int
    stride: int

    def index(self, idx: str) -> str:
        return f"({idx} % {self.period})" + (f" * {self.stride}" if self.stride != 1 else "")


class Terms(tuple):
    """The column index of an argument folded over several dims that it is not contiguous
    across, or that it varies along only part of: one ``(inner, size, stride)`` per dim it
    varies along (the dim's index is ``(cols // inner) % size``); ``broadcast`` holds the
    ``(inner, size)`` of the folded dims it is constant along (a per-channel weight inside a
    group norm's group).  A value loaded through such an argument is ``partial`` when it has
    any: reducing it over the folded columns would count it once per broadcast element."""

    broadcast: tuple[tuple[int, int], ...] = ()

    @property
    def partial(self) -> bool:
        return bool(self.broadcast)

    def index(self) -> str:
        return " + ".join(_term("cols", inner, size, stride) for inner, size, stride in self)

    def first(self) -> str:
        """True at one column of each run of columns holding the same element (stores)."""
        return " & ".join(f"({_term('cols', inner, size, 1)} == 0)" for inner, size in self.broadcast)


def _term(cols: str, inner: int, size: int, stride: int) -> str:
    idx = f"({cols} // {inner})" if inner > 1 else cols
    idx = f"({idx} % {size})"
    return idx if stride == 1 else f"{idx} * {stride}"


def _merged(terms: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Adjacent ``(inner, size, stride)`` index terms that are one run of columns and of memory
    ([H, W] of a channels-last tensor) as one term."""
    out: list[tuple[int, int, int]] = []
    for i, n, t in terms:
        if out and out[-1][0] == i * n and out[-1][2] == t * n:
            out[-1] = (i, out[-1][1] * n, t)
        else:
            out.append((i, n, t))
    return out


class Fold:
    """Adjacent reduced dimensions ``run`` of the unit's shape ``S`` seen as one: every shape,
    right-aligned to ``S``, has them all of ``S``'s sizes (folded to their product) or all 1
    (folded to 1); a shape of ``S``'s rank may also have some of them 1 and the others
    ``S``'s (a per-channel value inside a group: folded to the product, indexed by ``Terms``).
    An argument contiguous across them is folded to the innermost stride, any other to
    ``Terms``: each folded dim's index from the column, times its stride."""

    def __init__(self, S: list[int], run: tuple[int, ...], order: list[int] | None = None):
        """``order``: the folded dims' positions in ``run`` from the slowest column index to the
        fastest (None: as they are, the last fastest)."""
        self.rank, self.run = len(S), run
        if list(run) != list(range(run[0], run[-1] + 1)):
            raise CannotSynthesize(f"a reduction over dims {list(run)}: only adjacent dimensions are folded into one")
        self.full = [S[d] for d in run]
        order = list(order or range(len(run)))
        self.natural = order == list(range(len(run)))
        self.inner = [math.prod(self.full[j] for j in order[order.index(i) + 1 :]) for i in range(len(run))]

    def _split(self, shape: list[int]) -> tuple[int, int]:
        """(first folded position, one past it) in ``shape``, right-aligned to the unit's shape."""
        pad = self.rank - len(shape)
        return max(self.run[0] - pad, 0), max(self.run[-1] + 1 - pad, 0)

    def _partial(self, shape: list[int]) -> bool:
        lo, hi = self._split(list(shape))
        return len(shape) == self.rank and all(x in (1, f) for x, f in zip(shape[lo:hi], self.full))

    def _padded(self, shape: list[int]) -> list[int] | None:
        """An input's shape of lower rank, right-aligned to the unit's (as a pointwise op
        broadcasts it) where it then varies along part of the folded dims ([6] in a LayerNorm
        over [4, 5, 6])."""
        padded = [1] * (self.rank - len(shape)) + list(shape)
        return padded if len(shape) < self.rank and self._partial(padded) else None

    def shape(self, shape: list[int], strict: bool = True, pad: bool = False) -> list[int]:
        """``shape`` folded; one that does not fold raises (``strict``) or is left as it is (an
        argument's own shape, used only through a view that folds); ``pad``: an input's."""
        if pad and (padded := self._padded(shape)) is not None:
            shape = padded
        lo, hi = self._split(list(shape))
        if hi == 0:
            return list(shape)
        part = list(shape[lo:hi])
        if all(x == 1 for x in part):
            return list(shape[:lo]) + [1] + list(shape[hi:])
        if part == self.full or self._partial(shape):
            return list(shape[:lo]) + [math.prod(self.full)] + list(shape[hi:])
        if not strict:
            return list(shape)
        whole = self.full[len(self.full) - len(part) :]
        raise CannotSynthesize(
            f"a value of shape {list(shape)} varies along part of the reduced dims {list(self.run)} ({part} vs {whole})"
        )

    def strides(self, shape: list[int], stride: list[int], pad: bool = False) -> tuple[list[int], list[Any]] | None:
        """(folded shape, folded strides) of a tensor, or None where its shape does not fold."""
        if pad and (padded := self._padded(shape)) is not None:
            shape, stride = padded, [0] * (len(padded) - len(shape)) + list(stride)
        lo, hi = self._split(list(shape))
        if hi == 0:
            return list(shape), list(stride)
        part, st = list(shape[lo:hi]), list(stride[lo:hi])
        folded = self.shape(shape, strict=False)
        whole = part == self.full
        if all(x == 1 for x in part) or (
            whole
            and self.natural
            and all(st[k] == st[k + 1] * part[k + 1] for k in range(len(part) - 1) if part[k] != 1 and part[k + 1] != 1)
        ):
            return folded, list(stride[:lo]) + [st[-1]] + list(stride[hi:])
        if not whole and not self._partial(shape):
            return None
        terms = Terms(_merged([(i, n, t) for i, n, t, x in zip(self.inner, self.full, st, part) if x != 1]))
        terms.broadcast = tuple(
            (i, n)
            for i, n, _ in _merged([(i, n, 0) for i, n, x in zip(self.inner, self.full, part) if x == 1 and n != 1])
        )
        return folded, list(stride[:lo]) + [terms] + list(stride[hi:])

    def arg(self, a: dict[str, Any]) -> dict[str, Any]:
        if a.get("kind", "tensor") != "tensor" or not a.get("shape"):
            return a
        got = self.strides(list(a["shape"]), list(a["stride"]), pad=a.get("access") == "read")
        return a if got is None else {**a, "shape": got[0], "stride": got[1]}

    def consts(self, consts: dict[str, Any]) -> dict[str, Any]:
        return {
            **consts,
            "SHAPES": {k: self.shape(v, strict=False, pad=True) for k, v in consts["SHAPES"].items()},
            "OUT_SHAPES": {k: self.shape(v, strict=False) for k, v in consts["OUT_SHAPES"].items()},
        }

    def dims(self, dims: list[int], folded: list[int]) -> list[int]:
        """A reduction's dims of the unfolded value, in the folded one (``folded``: the value's
        folded shape; dims of size 1 there are left out: reducing them changes nothing)."""
        squeeze = len(self.run) - 1
        kept = []
        for d in sorted({x % self.rank for x in dims}):
            if d in self.run:
                kept.append(d)
            elif folded[d if d < self.run[0] else d - squeeze] != 1:
                kept.append(d)
        if kept == list(self.run):
            return [self.run[0]]
        raise CannotSynthesize(f"a reduction over dims {dims} in a unit folded over {list(self.run)}")


def _column_order(contract: Contract, consts: dict[str, Any], S: list[int], run: tuple[int, ...]) -> list[int] | None:
    """The folded dims' order in the column index (slowest first) that reads the unit's largest
    input in memory order, where that is not their own (a group norm's [C/G, H*W] of a
    channels-last convolution's output: the channels fastest, 32 contiguous bytes a position,
    where H*W fastest read 4 bytes of every 32-byte sector, scalar loads on sm_90); None: as
    they are."""
    args = {a["name"]: a for a in contract.args}
    numel = math.prod(S)
    big = [args[n] for n in consts["INPUTS"] if math.prod(args[n].get("shape") or [0]) == numel]
    strides = view_strides(list(big[0]["shape"]), list(big[0]["stride"]), list(S)) if big else None
    if len(run) < 2 or strides is None:
        return None
    st = [strides[d] for d in run]
    if any(isinstance(t, Rep) or not isinstance(t, int) for t in st) or min(st) != 1:
        return None
    order = sorted(range(len(run)), key=lambda k: -st[k])
    return order if order != list(range(len(run))) else None


def contiguous_strides(shape: list[int]) -> list[int]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return out[::-1]


def is_contiguous(shape: list[int], strides: list[int]) -> bool:
    """Row-major contiguous, size-1 dimensions' strides aside."""
    return [t for n, t in zip(shape, strides) if n != 1] == [
        t for n, t in zip(shape, contiguous_strides(list(shape))) if n != 1
    ]


def coarsens(shape: list[int], S: list[int]) -> bool:
    """Whether ``shape`` is ``S`` with runs of adjacent dimensions merged ([16, 48] of
    [16, 6, 8, 1]): a contiguous tensor of either shape has its elements in the same order."""
    a, b = [x for x in shape if x != 1], [x for x in S if x != 1]
    j = 0
    for n in a:
        acc = 1
        while j < len(b) and acc < n:
            acc *= b[j]
            j += 1
        if acc != n:
            return False
    return j == len(b) and math.prod(shape) == math.prod(S)


def _literal_views(fwd: ast.FunctionDef) -> dict[str, list[int]]:
    """Values made by a reshape/view to a literal shape."""
    literal: dict[str, list[int]] = {}
    for stmt in fwd.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and len(stmt.value.args) > 1:
            parts = ast.unparse(stmt.value.func).split(".")
            if len(parts) == 5 and parts[3] in VIEW_OPS and isinstance(stmt.targets[0], ast.Name):
                try:
                    literal[stmt.targets[0].id] = list(ast.literal_eval(stmt.value.args[1]))
                except ValueError:
                    pass
    return literal


def _reductions(fwd: ast.FunctionDef) -> list[tuple[str, ast.Call]]:
    """(op, call) of every reduction of the reference."""
    out = []
    for node in ast.walk(fwd):
        if not isinstance(node, ast.Call):
            continue
        parts = ast.unparse(node.func).split(".")
        if len(parts) != 5 or parts[:2] != ["torch", "ops"]:
            continue
        op = parts[3]
        if op not in REDUCE and op not in ("var_mean", "var", "prepare_softmax_online", "_softmax", "_log_softmax"):
            if not (op in ("max", "min") and parts[4] == "dim"):
                continue
        out.append((op, node))
    return out


def _lifted_shape(fwd: ast.FunctionDef, S: list[int]) -> list[int] | None:
    """The finer view every reduction reduces, when the unit's values are a coarser grouping of
    it: a group norm after a linear layer reduces ``[16, 6, 8, 1]`` views of ``[16, 48]`` values
    (6 groups of 8 features).  The unit is then synthesized in that view's shape (None: no
    such view, or not every reduction reads one)."""
    literal = _literal_views(fwd)
    views = []
    for _, node in _reductions(fwd):
        src = node.args[0] if node.args else None
        views.append(literal.get(src.id) if isinstance(src, ast.Name) else None)
    if not views or any(v is None for v in views) or any(v != views[0] for v in views):
        return None
    v = views[0]
    return list(v) if len(v) > len(S) and coarsens(S, v) else None


def _refinement(S: list[int], v: list[int]) -> list[int] | None:
    """The coarsest shape (size-1 dims left out) that both ``S`` and ``v`` are groupings of
    ([2, 4, 2, 10, 10] of [2, 8, 10, 10] and [2, 4, 2, 100]), or None."""
    if math.prod(S) != math.prod(v) or math.prod(S) == 0:
        return None

    def cuts(shape: list[int]) -> set[int]:
        return {math.prod(shape[k:]) for k in range(len(shape) + 1)}

    c = sorted(cuts(S) | cuts(v))
    if any(b % a for a, b in zip(c, c[1:])):
        return None
    return [b // a for a, b in zip(c, c[1:])][::-1]


def _regroup(S: list[int], v: list[int]) -> list[int | None] | None:
    """For each dim of ``S``, the dim of ``v`` it is part of (None for a size-1 dim), where every
    dim of ``v`` is a run of adjacent dims of ``S``; None where ``S`` does not refine ``v``."""
    if math.prod(S) != math.prod(v) or math.prod(S) == 0:
        return None
    owner: list[int | None] = [None] * len(S)
    j = 0
    for k, n in enumerate(v):
        acc = 1
        while acc < n and j < len(S):
            if S[j] != 1:
                acc, owner[j] = acc * S[j], k
            j += 1
        if acc != n:
            return None
    return owner


def _split_shape(u: list[int], coarse: list[int], fine: list[int]) -> tuple[list[int], list[int | None]] | None:
    """``u`` (of ``coarse``'s rank, each dim ``coarse``'s or 1) in the dims of ``fine``, which
    refines ``coarse`` (a weight as [1, C, 1, 1] of [N, C, H, W] in [N, G, C/G, H, W]), with
    ``fine``'s owner map; None for any other shape."""
    if len(u) != len(coarse) or any(n not in (1, m) for n, m in zip(u, coarse)):
        return None
    owner = _regroup(fine, coarse)
    if owner is None:
        return None
    return [fine[j] if k is not None and u[k] != 1 else 1 for j, k in enumerate(owner)], owner


def _split_view(
    shape: list[int], strides: list[Any], coarse: list[int], fine: list[int]
) -> tuple[list[int], list[Any]] | None:
    """A view (``shape``, ``strides``, right-aligned) of a tensor grouped as ``coarse`` seen in
    the dims of ``fine``, which refines it: its shape and strides there, or None."""
    if len(shape) > len(coarse):
        return None
    sh, st = [1] * (len(coarse) - len(shape)) + list(shape), [0] * (len(coarse) - len(strides)) + list(strides)
    got = _split_shape(sh, coarse, fine)
    split = _split_strides(sh, st, got[1], got[0]) if got is not None else None
    return (got[0], split) if split is not None else None


def _eager_shapes(
    fwd: ast.FunctionDef, consts: dict[str, Any], args: dict[str, dict[str, Any]]
) -> tuple[dict[str, list[int]], set[str]]:
    """The shape of every value the reference's forward assigns, and which are contiguous, from
    running it on meta tensors laid out as the arguments are (statement by statement; the
    values up to the first statement that does not run)."""
    import torch

    ns: dict[str, Any] = {"torch": torch, "inf": math.inf, "nan": math.nan, "device": lambda **_: "meta"}
    for i, name in enumerate(consts["INPUTS"]):
        a = args.get(name) or {}
        dtype = getattr(torch, str(a.get("dtype") or "float32").replace("torch.", ""), torch.float32)
        shape = consts["SHAPES"][name]
        if list(a.get("shape") or []) == list(shape):
            ns[f"x{i}"] = torch.empty_strided(shape, a["stride"], dtype=dtype, device="meta")
        else:
            ns[f"x{i}"] = torch.empty(shape, dtype=dtype, device="meta")
    shapes: dict[str, list[int]] = {}
    contiguous: set[str] = set()
    seen: set[str] = set()
    for stmt in fwd.body:
        if not isinstance(stmt, ast.Assign) or "self" in ast.unparse(stmt):
            break
        if isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
            continue  # FX's "x = None" frees
        try:
            exec(compile(ast.Module([stmt], []), "<reference>", "exec"), ns)
        except Exception:  # noqa: BLE001 - an op meta tensors cannot run: no shapes from here on
            break
        for t in stmt.targets:
            if isinstance(t, ast.Name) and t.id in seen:  # assigned twice (FX never does): unknown
                shapes.pop(t.id, None)
                contiguous.discard(t.id)
            elif isinstance(t, ast.Name) and isinstance(ns.get(t.id), torch.Tensor):
                shapes[t.id] = list(ns[t.id].shape)
                if ns[t.id].is_contiguous():
                    contiguous.add(t.id)
            seen.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return shapes, contiguous


def _split_strides(
    shape: list[int], strides: list[Any], owner: list[int | None], refined: list[int]
) -> list[Any] | None:
    """The strides of ``refined``, each dim ``k`` of ``shape`` split into the dims ``owner`` maps
    to it (innermost first: a plain stride multiplies by each part's size; a ``Rep`` of period
    ``p`` over parts whose sizes divide it becomes plain strides, the parts beyond it 0)."""
    out: list[Any] = [0] * len(refined)
    for k in range(len(shape)):
        dims = [j for j, o in enumerate(owner) if o == k and refined[j] != 1]
        t = strides[k]
        if isinstance(t, Rep):
            period, mult = t.period, t.stride
            for j in reversed(dims):
                n = refined[j]
                if period == 1:
                    out[j] = 0
                elif period % n == 0:
                    out[j], period, mult = mult, period // n, mult * n
                elif n % period == 0:
                    out[j], period = Rep(period, mult), 1
                else:
                    return None
        else:
            mult = t
            for j in reversed(dims):
                out[j], mult = mult, mult * refined[j]
    return out


def _refined_shape(fwd: ast.FunctionDef, S: list[int]) -> tuple[list[int], list[int]] | None:
    """(the finer shape, the view) when every reduction reads one view of the unit's values that
    regroups them both ways (a group norm's [N, G, C/G, H*W] of [N, C, H, W]: C split, H and W
    merged): the unit is synthesized in their common refinement [N, G, C/G, H, W].  Where the
    unit's shape refines the view already (an instance norm's [1, N*C, H, W] of [N, C, H, W]),
    the finer shape is the unit's own."""
    views = [
        _literal_views(fwd).get(n.args[0].id) if n.args and isinstance(n.args[0], ast.Name) else None
        for _, n in _reductions(fwd)
    ]
    if not views or any(v is None or v != views[0] for v in views):
        return None
    if list(views[0]) == list(S):
        return None
    if _regroup(S, views[0]) is not None:
        return list(S), list(views[0])
    R = _refinement(S, views[0])
    return (R, list(views[0])) if R is not None and len(R) > len([x for x in S if x != 1]) else None


def _pointwise_view(
    fwd: ast.FunctionDef, S: list[int], eager: dict[str, list[int]]
) -> tuple[list[int], list[int]] | None:
    """(the finer shape, the view) where no reduction reads a regrouping view but element-wise
    ops run on one (the second stage of a chain, ``chain_split``: a group norm's normalisation
    on [N, G, C/G, H*W] with the statistics as inputs, then a LogSumExp over C of [N, C, H, W]):
    the unit is synthesized in the common refinement [N, G, C/G, H, W] as well; None without
    such a view, with two different ones, or where a reduction reads one."""
    reads = {n.args[0].id for _, n in _reductions(fwd) if n.args and isinstance(n.args[0], ast.Name)}
    views = []
    for name, v in _literal_views(fwd).items():
        if name in reads:
            return None
        if math.prod(v) == math.prod(S) and list(v) != list(S) and eager.get(name) == list(v):
            views.append(list(v))
    if not views or any(v != views[0] for v in views):
        return None
    if _regroup(S, views[0]) is not None:  # an instance norm's [1, N*C, H, W] of [N, C, H, W]
        return list(S), views[0]
    R = _refinement(S, views[0])
    return (R, views[0]) if R is not None and len(R) > len([x for x in S if x != 1]) else None


def _permuted_shape(fwd: ast.FunctionDef, consts: dict[str, Any], S: list[int]) -> list[int] | None:
    """The shape of the values a unit computes on when it reads its largest argument through a
    permute (a LayerNorm over a transposed tensor's channels reduces the permuted view's last
    dimension, not the argument's): that view's shape, None without one (or with several)."""
    shapes = {p.arg: consts["SHAPES"][n] for p, n in zip(fwd.args.args[1:], consts["INPUTS"])}
    seen = []
    for node in ast.walk(fwd):
        if (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "torch.ops.aten.permute.default"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in shapes
        ):
            shape = shapes[node.args[0].id]
            try:
                perm = [int(d) % len(shape) for d in ast.literal_eval(node.args[1])]
            except (ValueError, TypeError):
                return None
            seen.append([shape[d] for d in perm])
    if not seen or any(v != seen[0] for v in seen):
        return None
    v = seen[0]
    return v if len(v) == len(S) and math.prod(v) == math.prod(S) else None


def _reduction_dims(fwd: ast.FunctionDef, S: list[int], own: list[int] | None = None) -> tuple[int, ...]:
    """The dimensions the reference's reductions reduce (of the unit's largest tensor, shape
    ``S``), the same for all of them, size-1 dimensions left out (reducing one changes nothing:
    Inductor's instance norm reduces dims [0, 2, 3] of a [1, C*N, H, W] view): the last by
    default; CannotSynthesize when they differ.  ``own``: the unit's shape before a refinement
    (a reduction of a value that is no literal view is of that shape)."""
    rank = len(S)
    seen: set[tuple[int, ...]] = set()
    literal = _literal_views(fwd)
    for op, node in _reductions(fwd):
        kw = {k.arg: k.value for k in node.keywords}
        arg = node.args[1] if len(node.args) > 1 else kw.get("dim")
        if arg is None:
            raise CannotSynthesize(f"aten.{op} over every dimension: not a row reduction")
        try:
            dims = ast.literal_eval(arg)
        except ValueError:
            raise CannotSynthesize(f"aten.{op} over dims {ast.unparse(arg)}") from None
        if dims is None:
            raise CannotSynthesize(f"aten.{op} over every dimension (dims None): not a row reduction")
        dims = dims if isinstance(dims, (list, tuple)) else [dims]
        src = node.args[0] if node.args else None
        base = literal.get(src.id, own or S) if isinstance(src, ast.Name) else own or S
        owner = _regroup(S, base) if list(base) != list(S) else None
        if owner is not None:  # a regrouping view ([N, C, H*W] of [N, C, H, W]): its dims in S's
            dims = [j for j, k in enumerate(owner) if k is not None and k in {int(d) % len(base) for d in dims}]
            base = S
            if len(node.args) > 1:
                node.args[1] = ast.Constant(dims)
            else:
                node.keywords = [k if k.arg != "dim" else ast.keyword("dim", ast.Constant(dims)) for k in node.keywords]
        if len(base) != rank:
            raise CannotSynthesize(f"aten.{op} of a {len(base)}-d view of the unit's {rank}-d values")
        kept = sorted({int(d) % rank for d in dims if base[int(d) % rank] != 1})
        if not kept:
            raise CannotSynthesize(f"aten.{op} over size-1 dims {list(dims)} only")
        if isinstance(dims, list) and kept != sorted(int(d) % rank for d in dims):
            # the reduction as the main pass will read it: the size-1 dims it named left out
            if len(node.args) > 1:
                node.args[1] = ast.Constant(kept)
            else:
                node.keywords = [k if k.arg != "dim" else ast.keyword("dim", ast.Constant(kept)) for k in node.keywords]
        seen.add(tuple(kept))
    if len(seen) > 1:
        raise CannotSynthesize(f"{DIFFERENT_DIMS} {sorted(seen)} in one unit")
    return seen.pop() if seen else (rank - 1,)


def _next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


@dataclass
class Val:
    code: str  # Triton expression (a name of a computed value, or a constant)
    shape: list[int] | None  # the FX value's shape; None for a Python constant
    kind: str  # full | row | col | const | tuple | input (an argument not loaded yet) | lazy (a symbolic
    # pointwise function of inputs)
    parts: list[Val] | None = None
    arg: str | None = None  # input: the argument's name
    strides: list[int] | None = None  # input: strides of the logical (viewed) shape, None = only contiguous views
    emitted: Val | None = None  # lazy: the computed value once its code has been written
    raw: tuple[list[int], list[int]] | None = None  # input in a folded unit: (shape, strides) unfolded


@dataclass
class Line:
    """One statement of the kernel body, with what the looped variant needs to place it."""

    code: str
    name: str | None = None  # the value it defines (None: a store)
    kind: str = "row"  # full | col (depends on the columns) | row | const; store-full | store-row
    reduce: tuple[str, str, str] | None = None  # (tl.sum|tl.max|tl.min, neutral, source value)


class RowKernel:
    # the split variant with this (columns a program holds, num_warps) on every attempt, where the
    # rows are too long for one program and the reductions are one round (a chain's first stage)
    split: tuple[int, int] | None = None

    def __init__(
        self,
        contract: Contract,
        reference_src: str,
        chunk: int | None = None,
        team: int | None = None,
        views: bool = False,
    ):
        """``chunk``: force the looped variant with this many columns per pass; ``team``: force
        the team variant with this many columns per program (tests); ``views``: in the
        refinement of a view element-wise ops run on (``_pointwise_view``, ``synthesize_rows``)."""
        fwd, consts = forward_of(reference_src)
        if consts.get("LEVEL", "kernel") != "kernel":
            raise CannotSynthesize("the reference is graph-level (the kernel reads a buffer no FX node holds)")
        self.eager, self.eager_contiguous = _eager_shapes(fwd, consts, {a["name"]: a for a in contract.args})
        self._target: str | None = None  # the value the op being translated assigns
        self.contract = contract
        shapes = [consts["SHAPES"][n] for n in consts["INPUTS"]] + [consts["OUT_SHAPES"][n] for n in consts["OUTPUTS"]]
        self.S = max(shapes, key=lambda s: (math.prod(s), len(s)))
        if len(self.S) < 1:
            raise CannotSynthesize("scalar unit")
        self.S = _permuted_shape(fwd, consts, self.S) or self.S
        # reductions over a finer view of the unit's values (a group norm's [N, G, C/G, 1] of
        # [N, C]): the unit is that view; its coarser groupings are the same elements in order
        self.S_orig = list(self.S)  # before a lift to a finer view
        lifted = _lifted_shape(fwd, self.S)
        self.view: list[int] | None = None  # the regrouping view of _refined_shape
        if lifted is None and (
            (refined := _refined_shape(fwd, self.S)) is not None
            or views
            and (refined := _pointwise_view(fwd, self.S, self.eager)) is not None
        ):
            lifted, self.view = refined
            lifted = None if lifted == self.S else lifted
        self.lifted = lifted is not None
        if lifted is not None:
            self.S = lifted
        self.S_raw = list(self.S)  # the unit's shape before any fold
        if self.view is not None:
            consts, contract = self._refine_all(consts, contract)
        # the dimensions every reduction reduces (the columns); the other dimensions are the rows.
        # Several adjacent ones (a LayerNorm over the last three) are folded into one, in every
        # shape and in the arguments' strides, where the tensors are contiguous across them.
        run = _reduction_dims(fwd, self.S, self.S_orig if views else None)
        # an argument's own shape and strides, before folding (a view of it is folded from them)
        self.raw = {a["name"]: a for a in contract.args}
        self.raw_shapes = dict(consts["SHAPES"])
        self.perm: list[int] | None = None
        if list(run) != list(range(run[0], run[-1] + 1)):
            consts, contract, run = self._permute_all(fwd, consts, contract, run)
        order = _column_order(contract, consts, self.S, run) if self.perm is None else None
        # (a unit in a pointwise view's refinement folds even one reduced dim: its arguments'
        # views are computed on their own strides)
        self.fold = Fold(self.S, run, order) if len(run) > 1 or views and self.view is not None else None
        self.foldfull: set[str] = set()  # values that vary along every folded dim (Terms.partial)
        if self.fold is not None:
            consts = self.fold.consts(consts)
            contract = replace(contract, args=[self.fold.arg(a) for a in contract.args])
            self.S = self.fold.shape(self.S)
        self.fwd, self.consts = fwd, consts
        self.args = {a["name"]: a for a in contract.args}
        self.red = run[0]
        self.lead = [x for d, x in enumerate(self.S) if d != self.red]
        self.N = self.S[self.red]
        self.numel = math.prod(self.S)
        self.R = self.numel // self.N
        self.BLOCK_N = _next_pow2(self.N)
        self.chunk, self.team = chunk, team
        self.team_warps = 4  # a forced team's warps (bench/templates_gpu.py sweeps them)
        self._team_rows = 1  # rows per team member (``_team_source``)
        self.looped = chunk is not None or self.BLOCK_N > MAX_BLOCK_N
        for name in consts["INPUTS"] + consts["OUTPUTS"]:
            if self.args[name].get("dtype") not in FLOAT_DTYPES:
                raise CannotSynthesize(
                    f"argument {name} is {self.args[name].get('dtype')}: only float row kernels are synthesised"
                )
        self.lines: list[Line] = []
        self.loaded: dict[tuple[Any, ...], Val] = {}  # argument loads, by (name, logical shape, strides)
        self.n = 0
        self.reductions = 0

    def _permute_all(
        self, fwd: ast.FunctionDef, consts: dict[str, Any], contract: Contract, run: tuple[int, ...]
    ) -> tuple[dict[str, Any], Contract, tuple[int, ...]]:
        """Reduced dims that are not adjacent (a mean over dims 0 and 2): every shape and stride
        seen with the other dims first, in their order, then the reduced ones (the rows keep
        their order, the columns are one folded run); each reduction's dims renumbered."""
        if self.view is not None:
            raise CannotSynthesize(f"a reduction over dims {list(run)} of a regrouping view")
        rank = len(self.S)
        perm = self.perm = [d for d in range(rank) if d not in run] + list(run)

        def shape(u: list[int], pad: bool) -> list[int]:
            u = [1] * (rank - len(u)) + list(u) if pad and len(u) < rank else list(u)
            return [u[d] for d in perm] if len(u) == rank else u

        def arg(a: dict[str, Any]) -> dict[str, Any]:
            if a.get("kind", "tensor") != "tensor" or not a.get("shape"):
                return a
            sh, st = list(a["shape"]), list(a["stride"])
            if len(sh) < rank and a.get("access") == "read":
                sh, st = [1] * (rank - len(sh)) + sh, [0] * (rank - len(st)) + st
            return {**a, "shape": [sh[d] for d in perm], "stride": [st[d] for d in perm]} if len(sh) == rank else a

        consts = {
            **consts,
            "SHAPES": {k: shape(v, True) for k, v in consts["SHAPES"].items()},
            "OUT_SHAPES": {k: shape(v, False) for k, v in consts["OUT_SHAPES"].items()},
        }
        self.S = shape(self.S, False)
        new_run = list(range(rank - len(run), rank))
        for _, node in _reductions(fwd):
            if len(node.args) > 1:
                node.args[1] = ast.Constant(new_run)
            else:
                node.keywords = [
                    k if k.arg != "dim" else ast.keyword("dim", ast.Constant(new_run)) for k in node.keywords
                ]
        return consts, replace(contract, args=[arg(a) for a in contract.args]), tuple(new_run)

    def _refine(self, u: list[int]) -> list[int] | None:
        """A shape of the regrouping view's rank, each dim the view's or 1 (a per-channel weight
        seen as [1, G, C/G, 1]), in the refined unit's dims; None for any other."""
        got = _split_shape(u, self.view, self.S_raw) if self.view is not None else None
        return got[0] if got else None

    def _refine_all(self, consts: dict[str, Any], contract: Contract) -> tuple[dict[str, Any], Contract]:
        """The argument shapes, strides and FX value shapes of the view's kind, refined."""

        def shape(u: list[int]) -> list[int]:
            return self._refine(list(u)) or list(u)

        def arg(a: dict[str, Any]) -> dict[str, Any]:
            new = self._refine(list(a.get("shape") or [])) if a.get("kind", "tensor") == "tensor" else None
            strides = view_strides(list(a["shape"]), list(a["stride"]), new) if new else None
            return {**a, "shape": new, "stride": strides} if strides is not None else a

        consts = {
            **consts,
            "SHAPES": {k: shape(v) for k, v in consts["SHAPES"].items()},
            "OUT_SHAPES": {k: shape(v) for k, v in consts["OUT_SHAPES"].items()},
        }
        return consts, replace(contract, args=[arg(a) for a in contract.args])

    # -- loads and stores ---------------------------------------------------------------
    def _contiguous(self, a: dict[str, Any]) -> bool:
        return is_contiguous(a["shape"], a["stride"])

    def _red_name(self) -> str:
        if self.fold is not None:
            return f"dims {list(self.fold.run)} folded into one"
        if self.red == len(self.S) - 1:
            return "the last dimension"
        return f"dimension {self.red} of {list(self.S)} (the rows are the other dimensions, loaded with their strides)"

    def _offset(self, name: str, fx_shape: list[int], strides: list[int] | None = None) -> tuple[str, str]:
        """(offset expression, kind) of an argument holding an FX value of ``fx_shape``
        (``strides``: the value's strides when it is a view, e.g. unsqueezed, of the argument)."""
        a = self.args[name]
        natural = self.fold is None or self.fold.natural  # the columns in the folded dims' own order
        if strides is None and (view := self._coarser_view(name, fx_shape)) is not None:
            fx_shape, strides = view
        last = self.red == len(self.S) - 1
        # the shortcuts below index the argument as a contiguous tensor: not for a view (a permute)
        # whose strides say otherwise
        plain = strides is None or is_contiguous(fx_shape, strides)
        whole = plain and natural and last and math.prod(fx_shape) == self.numel and fx_shape[-1] == self.N
        if whole and self._contiguous(a):
            return f"rows * {self.N} + cols", "full"
        if (
            plain
            and self.N > 1
            and math.prod(fx_shape) == self.R
            and [x for x in fx_shape if x != 1] == [x for x in self.lead if x != 1]
            and self._contiguous(a)
        ):
            return "rows", "row"  # one value per row (a reduction's output, keepdim or not)
        if strides is None:
            if list(a["shape"]) != list(fx_shape):
                raise CannotSynthesize(f"argument {name} is seen through a view ({a['shape']} vs {fx_shape})")
            strides = list(a["stride"])
        if last and len(fx_shape) > 1 and fx_shape[-1] == 1 and math.prod(fx_shape) == self.R:
            fx_shape, strides = self._split_rows(list(fx_shape), strides)
        pad = len(self.S) - len(fx_shape)
        if pad < 0:
            raise CannotSynthesize(f"argument {name} has more dimensions than the unit's largest tensor")
        row_dims, col_term = [], None  # row_dims: [first, last place among the row dims, size, stride]
        for d, size in enumerate(self.S):
            k = d - pad
            if k < 0 or fx_shape[k] == 1 and (size != 1 or d != self.red):  # broadcast, or size 1: no index
                continue
            if fx_shape[k] != size:
                raise CannotSynthesize(f"argument {name} of shape {fx_shape} does not broadcast to {self.S}")
            stride = strides[k]
            if d == self.red:
                col_term = "cols" if stride == 1 else f"cols * {stride}"
                col_term = stride.index() if isinstance(stride, Terms) else col_term
                col_term = stride.index("cols") if isinstance(stride, Rep) else col_term
            elif stride != 0:  # (0: broadcast along this row dim, a weight repeated per sample)
                li = d if d < self.red else d - 1  # its place among the row dimensions
                last = row_dims[-1] if row_dims else None
                if last and last[1] == li - 1 and isinstance(stride, int) and last[3] == size * stride:
                    last[1:] = [li, last[2] * size, stride]  # adjacent in memory: one index, no division
                else:
                    row_dims.append([li, li, size, stride])
        row_terms = [self._row_term(*dim) for dim in row_dims]
        if col_term and row_terms:
            return " + ".join(row_terms + [col_term]), "full"
        if col_term:
            return col_term, "col"
        if row_terms:
            return " + ".join(row_terms), "row"
        return "0", "const"

    def _row_term(self, first: int, last: int, size: int, stride: Any) -> str:
        """The offset term of row dims ``first``..``last`` (places among the row dims, one block
        of ``size`` values in memory, ``stride`` apart) for the program's ``rows``."""
        inner = math.prod(self.lead[last + 1 :])
        idx = f"(rows // {inner})" if inner > 1 else "rows"
        idx = f"({idx} % {size})" if first > 0 else idx
        if isinstance(stride, Rep):
            return stride.index(idx)
        return f"{idx} * {stride}" if stride != 1 else idx

    def _split_rows(self, shape: list[int], strides: list[Any]) -> tuple[list[int], list[Any]]:
        """A value per row whose rows are grouped otherwise ([40, 1] of a [4, 10, N] unit, an
        InstanceNorm1d's repeated weight): its shape and strides in the unit's row dims."""
        if shape[:-1] == list(self.lead):
            return shape, strides
        return _split_view(shape, strides, [*shape[:-1], self.N], list(self.S)) or (shape, strides)

    MASKS = {"full": "mask", "row": "rmask", "col": "cmask", "const": None}

    def _canon(self, shape: list[int] | None) -> list[int] | None:
        """Shapes that are the unit's rows in another grouping of the leading dimensions
        ([4096, 768] and [8, 512, 768]; [96, 512, 512] and [8, 12, 512, 512]) are one shape:
        a contiguous tensor of either is indexed ``rows * N + cols``."""
        if (
            shape is not None
            and self.red == len(self.S) - 1
            and list(shape) != list(self.S)
            and math.prod(shape) == self.numel
            and shape
            and shape[-1] == self.N
        ):
            return list(self.S)
        if (
            shape is not None
            and self.red == len(self.S) - 1
            and len(shape) > 1
            and shape[-1] == 1
            and list(shape[:-1]) != list(self.S[:-1])
            and coarsens(list(shape[:-1]), list(self.S[:-1]))
        ):
            return [*self.S[:-1], 1]  # one value per row, the rows in another grouping ([40, 1] of [4, 10, N])
        if shape is not None and self.lifted and list(shape) != list(self.S) and coarsens(list(shape), self.S_raw):
            return list(self.S)  # (S_raw: the unit's dims before a fold)
        return shape

    def input(self, name: str) -> Val:
        """An argument as a value not loaded yet: views (unsqueeze, reshape) only change its
        logical shape; the load happens at first use, indexed for that shape."""
        fx = self._canon(list(self.consts["SHAPES"][name]))
        a = self.args[name]
        strides = list(a["stride"]) if list(a["shape"]) == fx else None
        natural = self.fold is None or self.fold.natural  # else a contiguous input's folded index is Terms'
        if strides is None and self.lifted and fx == list(self.S) and self._contiguous(a) and natural:
            strides = contiguous_strides(fx)
        raw = None
        if self.fold is not None and list(self.raw[name]["shape"]) == list(self.raw_shapes[name]):
            raw = (list(self.raw_shapes[name]), list(self.raw[name]["stride"]))
        x = Val(name, fx, "input", arg=name, strides=strides, raw=raw)
        if strides is None and raw is not None and self.lifted and coarsens(raw[0], self.S_raw):
            # a coarser grouping of a lifted unit's values, folded from its own strides
            viewed = view_strides(raw[0], raw[1], list(self.S_raw))
            folded = self._fold_raw(x, list(self.S_raw), viewed) if viewed is not None else None
            return folded or x
        return x

    def _refined_eager(self, e: list[int] | None) -> list[int] | None:
        """A value's eager shape in the unit's (unfolded) dims: itself where it broadcasts to
        them, or a shape of the regrouping view's or of the unit's own before a lift, each dim
        that one's or 1, split into the finer dims; None for any other (an intermediate
        regrouping, [N, C] of a group norm's [N, G, C/G, 1])."""
        if e is None:
            return None
        R = self.S_raw
        if len(e) == len(R) and all(n in (1, m) for n, m in zip(e, R)):
            return list(e)
        if (refined := self._refine(list(e))) is not None:
            return refined
        got = _split_shape(list(e), self.S_orig, R) if self.S_orig != R else None
        return got[0] if got else None

    def _regrouped(self, op: str, x: Val, call: ast.Call) -> Val | None:
        """A view of a computed value that only regroups its elements, in a folded unit (a group
        norm's per-channel scale [N, G, C/G, 1] seen as [N, C], then unsqueezed to [N, C, 1] to
        scale [N, C, H*W]): the same value where the view, in the unit's dims, is the value's own
        shape; an intermediate regrouping is carried (``regroup``) until it is.  Eager values
        keep their inputs' layout: only a value contiguous when the reference runs on meta
        tensors laid out as the arguments are is regrouped so."""
        src = x.parts[0] if x.kind == "regroup" else x
        if x.kind == "regroup":
            src_shape = x.raw[0]
        else:
            name = call.args[0].id if isinstance(call.args[0], ast.Name) else None
            src_shape = self._refined_eager(self.eager.get(name))
        dst = self.eager.get(self._target or "")
        if (
            src_shape is None
            or dst is None
            or math.prod(dst)
            != math.prod(self.eager.get(call.args[0].id if isinstance(call.args[0], ast.Name) else "", [-1]))
        ):
            return None
        if not isinstance(call.args[0], ast.Name):
            return None
        if op == "as_strided":
            if call.args[0].id not in self.eager_contiguous:
                return None  # eager values keep their inputs' layout: a channels-last one is no reshape
            try:
                sizes, strides = (ast.literal_eval(a) for a in call.args[1:3])
            except ValueError:
                return None
            offset = ast.literal_eval(call.args[3]) if len(call.args) > 3 else 0
            if offset or list(strides) != contiguous_strides(list(sizes)):
                return None
        refined = self._refined_eager(dst)
        if refined is None:
            return Val(src.code, None, "regroup", parts=[src], raw=(src_shape, []))
        return src if refined == src_shape else None

    def _raw_view(self, op: str, x: Val, call: ast.Call) -> Val | None:
        """A view of an argument in a folded unit, computed on the argument's own shape and strides
        (a channels-last tensor seen as [N, G, C/G, H*W] is a view of it; a weight repeated per
        sample and unsqueezed to [N*C, 1, 1]), then folded (``_fold_raw``).  None where it cannot
        be (the view is then indexed as before, or refused)."""
        shape, strides = list(x.raw[0]), list(x.raw[1])
        try:
            arg = ast.literal_eval(call.args[1]) if len(call.args) > 1 else None
        except ValueError:
            return None
        if op in VIEW_OPS and arg is not None:
            new = list(arg)
            if -1 in new:
                new = [math.prod(shape) // math.prod(n for n in new if n != -1) if n == -1 else n for n in new]
            if self._refine(new) is not None:
                new = self._refine(new)
            elif self.lifted and coarsens(new, self.S_raw):
                new = list(self.S_raw)
            viewed = None if any(isinstance(t, Rep) for t in strides) else view_strides(shape, strides, new)
            if viewed is None:
                return None
            shape, strides = new, viewed
        elif op == "unsqueeze" and isinstance(arg, int):
            d = arg % (len(shape) + 1)
            shape, strides = shape[:d] + [1] + shape[d:], strides[:d] + [0] + strides[d:]
        elif op == "repeat" and isinstance(arg, (list, tuple)) and len(arg) >= len(shape):
            shape, strides = [1] * (len(arg) - len(shape)) + shape, [0] * (len(arg) - len(strides)) + strides
            for d, r in enumerate(arg):
                if r != 1:
                    if isinstance(strides[d], Rep):
                        return None
                    strides[d] = 0 if shape[d] == 1 else Rep(shape[d], strides[d])
                    shape[d] *= r
        else:
            return None
        folded = self._fold_raw(x, shape, strides)
        if folded is None and (x.kind == "unfolded" or op not in VIEW_OPS):
            # a step of a chain of views ([C] repeated to [N*C] before two unsqueezes): kept on the
            # argument's own terms until a view broadcasts to the unit; never loaded as it is
            return Val(x.code, list(shape), "unfolded", arg=x.arg, raw=(list(shape), list(strides)))
        return folded

    def _fold_raw(self, x: Val, shape: list[int], strides: list[Any]) -> Val | None:
        """An argument's view (``shape``, ``strides``, of the unit's shape before folding or a
        broadcast of it, right-aligned) as a value of the folded unit."""
        rank = len(self.S_raw)
        if len(shape) > rank:
            return None
        sh, st = [1] * (rank - len(shape)) + list(shape), [0] * (rank - len(strides)) + list(strides)
        if any(n not in (1, m) for n, m in zip(sh, self.S_raw)):
            # of the regrouping view's shape ([1, N*C, 1, 1]) or of the unit's own before a lift
            # (a group norm's weight as [1, C, 1, 1]): each dim split into the unit's ([N, C];
            # [G, C/G]), a repeat per sample becoming a plain stride of the inner part
            for coarse in (self.view, self.S_orig):
                got = _split_view(shape, strides, coarse, self.S_raw) if coarse not in (None, self.S_raw) else None
                if got is not None:
                    sh, st = got
                    break
            else:
                return None
        if any(n not in (1, m) for n, m in zip(sh, self.S_raw)):
            return None
        if self.perm is not None:
            sh, st = [sh[d] for d in self.perm], [st[d] for d in self.perm]
        if any(isinstance(st[d], Rep) for d in self.fold.run):
            return None
        got = self.fold.strides(sh, st)
        if got is None:
            return None
        return Val(x.code, got[0], "input", arg=x.arg, strides=got[1], raw=(list(shape), list(strides)))

    def _unsqueeze(self, v: Val, d: int, rank: int) -> Val:
        """unsqueeze(v, d) of a value of ``rank`` dims, pushed down to the arguments (a
        pointwise function commutes with a view that inserts a size-1 dimension)."""
        if v.kind == "const":
            return v
        pad = rank - len(v.shape)  # right-aligned broadcasting: leading size-1 dims first
        shape = [1] * pad + list(v.shape)
        if v.kind == "lazy":
            return Val(
                v.code, shape[:d] + [1] + shape[d:], "lazy", parts=[self._unsqueeze(c, d, rank) for c in v.parts]
            )
        if v.kind == "input":
            strides = None if v.strides is None else [0] * pad + v.strides
            strides = None if strides is None else strides[:d] + [0] + strides[d:]
            return Val(v.code, shape[:d] + [1] + shape[d:], "input", arg=v.arg, strides=strides)
        raise CannotSynthesize("aten.unsqueeze of a computed value")

    def load(self, v: Val) -> Val:
        """The value as Triton code: loads an argument, emits a symbolic (lazy) expression."""
        if v.kind == "unfolded":
            raise CannotSynthesize(f"a view of {v.arg} as {v.shape}, which does not broadcast to the unit's values")
        if v.kind == "regroup":
            raise CannotSynthesize("a regrouping of a computed value that does not broadcast to the unit's values")
        if v.kind == "lazy":
            if v.emitted is None:
                codes = [self.load(c).code for c in v.parts]
                v.emitted = self._new(v.code.format(*codes), v.shape, self._kind_of(v.shape))
            return v.emitted
        if v.kind != "input":
            return v
        key = (v.arg, tuple(v.shape or []), tuple(v.strides or []))
        if key not in self.loaded:
            off, kind = self._offset(v.arg, v.shape, v.strides)
            m = self.MASKS[kind]
            mask = f", mask={m}, other=0.0" if m else ""
            code = f"v{len(self.loaded)}"
            self.lines.append(Line(f"{code} = tl.load({v.arg} + ({off}){mask}).to(tl.float32)", code, kind))
            terms = self._terms(v.arg, v.shape, v.strides)
            if kind in ("full", "col") and not (terms and terms.partial):
                self.foldfull.add(code)
            self.loaded[key] = Val(code, list(v.shape), kind)
        return self.loaded[key]

    def _terms(self, name: str, shape: list[int], strides: list[Any] | None) -> Terms | None:
        """The folded column index of argument ``name`` seen as ``shape``, where it is ``Terms``."""
        strides = strides if strides is not None else self.args[name].get("stride") or []
        k = self.red - (len(self.S) - len(shape))
        return strides[k] if 0 <= k < len(strides) and isinstance(strides[k], Terms) else None

    def store(self, name: str, v: Val) -> None:
        fx = self.consts["OUT_SHAPES"][name]
        if v.kind == "tuple" or v.shape is None:
            raise CannotSynthesize(f"output {name} is not a tensor value")
        off, kind = self._offset(name, fx)
        if kind not in ("full", "row"):
            raise CannotSynthesize(f"output {name} of shape {fx} is neither a full tile nor one value per row")
        val = v.code
        if kind == "full" and v.kind != "full":
            val = (
                f"tl.broadcast_to({v.code}, [ROWS, BLOCK_N])"
                if v.kind != "const"
                else f"tl.full([ROWS, BLOCK_N], {v.code}, tl.float32)"
            )
        if kind == "row" and v.kind != "row":
            raise CannotSynthesize(f"output {name} holds one value per row but is computed per element")
        mask = self.MASKS[kind]
        terms = self._terms(name, fx, None) if kind == "full" else None
        if terms is not None and terms.partial:
            # constant along some folded dims: written once, from the first column of each run
            if v.code in self.foldfull:
                raise CannotSynthesize(f"output {name} of shape {fx} holds a value that varies along all its columns")
            mask = f"{mask} & {terms.first()}"
        elif kind == "full" and (tr := self._transposing(terms or self._lifted_terms(name, fx), off)) is not None:
            self.lines.append(Line(self._transposed_store(name, val, *tr), None, "store-full"))
            return
        self.lines.append(
            Line(
                f"tl.store({name} + ({off}), ({val}).to({name}.dtype.element_ty), mask={mask})",
                None,
                f"store-{kind}",
            )
        )

    def _coarser_view(self, name: str, fx: list[int]) -> tuple[list[int], list[Any]] | None:
        """(shape, strides) a contiguous argument holding a lifted unit's coarser grouping of its
        values is indexed with: the finer view, through the fold's terms where the columns run in
        another order than the dims'; None for any other argument."""
        a = self.args[name]
        if not (list(a["shape"]) == list(fx) != self._canon(fx) and self._contiguous(a)):
            return None
        if self.fold is None or self.fold.natural:
            return list(self.S), contiguous_strides(self.S)
        return self.fold.strides(list(self.S_raw), contiguous_strides(list(self.S_raw)))

    def _lifted_terms(self, name: str, fx: list[int]) -> Terms | None:
        """The column terms `_offset` indexes an output with when it is a coarser view (its
        strides are the fold's, not the argument's)."""
        view = self._coarser_view(name, fx)
        return self._terms(name, *view) if view is not None else None

    def _transposing(self, terms: Terms | None, off: str) -> tuple[str, int, int, int] | None:
        """(row offset, K, stride, M) of an output whose folded columns run K (a power of 2) at a
        time along a dim of that stride and then M at a time along its stride-1 dim (a group of a
        channels-last tensor, its columns channel-fastest, written to an NCHW output): stored
        column by column, consecutive columns are far apart (3.21x Inductor's time on the H100);
        None for any other."""
        if terms is None or len(terms) != 2 or terms.partial:
            return None
        (i0, k, big), (i1, m, s1) = terms
        if i0 != 1 or i1 != k or s1 != 1 or big == 1 or k * m != self.N or not 2 <= k <= 64 or k & (k - 1):
            return None
        col = terms.index()
        if off == col:
            return "", k, big, m
        return (off[: -len(col) - 3], k, big, m) if off.endswith(" + " + col) else None

    @staticmethod
    def _transposed_store(name: str, val: str, rowoff: str, k: int, big: int, m: int) -> str:
        """The tile seen as [ROWS, K, BLOCK_N / K], the stride-1 dim last: offsets from aranges
        (Triton coalesces the stores along it and moves the values through shared memory)."""
        hw = f"(col0 // {k} + tl.arange(0, BLOCK_N // {k})[None, None, :])"
        off = f"tl.arange(0, {k})[None, :, None] * {big} + {hw}"
        off = f"({rowoff})[:, :, None] + {off}" if rowoff else off
        tile = f"tl.reshape(tl.broadcast_to({val}, [ROWS, BLOCK_N]), [ROWS, BLOCK_N // {k}, {k}])"
        value = f"tl.permute({tile}, (0, 2, 1)).to({name}.dtype.element_ty)"
        return f"tl.store({name} + ({off}), {value}, mask=rmask[:, :, None] & ({hw} < {m}))"

    # -- the graph ------------------------------------------------------------------------
    def _new(self, code: str, shape: list[int] | None, kind: str) -> Val:
        self.n += 1
        name = f"t{self.n}"
        self.lines.append(Line(f"{name} = {code}", name, kind))
        if kind in ("full", "col") and any(n in self.foldfull for n in _NAME.findall(code)):
            self.foldfull.add(name)
        return Val(name, shape, kind)

    def _lifted_rank(self, shape: list[int], op: str) -> None:
        """In a unit lifted to a finer view, a value of lower rank that is not a regrouping of it
        would broadcast against the view's trailing dims, not the unit's own ([N, 1] against
        [N, G, C/G, 1] reads as per channel within a group): refused."""
        if self.lifted and math.prod(shape) > 1 and len(self._canon(list(shape))) != len(self.S):
            raise CannotSynthesize(
                f"aten.{op} of a {list(shape)} value in a unit synthesized in its finer view {self.S}: "
                "it would broadcast along the view's dims, not the unit's"
            )

    def _kind_of(self, shape: list[int]) -> str:
        """full ([ROWS, BLOCK_N]), row ([ROWS, 1]), col ([1, BLOCK_N]) or const, for a value
        that broadcasts to the unit's shape (a per-channel [C, 1, 1] value is a row value:
        its loads index the channel from the row number)."""
        shape = self._canon(shape)
        s = [1] * (len(self.S) - len(shape)) + list(shape)
        if len(s) != len(self.S) or broadcast_shapes(s, list(self.S)) != list(self.S):
            raise CannotSynthesize(f"value of shape {shape} does not broadcast to {self.S}")
        last = s[self.red] == self.N and self.N != 1
        lead = any(x != 1 for d, x in enumerate(s) if d != self.red)
        if last:
            return "full" if lead else "col"
        return "row" if lead else "const"

    def _dims_last(self, dims: Any, shape: list[int]) -> None:
        """The reduction is over the unit's column dimension (``self.red``) of a full-rank value."""
        dims = dims if isinstance(dims, list) else [dims]
        if self.fold is not None:
            dims = self.fold.dims(dims, shape)
        else:
            dims = [d for d in dims if shape[d % len(shape)] != 1] or dims  # size-1 dims reduce nothing
        if len(shape) != len(self.S) or [d % len(shape) for d in dims] != [self.red]:
            raise CannotSynthesize(
                f"reduction over dims {dims} of a {len(shape)}-d value: only one dimension, the same for every "
                "reduction of the unit, is synthesised"
            )

    def _reduce(self, v: Val, op: str) -> Val:
        if v.kind != "full":
            raise CannotSynthesize("reduction of a value that is not a full tile")
        if self.fold is not None and v.code not in self.foldfull:
            raise CannotSynthesize(f"a reduction over {list(self.fold.run)} of a value constant along some of them")
        fn, neutral = REDUCE[op]
        src = v.code if self.BLOCK_N == self.N else f"tl.where(cmask, {v.code}, {neutral})"
        self.reductions += 1
        r = self._new(f"{_reduce_call(fn, src)}[:, None]", _keep(v.shape, self.red), "row")
        self.lines[-1].reduce = (fn, neutral, v.code)
        return r

    def _arg(self, node: ast.AST, env: dict[str, Val]) -> Val:
        if isinstance(node, ast.Name) and node.id not in env and node.id in CONSTANT_NAMES:
            return Val(CONSTANT_NAMES[node.id], None, "const")
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise CannotSynthesize(f"unknown value {node.id}")
            return env[node.id]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            t = self._arg(node.value, env)
            if t.kind != "tuple":
                raise CannotSynthesize(f"indexing a tensor: {ast.unparse(node)}")
            return t.parts[ast.literal_eval(node.slice)]
        return Val(expr(node, {}), None, "const")

    def _kw(self, call: ast.Call) -> dict[str, Any]:
        """Keyword arguments, literal ones evaluated (others, such as ``dtype=torch.float32``,
        as their source text)."""
        out: dict[str, Any] = {}
        for k in call.keywords:
            try:
                out[k.arg] = ast.literal_eval(k.value)
            except ValueError:
                out[k.arg] = ast.unparse(k.value)
        return out

    def op(self, call: ast.Call, env: dict[str, Val]) -> Val:
        func = ast.unparse(call.func)
        parts = func.split(".")
        if parts[:2] != ["torch", "ops"] or len(parts) != 5 or parts[2] not in ("aten", "prims"):
            raise CannotSynthesize(f"{func} is not an ATen op")
        op, kw = parts[3], self._kw(call)
        if op == "full":
            value = full_constant(call)
            if value is None:
                raise CannotSynthesize("aten.full of a tensor shape")
            return Val(value, None, "const")
        if op in UNARY or op in BINARY or op in ("where", "clamp_min", "clamp_max", "pow"):
            return self._pointwise(call, env, op, parts[4])
        x = self._arg(call.args[0], env)
        if self.fold is not None and x.kind in ("input", "unfolded") and x.raw and len(call.args) > 1:
            if (viewed := self._raw_view(op, x, call)) is not None:
                return viewed
        if self.fold is not None and x.kind in ("full", "lazy", "row", "col", "regroup") and op in REGROUPS:
            if (same := self._regrouped(op, x, call)) is not None:
                return same
        call = self._folded(call, op)
        if op in self.VIEWS:  # views pushed down to the arguments' loads
            return self.VIEWS[op](self, op, x, call, kw)
        if op in VIEW_OPS and x.kind == "input":
            return self._view_of_input(x, call)
        x = self.load(x)
        if op in VIEW_OPS:
            return self._view(op, x, call)
        key = f"{op}.{parts[4]}" if op in ("max", "min") else op
        if key in self.COMPUTED:
            return self.COMPUTED[key](self, op, x, call, kw)
        raise CannotSynthesize(f"aten.{op} is not supported by the row synthesizer")

    def _pointwise(self, call: ast.Call, env: dict[str, Val], op: str, overload: str) -> Val:
        """An element-wise op: a template over its arguments' values, computed where a tile needs
        it (a function of the arguments alone stays symbolic until then)."""
        vals = [self._arg(a, env) for a in call.args]
        flat = [v for v in vals if v.kind == "rowflat"]
        # one value per row (a reduction without keepdim) combines only with constants and
        # values of its own shape: anything else would broadcast it along another dimension
        same = [v.kind == "const" or v.kind == "rowflat" and v.shape == flat[0].shape for v in vals] if flat else []
        mixed = not all(same)
        if any(v.kind == "tuple" for v in vals) or mixed:
            raise CannotSynthesize(
                f"aten.{op} of a reduction without keepdim (it would broadcast along another dimension)"
            )
        shape: list[int] | None = None
        for v in vals:
            if v.shape is not None:
                self._lifted_rank(v.shape, op)
                shape = self._canon(v.shape) if shape is None else broadcast_shapes(shape, self._canon(v.shape))
        tmpl = self._template(op, overload, vals)
        if flat:  # a function of one value per row (and constants): stays one value per row
            t = self._new(tmpl.format(*[v.code for v in vals]), list(flat[0].shape), "row")
            return Val(t.code, list(flat[0].shape), "rowflat")
        if shape is None:
            raise CannotSynthesize(f"aten.{op} of constants only")
        if all(v.kind in ("input", "lazy", "const") for v in vals):
            # a function of the arguments alone: stays symbolic until used, so that a view
            # applied later (unsqueeze) can be pushed down to the loads
            return Val(tmpl, list(shape), "lazy", parts=vals)
        vals = [self.load(v) for v in vals]
        return self._new(tmpl.format(*[v.code for v in vals]), shape, self._kind_of(shape))

    @staticmethod
    def _template(op: str, overload: str, vals: list[Val]) -> str:
        """The Triton expression of an element-wise op, ``{k}`` for its k-th argument."""
        ph = [f"{{{k}}}" for k in range(len(vals))]
        if op in UNARY and len(vals) == 1:
            return UNARY[op]
        if op in BINARY and len(vals) == 2:
            return BINARY[op]
        if op == "where" and len(vals) == 3:
            return f"tl.where({ph[0]}, {ph[1]}, {ph[2]})"
        if op in ("clamp_min", "clamp_max") and len(vals) == 2:
            return f"tl.{'maximum' if op == 'clamp_min' else 'minimum'}({ph[0]}, {ph[1]})"
        if op == "pow" and overload == "Tensor_Scalar" and len(vals) == 2 and vals[1].kind == "const":
            return pow_template(vals[1].code)
        raise CannotSynthesize(f"aten.{op}.{overload} with {len(vals)} arguments")

    def _folded(self, call: ast.Call, op: str) -> ast.Call:
        """In a unit whose reduced dims are folded into one: views that keep them (a reshape to the
        unit's rank, seen folded); views that could move them are refused."""
        if self.fold is None:
            return call
        if op in ("unsqueeze", "squeeze", "permute", "expand", "as_strided"):
            raise CannotSynthesize(f"aten.{op} in a unit whose reduction over {self.fold.run} is folded into one")
        if op in VIEW_OPS and len(call.args) > 1:
            new = list(ast.literal_eval(call.args[1]))
            if len(new) != self.fold.rank:
                raise CannotSynthesize(f"aten.{op} to {new} in a unit folded over {list(self.fold.run)}")
            new = [new[d] for d in self.perm] if self.perm is not None else new
            call = ast.Call(call.func, [call.args[0], ast.Constant(self.fold.shape(new))], call.keywords)
        return call

    # -- views: of an argument, they only change how it is indexed ------------------------------
    def _as_strided(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        """A view of an argument by sizes and strides (Inductor reads a group norm's [N, G, ...]
        statistics as [N, C] this way): indexed with exactly those strides."""
        try:
            args = [ast.literal_eval(a) for a in call.args[1:]]
        except ValueError:
            raise CannotSynthesize(f"aten.as_strided with symbolic sizes: {ast.unparse(call)[:120]}") from None
        offset = args[2] if len(args) > 2 else kw.get("storage_offset", 0)
        if (
            x.kind in ("full", "lazy")
            and not offset
            # eager elementwise results keep their inputs' layout: contiguous only if they are
            and all(self._contiguous(a) for a in self.args.values() if a.get("kind", "tensor") == "tensor")
            and list(args[1]) == contiguous_strides(list(args[0]))
            and self._canon(list(args[0])) == self._canon(list(x.shape)) == list(self.S)
        ):
            return x  # a computed (contiguous) value re-viewed with its own strides: a reshape
        if x.kind != "input" or x.strides is None and list(x.shape) != list(self.args[x.arg]["shape"]) or offset:
            raise CannotSynthesize("aten.as_strided of a computed value, a view or with a storage offset")
        return Val(x.code, list(args[0]), "input", arg=x.arg, strides=list(args[1]))

    def _unsqueeze_op(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        if x.kind not in ("input", "lazy"):
            raise CannotSynthesize("aten.unsqueeze of a computed value")
        return self._unsqueeze(x, int(ast.literal_eval(call.args[1])) % (len(x.shape) + 1), len(x.shape))

    def _expand(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        new = list(ast.literal_eval(call.args[1]))
        old = list(x.shape or [])
        if len(new) == len(old):
            new = [o if n == -1 else n for n, o in zip(new, old)]
        if x.shape is not None and self._canon(new) == self._canon(old):
            return x  # an expand to the value's own shape
        if x.shape is None or len(new) < len(old) or self._canon(new) != list(self.S):
            raise CannotSynthesize(f"aten.expand to {new} broadcasts {x.shape}: not synthesised")
        old = [1] * (len(new) - len(old)) + old
        if any(o not in (1, n) for o, n in zip(old, new)):
            raise CannotSynthesize(f"aten.expand of {x.shape} to {new}")
        if x.kind == "input" and x.strides is not None and self.fold is None:
            # an argument broadcast to the unit's shape: stride 0 along the expanded dims
            strides = [0] * (len(new) - len(x.strides)) + list(x.strides)
            strides = [0 if o == 1 and n != 1 else t for o, n, t in zip(old, new, strides)]
            return Val(x.code, list(new), "input", arg=x.arg, strides=strides)
        if x.kind == "lazy":  # a function of the arguments alone ([N, C, 1, W] of a norm's input)
            x = self.load(x)
        if x.kind == "full":  # its loads index the tile by the dims it has: broadcast already
            return Val(x.code, list(self.S), "full")
        if x.kind in ("row", "col", "const"):
            # a computed value broadcast to a full tile (a norm's [N, 1, W] divided into [N, C, W]):
            # materialised, so that a reduction of it counts every column
            code = f"tl.full([ROWS, BLOCK_N], {x.code}, tl.float32)" if x.kind == "const" else x.code
            if x.kind != "const":
                code = f"tl.broadcast_to({code}, [ROWS, BLOCK_N])"
            return self._new(code, list(self.S), "full")
        raise CannotSynthesize(f"aten.expand of a {x.kind} value to {new}: not synthesised")

    def _permute(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        """A permute of an argument (a transpose before a norm): its dims and strides reordered."""
        if x.kind != "input" or x.strides is None or x.shape is None:
            raise CannotSynthesize("aten.permute of a computed value, or of a view without strides")
        perm = [int(d) % len(x.shape) for d in ast.literal_eval(call.args[1])]
        return Val(x.code, [x.shape[d] for d in perm], "input", arg=x.arg, strides=[x.strides[d] for d in perm])

    def _repeat(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        """A repeat of an argument (an instance norm's weight, once per sample): each repeated
        dim indexed modulo the argument's size (``Rep``)."""
        reps = list(ast.literal_eval(call.args[1]))
        if x.kind != "input" or x.strides is None or len(reps) < len(x.shape):
            raise CannotSynthesize("aten.repeat of a computed value or of a view without strides")
        shape = [1] * (len(reps) - len(x.shape)) + list(x.shape)
        strides = [0] * (len(reps) - len(x.strides)) + list(x.strides)
        for d, r in enumerate(reps):
            if r != 1:
                if isinstance(strides[d], Rep):
                    raise CannotSynthesize("aten.repeat of a repeated argument")
                strides[d] = 0 if shape[d] == 1 else Rep(shape[d], strides[d])
                shape[d] *= r
        return Val(x.code, shape, "input", arg=x.arg, strides=strides)

    VIEWS = {
        "as_strided": _as_strided,
        "unsqueeze": _unsqueeze_op,
        "expand": _expand,
        "permute": _permute,
        "repeat": _repeat,
    }

    def _view_of_input(self, x: Val, call: ast.Call) -> Val:
        new = ast.literal_eval(call.args[1]) if len(call.args) > 1 else x.shape
        new = self._canon(list(new))
        if list(new) == list(x.shape):
            return x
        # a view of an argument that is contiguous in its logical shape is contiguous in the new
        # one; other views cannot be indexed
        plain = x.strides is not None and is_contiguous(x.shape, x.strides)
        return Val(x.code, list(new), "input", arg=x.arg, strides=contiguous_strides(new) if plain else None)

    def _view(self, op: str, x: Val, call: ast.Call) -> Val:
        """A view of a computed value: only another grouping of the same rows."""
        new = ast.literal_eval(call.args[1]) if len(call.args) > 1 else x.shape
        if (
            x.kind != "full"
            or math.prod(new) != self.numel
            or new[-1] != self.N
            or self.red != len(self.S) - 1
            and list(new) != list(x.shape)
        ):
            raise CannotSynthesize(f"aten.{op} to {new} changes the rows")
        return Val(x.code, self._canon(list(new)), "full")

    # -- ops on loaded values -------------------------------------------------------------------
    def _convert(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        return self._new(f"{x.code}.to(tl.float32)", x.shape, x.kind)

    def _rowflat(self, r: Val, x: Val, keep: Any) -> Val:
        """A reduction's result, kept as ``[..., 1, ...]`` or one value per row without keepdim."""
        return r if keep else Val(r.code, [n for d, n in enumerate(x.shape) if d != self.red], "rowflat")

    def _reduction(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        dims = ast.literal_eval(call.args[1]) if len(call.args) > 1 else kw.get("dim")
        keep = ast.literal_eval(call.args[2]) if len(call.args) > 2 else kw.get("keepdim", False)
        self._dims_last(dims, x.shape)
        r = self._reduce(x, op)
        if op == "mean":
            r = self._new(f"{r.code} / {float(self.N)!r}", r.shape, "row")
        return self._rowflat(r, x, keep)

    def _max_min_dim(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        """(values, indices) over one dimension (``torch.max(x, dim)[0]``): the values are an
        amax/amin; the indices are not synthesised, so a unit that uses them is refused."""
        dim = ast.literal_eval(call.args[1]) if len(call.args) > 1 else kw.get("dim")
        keep = ast.literal_eval(call.args[2]) if len(call.args) > 2 else kw.get("keepdim", False)
        self._dims_last([dim], x.shape)
        r = self._rowflat(self._reduce(x, "amax" if op == "max" else "amin"), x, keep)
        indices = Val("", None, "tuple", [])  # any use fails: "not a tensor value" / no part
        return Val("", None, "tuple", [r, indices])

    def _var(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        dims = ast.literal_eval(call.args[1]) if len(call.args) > 1 else kw.get("dim")
        self._dims_last(dims, x.shape)
        if len(call.args) > 2:  # var.dim's positional unbiased/keepdim: not read here
            raise CannotSynthesize(f"aten.{op} with positional arguments after the dims")
        keep = kw.get("keepdim", False)
        corr = kw.get("correction", 1)
        mean = self._new(f"{self._reduce(x, 'sum').code} / {float(self.N)!r}", _keep(x.shape, self.red), "row")
        d = self._new(f"{x.code} - {mean.code}", x.shape, "full")
        var = self._reduce(self._new(f"{d.code} * {d.code}", x.shape, "full"), "sum")
        var = self._rowflat(self._new(f"{var.code} / {float(self.N - corr)!r}", var.shape, "row"), x, keep)
        return Val("", None, "tuple", [var, self._rowflat(mean, x, keep)]) if op == "var_mean" else var

    def _softmax(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        self._dims_last(ast.literal_eval(call.args[1]), x.shape)
        m = self._reduce(x, "amax")
        e = self._new(f"tl.exp({x.code} - {m.code})", x.shape, "full")
        s = self._reduce(e, "sum")
        if op == "prepare_softmax_online":
            return Val("", None, "tuple", [m, s])
        if op == "_softmax":
            return self._new(f"{e.code} / {s.code}", x.shape, "full")
        return self._new(f"{x.code} - {m.code} - tl.log({s.code})", x.shape, "full")

    def _squeeze(self, op: str, x: Val, call: ast.Call, kw: dict[str, Any]) -> Val:
        """A keepdim reduction's result squeezed along the reduced dimension (logsumexp without
        keepdim: the row maximum kept, squeezed and added to the log of the sum): one value per
        row, as the reduction without keepdim gives it.  Any other squeeze is refused."""
        dims = ast.literal_eval(call.args[1]) if len(call.args) > 1 else kw.get("dim")
        dims = [dims] if isinstance(dims, int) else dims
        rank = len(x.shape) if x.shape is not None else 0
        along = rank and dims and sorted(d % rank for d in dims) == [self.red]
        if x.kind == "row" and along and x.shape[self.red] == 1:
            return Val(x.code, [n for d, n in enumerate(x.shape) if d != self.red], "rowflat")
        raise CannotSynthesize(f"aten.squeeze of {x.kind} values over {dims}: only a row value's reduced dimension")

    COMPUTED = {
        "convert_element_type": _convert,
        "squeeze": _squeeze,
        **dict.fromkeys(REDUCE, _reduction),
        "max.dim": _max_min_dim,
        "min.dim": _max_min_dim,
        "var_mean": _var,
        "var": _var,
        **dict.fromkeys(("prepare_softmax_online", "_softmax", "_log_softmax"), _softmax),
    }

    def build(self, attempt: int) -> str:
        env: dict[str, Val] = {}
        for i, name in enumerate(self.consts["INPUTS"]):
            env[f"x{i}"] = self.input(name)
        results: list[Val] | None = None
        for stmt in self.fwd.body:
            if isinstance(stmt, ast.Return):
                vals = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
                results = [self.load(self._arg(v, env)) for v in vals]
                break
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
                continue
            if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
                raise CannotSynthesize(f"unsupported statement {ast.unparse(stmt)[:80]}")
            v = stmt.value
            self._target = stmt.targets[0].id
            env[stmt.targets[0].id] = self.op(v, env) if isinstance(v, ast.Call) else self._arg(v, env)
        if results is None:
            raise CannotSynthesize("forward has no return")
        self.row_outputs = all(v.kind in ("row", "rowflat", "const") for v in results)
        for name, v in zip(self.consts["OUTPUTS"], results):
            if v.kind == "rowflat":
                v = Val(v.code, v.shape[: self.red] + [1] + v.shape[self.red :], "row")
            self.store(name, v)
        return self.source(attempt)

    def _looped_body(self) -> list[str]:
        """The body of the looped variant.  Reductions are grouped by depth (a reduction of
        depth d needs row values of depth < d): one pass over the row's chunks per depth,
        which recomputes the element-wise values its reductions need and accumulates each
        of them per row; then one pass that computes and stores the element-wise outputs."""

        chunked = {ln.name: i for i, ln in enumerate(self.lines) if ln.name and ln.kind in ("full", "col")}
        rowdef = {ln.name: i for i, ln in enumerate(self.lines) if ln.name and ln.name not in chunked}
        name_re = _NAME

        def rhs(i: int) -> str:
            ln = self.lines[i]
            return ln.reduce[2] if ln.reduce else (ln.code.split("=", 1)[1] if ln.name else ln.code)

        def closure(codes: list[str]) -> list[int]:
            need: set[int] = set()
            todo = [n for c in codes for n in name_re.findall(c) if n in chunked]
            while todo:
                i = chunked[todo.pop()]
                if i not in need:
                    need.add(i)
                    todo += [n for n in name_re.findall(rhs(i)) if n in chunked]
            return sorted(need)

        depth: dict[int, int] = {}  # line index of a row value -> its pass depth (0: no reduction)
        for i, ln in enumerate(self.lines):
            if ln.name not in rowdef:
                continue
            if ln.reduce:  # the row values the recomputed chunk reads
                uses = {n for j in closure([ln.reduce[2]]) for n in name_re.findall(rhs(j)) if n in rowdef}
                uses |= {n for n in name_re.findall(ln.reduce[2]) if n in rowdef}
                depth[i] = 1 + max((depth[rowdef[n]] for n in uses), default=0)
            else:
                depth[i] = max((depth[rowdef[n]] for n in name_re.findall(rhs(i)) if n in rowdef), default=0)

        def chunk_pass(k: int, codes: list[str]) -> tuple[list[str], list[str]]:
            """(loop head + recomputed values, the given codes renamed for this pass)."""
            ren = lambda c: name_re.sub(lambda m: f"{m.group(1)}_p{k}" if m.group(1) in chunked else m.group(1), c)  # noqa: E731
            head = [
                f"for c0 in range(0, {self.N}, BLOCK_N):",
                "    cols = c0 + tl.arange(0, BLOCK_N)[None, :]",
                "    col0 = c0",
                f"    cmask = cols < {self.N}",
                "    mask = rmask & cmask",
            ]
            return head + ["    " + ren(self.lines[i].code) for i in closure(codes)], [ren(c) for c in codes]

        body = [self.lines[i].code for i in sorted(i for i, d in depth.items() if d == 0)]
        for d in range(1, max(depth.values(), default=0) + 1):
            reds = [i for i, dd in sorted(depth.items()) if dd == d and self.lines[i].reduce]
            accs = []
            for i in reds:
                fn, neutral, _ = self.lines[i].reduce
                accs.append(f"acc_{self.lines[i].name}")
                body.append(f"{accs[-1]} = tl.full([ROWS, 1], {neutral}, tl.float32)")
            loop, parts = chunk_pass(d, [self.lines[i].reduce[2] for i in reds])
            body += loop
            for i, acc, part in zip(reds, accs, parts):
                fn, neutral, _ = self.lines[i].reduce
                chunk = _reduce_call(fn, f"tl.where(cmask, {part}, {neutral})")
                body.append("    " + f"{acc} = " + COMBINE[fn].format(acc=acc, part=f"{chunk}[:, None]"))
            body += [f"{self.lines[i].name} = {acc}" for i, acc in zip(reds, accs)]
            body += [self.lines[i].code for i, dd in sorted(depth.items()) if dd == d and not self.lines[i].reduce]
        body += [ln.code for ln in self.lines if ln.kind == "store-row"]
        full_stores = [ln.code for ln in self.lines if ln.kind == "store-full"]
        if full_stores:
            loop, stores = chunk_pass(max(depth.values(), default=0) + 1, full_stores)
            body += loop + ["    " + c for c in stores]
        return body

    def _team_body(self, split: bool = False) -> list[str]:
        """The team kernel's lines: the ticket names the row and the part of it; each reduction
        line becomes its round of exchange (publish, count in, wait, combine).  ``split``: the
        program's id is its ticket and a round's wait is the line ``SPLIT_ROUND`` (the partials
        are there: the launch that published them has ended)."""
        body = [
            "ticket = tl.program_id(0).to(tl.int64)" if split else "ticket = tl.atomic_add(ws_i, 1).to(tl.int64)",
            "row0 = ticket // T" if self._team_rows == 1 else "row0 = (ticket // T) * ROWS",
            "part = ticket % T",
            "rows = row0 + tl.arange(0, ROWS)[:, None]",
            f"rmask = rows < {self.R}",
            "cols = part * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]",
            "col0 = part * BLOCK_N",
            f"cmask = cols < {self.N}",
            "mask = rmask & cmask",
        ]
        reds = [i for i, ln in enumerate(self.lines) if ln.reduce]
        ordinal = {i: k for k, i in enumerate(reds)}
        pairs = self._team_pairs()
        later = {i1 for _, i1 in pairs.values()}
        exchange = (lambda k, cnt: [SPLIT_ROUND]) if split else self._exchange
        for i, ln in enumerate(self.lines):
            if not ln.reduce:
                body.append(ln.code)
                continue
            if i in later:  # combined in its pair's round
                continue
            k = ordinal[i]
            fn, neutral, src = ln.reduce
            cnt = f"ws_i + 1 + {k} * {self.R} + row0"
            if i in pairs:
                kind, i1 = pairs[i]
                local, combine = self._paired(kind, k, ordinal[i1], ln, self.lines[i1])
                body += local + exchange(k, cnt) + combine
                continue
            ax, per_row = (0, "") if self._team_rows == 1 else (1, "[:, None]")
            body += [
                f"p{k} = {fn}(tl.where(cmask, {src}, {neutral}), 1)",
                self._publish(k, f"p{k}"),
                *exchange(k, cnt),
                f"{ln.name} = {fn}({self._partials(k, neutral)}, {ax}){per_row}",
            ]
        return body

    def _slot(self, k: int) -> str:
        return f"ws_f + ({k} * {self.R} + row0) * T"

    def _publish(self, k: int, p: str) -> str:
        """The line storing a member's partials ``p`` of reduction ``k`` (one per row it holds)."""
        if self._team_rows == 1:
            return f"tl.store({self._slot(k)} + part + tl.arange(0, 1), {p})"
        own = "row0 + tl.arange(0, ROWS)"
        return f"tl.store(ws_f + ({k} * {self.R} + {own}) * T + part, {p}, mask={own} < {self.R})"

    def _partials(self, k: int, neutral: str = "0.0") -> str:
        """The team's partials of reduction ``k``: ``[TP]``, or ``[ROWS, TP]`` for several rows
        (``TP``, the power of two at or above ``T``: the places past the team hold ``neutral``)."""
        if self._team_rows == 1:
            members = "tl.arange(0, TP)"
            return f"tl.load({self._slot(k)} + {members}, mask={members} < T, other={neutral}, volatile=True)"
        members = "tl.arange(0, TP)[None, :]"
        at = f"ws_f + ({k} * {self.R} + rows) * T + {members}"
        return f"tl.load({at}, mask=rmask & ({members} < T), other={neutral}, volatile=True)"

    @staticmethod
    def _exchange(k: int, cnt: str) -> list[str]:
        """A round: count in once the partials are stored, wait for the team's T."""
        return [
            "tl.debug_barrier()",
            f"tl.atomic_add({cnt}, 1, sem='release')",
            f"seen{k} = tl.atomic_add({cnt}, 0, sem='acquire')",
            f"while seen{k} < T:",
            f"    seen{k} = tl.atomic_add({cnt}, 0, sem='acquire')",
        ]

    def _team_pairs(self) -> dict[int, tuple[str, int]]:
        """Pairs of reductions one round of exchange can serve (issue 13's split + combine):
        ``var``, a sum of ``a`` and the sum of ``(a - sum/N)**2`` (var_mean: each member
        publishes its part's sum and its squares about its own mean, combined by Chan's
        formula); ``softmax``, a max of ``a`` and the sum of ``exp(a - max)`` (each member's
        max and its sum about it, rescaled to the row's max).  {first's line: (kind, second's)}."""

        by_name = {ln.name: (i, ln) for i, ln in enumerate(self.lines) if ln.name}

        def rhs(name: str) -> str:
            ln = by_name[name][1] if name in by_name else None
            code = ln.code.split(" = ", 1)[1] if ln and not ln.reduce else ""
            return code[1:-1] if code.startswith("(") and code.endswith(")") else code

        pairs: dict[int, tuple[str, int]] = {}
        taken: set[int] = set()
        for i1, ln in enumerate(self.lines):
            if not ln.reduce or ln.reduce[0] != "tl.sum":
                continue
            src = ln.reduce[2]
            sq = re.fullmatch(r"(t\d+) \* (t\d+)", rhs(src))
            ex = re.fullmatch(r"tl\.exp\(([tv]\d+) - (t\d+)\)", rhs(src))
            if sq and sq.group(1) == sq.group(2):
                d = re.fullmatch(r"([tv]\d+) - (t\d+)", rhs(sq.group(1)))
                m = re.fullmatch(r"(t\d+) / ([0-9.e+]+)", rhs(d.group(2))) if d else None
                if not (m and float(m.group(2)) == float(self.N) and m.group(1) in by_name):
                    continue
                i0, r0 = by_name[m.group(1)]
                if r0.reduce and r0.reduce[0] == "tl.sum" and r0.reduce[2] == d.group(1):
                    kind = "var"
                else:
                    continue
            elif ex and ex.group(2) in by_name:
                i0, r0 = by_name[ex.group(2)]
                if not (r0.reduce and r0.reduce[0] == "tl.max" and r0.reduce[2] == ex.group(1)):
                    continue
                kind = "softmax"
            else:
                continue
            if i0 < i1 and i0 not in taken and i0 not in pairs:
                pairs[i0] = (kind, i1)
                taken.add(i1)
        return pairs

    def _paired(self, kind: str, k0: int, k1: int, r0: Line, r1: Line) -> tuple[list[str], list[str]]:
        """(each member's two partials, stored; the row's two values from the team's partials)."""
        a, n = r0.reduce[2], self.N  # type: ignore[index]
        ax, per_row, members = (0, "", "tl.arange(0, TP)")
        if self._team_rows > 1:
            ax, per_row, members = 1, "[:, None]", "tl.arange(0, TP)[None, :]"
        if kind == "var":
            local = [
                f"p{k0} = tl.sum(tl.where(cmask, {a}, 0.0), 1)",
                f"n{k0} = tl.maximum(tl.minimum({n} - part * BLOCK_N, BLOCK_N), 1).to(tl.float32)",
                f"d{k0} = tl.where(cmask, {a} - p{k0}[:, None] / n{k0}, 0.0)",
                f"p{k1} = tl.sum(d{k0} * d{k0}, 1)",
            ]
            combine = [
                f"g{k0} = {self._partials(k0)}",
                f"q{k0} = {self._partials(k1)}",
                f"c{k0} = tl.minimum(tl.maximum({n} - {members} * BLOCK_N, 0), BLOCK_N).to(tl.float32)",
                f"{r0.name} = tl.sum(g{k0}, {ax}){per_row}",
                f"e{k0} = tl.where(c{k0} > 0, g{k0} / tl.maximum(c{k0}, 1.0) - {r0.name} / {float(n)}, 0.0)",
                f"{r1.name} = (tl.sum(q{k0}, {ax}){per_row} + tl.sum(c{k0} * e{k0} * e{k0}, {ax}){per_row})",
            ]
        else:
            local = [
                f"p{k0} = tl.max(tl.where(cmask, {a}, float('-inf')), 1)",
                # a member whose max is -inf (no column, or all -inf) adds 0; a NaN still spreads
                f"h{k0} = cmask & (p{k0}[:, None] > float('-inf'))",
                f"p{k1} = tl.sum(tl.where(h{k0}, tl.exp({a} - p{k0}[:, None]), 0.0), 1)",
            ]
            combine = [
                f"g{k0} = {self._partials(k0, NEG_INF)}",
                f"q{k0} = {self._partials(k1)}",
                f"{r0.name} = tl.max(g{k0}, {ax}){per_row}",
                # a member without a finite value (no columns, or all -inf) adds nothing
                f"w{k0} = tl.where(g{k0} > float('-inf'), q{k0} * tl.exp(g{k0} - {r0.name}), 0.0)",
                f"{r1.name} = tl.sum(w{k0}, {ax}){per_row}",
            ]
        stores = [self._publish(k0, f"p{k0}"), self._publish(k1, f"p{k1}")]
        return local + stores, combine

    def _one_round(self) -> bool:
        """Whether the unit's reductions are one round of exchange (one reduction, or a pair
        ``_team_pairs`` serves), none of them a product (not exchanged)."""
        reds = [ln for ln in self.lines if ln.reduce]
        if not reds or any(ln.reduce[0] == "tl.prod" for ln in reds):  # type: ignore[index]
            return False
        return len(reds) == 1 or (len(reds) == 2 and len(self._team_pairs()) == 1)

    def _split_bodies(self) -> tuple[list[str], list[str]]:
        """The team body (one round) as two kernels' bodies: the members' partials, published
        (nothing stored to an output), then the rest without publishing them again."""
        body = self._team_body(split=True)
        publish = [ln for ln in body if ln.startswith("tl.store(ws_f")]
        part = [ln for ln in body[: body.index(SPLIT_ROUND)] if not ln.startswith("tl.store(") or ln in publish]
        return part, [ln for ln in body if ln not in publish]

    def _member_rows(self, chunk: int, split: bool) -> int:
        """Rows a team member holds (``_adjacent_rows``; ``_interleaved_rows`` for a split of
        ``RowKernel.split``, a chain's first stage, so every member reads its span whole)."""
        rows = self._adjacent_rows(TEAM_ROWS * max(1, chunk // 8192))
        if split and self.split is not None:
            rows = max(rows, self._interleaved_rows(min(64, chunk)))
        if not split and -(-self.N // max(1, min(chunk // rows, self.BLOCK_N))) > TEAM_MAX_T:
            rows = 1  # too many members to be sure they run side by side
        return rows

    def _team_source(self, attempt: int, chunk: int, warps: int, split: bool = False) -> str:
        """The team variant: a row too long for one program's registers is split over a team of
        ``T`` programs that each hold ``BLOCK_N`` of its columns in registers, so the row is read
        from memory once (the looped variant reads it once per reduction depth, and again to
        store).  Each reduction is a round of exchange: every member publishes its partial in
        the workspace, counts itself in and waits until the team's ``T`` partials are there, then
        combines them in member order (deterministic; the same value in every member).

        Programs take a ticket when they start and work on the row and part the ticket names, so
        a team's members are tickets in a row: every team below the newest one has all its
        members running, finishes and frees their places, so a waiting member's team-mates
        always get to run.  The interpreter runs programs one after another, so there (a CPU
        device) only a team of one is generated."""
        self._team_rows = rows = self._member_rows(chunk, split)
        block_n = max(1, min(chunk // rows, self.BLOCK_N))
        # members that hold columns (the row's power-of-two padding is no member's: 532,512
        # columns in parts of 8,192 are 66 members, not 128)
        T, K = -(-self.N // block_n), self.reductions
        body = [] if split else self._team_body()
        ptrs = [a["name"] for a in self.contract.args if a["kind"] == "tensor"]
        out = self.consts["OUTPUTS"][0]
        n_ws = 1 + K * self.R
        what = [
            f"{self.R} independent rows of {self.N} elements, each split over a team of T programs that hold",
            f"BLOCK_N of its columns in registers, so the row is read once; {K} reduction(s) over",
            f"{self._red_name()}, each a round of exchange through the workspace (partials combined",
            "in member order)." if rows == 1 else f"in member order); {rows} rows adjacent in memory per member.",
        ]
        grid = f"{self.R} * CONFIG['T']" if rows == 1 else f"triton.cdiv({self.R}, CONFIG['ROWS']) * CONFIG['T']"
        consts = "ROWS: tl.constexpr, BLOCK_N: tl.constexpr, T: tl.constexpr, TP: tl.constexpr"
        run = f"[({{}},)]({', '.join(ptrs)}, {{}}ws_f, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)"
        ws_f = (
            f"    ws_f = torch.empty(({max(1, K) * self.R} * CONFIG['T'],), dtype=torch.float32, device={out}.device)"
        )
        if split:
            part, rest = self._split_bodies()
            what[0:2] = [
                f"{self.R} independent rows of {self.N} elements, each split over T programs that hold BLOCK_N of",
                f"its columns, in two launches (the row read twice, no program waits); {K} reduction(s) over",
            ]
            what[2] = f"{self._red_name()}: the first launch publishes each part's partials (combined"
            grids = [grid, grid]
            if self.split is not None and self.row_outputs:  # one program per rows' partials, not T
                what[1] = f"its columns, in two launches (the second combines the partials only); {K} reduction(s) over"
                rest, grids[1] = [rest[0] + " * T", *rest[1:]], f"triton.cdiv({self.R}, CONFIG['ROWS'])"
            kernels = [("synth_part", part), ("synth_rows", rest)]
            launch = [ws_f, *(f"    {name}{run.format(g, '')}" for (name, _), g in zip(kernels, grids))]
        else:
            kernels = [("synth_rows", body)]
            launch = [
                f"    ws_i = torch.empty(({n_ws},), dtype=torch.int32, device={out}.device)",
                ws_f,
                f"    synth_team_zero[(triton.cdiv({n_ws}, 1024),)](ws_i, {n_ws}, 1024, num_warps=4, num_stages=1)",
                f"    synth_rows{run.format(grid, 'ws_i, ')}",
            ]
        defs: list[str] = [] if split else [*TEAM_ZERO, "", ""]
        for name, lines in kernels:
            ws = "ws_f" if split else "ws_i, ws_f"
            defs += ["@triton.jit", f"def {name}({', '.join(ptrs)}, {ws}, {consts}):", *[f"    {ln}" for ln in lines]]
            defs += ["", ""]
        config = f"CONFIG = {{'ROWS': {rows}, 'BLOCK_N': {block_n}, 'T': {T}, 'TP': {_next_pow2(T)}}}"
        return with_libdevice(
            "\n".join(
                [
                    *module_head(attempt, what),
                    "",
                    "",
                    *defs,
                    config,
                    f"NUM_WARPS = {warps}",
                    "NUM_STAGES = 1",
                    "",
                    "",
                    f"def launch({', '.join(a['name'] for a in self.contract.args)}):",
                    *launch,
                    "",
                ]
            )
        )

    def _adjacent_rows(self, rows: int) -> int:
        """Rows per team member: ``rows`` where an input's columns are not adjacent in memory but
        its consecutive rows are (stride 1 on its last row dim, a multiple of ``rows`` of them),
        else 1."""
        for name in self.consts["INPUTS"]:
            shape, stride = self.args[name].get("shape") or [], self.args[name].get("stride") or []
            if len(shape) >= 2 and shape[-1] == self.N and stride[-1] != 1 and stride[-2] == 1:
                if shape[-2] % rows == 0 and self.R % rows == 0:
                    return rows
        return 1

    def _interleaved_rows(self, limit: int = 64) -> int:
        """Rows per member where the unit's largest input interleaves consecutive rows in memory:
        a row's columns run ``A`` elements contiguously, the next row's run starts ``A`` after
        it, and ``k`` rows fill the span to the row's next run (a group norm's groups of a
        channels-last tensor: ``A`` channels of a group, ``k`` groups; an instance norm's
        channels: ``A`` = 1, ``k`` channels), so a member holding ``k`` rows reads memory
        contiguously.  The largest power of two dividing ``k`` (and the unit's rows), at most
        ``limit``; else 1.  Read off the index of that input's load (evaluated on a few places)."""
        name = max(self.consts["INPUTS"], key=lambda n: math.prod(self.args[n].get("shape") or [1]))
        found = (re.search(rf"tl\.load\({name} \+ \((.*)\), mask=mask,", ln.code) for ln in self.lines)
        expr = next((m.group(1) for m in found if m), None)
        if expr is None or not set(re.findall(r"[A-Za-z_]\w*", expr)) <= {"rows", "cols"}:
            return 1
        code = compile(expr, "<index>", "eval")
        at = lambda r, j: eval(code, {"__builtins__": {}}, {"rows": r, "cols": j})  # noqa: E731, S307
        base = at(0, 0)
        run = next((j for j in range(1, min(self.N, 4096)) if at(0, j) != base + j), None)
        if run is None or run > 256 or self.N % run or (at(0, run) - base) % run:
            return 1  # (a run of 1 KB or more already reads whole lines)
        k = (at(0, run) - base) // run
        rows = 1
        while rows < limit and k % (2 * rows) == 0 and self.R % (2 * rows) == 0:
            rows *= 2
        places = range(0, min(self.N, 3 * run))
        if any(at(r, j) != at(0, j) + r * run for r in range(rows) for j in places):
            return 1
        return rows

    def _teams(self) -> bool:
        """Whether the unit's device runs programs side by side (a team needs its members at once);
        a product is not exchanged between a team's members (no team then)."""
        prod = any(ln.reduce and ln.reduce[0] == "tl.prod" for ln in self.lines)
        return str(self.contract.device or "").startswith("cuda") and not prod

    def _strided_columns(self) -> bool:
        """Whether the unit reduces a middle dimension of inputs whose rows are adjacent in
        memory (every input of the unit's shape has stride 1 on its last dimension and not on the
        reduced one), with no fold, permutation or regrouping view in between."""
        if self.fold is not None or self.perm is not None or self.view is not None:
            return False
        return rows_adjacent([self.args[n] for n in self.consts["INPUTS"]], self.S, self.red)

    def _layout(self, attempt: int) -> tuple[int, int, int, list[str], str]:
        """(rows per program, BLOCK_N, num_warps, body lines, how) of the looped or whole-row
        variant."""
        looped = self.looped
        if self.chunk is None and self._strided_columns():
            if self.row_outputs:
                rows, chunk, warps = STRIDED_ONE_PASS[attempt % len(STRIDED_ONE_PASS)]
                looped = self.BLOCK_N > chunk
            else:
                rows, per_thread = STRIDED_WHOLE[attempt % len(STRIDED_WHOLE)]
                rows = max(rows, STRIDED_MAX_ELEMS // 4 // self.BLOCK_N)
                looped = rows * self.BLOCK_N > STRIDED_MAX_ELEMS
                rows, chunk, warps = (32, 64, 8) if looped else (rows, self.BLOCK_N, 0)
                warps = warps or max(1, min(32, _next_pow2(max(1, rows * self.BLOCK_N // (32 * per_thread)))))
            rows = max(1, min(_next_pow2(self.R), rows))
            if looped:
                return rows, min(chunk, self.BLOCK_N), warps, self._looped_body(), "rows adjacent in memory, " + LOOPED
            return rows, self.BLOCK_N, warps, self._whole_body(), "rows adjacent in memory, each row whole in registers"
        if looped:
            rows, chunk, warps = LOOPED_ATTEMPTS[attempt % len(LOOPED_ATTEMPTS)]
            rows = max(1, min(_next_pow2(self.R), rows))
            return rows, self.chunk or min(chunk, self.BLOCK_N), warps, self._looped_body(), LOOPED
        elems, per_thread = ATTEMPTS[attempt % len(ATTEMPTS)]
        rows = max(1, min(_next_pow2(self.R), elems // self.BLOCK_N))
        warps = max(1, min(32, _next_pow2(max(1, rows * self.BLOCK_N // (32 * per_thread)))))
        return rows, self.BLOCK_N, warps, self._whole_body(), "each row whole in registers"

    def _whole_body(self) -> list[str]:
        head = ["cols = tl.arange(0, BLOCK_N)[None, :]", "col0 = 0", f"cmask = cols < {self.N}", "mask = rmask & cmask"]
        return head + [ln.code for ln in self.lines]

    def source(self, attempt: int) -> str:
        if self.team is not None:
            return self._team_source(attempt, self.team, self.team_warps)
        if self.split is not None and self.looped and self.chunk is None and self._one_round():
            return self._team_source(attempt, *self.split, split=True)
        if self.looped and self.chunk is None and self._teams():
            if attempt % len(LOOPED_ATTEMPTS) in TEAM_ATTEMPTS:
                return self._team_source(attempt, *TEAM_ATTEMPTS[attempt % len(LOOPED_ATTEMPTS)])
            if self._adjacent_rows(TEAM_ROWS) > 1:  # the looped variant reads one row at a time: 6.1x on the H100
                return self._team_source(attempt, *TEAM_ATTEMPTS[2])
        if self.looped and self.chunk is None and attempt % len(LOOPED_ATTEMPTS) in SPLIT_ATTEMPTS:
            if self._one_round():
                return self._team_source(attempt, *SPLIT_ATTEMPTS[attempt % len(LOOPED_ATTEMPTS)], split=True)
        rows, block_n, warps, lines, how = self._layout(attempt)
        head = ["pid = tl.program_id(0).to(tl.int64)", "rows = pid * ROWS + tl.arange(0, ROWS)[:, None]"]
        head, grid = [*head, f"rmask = rows < {self.R}"], None
        if (outer := self._outer_split(lines, rows)) is not None:
            inner, lines = outer
            head = [
                "pid = tl.program_id(0).to(tl.int64)",
                "outer = tl.program_id(1).to(tl.int64)",
                "inner = pid * ROWS + tl.arange(0, ROWS)[:, None]",
                f"rmask = inner < {inner}",
                f"rows = outer * {inner} + inner",
            ]
            grid = f"triton.cdiv({inner}, CONFIG['ROWS']), {self.R // inner}"
            how += f"; a 2-D grid (a program's rows share their first row index, {OUTER_WHY})"
        what = [
            f"{self.R} independent rows of {self.N} elements, ROWS rows per program, {how}",
            f"({self.reductions} reduction(s) over {self._red_name()}; padding columns hold the neutral element).",
        ]
        config = {"ROWS": rows, "BLOCK_N": block_n}
        lines = [f"    {l}" for l in head + lines]
        return candidate_module(attempt, what, "synth_rows", self.contract, lines, config, warps, self.R, "ROWS", grid)

    def _outer_split(self, lines: list[str], rows: int) -> tuple[int, list[str]] | None:
        """(rows per value of the first row dimension, the body's lines) where some argument is
        indexed by that dimension alone among the rows (a group norm's scale per sample and
        channel in a LogSumExp over the channels): the programs then take their rows within one
        value of it (a 2-D grid), and such an argument is one load of the program's columns, not
        one per row and column.  None where no argument is, or a value of the first dimension
        holds too few rows for it to pay (under ``OUTER_MIN_PROGRAMS`` programs' worth)."""
        inner = self.R // self.lead[0] if self.lead else 0
        if inner <= 1 or inner < OUTER_MIN_PROGRAMS * rows or self.R // inner > 65535:
            return None
        key, rows_re = f"(rows // {inner})", re.compile(r"\brows\b")
        out, saved = [], False
        for line in lines:
            if key in line:
                line = line.replace(key, "outer")
                if " = tl.load(" in line and not rows_re.search(line):
                    line = line.replace(", mask=mask,", ", mask=cmask,").replace(", mask=rmask, other=0.0", "")
                    saved = True
            out.append(line)
        return (inner, out) if saved else None


def synthesize_rows(
    contract: Contract,
    reference_src: str,
    attempt: int,
    chunk: int | None = None,
    team: int | None = None,
    split: tuple[int, int] | None = None,
) -> str:
    """``chunk``: force the looped variant with this many columns per pass (longer rows than
    ``MAX_BLOCK_N`` get it, or on a GPU the team variant on attempts of ``TEAM_ATTEMPTS``);
    ``team``: force the team variant with this many columns per program; ``split``: the split
    variant's (columns, warps) where it applies (``RowKernel.split``).  A unit whose view
    of computed values "changes the rows" is tried again in the refinement of that view
    (``_pointwise_view``): every unit synthesized before it was tried is synthesized as it was."""

    def build(views: bool) -> str:
        kern = RowKernel(contract, reference_src, chunk, team, views=views)
        kern.split = split
        return kern.build(attempt)

    try:
        return build(False)
    except CannotSynthesize as e:
        if "changes the rows" not in str(e):
            raise
        try:
            return build(True)
        except CannotSynthesize as again:
            raise CannotSynthesize(f"{e} (in the view's refinement: {again})") from None


# -- chains: reductions over two sets of dims, as two row kernels -------------------------------
# (a group norm's statistics over each group, then a LogSumExp over the channels it normalised:
# Inductor's two kernels of such a region; neither row kernel alone can hold both reductions)
CHAIN_STAT = "ko_stat_"  # the statistics' buffers between the stages, allocated by ``launch``
CHAIN_FIRST = "stats_"  # the first stage's module-level names (the second's keep theirs: the search tunes it)
# a chain's first stage stores statistics only: the split variant's second launch combines the
# parts' partials (no program waits for another, the input is read once), and a member holds the
# rows that interleave in memory (``_interleaved_rows``); per attempt, its (columns a program
# holds, num_warps) (64x64x254x254 channels-last on the H100: level2/1's group statistics
# (4096, 4) 0.397 ms, (8192, 8) 0.414, (16384, 8) 0.445, Inductor's kernel 0.555, the read roof
# 0.351; the InstanceNorm's (16384, 8) 0.388, (8192, 8) 0.426, Inductor's 0.467; bench/README.md)
CHAIN_FIRST_SPLITS = [(8192, 8), (4096, 4), (16384, 8), (16384, 16)]


@dataclass
class Chain:
    """A unit's reference cut after its first group of reductions: ``first`` (contract,
    reference) computes the values the rest reads of that group (``stats``: name -> shape),
    ``rest`` (contract, reference) reads them as inputs and computes the unit's outputs."""

    first: tuple[Contract, str]
    rest: tuple[Contract, str]
    stats: dict[str, list[int]]


def _stage_reference(params: list[str], stmts: list[ast.stmt], returns: list[str], consts: dict[str, Any]) -> str:
    """A reference module (the unit reference's constants, ``Reference.forward``) of ``stmts``:
    ``params`` (value names) become x0.. in order; ``consts``: INPUTS, OUTPUTS, SHAPES, OUT_SHAPES."""
    mapping = {p: f"x{i}" for i, p in enumerate(params)}
    body = [renamed(s, mapping) for s in stmts]
    ret = ast.Return(ast.Tuple([ast.Name(mapping.get(r, r), ast.Load()) for r in returns], ast.Load()))
    args = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(a) for a in ["self", *mapping.values()]],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    fn = ast.fix_missing_locations(ast.FunctionDef(name="forward", args=args, body=[*body, ret], decorator_list=[]))
    lines = ["import math", "import torch", "from torch import device", "from math import inf, nan", ""]
    lines += ["LEVEL = 'kernel'", *(f"{k} = {consts[k]!r}" for k in ("INPUTS", "OUTPUTS", "SHAPES", "OUT_SHAPES"))]
    lines += ["", "", "class Reference(torch.nn.Module):", *("    " + ln for ln in ast.unparse(fn).splitlines()), ""]
    return "\n".join(lines)


def _explicit_broadcasts(stmts: list[ast.Assign], shapes: dict[str, list[int]]) -> list[ast.Assign]:
    """``stmts`` with an operand of an element-wise op of lower rank than its value unsqueezed at
    dim 0 up to that rank (a [C, 1, 1] scale times [N, C, H, W]; statements of their own): the
    same values, and a second stage synthesized in a refinement of the unit's dims sees every
    operand's dims aligned with the unit's."""
    out: list[ast.Assign] = []
    for s in stmts:
        s = ast.parse(ast.unparse(s)).body[0]  # type: ignore[assignment]
        rank = len(shapes.get(s.targets[0].id, []))  # type: ignore[attr-defined]
        call = s.value
        parts = ast.unparse(call.func).split(".") if isinstance(call, ast.Call) else []
        if len(parts) == 5 and (parts[3] in BINARY or parts[3] == "where"):
            for i, a in enumerate(call.args):  # type: ignore[attr-defined]
                if not isinstance(a, ast.Name) or a.id not in shapes or math.prod(shapes[a.id]) <= 1:
                    continue
                name = a.id
                for k in range(rank - len(shapes[a.id])):
                    new = f"{name}_ko_b{k}"
                    out.append(ast.parse(f"{new} = torch.ops.aten.unsqueeze.default({name}, 0)").body[0])  # type: ignore[arg-type]
                    name = new
                call.args[i] = ast.Name(name, ast.Load())  # type: ignore[attr-defined]
        out.append(ast.fix_missing_locations(s))  # type: ignore[arg-type]
    return out


def _slice(stmts: list[ast.Assign], targets: set[str]) -> tuple[list[ast.Assign], set[str]]:
    """The statements ``targets`` depend on, in order, and every name they read."""
    need, keep = set(targets), []
    for s in reversed(stmts):
        if s.targets[0].id in need:  # type: ignore[attr-defined]
            keep.append(s)
            need |= names_in(s.value)
    return keep[::-1], need


def chain_split(contract: Contract, reference_src: str) -> Chain:
    """The unit's reference as two stages (``Chain``): the first group of reductions (those of the
    first one's input and dims) and the values that depend on them alone, then the rest.
    CannotSynthesize where the reference is not plain assignments of kernel-level values, the
    statistics are outputs themselves, or the second stage needs none of them."""
    fwd, consts = forward_of(reference_src)
    if consts.get("LEVEL", "kernel") != "kernel" or "self." in ast.unparse(fwd):
        raise CannotSynthesize("a chain needs a kernel-level reference without constants")
    body = [s for s in fwd.body if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant))]
    if not body or not isinstance(body[-1], ast.Return) or not isinstance(body[-1].value, ast.Tuple):
        raise CannotSynthesize("a chain needs a forward that returns a tuple")
    stmts = body[:-1]
    if any(
        not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)) for s in stmts
    ):
        raise CannotSynthesize("a chain needs a forward of single assignments")
    returns = [e.id for e in body[-1].value.elts if isinstance(e, ast.Name)]  # type: ignore[attr-defined]
    args = {a["name"]: a for a in contract.args}
    shapes, _ = _eager_shapes(fwd, consts, args)
    params = [a.arg for a in fwd.args.args[1:]]
    reds = {id(n) for _, n in _reductions(fwd)}
    red_stmts = [s for s in stmts if id(s.value) in reds]  # type: ignore[attr-defined]
    if not red_stmts:
        raise CannotSynthesize("no reduction to cut a chain after")

    def key(s: ast.Assign) -> str:
        return ast.unparse(s.value.args[:2]) if isinstance(s.value, ast.Call) else ""

    closure = {s.targets[0].id for s in red_stmts if key(s) == key(red_stmts[0])}  # type: ignore[attr-defined]
    for s in stmts:
        used = names_in(s.value) & (set(shapes) | set(params) | closure)
        if used and used <= closure:
            closure.add(s.targets[0].id)  # type: ignore[attr-defined]
    later = [s for s in stmts if s.targets[0].id not in closure]  # type: ignore[attr-defined]
    read_later = set().union(*(names_in(s.value) for s in later), returns)
    stats = [s.targets[0].id for s in stmts if s.targets[0].id in closure and s.targets[0].id in read_later]  # type: ignore[attr-defined]
    if not stats or set(stats) & set(returns) or any(t not in shapes for t in stats):
        raise CannotSynthesize("a chain's statistics must be tensors the rest reads, not outputs")
    first, need1 = _slice(stmts, set(stats))  # type: ignore[arg-type]
    rest, need2 = _slice(later, set(returns))  # type: ignore[arg-type]
    if not set(stats) & need2 or any(id(s.value) in reds for s in first if s.targets[0].id not in closure):
        raise CannotSynthesize("the first stage would hold another group of reductions")
    pmap = dict(zip(params, consts["INPUTS"]))
    stat_name = {t: CHAIN_STAT + t for t in stats}
    stat_args = {
        t: {"kind": "tensor", "name": stat_name[t], "shape": shapes[t], "stride": contiguous_strides(shapes[t]),
            "storage_offset": 0, "dtype": "float32", "device": contract.device}
        for t in stats
    }  # fmt: skip
    scalars = [a for a in contract.args if a.get("kind", "tensor") != "tensor"]
    p1, p2 = [p for p in params if p in need1], [p for p in params if p in need2]
    in_shapes = consts["SHAPES"]
    c1 = {
        "INPUTS": [pmap[p] for p in p1], "OUTPUTS": [stat_name[t] for t in stats],
        "SHAPES": {pmap[p]: in_shapes[pmap[p]] for p in p1}, "OUT_SHAPES": {stat_name[t]: shapes[t] for t in stats},
    }  # fmt: skip
    used_stats = [t for t in stats if t in need2]
    c2 = {
        "INPUTS": [pmap[p] for p in p2] + [stat_name[t] for t in used_stats], "OUTPUTS": list(consts["OUTPUTS"]),
        "SHAPES": {**{pmap[p]: in_shapes[pmap[p]] for p in p2}, **{stat_name[t]: shapes[t] for t in used_stats}},
        "OUT_SHAPES": dict(consts["OUT_SHAPES"]),
    }  # fmt: skip
    first_args = [args[n] for n in c1["INPUTS"]] + [{**stat_args[t], "access": "write"} for t in stats]
    rest_args = [args[n] for n in c2["INPUTS"] if n in args] + [{**stat_args[t], "access": "read"} for t in used_stats]
    rest_args += [args[n] for n in consts["OUTPUTS"]]
    return Chain(
        first=(replace(contract, args=first_args + scalars), _stage_reference(p1, first, stats, c1)),
        rest=(
            replace(contract, args=rest_args + scalars),
            _stage_reference(
                p2 + used_stats,
                _explicit_broadcasts(rest, {**shapes, **{p: in_shapes[pmap[p]] for p in params}}),
                returns,
                c2,
            ),
        ),
        stats={stat_name[t]: shapes[t] for t in stats},
    )


def _module_parts(src: str, prefix: str = "") -> tuple[list[str], list[str]]:
    """(the docstring's description lines, the module after its imports) of a candidate module;
    ``prefix`` before every module-level name (a function's or an assignment's)."""
    tree = ast.parse(src)
    doc = ast.get_docstring(tree) or ""
    nodes = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr))]
    start = min(min([n.lineno, *(d.lineno for d in getattr(n, "decorator_list", []))]) for n in nodes)
    text = "\n".join(src.splitlines()[start - 1 :])
    if prefix:
        names = {n.name for n in nodes if isinstance(n, ast.FunctionDef)}
        names |= {t.id for n in nodes if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        text = re.sub(r"(?<![.\w'\"])(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b", prefix + r"\1", text)
    return doc.splitlines()[1:], text.splitlines()


def chain_rest(chain: Chain, attempt: int) -> str:
    """The module of a chain's second stage: in the refinement of the norm's view first (the
    statistics loaded per sample and group), else as ``synthesize_rows`` makes it."""
    try:
        return RowKernel(chain.rest[0], chain.rest[1], views=True).build(attempt)
    except CannotSynthesize:
        try:
            return synthesize_rows(chain.rest[0], chain.rest[1], attempt)
        except CannotSynthesize as e:
            raise CannotSynthesize(f"a chain's second stage: {e}") from None


def synthesize_chain(contract: Contract, reference_src: str, attempt: int) -> str:
    """One candidate module of two row kernels (``chain_split``): the first stage's module with its
    names prefixed (``stats_``), the second's as it is (its CONFIG is the one the search
    tunes), and ``launch`` allocating the statistics, then running both."""
    chain = chain_split(contract, reference_src)
    try:
        first = synthesize_rows(*chain.first, attempt, split=CHAIN_FIRST_SPLITS[attempt % len(CHAIN_FIRST_SPLITS)])
    except CannotSynthesize as e:
        raise CannotSynthesize(f"a chain's first stage: {e}") from None
    rest = chain_rest(chain, attempt)
    what1, body1 = _module_parts(first, CHAIN_FIRST)
    what2, body2 = _module_parts(rest)
    body2 = [re.sub(r"^def launch\(", "def launch_rest(", ln) for ln in body2]
    out = next(a["name"] for a in contract.args if a.get("access") == "write")
    names = lambda c: ", ".join(a["name"] for a in c.args)  # noqa: E731
    what = [
        f"two launches, a chain: the statistics the rest reads ({', '.join(chain.stats)}), then the rest.",
        "First: " + " ".join(what1),
        "Then: " + " ".join(what2),
    ]
    launch = [f"def launch({names(contract)}):"]
    launch += [
        f"    {n} = torch.empty({tuple(s)}, dtype=torch.float32, device={out}.device)" for n, s in chain.stats.items()
    ]
    launch += [f"    {CHAIN_FIRST}launch({names(chain.first[0])})", f"    launch_rest({names(chain.rest[0])})", ""]
    return with_libdevice("\n".join([*module_head(attempt, what), "", "", *body1, "", "", *body2, "", "", *launch]))
