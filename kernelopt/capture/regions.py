"""Regions as units, the analysis half: a run of consecutive Triton launches of one wrapper
function whose intermediate buffers nothing outside the run reads becomes one more unit
``rg_<first>__<last>`` (classify/stage.py), checked against the eager reference of the FX
subgraph from the region's inputs to its outputs (built here at capture, ``capture/stage.py``,
where the FX graph is).  The other halves: ``isolate/regions.py`` (contract, baseline, inputs)
and ``stitch/regions.py`` (call-site edits).

Why: a split reduction's partial kernel writes a buffer no FX node holds (partial sums, a
group norm's per-group statistics), so neither it nor the kernel that reads that buffer has an
eager reference of its own; through their region both are checked, synthesized (Inductor's
re-lowering of the region's reference) and replaced together.

Regions start at a kernel with no reference of its own (``starts``) and grow forward, one
launch at a time (at most ``MAX_MEMBERS``), until every buffer the run writes and anything
after it reads is an FX node's value (the caller's ``mappable``).  ``check_region`` says
whether a declared run is one (gate 3's proof calls it again on the baseline):

* the members are consecutive Triton launches of one function, each launched once in the
  module, with only allocations, stream handles, ``del`` and aliases of fresh allocations
  between them; every launch argument is a plain buffer name or a numeric constant;
* a buffer the run writes is never one it read from outside (no in-place region inputs);
* an ``in_out_ptr`` argument whose buffer is a fresh allocation (``empty_strided``, or an
  alias of one, named by nothing before) is written, not read; one the kernel only loads from
  (``outputcode.stores_to``: Inductor keeps the in/out name of a reused buffer whose store it
  dropped, a group norm's last kernel reading the convolution's output as ``buf8 = buf2``) is
  read, not written;
* every buffer the run writes is a local ``empty_strided`` allocation (under any alias), two of
  them never one memory;
* outputs: the written buffers that a statement after the last launch names under any alias
  (a ``del`` does not count); intermediates: the other written buffers;
* a ``del`` between the launches that deletes a region argument deletes only region arguments
  and has a line of its own (the stitch moves it after the region's launch);
* a new name for a fresh allocation the region has not touched may stand between the launches
  (Inductor's ``buf3 = buf2; del buf2  # reuse`` before a split reduction's last kernel writes
  its scalar): the statement stays where it is, before the region's launch;
* so may a new name for one of its inputs (``buf8 = buf2; del buf2  # reuse``): the region
  reads that input under the last name its members pass (every call is given that name).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..core.outputcode import (
    Refused,
    functions,
    is_call_to,
    kernel_params,
    launched_kernel,
    names_in,
    statements_in_order,
    stores_to,
)

NotARegion = Refused  # a run of launches that is not a region, with the reason
BETWEEN_CALLS = ("empty_strided", "get_raw_stream")  # what may stand between the launches
# a GroupNorm of large groups on the GPU: a partial Welford kernel, three combining ones, the
# kernel that applies them (ConvTranspose2d + GELU + GroupNorm at KernelBench size, on the H100)
MAX_MEMBERS = 6
TENSOR_PREFIXES = ("in_ptr", "out_ptr", "in_out_ptr")


def region_id(member_units: list[str]) -> str:
    return f"rg_{member_units[0]}__{member_units[-1]}"


class Aliases:
    """Which names of a function share memory: ``t = s``, and ``t = f(s, ...)`` for a call whose
    first argument is a name (``reinterpret_tensor``, ``as_strided``, a view), put ``t`` and ``s``
    in one class; ``allocated`` are the classes that hold a local ``empty_strided`` allocation."""

    def __init__(self, stmts: list[ast.stmt]):
        self.parent: dict[str, str] = {}
        allocs = []
        for s in stmts:
            if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
                continue
            t, v = s.targets[0].id, s.value
            if is_call_to(v, ("empty_strided",)):
                allocs.append(t)
            elif isinstance(v, ast.Name):
                self._union(t, v.id)
            elif isinstance(v, ast.Call) and v.args and isinstance(v.args[0], ast.Name):
                self._union(t, v.args[0].id)
        self.allocated = {self.root(a) for a in allocs}

    def root(self, n: str) -> str:
        while n in self.parent:
            n = self.parent[n]
        return n

    def _union(self, a: str, b: str) -> None:
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[ra] = rb

    def names(self, stmt: ast.AST) -> set[str]:
        """The alias classes (roots) a statement names."""
        return {self.root(n) for n in names_in(stmt)}


def _definition(s: ast.stmt) -> bool:
    """An allocation, an alias (``t = s``, ``t = reinterpret_tensor(s, ...)``: Inductor's reuse of
    a fresh buffer under another shape) or a ``del``: names memory, reads none of it."""
    if isinstance(s, ast.Delete):
        return True
    return (
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and (is_call_to(s.value, ("empty_strided", "reinterpret_tensor")) or isinstance(s.value, ast.Name))
    )


def _fresh_before(stmts: list[ast.stmt], end: int, aliases: Aliases) -> set[str]:
    """Alias classes that hold a fresh allocation at statement ``end``: a local ``empty_strided``
    that no statement since (but allocations, aliases and ``del``) names, under any name."""
    touched: set[str] = set()
    for s in stmts[:end]:
        if not _definition(s):
            touched |= aliases.names(s)
    return aliases.allocated - touched


def _launch_counts(tree: ast.Module, kernels: set[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for fn in functions(tree):
        for s in ast.walk(fn):
            if isinstance(s, ast.stmt) and (k := launched_kernel(s, kernels)):
                counts[k] = counts.get(k, 0) + 1
    return counts


def check_region(
    wrapper_src: str, kernel_sources: dict[str, str], heuristics: dict[str, str], function: str, members: list[str]
) -> dict[str, Any]:
    """The region ``members`` (kernel names, in launch order) of ``function``: its inputs,
    outputs, intermediates and each member's call arguments; NotARegion with the reason if the
    run is not a region (module docstring)."""
    tree = ast.parse(wrapper_src)
    fn = next((f for f in functions(tree) if f.name == function), None)
    if fn is None:
        raise NotARegion(f"function {function} not in the wrapper")
    return _check(fn, tree, kernel_sources, heuristics, members)


def _check(
    fn: ast.FunctionDef, tree: ast.Module, sources: dict[str, str], heuristics: dict[str, str], members: list[str]
) -> dict[str, Any]:
    stmts = statements_in_order(fn.body)
    idx = _launch_positions(fn, tree, stmts, sources, heuristics, members)
    aliases = Aliases(stmts)
    inputs, written, calls = _member_calls(stmts, idx, sources, members, aliases)
    inputs, read_as = _one_name_per_input(inputs, calls, stmts)
    # read after the region under any name (an alias or a view made before, between or after
    # its launches): an output; else an intermediate, which the stitched model never writes
    after = stmts[idx[-1] + 1 :]
    used_after = set().union(*[aliases.names(s) for s in after if not isinstance(s, ast.Delete)], set())
    outputs = [b for b in written if aliases.root(b) in used_after]
    intermediates = [b for b in written if aliases.root(b) not in used_after]
    roots = [aliases.root(b) for b in written]
    if len(set(roots)) != len(roots):
        raise NotARegion("two of the buffers the region writes are one memory (aliases)")
    if not outputs:
        raise NotARegion("nothing after the region reads what it writes")
    last = stmts[idx[-1]]
    if last.lineno != last.end_lineno:
        raise NotARegion(f"the launch of {members[-1]} spans several lines (the stitch edits it as one line)")
    _check_between(stmts, idx, aliases, inputs, written, set(inputs) | set(outputs))
    out = {
        "function": fn.name,
        "members": list(members),
        "inputs": inputs,
        "outputs": outputs,
        "intermediates": intermediates,
        "calls": calls,
    }
    return {**out, "read_as": read_as} if read_as else out


def _launch_positions(
    fn: ast.FunctionDef,
    tree: ast.Module,
    stmts: list[ast.stmt],
    sources: dict[str, str],
    heuristics: dict[str, str],
    members: list[str],
) -> list[int]:
    """The members' positions in ``stmts``: consecutive launches, each kernel launched once in the
    module, none a template GEMM."""
    if len(members) < 2:
        raise NotARegion("a region has at least two launches")
    counts = _launch_counts(tree, set(sources))
    at = {k: i for i, s in enumerate(stmts) if (k := launched_kernel(s, set(sources)))}
    if any(m not in at for m in members):
        raise NotARegion(f"not every member is launched in {fn.name}")
    idx = [at[m] for m in members]
    launches = sorted(at.values())
    first = launches.index(idx[0])
    if idx != launches[first : first + len(members)]:
        raise NotARegion("the members are not consecutive launches")
    for m in members:
        if counts.get(m) != 1:
            raise NotARegion(f"{m} is launched {counts.get(m)} times (a region's kernels are launched once)")
        if heuristics.get(m) == "template":
            raise NotARegion(f"{m} is a template GEMM")
    return idx


def _member_calls(
    stmts: list[ast.stmt], idx: list[int], sources: dict[str, str], members: list[str], aliases: Aliases
) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """(the buffers the run reads from outside, the buffers it writes, each member's call
    arguments): plain buffer names or numeric constants; writes only to the function's own
    allocations, never to what the run read from outside."""
    inputs: list[str] = []
    written: list[str] = []
    calls: list[dict[str, Any]] = []
    for m, i in zip(members, idx):
        params, _ = kernel_params(sources[m], m)
        call = stmts[i].value  # type: ignore[attr-defined]
        if len(call.args) != len(params):
            raise NotARegion(f"{m}'s launch does not pass one positional argument per kernel parameter")
        fresh = _fresh_before(stmts, i, aliases)
        args: list[Any] = []
        for p, a in zip(params, call.args):
            if not p.startswith(TENSOR_PREFIXES):
                if not (
                    isinstance(a, ast.Constant) and isinstance(a.value, (int, float)) and not isinstance(a.value, bool)
                ):
                    raise NotARegion(f"{m}'s {p} is {ast.unparse(a)[:40]}, not a numeric constant")
                args.append({"param": p, "value": a.value})
                continue
            if not isinstance(a, ast.Name):
                raise NotARegion(f"{m}'s {p} is {ast.unparse(a)[:40]}, not a plain buffer name")
            b = a.id
            loaded_only = p.startswith("in_out_ptr") and not stores_to(sources[m], p)
            reads = p.startswith("in_ptr") or (p.startswith("in_out_ptr") and aliases.root(b) not in fresh)
            if reads and b not in written and b not in inputs:
                inputs.append(b)
            if p.startswith(("out_ptr", "in_out_ptr")) and not loaded_only:
                if aliases.root(b) in {aliases.root(x) for x in inputs}:
                    raise NotARegion(f"{m} writes {b}, which the region reads from outside (in place)")
                if aliases.root(b) not in aliases.allocated:
                    raise NotARegion(
                        f"{m} writes {b}, which the function did not allocate (a graph input, or memory "
                        "from outside the function): the region's writes must be to its own buffers"
                    )
                if b not in written:
                    written.append(b)
            args.append({"param": p, "buffer": b})
        calls.append({"kernel": m, "args": args})
    return inputs, written, calls


def _one_name_per_input(
    inputs: list[str], calls: list[dict[str, Any]], stmts: list[ast.stmt]
) -> tuple[list[str], dict]:
    """The inputs with one name per tensor, and {that name: the first}: where members read one
    tensor under several plain names (``buf8 = buf2; del buf2  # reuse`` between them; not a
    view such as ``reinterpret_tensor``, whose shape, strides or offset may differ), every call
    passes the last name, which the region's launch, where the last member's was, can still
    use; the first is the one whose FX node the buffer holds (Inductor named ``buf8`` for a
    value whose store it dropped: its memory still holds ``buf2``'s)."""
    plain = {t: v for t, v in plain_renames(stmts)}

    def base(n: str) -> str:
        seen = {n}
        while n in plain and plain[n] not in seen:
            n = plain[n]
            seen.add(n)
        return n

    first: dict[str, str] = {}
    for root in sorted({base(b) for b in inputs}):
        names = [a["buffer"] for c in calls for a in c["args"] if base(a.get("buffer", "")) == root]
        if len(set(names)) > 1:
            for c in calls:
                for a in c["args"]:
                    if a.get("buffer") in names:
                        a["buffer"] = names[-1]
            inputs = list(dict.fromkeys(names[-1] if b in names else b for b in inputs))
            first[names[-1]] = names[0]
    return inputs, first


def _check_between(
    stmts: list[ast.stmt],
    idx: list[int],
    aliases: Aliases,
    inputs: list[str],
    written: list[str],
    region_args: set[str],
) -> None:
    """What stands between the launches: ``del`` (of region arguments only, on a line of its
    own), allocations, stream handles, new names for untouched fresh allocations."""
    lines = [s.lineno for s in stmts]
    for s in stmts[idx[0] + 1 : idx[-1]]:
        if s in (stmts[i] for i in idx):
            continue
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            continue
        if isinstance(s, ast.Delete):
            named = names_in(s) & region_args
            if named and not all(isinstance(t, ast.Name) and t.id in region_args for t in s.targets):
                raise NotARegion(f"`{ast.unparse(s)}` deletes a region argument together with other names")
            if named and lines.count(s.lineno) > 1:
                raise NotARegion(f"`{ast.unparse(s)}` shares its line with other code")
            continue
        if isinstance(s, ast.Assign) and is_call_to(s.value, BETWEEN_CALLS) and not names_in(s) & set(inputs):
            continue  # an allocation (of an output, say) or a stream handle
        src = _aliased(s)
        if src is not None and src not in set(written) | region_args:
            if not names_in(s.targets[0]) & region_args:
                continue
            if len(s.targets) == 1 and aliases.root(src) in aliases.allocated and src not in inputs:
                continue  # a new name for a fresh allocation the region has not touched ("buf3 = buf2  # reuse")
            if plain_renames([s]) and s.targets[0].id in inputs:  # type: ignore[attr-defined]
                continue  # the name the region reads an input under ("buf8 = buf2; del buf2  # reuse")
        raise NotARegion(f"a statement between the launches may touch the region's buffers: {ast.unparse(s)[:80]}")


def plain_renames(stmts: list[ast.stmt]) -> list[tuple[str, str]]:
    """(new, old) of every plain ``new = old``: one tensor under two names."""
    return [
        (s.targets[0].id, s.value.id)
        for s in stmts
        if isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.Name)
    ]


