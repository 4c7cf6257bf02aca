"""Neighbour fusion, the analysis half: a pointwise Triton kernel P whose one output buffer B is
read by the next Triton kernel C, and by nothing after C, becomes one more unit ``fz_<P>__<C>``.
The other halves: ``isolate/fused.py`` (the fused unit's contract, baseline and reference),
``search/synth/fused.py`` (the fused kernel) and ``stitch/fusion.py`` (the call-site edits).

Why: Inductor sometimes realizes a pointwise result that its consumer reads several times
(a max-pool window, a reduction), e.g. a kernel that adds a convolution's bias and applies ReLU
in place, and the max-pool after it that reads the result back.  Fused, C computes P's value at
each index it loads, and the write of B plus its re-read disappear.

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
from typing import Any

from ..core.outputcode import (
    Refused,
    dotted,
    functions,
    is_call_to,
    kernel_def,
    kernel_params,
    launched_kernel,
    names_in,
    statements_in_order,
)

PROLOGUE = {"xnumel", "xoffset", "xindex", "xmask"}
FORBIDDEN_IN_PRODUCER = {"xoffset", "xnumel", "XBLOCK", "yindex", "ynumel", "YBLOCK", "program_id", "arange"}
BETWEEN_CALLS = ("empty_strided", "get_raw_stream")


NotFusible = Refused  # a pair that is not fusible, with the reason


def unit_id(producer_unit: str, consumer_unit: str) -> str:
    return f"fz_{producer_unit}__{consumer_unit}"


# --------------------------------------------------------------------------- wrapper analysis
def find_pairs(
    wrapper_src: str, kernel_sources: dict[str, str], heuristics: dict[str, str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Fusible (producer, consumer) pairs of one wrapper module, and the refused candidate pairs
    with their reasons.  ``kernel_sources``: kernel name -> its module source."""
    tree = ast.parse(wrapper_src)
    kernels = set(kernel_sources)
    launch_count: dict[str, int] = {}
    for fn in functions(tree):
        for s in ast.walk(fn):
            if isinstance(s, ast.stmt) and (k := launched_kernel(s, kernels)):
                launch_count[k] = launch_count.get(k, 0) + 1
    pairs, refused = [], []
    for fn in functions(tree):
        stmts = statements_in_order(fn.body)
        idx = [(i, k) for i, s in enumerate(stmts) if (k := launched_kernel(s, kernels))]
        for (ip, p), (ic, c) in zip(idx, idx[1:]):
            try:
                pairs.append(_check_pair(fn, stmts, ip, ic, p, c, kernel_sources, heuristics, launch_count))
            except NotFusible as e:
                refused.append({"producer": p, "consumer": c, "function": fn.name, "reason": str(e)})
    return pairs, refused


def _check_pair(
    fn: ast.FunctionDef,
    stmts: list[ast.stmt],
    ip: int,
    ic: int,
    p: str,
    c: str,
    sources: dict[str, str],
    heuristics: dict[str, str],
    launch_count: dict[str, int],
) -> dict[str, Any]:
    _check_kinds(p, c, heuristics, launch_count)
    pcall, ccall = stmts[ip].value, stmts[ic].value  # type: ignore[attr-defined]
    p_params, _ = kernel_params(sources[p], p)
    c_params, _ = kernel_params(sources[c], c)
    if len(pcall.args) != len(p_params) or len(ccall.args) != len(c_params):
        raise NotFusible("a launch's positional arguments do not match its kernel's parameters")
    out, buf, c_param = _handover(pcall, ccall, p_params, c_params)
    _check_between(stmts[ip + 1 : ic], buf)
    _check_buffer_private(fn, stmts[ip], stmts[ic], buf)
    extra = _producer_inputs(p_params, pcall)
    _check_deletions(stmts, ip, ic, extra)
    c_written = set().union(
        *[names_in(a) for n, a in zip(c_params, ccall.args) if n.startswith(("out_ptr", "in_out_ptr"))]
    )
    clash = sorted(c_written & {e["call_arg"] for e in extra})
    if clash:
        raise NotFusible(
            f"the consumer writes {clash}, which the producer reads: "
            "fused, one block could read what another already wrote"
        )
    producer_body(sources[p], p, p_params[out])
    consumer_loads(sources[c], c, c_param)
    return {
        "producer": p,
        "consumer": c,
        "function": fn.name,
        "buffer": buf,
        "producer_param": p_params[out],
        "producer_inplace": p_params[out].startswith("in_out_ptr"),
        "consumer_param": c_param,
        "extra": extra,
    }


