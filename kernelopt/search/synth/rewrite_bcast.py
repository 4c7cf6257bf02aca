"""The candidate of a ``broadcast-then-reduce`` unit (issue 16, capture/rewrites.py):
``sum(f * s, dims)`` where the factor ``f`` does not vary along the reduced dims is
``f * sum(s, dims)``.  Two launches: the sum ``S`` of the summed operand over the reduced dims
into an fp32 scratch vector (each of its elements read once, S indexed by the kept dims along
which ``s`` varies), then one pass over the output's elements, ``out[i] = f[i] * S[i']``.

``roles`` (capture/rewrites.py): ``factor`` / ``summed`` (graph inputs, contract arg names) with
``factor_dims`` / ``summed_dims`` (for each dim of the product ``shape``, the input's dim indexing
it there, or None where the input does not vary along it), ``dims`` (reduced), ``keepdim``.
Shapes and strides are baked in as constants; offsets are int64; the sum accumulates in fp32.
"""

from __future__ import annotations

import math
from typing import Any

from ...core.records import Contract
from .ops import CannotSynthesize, module_head

# per attempt: (BLOCK_S, BLOCK_R) of the sum's [kept x reduced] tiles, BLOCK of the product, warps
TILES = ((8, 128, 1024, 4), (2, 512, 512, 4), (32, 32, 256, 4), (4, 256, 2048, 8))
# the kernels' local names, which no contract argument may take
LOCALS = {"scratch", "rs", "rr", "r0", "acc", "mask", "base", "roff", "ro", "fv", "sv", "tl", "triton", "torch"}


def _operand(args: dict[str, Any], name: str, dims: list[int | None], shape: list[int]) -> dict[str, Any]:
    """The contract arg ``name``, checked against its dim map over the product ``shape``: each
    mapped dim has the product's size, every dim left out has size 1."""
    if name not in args or args[name]["access"] != "read" or len(dims) != len(shape):
        raise CannotSynthesize(f"{name} is not an input of the unit with a dim map over {shape}")
    a = args[name]
    used = [d for d in dims if d is not None]
    if len(set(used)) != len(used) or any(not 0 <= d < len(a["shape"]) for d in used):
        raise CannotSynthesize(f"{name}'s dim map {dims} is not a map into {a['shape']}")
    if any(a["shape"][d] != shape[i] for i, d in enumerate(dims) if d is not None) or any(
        s != 1 for d, s in enumerate(a["shape"]) if d not in used
    ):
        raise CannotSynthesize(f"{name} {a['shape']} does not broadcast to {shape} through {dims}")
    return a


def _layout(contract: Contract) -> dict[str, Any]:
    """The unit's operands and index spaces, checked; CannotSynthesize where they disagree."""
    r = contract.rewrite
    roles = r["roles"]
    args = {a["name"]: a for a in contract.args}
    if LOCALS & set(args):
        raise CannotSynthesize(f"argument names {sorted(LOCALS & set(args))} clash with the kernels' locals")
    shape, red = list(roles["shape"]), sorted(roles["dims"])
    f = _operand(args, roles["factor"], roles["factor_dims"], shape)
    s = _operand(args, roles["summed"], roles["summed_dims"], shape)
    fdims, sdims = roles["factor_dims"], roles["summed_dims"]
    if not red or any(not 0 <= d < len(shape) for d in red) or any(fdims[d] is not None for d in red):
        raise CannotSynthesize(f"the factor {f['name']} varies along the reduced dims {red}")
    (out,) = r["outputs"]
    o = args.get(out)
    if o is None or o["access"] != "write":
        raise CannotSynthesize(f"the unit's output {out} is not an argument it writes")
    kept = [d for d in range(len(shape)) if d not in red]
    want = [1 if d in red else shape[d] for d in range(len(shape))] if roles["keepdim"] else [shape[d] for d in kept]
    if list(o["shape"]) != want:
        raise CannotSynthesize(f"the output {o['shape']} is not the sum of {shape} over {red} ({want})")
    # the output's dims, each (product dim, size, stride); a keepdim's reduced dims have size 1 and drop
    odims = [
        (d, o["shape"][j], st)
        for j, (d, st) in enumerate(zip(range(len(shape)) if roles["keepdim"] else kept, o["stride"]))
    ]
    # S: row-major over the kept dims along which s varies; its reduction runs innermost along s's smallest stride
    s_kept = [d for d in kept if sdims[d] is not None and shape[d] > 1]
    s_red = sorted((d for d in red if sdims[d] is not None and shape[d] > 1), key=lambda d: -s["stride"][sdims[d]])
    s_stride, step = {}, 1
    for d in reversed(s_kept):
        s_stride[d], step = step, step * shape[d]
    return {
        "f": f, "s": s, "out": out, "shape": shape, "red": red, "fdims": fdims, "sdims": sdims, "odims": odims,
        "s_kept": s_kept, "s_red": s_red, "s_stride": s_stride,
        "n_s": math.prod(shape[d] for d in s_kept), "n_r": math.prod(shape[d] for d in s_red),
        "n_out": math.prod(n for _, n, _ in odims),
        # reduced dims along which s does not vary either (an expand): each value is summed that many times
        "scale": math.prod(shape[d] for d in red if sdims[d] is None),
    }  # fmt: skip


