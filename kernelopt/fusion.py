"""Neighbour fusion: a pointwise Triton kernel P whose one output buffer B is read by the
next Triton kernel C, and by nothing after C, becomes one more unit ``fz_<P>__<C>``.

Why: Inductor sometimes realizes a pointwise result that its consumer reads several times
(a max-pool window, a reduction), e.g. SmallCNN on the H200: ``triton_poi_fused_convolution_relu_2``
adds the bias and applies ReLU in place on the 16x64x224x224 convolution output, and the
next kernel, the 2x2 max-pool, reads it back.  Fused, C computes P's value at each index it
loads, and the write of B plus its re-read (~205 MB each there) disappear.

Every step works on the wrapper's and the kernels' ASTs:

* ``find_pairs`` (classify): P and C are consecutive Triton launches in one wrapper function
  (only allocations, stream handles, aliases of other buffers and ``del`` between them),
  each launched once; P is a 1-D pointwise kernel with exactly one written argument B, which
  it stores at its own linear index; C takes B once, as a read-only ``in_ptr``, and uses it
  only in ``tl.load(B + (index), mask, other=...)``; B is named nowhere in the function but
  its definition, the two launches and ``del B``.  Each refusal is recorded with its reason.
* ``fuse_source`` (synthesis): C's kernel where every load of B is replaced by P's statements
  evaluated at C's index under C's mask (``other`` applied with ``tl.where``), cast to B's
  element type exactly as P's store would; P's other pointers become extra parameters.
* ``edit_call_sites`` (stitch): P's launch is dropped, C's launch gets P's other arguments
  appended, and ``del`` statements of those arguments between the two launches move after
  C's launch.  ``expected_function`` applies the same declared edits on the AST, independently
  of the text edit, and gate 3's proof requires the two to agree.
"""
from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

from .outputcode import _classify_call, _dotted, functions

PROLOGUE = {"xnumel", "xoffset", "xindex", "xmask"}
FORBIDDEN_IN_PRODUCER = {"xoffset", "xnumel", "XBLOCK", "yindex", "ynumel", "YBLOCK", "program_id", "arange"}
BETWEEN_CALLS = ("empty_strided", "get_raw_stream")


class NotFusible(Exception):
    pass


def unit_id(producer_unit: str, consumer_unit: str) -> str:
    return f"fz_{producer_unit}__{consumer_unit}"


