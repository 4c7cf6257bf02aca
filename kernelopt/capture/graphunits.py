"""Graph-level units, the wrapper half (issue 16): a run of consecutive launches of one wrapper
function, Triton kernels and library calls (``extern_kernels.mm`` ...) alike, that computes one
FX node's value from graph inputs only, so that a rewrite found in the FX graph
(``capture/rewrites.py``) can replace the whole run, library calls included.  The other halves:
``isolate/graphunits.py`` (contract, baseline) and ``stitch/graphunits.py`` (call-site edits).

``derive`` finds the run that ends at the last write of the unit's output buffer and holds every
launch the output depends on; it refuses (``NotAGraphUnit``, with the reason) unless:

* the run's launches are consecutive (every launch between its first and last is a member), each
  a Triton launch or a library call that writes through ``out=``; between them stand only
  allocations, stream handles, aliases (``t = s``, ``reinterpret_tensor``) and ``del``;
* what a member reads from outside the run is one of the unit's graph inputs (the placeholders
  the FX node depends on), and no member writes a graph input;
* the buffers the run writes besides the output (intermediates) are named by nothing after it;
  the output is (it is returned or read later);
* every Triton kernel of the run is launched only inside it, and the last of them (the
  *anchor*, whose definition the stitch replaces by the candidate) is launched once;
* the last member's launch is one line (the stitch edits it as one line);
* the last launch writes the output under its own name: where Inductor reuses the output's memory
  for a later buffer (``buf3 = reinterpret_tensor(buf1, ...)``) and the kernel writes that one,
  the memory holds the later value (a reduction fused with the ops after it: no buffer holds
  the reduction alone).

Gate 3's proof calls ``derive`` again on the baseline and requires the declared unit.
"""

from __future__ import annotations

import ast
from typing import Any

from ..core.outputcode import (
    Refused,
    classify_call,
    dotted,
    functions,
    is_call_to,
    kernel_params,
    names_in,
    passed_names,
    statements_in_order,
)
from .regions import Aliases, plain_renames

NotAGraphUnit = Refused
BETWEEN = ("empty_strided", "get_raw_stream", "reinterpret_tensor")
# ATen ops whose result is a view of their first argument, never a fallback's new buffer
VIEW_OPS = {"view", "_unsafe_view", "as_strided", "reshape", "expand", "permute", "transpose", "t", "squeeze"}
VIEW_OPS |= {"unsqueeze", "select", "slice", "alias", "narrow", "diagonal", "unfold"}
# the name a graph-level unit with no Triton kernel (a run of library calls) gives its candidate
LIBRARY_ANCHOR = "kernelopt_lib_{output}"
KEYS = ("function", "members", "inputs", "outputs", "intermediates", "anchor", "kernels")


def unit_id(rewrite: str, output: str) -> str:
    return f"rw_{rewrite.replace('-', '_')}_{output}"


def _fallback(s: ast.stmt) -> dict[str, Any] | None:
    """``buf0 = torch.ops.aten.avg_pool3d.default(arg0_1, ...)``: an ATen op the wrapper runs
    where Inductor did not lower it (a *fallback*), writing a new buffer; None otherwise."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
        return None
    call = s.value
    name = dotted(call.func) if isinstance(call, ast.Call) else None
    if not name or not name.startswith("torch.ops.aten.") or name.split(".")[3] in VIEW_OPS:
        return None
    reads = set().union(*(_values_in(a) for a in call.args), *(_values_in(k.value) for k in call.keywords))
    return {"kind": "fallback", "target": name, "reads": reads, "writes": {s.targets[0].id}}


def _allocates(s: ast.stmt) -> str | None:
    """The name a statement binds to new memory a call returned: a fallback's result, or a
    library call's (``buf0 = extern_kernels.convolution(arg2_1, ...)``); None otherwise."""
    f = _fallback(s)
    if f is not None:
        return next(iter(f["writes"]))
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        if isinstance(s.value, ast.Call) and (dotted(s.value.func) or "").startswith("extern_kernels."):
            return s.targets[0].id
    return None


