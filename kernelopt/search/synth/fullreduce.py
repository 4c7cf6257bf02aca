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


# --------------------------------------------------------------------------- a group norm, averaged
# A group norm whose output is only averaged per sample (``GroupNorm(x).mean(dims=[1, ...])``,
# a convolution's epilogue in many models): the mean of ``gamma_c * (x - mu_g) * rstd_g + beta_c``
# over (c, spatial) is ``sum_c (gamma_c * rstd_g * (m_c - mu_g) + beta_c) / C`` with ``m_c`` the
# channel means, so the normalised tensor is never formed: one pass over ``x`` for every
# channel's sum and centred sum of squares (per spatial chunk, combined as Chan's parallel
# variance), then one small program per sample.  Inductor reads ``x`` twice (its statistics, then
# the mean of the normalised values).
NORM_MEAN_OPS = {"reshape", "view", "var_mean", "getitem", "add", "sub", "mul", "neg", "rsqrt", "as_strided"}
NORM_MEAN_OPS |= {"unsqueeze", "mean"}
VIEWS = {"reshape", "view", "as_strided", "unsqueeze"}
# (elements of x per tile, programs wanted in all, num_warps) per attempt
NORM_MEAN_ATTEMPTS = [(4096, 1024, 8), (2048, 2048, 4), (8192, 512, 8), (1024, 4096, 4)]


def is_norm_then_mean(reference_src: str) -> bool:
    """A var_mean and a mean (over some dims) in one reference: ``synthesize_norm_mean`` says
    whether it is a group norm averaged per sample."""
    return "aten.var_mean.correction(" in reference_src and "aten.mean.dim(" in reference_src


def _calls(fwd: ast.FunctionDef) -> tuple[dict[str, tuple[str, ast.Call]], list[str]]:
    """Each assigned name's (op, call) and the names returned; CannotSynthesize for an op outside
    ``NORM_MEAN_OPS``."""
    calls: dict[str, tuple[str, ast.Call]] = {}
    for s in fwd.body:
        if isinstance(s, ast.Return):
            vals = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]
            return calls, [v.id if isinstance(v, ast.Name) else "" for v in vals]
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant):
            continue
        if not (isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)):
            raise CannotSynthesize(f"unsupported statement {ast.unparse(s)[:80]}")
        if isinstance(s.value, ast.Subscript):  # getitem of var_mean
            calls[s.targets[0].id] = ("getitem", ast.Call(ast.Name("getitem"), [s.value.value, s.value.slice], []))
            continue
        if not isinstance(s.value, ast.Call):
            raise CannotSynthesize(f"unsupported statement {ast.unparse(s)[:80]}")
        parts = ast.unparse(s.value.func).split(".")
        op = parts[-2] if len(parts) >= 3 else ""
        if op not in NORM_MEAN_OPS:
            raise CannotSynthesize(f"{ast.unparse(s.value.func)} between a group norm and its mean")
        calls[s.targets[0].id] = (op, s.value)
    raise CannotSynthesize("forward has no return")


def _source(name: str, calls: dict[str, tuple[str, ast.Call]]) -> str:
    """The value ``name`` is a view of (through reshapes, unsqueezes, as_strided)."""
    while name in calls and calls[name][0] in VIEWS and isinstance(calls[name][1].args[0], ast.Name):
        name = calls[name][1].args[0].id
    return name


def _item_of(call: ast.Call, name: str) -> Any:
    """The index a getitem takes of ``name`` (None for another value's)."""
    whole, index = call.args[0], call.args[1]
    if isinstance(whole, ast.Name) and whole.id == name and isinstance(index, ast.Constant):
        return index.value
    return None


def _first_use(name: str, calls: dict[str, tuple[str, ast.Call]]) -> str | None:
    """The first op other than a view that uses ``name`` (through its views)."""
    names = {name}
    for target, (op, call) in calls.items():
        if any(isinstance(a, ast.Name) and a.id in names for a in call.args):
            if op in VIEWS:
                names.add(target)
            else:
                return op
    return None


