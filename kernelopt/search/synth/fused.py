"""The fused kernel of a neighbour pair (``classify/fusion.py`` finds the pairs): C's kernel
with P's statements inlined at each load of the shared buffer B, evaluated at C's index under
C's mask (``other`` applied with ``tl.where``) and cast to B's element type exactly as P's store
would; P's other pointers become extra parameters.  B is neither written nor re-read.
"""

from __future__ import annotations

import ast
from typing import Any

from ...classify.fusion import NotFusible, kernel_def, load_sites, producer_body
from ...core.outputcode import dotted, renamed
from ...core.records import Contract, ProblemPaths
from ...isolate.inductor import render_inductor
from .ops import CannotSynthesize


def _load_mask(call: ast.Call) -> tuple[ast.AST | None, str]:
    if len(call.args) > 1:
        return call.args[1], "arg"
    kw = next((k for k in call.keywords if k.arg == "mask"), None)
    return (kw.value if kw else None), ("kw" if kw else "none")


def _inline(prod: dict[str, Any], n: int, site: ast.Assign, params: dict[str, str], c_param: str) -> list[ast.stmt]:
    call = site.value
    assert isinstance(call, ast.Call)
    index = call.args[0].right  # type: ignore[attr-defined]
    mask, _ = _load_mask(call)
    if isinstance(mask, ast.Constant) and mask.value is None:
        mask = None
    other = next((k.value for k in call.keywords if k.arg == "other"), None)
    pre = f"_p{n}_"
    defined = {s.targets[0].id for s in prod["body"]} | {"xindex", "xmask"}  # type: ignore[attr-defined]
    mapping = {d: pre + d for d in defined}
    mapping.update(params)
    out: list[ast.stmt] = [ast.parse(f"{pre}xindex = {ast.unparse(index)}").body[0]]
    if mask is not None:
        out.append(ast.parse(f"{pre}xmask = {ast.unparse(mask)}").body[0])
    for s in prod["body"]:
        s2 = renamed(s, mapping)  # (a copy: mapping names xindex at least)
        for node in ast.walk(s2):
            if isinstance(node, ast.Call) and dotted(node.func) == "tl.load":
                m, where = _load_mask(node)
                plain = (
                    m is None
                    or (isinstance(m, ast.Constant) and m.value is None)
                    or (isinstance(m, ast.Name) and m.id == pre + "xmask")
                )
                if not plain and mask is None:
                    raise NotFusible("the producer's loads use a mask the consumer's load cannot supply")
                if plain:
                    new = ast.Name(pre + "xmask", ast.Load()) if mask is not None else ast.Constant(None)
                    if where == "arg":
                        node.args[1] = new
                    elif where == "kw":
                        next(k for k in node.keywords if k.arg == "mask").value = new
                    elif mask is not None:
                        node.args.append(new)
        out.append(s2)
    if mask is None and any(isinstance(n, ast.Name) and n.id == pre + "xmask" for s in out for n in ast.walk(s)):
        raise NotFusible("the producer uses its mask outside its loads, and the consumer's load has no mask to give it")
    value = ast.unparse(renamed(prod["value"], mapping))
    expr = f"({value}).to({c_param}.dtype.element_ty)"
    if other is not None and mask is not None:
        expr = f"tl.where({pre}xmask, {expr}, {ast.unparse(other)})"
    out.append(ast.parse(f"{site.targets[0].id} = {expr}").body[0])  # type: ignore[attr-defined]
    return out


def _rewrite_lists(node: ast.AST, sites: set[int], make: Any) -> None:
    for field in ("body", "orelse"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        new: list[ast.stmt] = []
        for s in stmts:
            if id(s) in sites:
                new.extend(make(s))
            else:
                _rewrite_lists(s, sites, make)
                new.append(s)
        setattr(node, field, new)


def header(source: str) -> str:
    """The imports above a kernel module's first decorator (Inductor writes the same header for every kernel)."""
    lines = source.splitlines()
    end = next((i for i, l in enumerate(lines) if l.startswith("@")), len(lines))
    return "\n".join(lines[:end]).rstrip() + "\n"


def fuse_source(p_src: str, c_src: str, pair: dict[str, Any]) -> str:
    """A kernel module: C's kernel with P inlined at each load of the shared buffer."""
    p, c = pair["producer"], pair["consumer"]
    prod = producer_body(p_src, p, pair["producer_param"])
    tree = ast.parse(c_src)
    fn = kernel_def(tree, c)
    sites, uses = load_sites(fn, pair["consumer_param"])
    if not sites or len(sites) != uses:
        raise NotFusible(f"the consumer uses {pair['consumer_param']} other than in loads")
    params = {e["producer_param"]: e["fused_param"] for e in pair["extra"]}
    params[pair["producer_param"]] = pair["consumer_param"]  # in place: P reads B's old values through C's pointer
    counter = iter(range(len(sites)))
    _rewrite_lists(
        fn, {id(s) for s in sites}, lambda s: _inline(prod, next(counter), s, params, pair["consumer_param"])
    )
    first_const = next(
        (
            i
            for i, a in enumerate(fn.args.args)
            if a.annotation is not None and "constexpr" in ast.unparse(a.annotation)
        ),
        len(fn.args.args),
    )
    for k, e in enumerate(pair["extra"]):
        fn.args.args.insert(first_const + k, ast.arg(e["fused_param"]))
    fn.decorator_list = [ast.parse("triton.jit", mode="eval").body]
    note = (
        f"# kernelopt neighbour fusion: {p} (pointwise, writes {pair['buffer']}) inlined at each of the\n"
        f"# {len(sites)} load(s) of {pair['consumer_param']} in {c}; "
        f"{pair['buffer']} is neither written nor needed afterwards.\n"
    )
    return header(c_src) + "\n\n" + note + ast.unparse(ast.fix_missing_locations(fn)) + "\n"


def synthesize_fused(paths: ProblemPaths, contract: Contract, attempt: int) -> str:
    """A fused unit (fusion.py): attempt 0 is the consumer with the producer inlined at its loads,
    launched with the consumer's config; the search then tunes that launch."""
    f = contract.fused
    if attempt > 0:
        raise CannotSynthesize(
            "a fused unit has one generated kernel (attempt 0: the producer inlined into the consumer); "
            "the search tunes its launch"
        )
    p_src, c_src = ((paths.kernels_dir / f"{u}.py").read_text() for u in (f["producer_unit"], f["consumer_unit"]))
    try:
        kernel_src = fuse_source(p_src, c_src, f)
    except NotFusible as e:
        raise CannotSynthesize(str(e)) from None
    title = (
        f"Neighbour fusion of unit {contract.unit} (kernelopt, heuristic backend): {f['producer']} inlined into\n"
        f"{f['consumer']} at each load of {f['buffer']}, so {f['buffer']} is neither written nor re-read.  "
        "launch(*args)\n"
        f"takes {f['consumer']}'s arguments, then {f['producer']}'s other inputs (p_*); config: the consumer's."
    )
    return render_inductor(contract, kernel_src, title)