def unit_aliases(stmts: list[ast.stmt]) -> Aliases:
    """``Aliases`` of a function, a call's new result its own memory (``Aliases`` alone puts a
    call's result with its first argument: right for views, not for an op that allocates)."""
    made = [_allocates(s) for s in stmts]
    aliases = Aliases([s for s, m in zip(stmts, made) if m is None])
    aliases.allocated |= {aliases.root(m) for m in made if m is not None}
    return aliases


def _launch(s: ast.stmt, sources: dict[str, str]) -> dict[str, Any] | None:
    """A launch statement's kind, target, and the names it reads and writes; None if not a launch."""
    fallback = _fallback(s)
    if fallback is not None:
        return fallback
    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)):
        return None
    call = s.value
    site = classify_call(call, {k: None for k in sources})  # type: ignore[misc]
    if site is None:
        return None
    kind, target = site
    if kind == "triton":
        params, _ = kernel_params(sources[target], target)
        reads, writes = set(), set()
        for p, a in zip(params, call.args):
            if isinstance(a, ast.Name):
                # every argument but a write-only output is read: a template's operands are
                # ``arg_A``, ``arg_B`` (a GEMM template), not ``in_ptr*``
                if not p.startswith("out_ptr"):
                    reads.add(a.id)
                if p.startswith(("out_ptr", "in_out_ptr")):
                    writes.add(a.id)
        return {"kind": "triton", "target": target, "reads": reads, "writes": writes}
    out = next((k.value for k in call.keywords if k.arg == "out"), None)
    if not isinstance(out, ast.Name):
        raise NotAGraphUnit(f"the library call {dotted(call.func)} writes no `out=` buffer")
    reads = set().union(
        *(_values_in(a) for a in call.args), *(_values_in(k.value) for k in call.keywords if k.arg != "out")
    )
    return {"kind": "extern", "target": dotted(call.func) or "", "reads": reads, "writes": {out.id}}