def _shifted(x: str, calls: dict[str, tuple[str, ast.Call]], params: dict[str, str], consts: dict[str, Any]):
    """``(input, per-channel shift)`` where ``x`` is an input plus a per-channel vector seen as
    [1, C, 1, ...] (a convolution's bias added after a library call run without it: the
    reference of a region that starts at its raw output); ``(x, None)`` otherwise."""
    if x not in calls or calls[x][0] != "add" or not all(isinstance(a, ast.Name) for a in calls[x][1].args[:2]):
        return x, None
    a, b = (_source(n.id, calls) for n in calls[x][1].args[:2])  # type: ignore[attr-defined]
    for full, vec in ((a, b), (b, a)):
        if full in params and vec in params:
            shape = list(consts["SHAPES"][params[full]])
            if len(shape) >= 3 and list(consts["SHAPES"][params[vec]]) == [shape[1]]:
                return full, vec
    return x, None


def _norm_mean_roles(
    fwd: ast.FunctionDef, consts: dict[str, Any], ins: list[str]
) -> tuple[str, list[int], int, float, str | None, str | None, str | None]:
    """(the normalised input, its shape [N, C, *spatial], groups G, eps, gamma, beta, a
    per-channel shift added to the input first) of a group norm averaged per sample;
    CannotSynthesize for anything else."""
    calls, rets = _calls(fwd)
    params = {p.arg: ins[i] for i, p in enumerate(fwd.args.args[1:])}
    vms = [(t, c) for t, (op, c) in calls.items() if op == "var_mean"]
    means = [(t, c) for t, (op, c) in calls.items() if op == "mean"]
    if len(vms) != 1 or len(means) != 1 or rets != [means[0][0]]:
        raise CannotSynthesize("not one var_mean and one mean that is the output: no group norm averaged per sample")
    (vm, vcall), (_, mcall) = vms[0], means[0]
    kw = {k.arg: ast.literal_eval(k.value) for k in vcall.keywords}
    viewed = vcall.args[0].id if isinstance(vcall.args[0], ast.Name) else ""
    if ast.literal_eval(vcall.args[1]) not in ([2, 3], [-2, -1]) or kw.get("correction", 1) != 0 or viewed not in calls:
        raise CannotSynthesize("a var_mean that is not a group norm's (dims [2, 3] of [N, G, C/G, S], no correction)")
    x, shift = _shifted(_source(viewed, calls), calls, params, consts)
    if x not in params:
        raise CannotSynthesize("a group norm of a computed value")
    shape = list(consts["SHAPES"][params[x]])
    grouped = list(ast.literal_eval(calls[viewed][1].args[1]))
    if len(shape) < 3 or len(grouped) != 4 or grouped[0] != shape[0] or grouped[1] * grouped[2] != shape[1]:
        raise CannotSynthesize(f"a var_mean over {grouped} of {shape}: not a group norm's grouping")
    if grouped[3] != math.prod(shape[2:]):
        raise CannotSynthesize(f"a var_mean over {grouped} of {shape}: not a group norm's grouping")
    dims = sorted(int(d) % len(shape) for d in ast.literal_eval(mcall.args[1]))
    if dims != list(range(1, len(shape))) or len(mcall.args) > 2 and ast.literal_eval(mcall.args[2]):
        raise CannotSynthesize("a mean that is not over every dimension but the batch")
    variance = [t for t, (op, c) in calls.items() if op == "getitem" and _item_of(c, vm) == 0]
    eps = [
        ast.literal_eval(c.args[1])
        for op, c in calls.values()
        if op == "add" and isinstance(c.args[0], ast.Name) and c.args[0].id in variance and len(c.args) == 2
    ]
    if len(eps) != 1 or not isinstance(eps[0], (int, float)):
        raise CannotSynthesize("no variance + eps of the group norm")
    roles: dict[str, str] = {}
    for p, arg in params.items():
        if p in (x, shift):
            continue
        if list(consts["SHAPES"][arg]) != [shape[1]]:
            raise CannotSynthesize(f"input {arg} of shape {consts['SHAPES'][arg]}: not a per-channel weight")
        use = _first_use(p, calls)
        role = {"mul": "gamma", "add": "beta"}.get(use or "")
        if role is None or role in roles:
            raise CannotSynthesize(f"input {arg} is neither the group norm's weight nor its bias")
        roles[role] = arg
    shift_arg = params[shift] if shift else None
    return params[x], shape, grouped[1], float(eps[0]), roles.get("gamma"), roles.get("beta"), shift_arg


def _spatial_offset(a: dict[str, Any], name: str = "s") -> str:
    """The element offset of flat spatial positions ``s`` (over dims 2..) of argument ``a``."""
    shape, stride = a["shape"], a["stride"]
    terms, inner = [], math.prod(shape[2:])
    for d in range(2, len(shape)):
        inner //= shape[d]
        idx = f"({name} // {inner})" if inner > 1 else name
        idx = f"({idx} % {shape[d]})" if d > 2 else idx
        if shape[d] > 1 and stride[d]:
            terms.append(f"{idx} * {stride[d]}")
    return " + ".join(terms) or "0"


