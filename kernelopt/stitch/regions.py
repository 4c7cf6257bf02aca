"""Regions as units, the stitch half (``capture/regions.py`` finds them): the call-site edits
of a replaced region in the wrapper, and the same edits re-derived on the AST for gate 3.

* ``edit_call_sites``: every member's launch but the last is dropped; the last member's
  launch (its kernel replaced by the region's candidate) gets the region's arguments (input
  buffers, then output buffers) instead of its own; a ``del`` of a region argument between the
  first and the last launch moves after the last launch.
* ``expected_function`` applies the same declared edits on the AST, independently of the text
  edit; gate 3's proof requires the two to agree, and re-derives each declared region on the
  baseline (``capture.regions.check_region``).
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from ..core.outputcode import functions, launched_kernel, statements_in_order


def region_args(r: dict[str, Any]) -> list[str]:
    return list(r["inputs"]) + list(r["outputs"])


def _moved(s: ast.stmt, r: dict[str, Any]) -> bool:
    """A ``del`` of region arguments only (capture/regions.py allows no other kind in between)."""
    names = set(region_args(r))
    return isinstance(s, ast.Delete) and all(isinstance(t, ast.Name) and t.id in names for t in s.targets)


def edit_call_sites(src: str, regions: list[dict[str, Any]]) -> str:
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    replace: dict[int, str] = {}  # line number -> replacement text ('' = drop)
    for r in regions:
        fn = next((x for x in functions(tree) if x.name == r["function"]), None)
        if fn is None:
            raise KeyError(f"function {r['function']} not in the wrapper")
        stmts = statements_in_order(fn.body)
        where = {k: i for i, s in enumerate(stmts) if (k := launched_kernel(s, set(r["members"])))}
        first, last = where[r["members"][0]], where[r["members"][-1]]
        for k in r["members"][:-1]:
            s = stmts[where[k]]
            indent = lines[s.lineno - 1][: s.col_offset]
            for ln in range(s.lineno, (s.end_lineno or s.lineno) + 1):
                replace[ln] = ""
            replace[s.lineno] = f"{indent}# kernelopt: {k}'s launch dropped: part of region {r['unit']}\n"
        moved = []
        for s in stmts[first + 1 : last]:
            if _moved(s, r):
                if lines[s.lineno - 1].split("#")[0].strip() != ast.unparse(s):
                    raise ValueError(f"line {s.lineno}: `{ast.unparse(s)}` shares its line with other code")
                replace[s.lineno] = ""
                moved.append(ast.unparse(s))
        ls = stmts[last]
        call = ls.value  # type: ignore[attr-defined]
        a0, a1 = call.args[0], call.args[-1]
        if a0.lineno != a1.end_lineno or ls.lineno != ls.end_lineno:
            raise ValueError(f"line {ls.lineno}: the launch of {r['members'][-1]} spans several lines")
        text = lines[ls.lineno - 1]
        indent = text[: ls.col_offset]
        replace[ls.lineno] = (
            text[: a0.col_offset]
            + ", ".join(region_args(r))
            + text[a1.end_col_offset :]
            + "".join(f"{indent}{m}\n" for m in moved)
        )
    return "".join(replace.get(i, line) for i, line in enumerate(lines, start=1))


def _edit_body(body: list[ast.stmt], r: dict[str, Any], state: dict[str, Any]) -> list[ast.stmt]:
    """One region's declared edits on a list of statements (``with`` blocks entered)."""
    out: list[ast.stmt] = []
    for s in body:
        if isinstance(s, ast.With):
            s.body = _edit_body(s.body, r, state)
            out.append(s)
            continue
        k = launched_kernel(s, set(r["members"]))
        if k is not None and k != r["members"][-1]:
            state["inside"] = True
            continue
        if k is not None:
            s.value.args = [ast.Name(n, ast.Load()) for n in region_args(r)]  # type: ignore[attr-defined]
            out.append(s)
            out.extend(state.pop("moved", []))
            state["inside"] = False
            continue
        if state.get("inside") and _moved(s, r):
            state.setdefault("moved", []).append(s)
            continue
        out.append(s)
    return out


def expected_function(fn: ast.FunctionDef, regions: list[dict[str, Any]]) -> ast.FunctionDef:
    """The baseline function with the declared region edits applied on its AST (the proof's side)."""
    fn = copy.deepcopy(fn)
    for r in regions:
        if r["function"] == fn.name:
            fn.body = _edit_body(fn.body, r, {})
    return fn