def _check_kinds(p: str, c: str, heuristics: dict[str, str], launch_count: dict[str, int]) -> None:
    """A pointwise producer, a consumer that is not a template GEMM, each launched once."""
    if heuristics.get(p) != "pointwise":
        raise NotFusible(f"the producer is a {heuristics.get(p)} kernel (only pointwise producers are fused)")
    if heuristics.get(c) == "template":
        raise NotFusible("the consumer is a template GEMM")
    if launch_count.get(p) != 1 or launch_count.get(c) != 1:
        raise NotFusible("each kernel must be launched exactly once")


def _handover(pcall: ast.Call, ccall: ast.Call, p_params: list[str], c_params: list[str]) -> tuple[int, str, str]:
    """(the producer's written parameter's index, the buffer B, the consumer's parameter for B):
    the producer writes exactly one plain buffer, which the consumer takes once, read-only."""
    written = [i for i, n in enumerate(p_params) if n.startswith(("out_ptr", "in_out_ptr"))]
    if len(written) != 1:
        raise NotFusible(f"the producer writes {len(written)} arguments (fusion needs exactly one)")
    bnode = pcall.args[written[0]]
    if not isinstance(bnode, ast.Name):
        raise NotFusible("the producer's output is not a plain buffer name")
    buf = bnode.id
    uses = [j for j, a in enumerate(ccall.args) if buf in names_in(a)]
    if len(uses) != 1 or not isinstance(ccall.args[uses[0]], ast.Name):
        raise NotFusible(f"the consumer does not take {buf} exactly once as a plain argument")
    c_param = c_params[uses[0]]
    if not c_param.startswith("in_ptr"):
        raise NotFusible(f"the consumer's {c_param} ({buf}) is not read-only")
    return written[0], buf, c_param


def _check_between(between: list[ast.stmt], buf: str) -> None:
    """Between the launches: only ``del``, allocations, stream handles and aliases not of B."""
    for s in between:
        if isinstance(s, ast.Delete) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            continue
        if (
            isinstance(s, ast.Assign)
            and (is_call_to(s.value, BETWEEN_CALLS) or isinstance(s.value, ast.Name))
            and buf not in names_in(s)
        ):
            continue
        raise NotFusible(f"a statement between the launches may touch their buffers: {ast.unparse(s)[:80]}")


def _check_buffer_private(fn: ast.FunctionDef, pstmt: ast.stmt, cstmt: ast.stmt, buf: str) -> None:
    """B is named only by its definition, the two launches and ``del B``."""
    for s in ast.walk(fn):
        if not isinstance(s, ast.stmt) or isinstance(s, (ast.FunctionDef, ast.With)) or s is pstmt or s is cstmt:
            continue
        if buf not in names_in(s):
            continue
        if isinstance(s, ast.Delete) and all(isinstance(t, ast.Name) for t in s.targets):
            continue
        if (
            isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and s.targets[0].id == buf
            and buf not in names_in(s.value)
        ):
            continue
        raise NotFusible(f"{buf} is used beyond the two kernels: {ast.unparse(s)[:80]}")


def _producer_inputs(p_params: list[str], pcall: ast.Call) -> list[dict[str, Any]]:
    """The producer's other pointers (plain names), which become the fused kernel's extra
    parameters; its other parameters may only be numels."""
    extra = []
    for name, a in zip(p_params, pcall.args):
        if name.startswith("in_ptr"):
            if not isinstance(a, ast.Name):
                raise NotFusible(f"the producer's {name} is not a plain name")
            extra.append({"producer_param": name, "fused_param": f"p_{name}", "call_arg": a.id})
        elif not name.startswith(("out_ptr", "in_out_ptr")) and not name.endswith("numel"):
            raise NotFusible(f"the producer's parameter {name} is neither a pointer nor a numel")
    return extra