def synthesize_norm_mean(contract: Contract, reference_src: str, attempt: int) -> str:
    fwd, consts, args, ins, outs = kernel_reference(contract, reference_src)
    x, shape, groups, eps, gamma, beta, shift = _norm_mean_roles(fwd, consts, ins)
    out = outs[0]
    if list(consts["OUT_SHAPES"][out]) != [shape[0]]:
        raise CannotSynthesize(f"the output is {consts['OUT_SHAPES'][out]}, not one value per sample")
    for name in ins + outs:
        if args[name].get("dtype") not in FLOAT_DTYPES:
            raise CannotSynthesize(f"argument {name} is {args[name].get('dtype')}: float arguments only")
    N, C, S = shape[0], shape[1], math.prod(shape[2:])
    c_pad, g_pad = 1 << (C - 1).bit_length(), 1 << (groups - 1).bit_length()
    if c_pad > 1024 or c_pad * g_pad > 65536:
        raise CannotSynthesize(f"{C} channels in {groups} groups: more than one program's tile")
    tile, programs, warps = NORM_MEAN_ATTEMPTS[attempt % len(NORM_MEAN_ATTEMPTS)]
    block = max(1, min(tile // c_pad, 1 << (S - 1).bit_length()))
    chunks = max(1, min(-(-programs // N), -(-S // block), 16384 // c_pad))
    per = -(-S // chunks)
    span = -(-per // block) * block  # spatial positions per program, whole tiles
    chunks = -(-S // span)
    what = [
        f"a group norm of {shape}{' plus a per-channel shift' if shift else ''} ({groups} groups, eps {eps:g}"
        f"{', affine' if gamma or beta else ''}) averaged",
        f"per sample: {chunks} chunks of {span} positions per sample sum every channel and its centred",
        "squares in one pass over x (Chan's combine), one program per sample forms the mean from the",
        "channel means; the normalised tensor is never written.",
    ]
    vectors = ", ".join(n for n in (shift, gamma, beta, out) if n)
    launch = [
        f"CONFIG = {{'BLOCK': {block}, 'SPAN': {span}}}",
        f"NUM_WARPS = {warps}",
        "NUM_STAGES = 1",
        "",
        "",
        f"def launch({', '.join(a['name'] for a in contract.args)}):",
        f"    chunks = triton.cdiv({S}, CONFIG['SPAN'])",
        "    k_pad = triton.next_power_of_2(chunks)",
        f"    psum = torch.empty(({N} * k_pad * {c_pad},), dtype=torch.float32, device={out}.device)",
        "    pm2 = torch.empty_like(psum)",
        f"    synth_gn_partial[({N}, chunks)]({x}, psum, pm2, CONFIG['SPAN'], CONFIG['BLOCK'], k_pad, "
        "num_warps=NUM_WARPS, num_stages=NUM_STAGES)",
        f"    synth_gn_mean[({N},)](psum, pm2, {vectors}, chunks, CONFIG['SPAN'], k_pad, num_warps=4, num_stages=1)",
        "",
    ]
    partial = _gn_partial(x, args[x], C, S, c_pad)
    final = _gn_mean(args, (shift, gamma, beta, out), vectors, shape, groups, eps, c_pad, g_pad)
    return "\n".join([*module_head(attempt, what), "", "", *partial, "", "", *final, "", "", *launch])


# the elements of chunk ``kk`` (of ``SPAN`` spatial positions; the last one may be short)
CHUNK_COUNT = "(tl.minimum({S}, (kk + 1) * SPAN) - kk * SPAN).to(tl.float32)"


def _gn_partial(x: str, xa: dict[str, Any], C: int, S: int, c_pad: int) -> list[str]:
    """The first kernel: per (sample, chunk), every channel's sum and centred squares."""
    mask = f"((s < {S}) & (s < (kk + 1) * SPAN))[:, None] & (c < {C})[None, :]"
    at = f"base + ({_spatial_offset(xa)})[:, None]"
    return [
        "@triton.jit",
        f"def synth_gn_partial({x}, psum, pm2, SPAN: tl.constexpr, BLOCK: tl.constexpr, K_PAD: tl.constexpr):",
        "    n = tl.program_id(0).to(tl.int64)",
        "    kk = tl.program_id(1)",
        f"    c = tl.arange(0, {c_pad})",
        f"    base = {x} + n * {xa['stride'][0]} + c[None, :] * {xa['stride'][1]}",
        f"    acc = tl.zeros([BLOCK, {c_pad}], tl.float32)",
        "    for start in range(0, SPAN, BLOCK):",
        "        s = kk * SPAN + start + tl.arange(0, BLOCK)",
        f"        m = {mask}",
        f"        acc += tl.load({at}, mask=m, other=0.0).to(tl.float32)",
        "    total = tl.sum(acc, axis=0)",
        f"    mean = total / {CHUNK_COUNT.format(S=S)}",
        f"    acc = tl.zeros([BLOCK, {c_pad}], tl.float32)",
        "    for start in range(0, SPAN, BLOCK):  # the chunk again (from the cache): centred squares",
        "        s = kk * SPAN + start + tl.arange(0, BLOCK)",
        f"        m = {mask}",
        f"        v = tl.load({at}, mask=m, other=0.0).to(tl.float32)",
        "        d = tl.where(m, v - mean[None, :], 0.0)",
        "        acc += d * d",
        f"    at = (n * K_PAD + kk) * {c_pad} + c",
        "    tl.store(psum + at, total)",
        "    tl.store(pm2 + at, tl.sum(acc, axis=0))",
    ]


def _gn_mean(
    args: dict[str, Any],
    names: tuple[str | None, str | None, str | None, str],
    vectors: str,
    shape: list[int],
    groups: int,
    eps: float,
    c_pad: int,
    g_pad: int,
) -> list[str]:
    """The second kernel: per sample, the channels' means and squares combined (Chan), the
    groups' statistics from them, and the mean of the normalised (affine) values."""
    shift, gamma, beta, out = names
    C, S = shape[1], math.prod(shape[2:])
    cpg = C // groups

    def load(v: str) -> str:  # a per-channel vector
        return f"tl.load({v} + c * {args[v]['stride'][0]}, mask=cm, other=0.0).to(tl.float32)"

    weight, bias = load(gamma) if gamma else "1.0", load(beta) if beta else "0.0"
    return [
        "@triton.jit",
        f"def synth_gn_mean(psum, pm2, {vectors}, CHUNKS, SPAN: tl.constexpr, K_PAD: tl.constexpr):",
        "    n = tl.program_id(0).to(tl.int64)",
        "    kk = tl.arange(0, K_PAD)",
        f"    c = tl.arange(0, {c_pad})",
        f"    g = tl.arange(0, {g_pad})",
        f"    cm = c < {C}",
        "    m = (kk < CHUNKS)[:, None] & cm[None, :]",
        f"    at = (n * K_PAD + kk[:, None]) * {c_pad} + c[None, :]",
        "    ps = tl.load(psum + at, mask=m, other=0.0)",
        "    pm = tl.load(pm2 + at, mask=m, other=0.0)",
        f"    cnt = tl.where(kk < CHUNKS, {CHUNK_COUNT.format(S=S)}, 1.0)",
        f"    mean_c = tl.sum(ps, axis=0) / {float(S)!r}",
        "    dk = tl.where(m, ps / cnt[:, None] - mean_c[None, :], 0.0)",
        "    m2_c = tl.sum(pm + cnt[:, None] * dk * dk, axis=0)",
        *([f"    mean_c += {load(shift)}"] if shift else []),
        f"    member = ((c // {cpg})[:, None] == g[None, :]) & cm[:, None]",
        f"    mean_g = tl.sum(tl.where(member, mean_c[:, None], 0.0), axis=0) / {float(cpg)!r}",
        "    dev = mean_c - tl.sum(tl.where(member, mean_g[None, :], 0.0), axis=1)",
        f"    m2_g = tl.sum(tl.where(member, (m2_c + {float(S)!r} * dev * dev)[:, None], 0.0), axis=0)",
        f"    rstd_g = 1.0 / tl.sqrt(m2_g / {float(cpg * S)!r} + {eps!r})",
        "    rstd_c = tl.sum(tl.where(member, rstd_g[None, :], 0.0), axis=1)",
        f"    val = tl.where(cm, {weight} * rstd_c * dev + {bias}, 0.0)",
        f"    res = tl.sum(val, axis=0) / {float(C)!r}",
        f"    tl.store({out} + n * {args[out]['stride'][0]}, res.to({out}.dtype.element_ty))",
    ]