def _aliased(s: ast.stmt) -> str | None:
    """The name ``s`` gives a new name to: ``t = s`` or ``t = reinterpret_tensor(s, ...)``."""
    if not isinstance(s, ast.Assign):
        return None
    v = s.value
    if is_call_to(v, ("reinterpret_tensor",)) and v.args and isinstance(v.args[0], ast.Name):  # type: ignore[attr-defined]
        return v.args[0].id  # type: ignore[attr-defined]
    return v.id if isinstance(v, ast.Name) else None


def _absorbing(
    fn: ast.FunctionDef,
    tree: ast.Module,
    kernel_sources: dict[str, str],
    heuristics: dict[str, str],
    order: list[str],
    i: int,
    r: dict[str, Any],
    mappable: Callable[[str], bool],
) -> dict[str, Any]:
    """The split region ``r`` at ``order[i]``, grown by the launches after it while they are the
    only readers of its outputs (a group norm's per-channel scale and shift, read by the kernel
    that applies them): the statistics and their use become one unit, which one kernel may
    replace; the grown region's outputs must be FX nodes' values too."""
    best, n = r, len(r["members"])
    while n < MAX_MEMBERS and i + n < len(order):
        n += 1
        try:
            longer = _check(fn, tree, kernel_sources, heuristics, order[i : i + n])
        except NotARegion:
            break
        if not set(best["outputs"]) <= set(longer["intermediates"]) or not all(map(mappable, longer["outputs"])):
            break
        best = longer
    return best