def _values_in(node: ast.AST) -> set[str]:
    """The names an argument expression reads as values: ``reinterpret_tensor(arg0_1, ...)``
    (a library call's transposed operand) reads ``arg0_1``, not the function it calls."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in called}


def _between_ok(s: ast.stmt) -> bool:
    if isinstance(s, ast.Delete) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
        return True
    return (
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and (isinstance(s.value, ast.Name) or is_call_to(s.value, BETWEEN))
    )


def _members(
    stmts: list[ast.stmt], launches: dict[int, dict[str, Any]], aliases: Aliases, output: str, inputs: set[str]
) -> list[int]:
    """Positions of the launches the output's last write depends on, back to the unit's inputs
    (graph inputs, or buffers that launches before the unit wrote: what wrote them stays out)."""
    root = aliases.root
    writers = [i for i, l in launches.items() if root(output) in {root(w) for w in l["writes"]}]
    if not writers:
        raise NotAGraphUnit(f"no launch writes {output}")
    last = max(writers)
    stop = {root(n) for n in inputs}
    needed = {root(n) for n in launches[last]["reads"] | launches[last]["writes"]} - stop
    members = [last]
    for i in sorted((i for i in launches if i < last), reverse=True):
        if {root(w) for w in launches[i]["writes"]} & needed:
            members.append(i)
            needed |= {root(n) for n in launches[i]["reads"] | launches[i]["writes"]} - stop
    return sorted(members)


def derive(
    wrapper_src: str, kernel_sources: dict[str, str], function: str, inputs: list[str], output: str
) -> dict[str, Any]:
    """The graph-level unit computing ``output`` from the graph inputs ``inputs`` in ``function``
    of the wrapper (module docstring); NotAGraphUnit with the reason if there is none."""
    tree = ast.parse(wrapper_src)
    fn = next((f for f in functions(tree) if f.name == function), None)
    if fn is None:
        raise NotAGraphUnit(f"function {function} not in the wrapper")
    stmts = statements_in_order(fn.body)
    launches = {i: l for i, s in enumerate(stmts) if (l := _launch(s, kernel_sources))}
    aliases = unit_aliases(stmts)
    root = aliases.root
    idx = _members(stmts, launches, aliases, output, set(inputs))
    _check_written_as_output(launches[idx[-1]], output, aliases)
    if [i for i in launches if idx[0] <= i <= idx[-1]] != idx:
        raise NotAGraphUnit("the launches the output depends on are not consecutive")
    bad = [
        ast.unparse(s)[:60]
        for i, s in enumerate(stmts[idx[0] : idx[-1]], idx[0])
        if i not in idx and not _between_ok(s)
    ]
    if bad:
        raise NotAGraphUnit(f"a statement between the launches may touch the unit's buffers: {bad[0]}")
    written = {root(w) for i in idx for w in launches[i]["writes"]}
    ins = {root(n) for n in inputs}
    outside = sorted({n for i in idx for n in launches[i]["reads"] if root(n) not in written | ins})
    if outside:
        raise NotAGraphUnit(f"the run reads {outside}, which are neither graph inputs of the unit nor written in it")
    if written & ins or written - aliases.allocated:
        raise NotAGraphUnit("the run writes a graph input or memory the function did not allocate")
    _check_read_after_written(stmts, launches, idx, ins, root)
    for n in inputs:  # a buffer the function made is taken where a member passes it by its name
        if root(n) in aliases.allocated and not any(n == a for i in idx for a, _ in passed_names(stmts[i])):
            raise NotAGraphUnit(f"the run reads {n}'s memory under another name only")
    after = set().union(*(aliases.names(s) for s in stmts[idx[-1] + 1 :] if not isinstance(s, ast.Delete)), set())
    if root(output) not in after:
        raise NotAGraphUnit(f"nothing after the run reads {output}")
    inter = sorted(written - {root(output)})
    if set(inter) & after:
        raise NotAGraphUnit(
            f"buffers the run writes besides its output are read after it: {sorted(set(inter) & after)}"
        )
    kernels = list(dict.fromkeys(launches[i]["target"] for i in idx if launches[i]["kind"] == "triton"))
    every = [
        k for f in functions(tree) for s in statements_in_order(f.body) if (k := _triton_target(s, kernel_sources))
    ]
    inside = [launches[i]["target"] for i in idx if launches[i]["kind"] == "triton"]
    if kernels and (any(every.count(k) != inside.count(k) for k in kernels) or every.count(kernels[-1]) != 1):
        raise NotAGraphUnit("a Triton kernel of the run is launched outside it too, or the last one more than once")
    # a run of library calls alone (a pool ATen runs where Inductor did not lower it): the
    # candidate is a definition of its own (stitch/splice.py adds it), named after the output
    anchor = kernels[-1] if kernels else LIBRARY_ANCHOR.format(output=output)
    if not kernels and anchor in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
        raise NotAGraphUnit(f"the wrapper already has a name {anchor}")
    last = stmts[idx[-1]]
    if last.lineno != last.end_lineno:
        raise NotAGraphUnit("the run's last launch spans several lines")
    _check_dels(stmts[idx[0] : idx[-1]], set(inputs) | {output})
    return {
        "function": function,
        "members": [
            {
                "index": i,
                "lineno": stmts[i].lineno,
                "kind": launches[i]["kind"],
                "target": launches[i]["target"],
                "text": ast.unparse(stmts[i]),
            }
            for i in idx
        ],
        "inputs": [n for n in inputs if any(root(n) in {root(r) for r in launches[i]["reads"]} for i in idx)],
        "outputs": [output],
        "intermediates": inter,
        "anchor": anchor,
        "kernels": kernels,
        "output_specs": {output: _output_layout(stmts, idx[-1], launches[idx[-1]], output, aliases)},
        "input_layouts": _input_layouts(stmts, idx[0], [n for n in inputs if root(n) in aliases.allocated], aliases),
        "output_at": _written_at(last, launches[idx[-1]], kernel_sources, aliases, output),
    }


def _check_read_after_written(
    stmts: list[ast.stmt], launches: dict[int, dict[str, Any]], idx: list[int], ins: set[str], root: Any
) -> None:
    """No member reads a value written before the unit but its inputs: a kernel that updates a
    buffer in place (``in_out_ptr``: a convolution's result given its bias) would read what a
    launch or a library call before the run wrote there, which the unit's isolated copy never
    holds.  (A reused fresh allocation named ``in_out`` holds nothing yet: allowed.)"""
    before = set()
    for i, s in enumerate(stmts[: idx[0]]):
        if i in launches:
            before |= {root(w) for w in launches[i]["writes"]}
        elif (made := _allocates(s)) is not None:
            before.add(root(made))
    have = set(ins)
    for i in idx:
        early = sorted(n for n in launches[i]["reads"] if root(n) in before - have)
        if early:
            raise NotAGraphUnit(f"{launches[i]['target']} reads {early[0]}, written before the run, not an input")
        have |= {root(w) for w in launches[i]["writes"]}


def _check_written_as_output(last: dict[str, Any], output: str, aliases: Aliases) -> None:
    """The last launch writes ``output`` under that name, not its memory under another."""
    as_ = sorted(w for w in last["writes"] if aliases.root(w) == aliases.root(output) and w != output)
    if not as_ or output in last["writes"]:
        return
    if last["kind"] == "fallback":
        raise NotAGraphUnit(f"{output} is a later name of {as_[0]}, the library call's result: the unit is {as_[0]}'s")
    raise NotAGraphUnit(
        f"the last launch writes {output}'s memory as {as_[0]} (Inductor reuses the buffer): "
        f"it holds {as_[0]}'s value, not {output}'s"
    )


def derive_in_wrapper(
    wrapper_src: str, kernel_sources: dict[str, str], inputs: list[str], output: str
) -> dict[str, Any]:
    """``derive`` in the wrapper function that holds the work: ``call``, or, where Inductor split
    the graph into partitions (on a GPU, ``call`` hands its arguments to ``partition_0``, ...),
    the partition that computes ``output``; NotAGraphUnit with each function's reason if none."""
    names = [f.name for f in functions(ast.parse(wrapper_src)) if f.name == "call" or f.name.startswith("partition_")]
    whys = []
    for name in sorted(dict.fromkeys(names), key=lambda n: n != "call"):
        try:
            return derive(wrapper_src, kernel_sources, name, inputs, output)
        except NotAGraphUnit as e:
            whys.append(f"{name}: {e}")
    raise NotAGraphUnit("; ".join(whys) or "the wrapper has no call function")


def _check_dels(between: list[ast.stmt], args: set[str]) -> None:
    """A ``del`` between the launches that names a unit argument names only unit arguments and
    is a statement of its own line (the stitch moves it after the unit's launch)."""
    lines = [s.lineno for s in between]
    for s in between:
        if isinstance(s, ast.Delete) and names_in(s) & args:
            if not all(isinstance(t, ast.Name) and t.id in args for t in s.targets) or lines.count(s.lineno) > 1:
                raise NotAGraphUnit(f"`{ast.unparse(s)}` deletes a unit argument together with other code")


def _output_layout(stmts: list[ast.stmt], last: int, launch: dict[str, Any], output: str, aliases: Aliases) -> Any:
    """The output's layout: its allocation's, or, for a fallback's result (no allocation), the
    first layout Inductor asserts after the call for it or a name of its memory (``buf1 = buf0``):
    ``assert_tensor_metadata`` (shape, stride, dtype: a CPU wrapper) or ``assert_size_stride``
    (shape and stride: a GPU's; ``dtype`` None, the caller takes it from the graph's node)."""
    if launch["kind"] != "fallback":
        return layout(stmts[:last], output, aliases)
    spec = asserted_layout(stmts[last + 1 :], output)
    if spec is None:
        raise NotAGraphUnit(f"the wrapper states no layout for {output}, the library call's result")
    return spec


def asserted_layout(stmts: list[ast.stmt], name: str) -> dict[str, Any] | None:
    """The first layout ``stmts`` assert for ``name`` or another name of the same tensor (a rename,
    ``buf1 = buf0``; never a view of its memory, whose layout is its own):
    ``assert_tensor_metadata`` (shape, stride, dtype: a CPU wrapper) or ``assert_size_stride``
    (shape and stride: a GPU's; ``dtype`` None); None if none does."""
    same = _renames(stmts, name)
    for s in stmts:
        v = s.value if isinstance(s, ast.Expr) else None
        if not (is_call_to(v, ("assert_tensor_metadata", "assert_size_stride")) and len(v.args) >= 3):
            continue
        if not (isinstance(v.args[0], ast.Name) and v.args[0].id in same):
            continue
        shape, stride = ast.literal_eval(v.args[1]), ast.literal_eval(v.args[2])
        meta = is_call_to(v, ("assert_tensor_metadata",)) and len(v.args) >= 4
        dtype = ast.unparse(v.args[3]).split(".")[-1] if meta else None
        return {"shape": list(shape), "stride": list(stride), "dtype": dtype}
    return None


def _renames(stmts: list[ast.stmt], name: str) -> set[str]:
    """``name`` and every name a plain assignment (``t = s``, both ways) makes the same tensor."""
    pairs = plain_renames(stmts)
    same, grew = {name}, True
    while grew:
        grew = False
        for a, b in pairs:
            if (a in same) != (b in same):
                same |= {a, b}
                grew = True
    return same


def _input_layouts(stmts: list[ast.stmt], first: int, inputs: list[str], aliases: Aliases) -> dict[str, Any]:
    """The layouts of the inputs the function itself made before the unit (a library call's
    result the unit starts at): allocated, a view, or asserted after the call that wrote it."""
    out = {}
    for n in inputs:
        try:
            out[n] = layout(stmts[:first], n, aliases)
        except NotAGraphUnit:
            spec = asserted_layout(stmts[:first], n)
            if spec is not None:
                out[n] = spec
    return out


def _written_at(s: ast.stmt, launch: dict[str, Any], sources: dict[str, str], aliases: Aliases, output: str) -> Any:
    """Where the last launch writes the output: ``"out"`` (a library call's ``out=``), ``"assign"``
    (a fallback's result, a new buffer) or the index of the Triton launch's positional argument."""
    if launch["kind"] == "extern":
        return "out"
    if launch["kind"] == "fallback":
        return "assign"
    call = s.value  # type: ignore[attr-defined]
    params, _ = kernel_params(sources[launch["target"]], launch["target"])
    for i, (p, a) in enumerate(zip(params, call.args)):
        if (
            isinstance(a, ast.Name)
            and p.startswith(("out_ptr", "in_out_ptr"))
            and aliases.root(a.id) == aliases.root(output)
        ):
            return i
    raise NotAGraphUnit(f"the last launch does not write {output}")


def _triton_target(s: ast.stmt, sources: dict[str, str]) -> str | None:
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
        site = classify_call(s.value, {k: None for k in sources})  # type: ignore[misc]
        if site and site[0] == "triton":
            return site[1]
    return None


def layout(stmts: list[ast.stmt], name: str, aliases: Aliases) -> dict[str, Any]:
    """Shape, stride and dtype of buffer ``name`` from its last definition among ``stmts``
    (an ``empty_strided_*`` allocation, an alias of another buffer, a ``reinterpret_tensor``)."""
    for s in reversed(stmts):
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
            continue
        if s.targets[0].id != name:
            continue
        v = s.value
        if isinstance(v, ast.Name):
            return layout(stmts[: stmts.index(s)], v.id, aliases)
        if is_call_to(v, ("empty_strided",)):
            shape, stride, dtype = (ast.literal_eval(v.args[0]), ast.literal_eval(v.args[1]), ast.unparse(v.args[2]))
            return {"shape": list(shape), "stride": list(stride), "dtype": dtype.split(".")[-1]}
        if is_call_to(v, ("reinterpret_tensor",)) and isinstance(v.args[0], ast.Name):
            base = layout(stmts[: stmts.index(s)], v.args[0].id, aliases)
            if ast.literal_eval(v.args[3]) != 0:
                raise NotAGraphUnit(f"{name} is a view at an offset")
            return {
                "shape": list(ast.literal_eval(v.args[1])),
                "stride": list(ast.literal_eval(v.args[2])),
                "dtype": base["dtype"],
            }
    raise NotAGraphUnit(f"no allocation or view defines {name}")
