"""Graph-level units, the stitch half (``capture/graphunits.py`` finds them): the call-site edits
of a replaced graph-level unit in the wrapper, and the same edits re-derived on the AST for gate 3.

* ``edit_call_sites``: every member's launch (Triton kernels and library calls) is dropped; the
  last one's line becomes ``<anchor>.run(<inputs>, <output>)``, the anchor's definition being the
  candidate; a ``del`` of a unit argument between the first and the last launch moves after it.
* ``expected_function`` applies the same declared edits on the AST, independently of the text
  edit; gate 3's proof requires the two to agree and re-derives each unit on the baseline
  (``capture.graphunits.derive``).

Members are named by their position among the function's statements (``statements_in_order``),
which the definition replacements leave unchanged; these edits run before the fusion and region
edits, which find their launches by kernel name.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from ..core.outputcode import functions, statements_in_order


def unit_args(u: dict[str, Any]) -> list[str]:
    return list(u["inputs"]) + list(u["outputs"])


def _moved(s: ast.stmt, u: dict[str, Any]) -> bool:
    names = set(unit_args(u))
    return isinstance(s, ast.Delete) and all(isinstance(t, ast.Name) and t.id in names for t in s.targets)


def launch_line(u: dict[str, Any]) -> str:
    return f"{u['anchor']}.run({', '.join(unit_args(u))})"


def launch_lines(u: dict[str, Any]) -> list[str]:
    """What stands where the unit's last launch stood: the launch of the candidate, after the
    output's allocation where the last member was a fallback whose result was a new buffer
    (``output_at: assign``: the layout the wrapper asserted for it, on the first input's device)."""
    if u.get("output_at") != "assign":
        return [launch_line(u)]
    (out,) = u["outputs"]
    spec = u["output_specs"][out]
    alloc = (
        f"{out} = torch.empty_strided({tuple(spec['shape'])}, {tuple(spec['stride'])}, "
        f"dtype=torch.{spec['dtype']}, device={u['inputs'][0]}.device)"
    )
    return [alloc, launch_line(u)]


def edit_call_sites(src: str, units: list[dict[str, Any]]) -> str:
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    replace: dict[int, str] = {}
    for u in units:
        fn = next((x for x in functions(tree) if x.name == u["function"]), None)
        if fn is None:
            raise KeyError(f"function {u['function']} not in the wrapper")
        stmts = statements_in_order(fn.body)
        idx = [m["index"] for m in u["members"]]
        for m in u["members"]:
            if ast.unparse(stmts[m["index"]]) != m["text"]:
                raise ValueError(f"statement {m['index']} of {u['function']} is not `{m['text']}`")
        for m in u["members"][:-1]:
            s = stmts[m["index"]]
            indent = lines[s.lineno - 1][: s.col_offset]
            for ln in range(s.lineno, (s.end_lineno or s.lineno) + 1):
                replace[ln] = ""
            replace[s.lineno] = f"{indent}# kernelopt: {m['target']} dropped: part of graph-level unit {u['unit']}\n"
        moved = []
        for s in stmts[idx[0] + 1 : idx[-1]]:
            if _moved(s, u):
                if lines[s.lineno - 1].split("#")[0].strip() != ast.unparse(s):
                    raise ValueError(f"line {s.lineno}: `{ast.unparse(s)}` shares its line with other code")
                replace[s.lineno] = ""
                moved.append(ast.unparse(s))
        last = stmts[idx[-1]]
        indent = lines[last.lineno - 1][: last.col_offset]
        replace[last.lineno] = (
            f"{indent}# kernelopt: {u['members'][-1]['target']} replaced: graph-level unit {u['unit']} ({u['name']})\n"
            + "".join(f"{indent}{line}\n" for line in launch_lines(u))
            + "".join(f"{indent}{m}\n" for m in moved)
        )
    return "".join(replace.get(i, line) for i, line in enumerate(lines, start=1))


def _edit(body: list[ast.stmt], units: list[dict[str, Any]], state: dict[str, Any]) -> list[ast.stmt]:
    """The units' declared edits on a list of statements (``with`` blocks entered), counting
    statements as ``statements_in_order`` does (every unit's positions are the baseline's)."""
    out: list[ast.stmt] = []
    for s in body:
        if isinstance(s, ast.With):
            s.body = _edit(s.body, units, state)
            out.append(s)
            continue
        i = state["i"]
        state["i"] += 1
        kept = True
        for k, u in enumerate(units):
            idx = [m["index"] for m in u["members"]]
            if i in idx[:-1]:
                kept = False
            elif i == idx[-1]:
                out.extend(ast.parse("\n".join(launch_lines(u))).body)
                out.extend(state.pop(k, []))
                kept = False
            elif idx[0] < i < idx[-1] and _moved(s, u):
                state.setdefault(k, []).append(s)
                kept = False
        if kept:
            out.append(s)
    return out


def expected_function(fn: ast.FunctionDef, units: list[dict[str, Any]]) -> ast.FunctionDef:
    """The baseline function with the declared edits applied on its AST (the proof's side)."""
    fn = copy.deepcopy(fn)
    mine = [u for u in units if u["function"] == fn.name]
    if mine:
        fn.body = _edit(fn.body, mine, {"i": 0})
    return fn