def find_regions(
    wrapper_src: str,
    kernel_sources: dict[str, str],
    heuristics: dict[str, str],
    starts: list[str],
    mappable: Callable[[str], bool],
    fusible: list[str] | None = None,
    absorb: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """For each kernel in ``starts`` (no reference of its own), in launch order, that no region
    found before holds, the shortest region it begins whose outputs are all ``mappable`` (an FX
    node's value), and the refused starts with their reasons (``kind`` "split"); with ``absorb``,
    grown by the launches after it that alone read its outputs (``_absorbing``).

    Then, for each kernel in ``fusible`` (kernels with a reference) that no region holds, the
    shortest region it begins that drops a round trip through memory: at least one intermediate
    (a buffer the run writes and only the run reads), every output ``mappable``, and at least one
    member that is not pointwise (pointwise neighbours are ``classify/fusion.py``'s pairs) (``kind``
    "fusible": Inductor's several passes, e.g. a norm's statistics and its normalisation, or a
    scan and the flip of its result, as one unit whose candidate may be one kernel).  A fusible
    start without such a region is not a refusal: it stays its own unit."""
    tree = ast.parse(wrapper_src)
    kernels = set(kernel_sources)
    found, refused = [], []
    for fn in functions(tree):
        order = [k for s in statements_in_order(fn.body) if (k := launched_kernel(s, kernels))]
        for k in sorted((k for k in starts if k in order), key=order.index):
            if any(k in r["members"] for r in found):
                continue  # checked through a region found before
            i = order.index(k)
            whys = [] if i + 1 < len(order) else ["it is the function's last launch"]
            for n in range(2, min(MAX_MEMBERS, len(order) - i) + 1):
                try:
                    r = _check(fn, tree, kernel_sources, heuristics, order[i : i + n])
                except NotARegion as e:
                    whys.append(f"{n} launches: {e}")
                    continue
                bad = [b for b in r["outputs"] if not mappable(b)]
                if not bad:
                    if absorb:
                        r = _absorbing(fn, tree, kernel_sources, heuristics, order, i, r, mappable)
                    found.append({**r, "kind": "split"})
                    break
                whys.append(f"{n} launches: its outputs {bad} hold no FX node's value")
            if not found or found[-1]["members"][0] != k:
                refused.append({"start": k, "function": fn.name, "reason": "; ".join(whys)})
        for k in sorted((k for k in fusible or [] if k in order), key=order.index):
            if any(k in r["members"] for r in found):
                continue
            i = order.index(k)
            for n in range(2, min(MAX_MEMBERS, len(order) - i) + 1):
                run = order[i : i + n]
                if any(k2 in r["members"] for r in found for k2 in run):
                    break  # overlaps a region found before
                try:
                    r = _check(fn, tree, kernel_sources, heuristics, run)
                except NotARegion:
                    continue
                if r["intermediates"] and all(mappable(b) for b in r["outputs"]):
                    if any(heuristics.get(m) != "pointwise" for m in run):
                        found.append({**r, "kind": "fusible"})
                    break
    return found, refused