# --------------------------------------------------------------------------- wrapper analysis
def _flat(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements of a function in execution order, ``with`` blocks opened."""
    out: list[ast.stmt] = []
    for s in body:
        if isinstance(s, ast.With):
            out.extend(_flat(s.body))
        else:
            out.append(s)
    return out


def _launch_of(stmt: ast.stmt, kernels: set[str]) -> str | None:
    """The kernel a statement ``K.run(...)`` launches (outputcode's launch-site rule)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        site = _classify_call(stmt.value, kernels)  # type: ignore[arg-type]
        if site and site[0] == "triton":
            return site[1]
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_call_to(node: ast.AST, suffixes: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and (_dotted(node.func) or "").split(".")[-1].startswith(suffixes)


def kernel_params(source: str, kernel: str) -> tuple[list[str], list[str]]:
    """(runtime parameters in order, constexpr parameters) of ``kernel`` in ``source``."""
    fn = _kernel_def(ast.parse(source), kernel)
    runtime, const = [], []
    for a in fn.args.args:
        (const if a.annotation is not None and "constexpr" in ast.unparse(a.annotation) else runtime).append(a.arg)
    return runtime, const


def _kernel_def(tree: ast.Module, kernel: str) -> ast.FunctionDef:
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == kernel), None)
    if fn is None:
        raise NotFusible(f"kernel {kernel} not found in its source")
    return fn


def find_pairs(wrapper_src: str, kernel_sources: dict[str, str], heuristics: dict[str, str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Fusible (producer, consumer) pairs of one wrapper module, and the refused candidate pairs
    with their reasons.  ``kernel_sources``: kernel name -> its module source."""
    tree = ast.parse(wrapper_src)
    kernels = set(kernel_sources)
    launch_count: dict[str, int] = {}
    for fn in functions(tree):
        for s in ast.walk(fn):
            if isinstance(s, ast.stmt) and (k := _launch_of(s, kernels)):
                launch_count[k] = launch_count.get(k, 0) + 1
    pairs, refused = [], []
    for fn in functions(tree):
        stmts = _flat(fn.body)
        idx = [(i, k) for i, s in enumerate(stmts) if (k := _launch_of(s, kernels))]
        for (ip, p), (ic, c) in zip(idx, idx[1:]):
            try:
                pairs.append(_check_pair(fn, stmts, ip, ic, p, c, kernel_sources, heuristics, launch_count))
            except NotFusible as e:
                refused.append({"producer": p, "consumer": c, "function": fn.name, "reason": str(e)})
    return pairs, refused


def _check_pair(fn: ast.FunctionDef, stmts: list[ast.stmt], ip: int, ic: int, p: str, c: str,
                sources: dict[str, str], heuristics: dict[str, str], launch_count: dict[str, int]) -> dict[str, Any]:
    if heuristics.get(p) != "pointwise":
        raise NotFusible(f"the producer is a {heuristics.get(p)} kernel (only pointwise producers are fused)")
    if heuristics.get(c) == "template":
        raise NotFusible("the consumer is a template GEMM")
    if launch_count.get(p) != 1 or launch_count.get(c) != 1:
        raise NotFusible("each kernel must be launched exactly once")
    pcall, ccall = stmts[ip].value, stmts[ic].value  # type: ignore[attr-defined]
    p_params, _ = kernel_params(sources[p], p)
    c_params, _ = kernel_params(sources[c], c)
    if len(pcall.args) != len(p_params) or len(ccall.args) != len(c_params):
        raise NotFusible("a launch's positional arguments do not match its kernel's parameters")
    written = [i for i, n in enumerate(p_params) if n.startswith(("out_ptr", "in_out_ptr"))]
    if len(written) != 1:
        raise NotFusible(f"the producer writes {len(written)} arguments (fusion needs exactly one)")
    bnode = pcall.args[written[0]]
    if not isinstance(bnode, ast.Name):
        raise NotFusible("the producer's output is not a plain buffer name")
    buf = bnode.id
    uses = [j for j, a in enumerate(ccall.args) if buf in _names(a)]
    if len(uses) != 1 or not isinstance(ccall.args[uses[0]], ast.Name):
        raise NotFusible(f"the consumer does not take {buf} exactly once as a plain argument")
    c_param = c_params[uses[0]]
    if not c_param.startswith("in_ptr"):
        raise NotFusible(f"the consumer's {c_param} ({buf}) is not read-only")
    for s in stmts[ip + 1:ic]:
        if isinstance(s, ast.Delete) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            continue
        if isinstance(s, ast.Assign) and (_is_call_to(s.value, BETWEEN_CALLS) or isinstance(s.value, ast.Name)) and buf not in _names(s):
            continue
        raise NotFusible(f"a statement between the launches may touch their buffers: {ast.unparse(s)[:80]}")
    # B: named only by its definition, the two launches and `del B`
    for s in ast.walk(fn):
        if not isinstance(s, ast.stmt) or isinstance(s, (ast.FunctionDef, ast.With)) or s is stmts[ip] or s is stmts[ic]:
            continue
        if buf not in _names(s):
            continue
        if isinstance(s, ast.Delete) and all(isinstance(t, ast.Name) for t in s.targets):
            continue
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and s.targets[0].id == buf and buf not in _names(s.value):
            continue
        raise NotFusible(f"{buf} is used beyond the two kernels: {ast.unparse(s)[:80]}")
    extra = []
    for name, a in zip(p_params, pcall.args):
        if name.startswith("in_ptr"):
            if not isinstance(a, ast.Name):
                raise NotFusible(f"the producer's {name} is not a plain name")
            extra.append({"producer_param": name, "fused_param": f"p_{name}", "call_arg": a.id})
        elif not name.startswith(("out_ptr", "in_out_ptr")) and not name.endswith("numel"):
            raise NotFusible(f"the producer's parameter {name} is neither a pointer nor a numel")
    lines = [x.lineno for x in stmts]
    for s in stmts[ip + 1:ic]:
        if isinstance(s, ast.Delete) and _names(s) & {e["call_arg"] for e in extra} and lines.count(s.lineno) > 1:
            raise NotFusible(f"`{ast.unparse(s)}` shares its line with other code (the stitcher moves it after the fused launch)")
    for e in extra:
        for s in stmts[ip + 1:ic]:
            if isinstance(s, ast.Delete) and e["call_arg"] in _names(s) and not all(isinstance(t, ast.Name) and t.id in {x["call_arg"] for x in extra} for t in s.targets):
                raise NotFusible(f"`{ast.unparse(s)}` deletes a producer argument together with other names")
            if isinstance(s, ast.Assign) and e["call_arg"] in _names(s):
                raise NotFusible(f"{e['call_arg']} is reassigned between the launches")
    c_written = set().union(*[_names(a) for n, a in zip(c_params, ccall.args) if n.startswith(("out_ptr", "in_out_ptr"))])
    clash = sorted(c_written & {e["call_arg"] for e in extra})
    if clash:
        raise NotFusible(f"the consumer writes {clash}, which the producer reads: fused, one block could read what another already wrote")
    producer_body(sources[p], p, p_params[written[0]])
    consumer_loads(sources[c], c, c_param)
    return {
        "producer": p, "consumer": c, "function": fn.name, "buffer": buf,
        "producer_param": p_params[written[0]], "producer_inplace": p_params[written[0]].startswith("in_out_ptr"),
        "consumer_param": c_param, "extra": extra,
    }


# --------------------------------------------------------------------------- kernel analysis
def producer_body(source: str, kernel: str, out_param: str) -> dict[str, Any]:
    """P's statements after its prologue, and the value it stores into ``out_param`` at index
    ``xindex``.  NotFusible unless P is 1-D pointwise with exactly that one store."""
    fn = _kernel_def(ast.parse(source), kernel)
    body: list[ast.stmt] = []
    store = None
    aliases = {"xindex"}
    for s in fn.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            name = s.targets[0].id
            if name in PROLOGUE:
                if name == "xindex" and ("None" in ast.unparse(s.value) or ":," in ast.unparse(s.value).replace(" ", "")):
                    raise NotFusible("the producer is not 1-D")
                continue
            if isinstance(s.value, ast.Name) and s.value.id in aliases:
                aliases.add(name)
            body.append(s)
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _dotted(s.value.func) == "tl.store":
            if store is not None:
                raise NotFusible("the producer stores more than once")
            store = s.value
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            continue
        else:
            raise NotFusible(f"the producer has a statement fusion does not handle: {ast.unparse(s)[:80]}")
    if store is None:
        raise NotFusible("the producer stores nothing")
    ptr = store.args[0]
    ok = (isinstance(ptr, ast.BinOp) and isinstance(ptr.op, ast.Add) and isinstance(ptr.left, ast.Name) and ptr.left.id == out_param
          and isinstance(ptr.right, ast.Name) and ptr.right.id in aliases)
    if not ok:
        raise NotFusible(f"the producer does not store {out_param} at its own linear index")
    for s in body:
        bad = (_names(s) | {n.attr for n in ast.walk(s) if isinstance(n, ast.Attribute)}) & FORBIDDEN_IN_PRODUCER
        if bad:
            raise NotFusible(f"the producer's body uses {sorted(bad)}")
        if isinstance(s.value, ast.Call) and _dotted(s.value.func) == "tl.store":
            raise NotFusible("the producer stores more than once")
    return {"body": body, "value": store.args[1], "out_param": out_param}


def _load_sites(fn: ast.FunctionDef, param: str) -> tuple[list[ast.Assign], int]:
    sites = []
    for node in ast.walk(fn):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and _dotted(node.value.func) == "tl.load"):
            ptr = node.value.args[0] if node.value.args else None
            if isinstance(ptr, ast.BinOp) and isinstance(ptr.op, ast.Add) and isinstance(ptr.left, ast.Name) and ptr.left.id == param and param not in _names(ptr.right):
                sites.append(node)
    uses = sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == param)
    return sites, uses


def consumer_loads(source: str, kernel: str, param: str) -> int:
    """How many ``tmp = tl.load(param + (index), ...)`` C has; NotFusible if ``param`` is used otherwise."""
    fn = _kernel_def(ast.parse(source), kernel)
    sites, uses = _load_sites(fn, param)
    if not sites or len(sites) != uses:
        raise NotFusible(f"the consumer uses {param} other than in `tmp = tl.load({param} + (index), ...)`")
    return len(sites)


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(self.mapping[node.id], node.ctx), node)
        return node


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
        s2 = _Rename(mapping).visit(copy.deepcopy(s))
        for node in ast.walk(s2):
            if isinstance(node, ast.Call) and _dotted(node.func) == "tl.load":
                m, where = _load_mask(node)
                plain = m is None or (isinstance(m, ast.Constant) and m.value is None) or (isinstance(m, ast.Name) and m.id == pre + "xmask")
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
    value = ast.unparse(_Rename(mapping).visit(copy.deepcopy(prod["value"])))
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
    fn = _kernel_def(tree, c)
    sites, uses = _load_sites(fn, pair["consumer_param"])
    if not sites or len(sites) != uses:
        raise NotFusible(f"the consumer uses {pair['consumer_param']} other than in loads")
    params = {e["producer_param"]: e["fused_param"] for e in pair["extra"]}
    params[pair["producer_param"]] = pair["consumer_param"]  # in place: P reads B's old values through C's pointer
    counter = iter(range(len(sites)))
    _rewrite_lists(fn, {id(s) for s in sites}, lambda s: _inline(prod, next(counter), s, params, pair["consumer_param"]))
    first_const = next((i for i, a in enumerate(fn.args.args) if a.annotation is not None and "constexpr" in ast.unparse(a.annotation)), len(fn.args.args))
    for k, e in enumerate(pair["extra"]):
        fn.args.args.insert(first_const + k, ast.arg(e["fused_param"]))
    fn.decorator_list = [ast.parse("triton.jit", mode="eval").body]
    note = (f"# kernelopt neighbour fusion: {p} (pointwise, writes {pair['buffer']}) inlined at each of the\n"
            f"# {len(sites)} load(s) of {pair['consumer_param']} in {c}; {pair['buffer']} is neither written nor needed afterwards.\n")
    return header(c_src) + "\n\n" + note + ast.unparse(ast.fix_missing_locations(fn)) + "\n"


# --------------------------------------------------------------------------- stitch edits
def edit_call_sites(src: str, fusions: list[dict[str, Any]]) -> str:
    """Text edit of the wrapper: per fusion, drop P's launch, append P's other arguments to C's
    launch, move ``del`` of those arguments between the two launches to just after C's launch."""
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    drop: dict[int, str] = {}  # line number -> replacement text ('' = drop)
    insert_after: dict[int, list[str]] = {}
    append_args: dict[tuple[int, int], str] = {}
    for f in fusions:
        fn = next((x for x in functions(tree) if x.name == f["function"]), None)
        if fn is None:
            raise KeyError(f"function {f['function']} not in the wrapper")
        stmts = _flat(fn.body)
        names = {f["producer"], f["consumer"]}
        where = {k: i for i, s in enumerate(stmts) if (k := _launch_of(s, names))}
        ip, ic = where[f["producer"]], where[f["consumer"]]
        ps, cs = stmts[ip], stmts[ic]
        indent = lines[ps.lineno - 1][: ps.col_offset]
        for ln in range(ps.lineno, (ps.end_lineno or ps.lineno) + 1):
            drop[ln] = ""
        drop[ps.lineno] = f"{indent}# kernelopt: {f['producer']}'s launch dropped: fused into {f['consumer']} (unit {f['unit']})\n"
        extra_names = {e["call_arg"] for e in f["extra"]}
        moved = []
        for s in stmts[ip + 1:ic]:
            if isinstance(s, ast.Delete) and all(isinstance(t, ast.Name) and t.id in extra_names for t in s.targets):
                if lines[s.lineno - 1].strip() != ast.unparse(s):
                    raise ValueError(f"line {s.lineno}: `{ast.unparse(s)}` shares its line with other code")
                drop[s.lineno] = ""
                moved.append(ast.unparse(s))
        call = cs.value  # type: ignore[attr-defined]
        last = call.args[-1]
        append_args[(last.end_lineno, last.end_col_offset)] = "".join(f", {e['call_arg']}" for e in f["extra"])
        cindent = lines[cs.lineno - 1][: cs.col_offset]
        insert_after[cs.end_lineno or cs.lineno] = [f"{cindent}{m}\n" for m in moved]
    out = []
    for i, line in enumerate(lines, start=1):
        if i in drop:
            out.append(drop[i])
            continue
        for (ln, col), text in sorted(append_args.items(), key=lambda kv: -kv[0][1]):
            if ln == i:
                line = line[:col] + text + line[col:]
        out.append(line)
        out.extend(insert_after.get(i, []))
    return "".join(out)


def expected_function(fn: ast.FunctionDef, fusions: list[dict[str, Any]]) -> ast.FunctionDef:
    """The baseline function with the declared fusion edits applied on its AST (the proof's side)."""
    fn = copy.deepcopy(fn)
    for f in fusions:
        if f["function"] != fn.name:
            continue
        extra_names = {e["call_arg"] for e in f["extra"]}

        def edit(body: list[ast.stmt], state: dict[str, Any]) -> list[ast.stmt]:
            out: list[ast.stmt] = []
            for s in body:
                if isinstance(s, ast.With):
                    s.body = edit(s.body, state)
                    out.append(s)
                    continue
                k = _launch_of(s, {f["producer"], f["consumer"]})
                if k == f["producer"]:
                    state["between"] = True
                    continue
                if k == f["consumer"]:
                    s.value.args.extend(ast.Name(e["call_arg"], ast.Load()) for e in f["extra"])  # type: ignore[attr-defined]
                    out.append(s)
                    out.extend(state.pop("moved", []))
                    state["between"] = False
                    continue
                if state.get("between") and isinstance(s, ast.Delete) and all(isinstance(t, ast.Name) and t.id in extra_names for t in s.targets):
                    state.setdefault("moved", []).append(s)
                    continue
                out.append(s)
            return out

        fn.body = edit(fn.body, {})
    return fn


# --------------------------------------------------------------------------- unit files
def fused_contract(pc: dict[str, Any], cc: dict[str, Any], pair: dict[str, Any], unit: str) -> dict[str, Any]:
    """The fused unit's launch contract: C's arguments, then P's other inputs (``p_<name>``)."""
    args = []
    for a in cc["args"]:
        spec = dict(a)
        if a["name"] == pair["consumer_param"]:
            spec["access"] = "readwrite"  # scratch: the Inductor pair writes it, nobody reads it after the unit
            spec["note"] = (f"the intermediate {pair['buffer']}: holds {pair['producer']}'s input here (the Inductor pair rewrites it "
                            "in place, the fused kernel only reads it); never read after the unit") if pair["producer_inplace"] else f"the intermediate {pair['buffer']}: written by the Inductor pair, ignored by the fused kernel"
        args.append(spec)
    pargs = {a["name"]: a for a in pc["args"]}
    for e in pair["extra"]:
        args.append({**pargs[e["producer_param"]], "name": e["fused_param"], "access": "read"})
    return {
        **{k: v for k, v in cc.items() if k not in ("args", "unit", "reference", "aten_ops", "fx_origins", "share")},
        "unit": unit,
        "args": args,
        "aten_ops": list(dict.fromkeys(pc.get("aten_ops", []) + cc.get("aten_ops", []))),
        "fx_origins": list(dict.fromkeys(pc.get("fx_origins", []) + cc.get("fx_origins", []))),
        "reference": {"composed": True, "producer": pc.get("reference"), "consumer": cc.get("reference")},
        "fused": {**pair, "producer_contract": pc, "consumer_contract": cc},
    }


def render_pair(contract: dict[str, Any], p_src: str, c_src: str) -> str:
    """The fused unit's baseline: Inductor's two kernels launched one after the other, as the
    wrapper launches them.  CONFIG / NUM_WARPS / NUM_STAGES are the consumer's."""
    from .isolate import launcher_lines, strip_heuristics_decorator

    f = contract["fused"]
    pc, cc = f["producer_contract"], f["consumer_contract"]
    pbound = {a["name"]: (a["name"] if a["kind"] == "tensor" else repr(a.get("value"))) for a in pc["args"]}
    for e in f["extra"]:
        pbound[e["producer_param"]] = e["fused_param"]
    pbound[f["producer_param"]] = f["consumer_param"]
    cparams = [a["name"] for a in cc["args"]]
    return "\n".join([
        f'"""Inductor\'s kernels for the fused unit {contract["unit"]}: {f["producer"]} then {f["consumer"]},',
        "launched one after the other with the configs Inductor chose, as the wrapper launches them.",
        f"This is the baseline the fused candidates are timed against.  launch(*args) takes {f['consumer']}'s",
        f"arguments followed by {f['producer']}'s other inputs (p_*).",
        '"""',
        strip_heuristics_decorator(p_src, f["producer"]).rstrip(),
        "",
        strip_heuristics_decorator(c_src, f["consumer"]).rstrip(),
        "",
        "",
        *launcher_lines(f["producer"], pc, "P_", "P_"),
        "",
        "",
        *launcher_lines(f["consumer"], cc, "", "C_"),
        "",
        "",
        f"def launch({', '.join(a['name'] for a in contract['args'])}):",
        f"    P_launch({', '.join(str(pbound[a['name']]) for a in pc['args'])})",
        f"    C_launch({', '.join(cparams)})",
        "",
    ])


REFERENCE = '''"""Composed eager reference of the fused unit {unit}: {producer}'s reference (producer/),
then {consumer}'s (consumer/), with the producer's output {buffer} passed as the consumer's
{consumer_param}.  Inputs are the fused unit's argument names.
"""
import importlib.util as _ilu
import os as _os

LEVEL = {level!r}  # "graph": the producer's reference reads the compiled graph's inputs
INPUTS = {inputs!r}
OUTPUTS = {outputs!r}
_PRODUCER_ARG = {producer_arg!r}  # producer argument name -> fused argument name
_BUFFER = ({producer_param!r}, {consumer_param!r})


def _load(sub):
    path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), sub, "reference.py")
    spec = _ilu.spec_from_file_location("kernelopt_fused_ref_" + sub, path)
    mod = _ilu.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def reference(**args):
    producer, consumer = _load("producer"), _load("consumer")
    produced = producer.reference(**{{n: args[_PRODUCER_ARG[n]] for n in producer.INPUTS}})
    ins = {{n: (produced[_BUFFER[0]] if n == _BUFFER[1] else args[n]) for n in consumer.INPUTS}}
    return consumer.reference(**ins)
'''


def write_reference(udir: Path, contract: dict[str, Any], p_ref: Path, c_ref: Path) -> None:
    import shutil

    f = contract["fused"]
    for sub, ref in (("producer", p_ref), ("consumer", c_ref)):
        d = udir / sub
        d.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ref, d / "reference.py")
        consts = ref.with_name(ref.name.replace(".reference.py", ".reference_constants.pt"))
        if consts.exists():
            shutil.copyfile(consts, d / "reference_constants.pt")
    from .synthesize import reference_constants

    pr, cr = reference_constants(p_ref.read_text()), reference_constants(c_ref.read_text())
    if cr.get("LEVEL") != "kernel":
        raise NotFusible(f"{c_ref.name} is a graph-level reference; composing it is not supported")
    level = pr.get("LEVEL")  # graph: the producer's reference starts from the graph inputs
    p_inputs = pr.get("INPUTS")
    if f["producer_param"] not in (pr.get("OUTPUTS") or []):
        raise NotFusible(f"the producer's reference does not output {f['producer_param']}")
    pmap = {e["producer_param"]: e["fused_param"] for e in f["extra"]}
    pmap[f["producer_param"]] = f["consumer_param"]
    if level == "graph":
        pmap = {n: n for n in p_inputs}
    inputs = list(dict.fromkeys([pmap[n] for n in p_inputs] + [n for n in cr.get("INPUTS") if n != f["consumer_param"]]))
    (udir / "reference.py").write_text(REFERENCE.format(
        level=level,
        unit=contract["unit"], producer=f["producer"], consumer=f["consumer"], buffer=f["buffer"],
        consumer_param=f["consumer_param"], producer_param=f["producer_param"], inputs=inputs,
        outputs=cr.get("OUTPUTS"), producer_arg=pmap))