def _check_deletions(stmts: list[ast.stmt], ip: int, ic: int, extra: list[dict[str, Any]]) -> None:
    """A ``del`` of a producer argument between the launches (the stitcher moves it after the
    fused launch) has a line of its own and deletes only producer arguments; none is reassigned."""
    args = {e["call_arg"] for e in extra}
    lines = [x.lineno for x in stmts]
    for s in stmts[ip + 1 : ic]:
        if isinstance(s, ast.Delete) and names_in(s) & args and lines.count(s.lineno) > 1:
            raise NotFusible(
                f"`{ast.unparse(s)}` shares its line with other code (the stitcher moves it after the fused launch)"
            )
    for e in extra:
        for s in stmts[ip + 1 : ic]:
            if (
                isinstance(s, ast.Delete)
                and e["call_arg"] in names_in(s)
                and not all(isinstance(t, ast.Name) and t.id in args for t in s.targets)
            ):
                raise NotFusible(f"`{ast.unparse(s)}` deletes a producer argument together with other names")
            if isinstance(s, ast.Assign) and e["call_arg"] in names_in(s):
                raise NotFusible(f"{e['call_arg']} is reassigned between the launches")


# --------------------------------------------------------------------------- kernel analysis
def producer_body(source: str, kernel: str, out_param: str) -> dict[str, Any]:
    """P's statements after its prologue, and the value it stores into ``out_param`` at index
    ``xindex``.  NotFusible unless P is 1-D pointwise with exactly that one store."""
    fn = kernel_def(ast.parse(source), kernel)
    body: list[ast.stmt] = []
    store = None
    aliases = {"xindex"}
    for s in fn.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            name = s.targets[0].id
            if name in PROLOGUE:
                if name == "xindex" and (
                    "None" in ast.unparse(s.value) or ":," in ast.unparse(s.value).replace(" ", "")
                ):
                    raise NotFusible("the producer is not 1-D")
                continue
            if isinstance(s.value, ast.Name) and s.value.id in aliases:
                aliases.add(name)
            body.append(s)
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and dotted(s.value.func) == "tl.store":
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
    ok = (
        isinstance(ptr, ast.BinOp)
        and isinstance(ptr.op, ast.Add)
        and isinstance(ptr.left, ast.Name)
        and ptr.left.id == out_param
        and isinstance(ptr.right, ast.Name)
        and ptr.right.id in aliases
    )
    if not ok:
        raise NotFusible(f"the producer does not store {out_param} at its own linear index")
    for s in body:
        bad = (names_in(s) | {n.attr for n in ast.walk(s) if isinstance(n, ast.Attribute)}) & FORBIDDEN_IN_PRODUCER
        if bad:
            raise NotFusible(f"the producer's body uses {sorted(bad)}")
        if isinstance(s.value, ast.Call) and dotted(s.value.func) == "tl.store":
            raise NotFusible("the producer stores more than once")
    return {"body": body, "value": store.args[1], "out_param": out_param}


def load_sites(fn: ast.FunctionDef, param: str) -> tuple[list[ast.Assign], int]:
    sites = []
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and dotted(node.value.func) == "tl.load"
        ):
            ptr = node.value.args[0] if node.value.args else None
            if (
                isinstance(ptr, ast.BinOp)
                and isinstance(ptr.op, ast.Add)
                and isinstance(ptr.left, ast.Name)
                and ptr.left.id == param
                and param not in names_in(ptr.right)
            ):
                sites.append(node)
    uses = sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == param)
    return sites, uses


def consumer_loads(source: str, kernel: str, param: str) -> int:
    """How many ``tmp = tl.load(param + (index), ...)`` C has; NotFusible if ``param`` is used otherwise."""
    fn = kernel_def(ast.parse(source), kernel)
    sites, uses = load_sites(fn, param)
    if not sites or len(sites) != uses:
        raise NotFusible(f"the consumer uses {param} other than in `tmp = tl.load({param} + (index), ...)`")
    return len(sites)
