"""Neighbour fusion, the stitch half: the call-site edits of a fused pair in the wrapper, the
same edits re-derived on the AST for gate 3's proof, and the choice between a fused unit and
its parts.

* ``edit_call_sites``: P's launch is dropped, C's launch gets P's other arguments appended, and
  ``del`` statements of those arguments between the two launches move after C's launch.
* ``expected_function`` applies the same declared edits on the AST, independently of the text
  edit; gate 3's proof requires the two to agree.
* ``choose_fusions``: a fused unit (or a region, stitch/regions.py) and its parts cannot all be
  replaced; the option that saves more time wins.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

from ..core.outputcode import functions, launched_kernel, statements_in_order
from ..core.records import Best, Dispatch, ProblemPaths


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
        stmts = statements_in_order(fn.body)
        names = {f["producer"], f["consumer"]}
        where = {k: i for i, s in enumerate(stmts) if (k := launched_kernel(s, names))}
        ip, ic = where[f["producer"]], where[f["consumer"]]
        ps, cs = stmts[ip], stmts[ic]
        indent = lines[ps.lineno - 1][: ps.col_offset]
        for ln in range(ps.lineno, (ps.end_lineno or ps.lineno) + 1):
            drop[ln] = ""
        drop[ps.lineno] = (
            f"{indent}# kernelopt: {f['producer']}'s launch dropped: fused into {f['consumer']} (unit {f['unit']})\n"
        )
        extra_names = {e["call_arg"] for e in f["extra"]}
        moved = []
        for s in stmts[ip + 1 : ic]:
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


def _edit_body(body: list[ast.stmt], f: dict[str, Any], state: dict[str, Any]) -> list[ast.stmt]:
    """One fusion's declared edits on a list of statements (``with`` blocks entered)."""
    extra_names = {e["call_arg"] for e in f["extra"]}
    out: list[ast.stmt] = []
    for s in body:
        if isinstance(s, ast.With):
            s.body = _edit_body(s.body, f, state)
            out.append(s)
            continue
        k = launched_kernel(s, {f["producer"], f["consumer"]})
        if k == f["producer"]:
            state["between"] = True
            continue
        if k == f["consumer"]:
            s.value.args.extend(ast.Name(e["call_arg"], ast.Load()) for e in f["extra"])  # type: ignore[attr-defined]
            out.append(s)
            out.extend(state.pop("moved", []))
            state["between"] = False
            continue
        moved_del = isinstance(s, ast.Delete) and all(
            isinstance(t, ast.Name) and t.id in extra_names for t in s.targets
        )
        if state.get("between") and moved_del:
            state.setdefault("moved", []).append(s)
            continue
        out.append(s)
    return out


def expected_function(fn: ast.FunctionDef, fusions: list[dict[str, Any]]) -> ast.FunctionDef:
    """The baseline function with the declared fusion edits applied on its AST (the proof's side)."""
    fn = copy.deepcopy(fn)
    for f in fusions:
        if f["function"] != fn.name:
            continue
        fn.body = _edit_body(fn.body, f, {})
    return fn


def choose_fusions(
    paths: ProblemPaths, replacements: dict[str, str], best_of: dict[str, Best]
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """A fused unit (or a region) and its parts cannot all be replaced.  On the GPU the option that saves the
    most time wins: (producer + consumer time at capture) x (1 - ratio) for the fused candidate
    against the sum over the parts' own candidates; on the CPU (times mean nothing) the fused
    candidate is taken, so the fusion path is exercised.  Overlapping pairs: the larger saving first."""
    disp = {u.id: u for u in Dispatch.load(paths.dispatch).units}
    out = dict(replacements)

    def saving(u: str) -> float | None:
        b = best_of.get(u)
        if b is None or not b.meaningful or u not in out:
            return None
        r = (b.candidates.get(Path(out[u]).relative_to(paths.unit(u)).as_posix()) or {}).get("ratio")
        return (disp[u].time_ms or 0.0) * (1.0 - r) if r is not None else None

    def parts_of(u: str) -> list[str]:
        return disp[u].parts if u in disp else []

    fused = sorted((u for u in out if parts_of(u)), key=lambda u: (-(saving(u) or 0.0), u))
    taken: set[str] = set()
    decisions = []
    for u in fused:
        parts = parts_of(u)
        if taken & set(parts):
            decisions.append(
                {
                    "unit": u,
                    "taken": False,
                    "why": f"a part is already replaced by another fused unit or region ({sorted(taken & set(parts))})",
                }
            )
            out.pop(u)
            continue
        sf = saving(u)
        sep = sum(max(saving(p) or 0.0, 0.0) for p in parts)
        if sf is not None and sf <= sep:
            decisions.append(
                {
                    "unit": u,
                    "taken": False,
                    "saving_ms": sf,
                    "parts_saving_ms": sep,
                    "why": "the parts' own candidates save more",
                }
            )
            out.pop(u)
            continue
        for p in parts:
            out.pop(p, None)
        taken.update(parts)
        decisions.append(
            {
                "unit": u,
                "taken": True,
                "saving_ms": sf,
                "parts_saving_ms": sep,
                "why": "saves more than the parts' own candidates"
                if sf is not None
                else "CPU mode: times mean nothing, the fused candidate is taken",
            }
        )
    return out, decisions