def _coords(idx: str, dims: list[tuple[int, int]]) -> dict[int, str]:
    """For a flat row-major index ``idx`` over ``dims`` (each (product dim, size)), the expression
    of each dim's coordinate; dims of size 1 (always 0) are left out."""
    out, step = {}, 1
    for d, n in reversed(dims):
        if n > 1:
            out[d] = f"({idx} // {step} % {n})" if step > 1 else f"({idx} % {n})"
            step *= n
    return out


def _offset(coords: dict[int, str], stride: dict[int, int], block: str) -> str:
    """sum(coordinate * stride) over the coords with a stride; int64 zeros of ``[block]`` if none."""
    terms = [f"{c} * {stride[d]}" for d, c in coords.items() if d in stride and stride[d] != 0]
    return " + ".join(terms) if terms else f"tl.zeros([{block}], tl.int64)"


def _sum_kernel(lay: dict[str, Any]) -> list[str]:
    """Kernel 1: S[i'] = sum of s over the reduced dims, [BLOCK_S x BLOCK_R] tiles, into ``scratch``."""
    s, shape, sdims = lay["s"], lay["shape"], lay["sdims"]
    strides = {d: s["stride"][sdims[d]] for d in range(len(shape)) if sdims[d] is not None}
    base = _offset(_coords("rs", [(d, shape[d]) for d in lay["s_kept"]]), strides, "BLOCK_S")
    roff = _offset(_coords("rr", [(d, shape[d]) for d in lay["s_red"]]), strides, "BLOCK_R")
    scale = f" * {float(lay['scale'])!r}" if lay["scale"] != 1 else ""
    return [
        "@triton.jit",
        f"def bcast_sum({s['name']}, scratch, BLOCK_S: tl.constexpr, BLOCK_R: tl.constexpr):",
        "    rs = tl.program_id(0).to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S)",
        f"    base = {base}",
        "    acc = tl.zeros([BLOCK_S, BLOCK_R], tl.float32)",
        f"    for r0 in range(0, {lay['n_r']}, BLOCK_R):",
        "        rr = r0 + tl.arange(0, BLOCK_R).to(tl.int64)",
        f"        roff = {roff}",
        f"        mask = (rs[:, None] < {lay['n_s']}) & (rr[None, :] < {lay['n_r']})",
        f"        acc += tl.load({s['name']} + base[:, None] + roff[None, :], mask=mask, other=0.0).to(tl.float32)",
        f"    tl.store(scratch + rs, tl.sum(acc, axis=1){scale}, mask=rs < {lay['n_s']})",
    ]


def _product_kernel(lay: dict[str, Any]) -> list[str]:
    """Kernel 2: one program per BLOCK output elements, out[i] = f[i] * S[i']."""
    f, out, shape, fdims = lay["f"], lay["out"], lay["shape"], lay["fdims"]
    coords = _coords("ro", [(d, n) for d, n, _ in lay["odims"]])
    f_stride = {d: f["stride"][fdims[d]] for d in range(len(shape)) if fdims[d] is not None}
    o_stride = {d: st for d, _, st in lay["odims"]}
    mask = f"ro < {lay['n_out']}"
    return [
        "@triton.jit",
        f"def bcast_product({f['name']}, scratch, {out}, BLOCK: tl.constexpr):",
        "    ro = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)",
        f"    fv = tl.load({f['name']} + {_offset(coords, f_stride, 'BLOCK')}, mask={mask}, other=0.0).to(tl.float32)",
        f"    sv = tl.load(scratch + {_offset(coords, lay['s_stride'], 'BLOCK')}, mask={mask}, other=0.0)",
        f"    tl.store({out} + {_offset(coords, o_stride, 'BLOCK')}, (fv * sv).to({out}.dtype.element_ty), "
        f"mask={mask})",
    ]


def broadcast_then_reduce(contract: Contract, attempt: int) -> str:
    lay = _layout(contract)
    f, s, out, shape = lay["f"]["name"], lay["s"]["name"], lay["out"], lay["shape"]
    bs, br, bo, warps = TILES[attempt % len(TILES)]
    opts = "num_warps=NUM_WARPS, num_stages=NUM_STAGES"
    what = [
        f"graph-level rewrite broadcast-then-reduce: sum({f} * {s}, dims={lay['red']}) over the product",
        f"{shape}, where {f} does not vary along the reduced dims, as {f} * sum({s}, dims): the sum of",
        f"{s} into an fp32 vector of {lay['n_s']} values (each element of {s} read once), then",
        f"{lay['n_out']} products; the {shape} product is never formed.",
    ]
    return "\n".join(
        [
            *module_head(attempt, what, "rewrite"),
            "",
            "",
            *_sum_kernel(lay),
            "",
            "",
            *_product_kernel(lay),
            "",
            "",
            f"CONFIG = {{'BLOCK_S': {bs}, 'BLOCK_R': {br}, 'BLOCK': {bo}}}",
            f"NUM_WARPS = {warps}",
            "NUM_STAGES = 1",
            "",
            "",
            f"def launch({', '.join(a['name'] for a in contract.args)}):",
            f"    scratch = torch.empty(({lay['n_s']},), dtype=torch.float32, device={out}.device)",
            f"    bcast_sum[(triton.cdiv({lay['n_s']}, CONFIG['BLOCK_S']),)]({s}, scratch, CONFIG['BLOCK_S'], "
            f"CONFIG['BLOCK_R'], {opts})",
            f"    bcast_product[(triton.cdiv({lay['n_out']}, CONFIG['BLOCK']),)]({f}, scratch, {out}, CONFIG['BLOCK'], "
            f"{opts})",
            "",
        ]
    )
