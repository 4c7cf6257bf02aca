"""Graph-level units, the isolate half (``capture/graphunits.py`` finds them): the unit's launch
contract (its graph inputs, then its output, named as in the wrapper) and its baseline
(``inductor.py``: the wrapper's run of Triton kernels and library calls, replayed in ``launch``,
the intermediates allocated inside it).  The reference is cut at capture.

The baseline is not in the checked candidate form (it calls the library: ``extern_kernels.mm``),
so slot ``c0`` fails gate 1 with ``torch-compute``: it is the unit's timing baseline and the
"Inductor's output" gate 2 holds candidates' errors to, never a candidate to stitch.
"""

from __future__ import annotations

import ast
from typing import Any

from ..capture.graphunits import layout, unit_aliases
from ..core.outputcode import dotted, functions, is_call_to, renamed, statements_in_order
from ..core.records import Capture, Contract, DispatchUnit
from .inductor import launcher_lines, strip_heuristics_decorator


def rewrite_contract(capture: Capture, kernel_contracts: dict[str, Contract], entry: DispatchUnit) -> Contract:
    """``entry``: the unit's dispatch record; ``kernel_contracts``: each Triton member's own contract."""
    r = entry.rewrite or {}
    dev = capture.device

    def arg(name: str, spec: dict[str, Any], access: str) -> dict[str, Any]:
        return {
            "kind": "tensor",
            **spec,
            "storage_offset": 0,
            "device": dev,
            "name": name,
            "access": access,
            "buffer": name,
        }

    args = [arg(b, r["input_specs"][b], "read") for b in r["inputs"]]
    args += [arg(b, r["output_specs"][b], "write") for b in r["outputs"]]
    f = r["rewrite"]
    return Contract.from_dict(
        {
            "unit": entry.id,
            "problem": capture.problem,
            "graph": 0,
            "kernel": r["anchor"],
            "heuristic": entry.heuristic,
            "template": False,
            "user": False,
            "helion": None,
            "device": dev,
            "args": args,
            "launch_config": None,
            "aliases": [],
            "grid": None,
            "grid_expr": None,
            "launches": 1,
            "launch_shapes_identical": True,
            "aten_ops": r["reference"].get("aten_ops", []),
            "reference": {"rewrite": True, **r["reference"]},
            "fx_origins": [],
            "share": entry.share,
            "rewrite": {
                **{k: r[k] for k in ("function", "members", "inputs", "outputs", "intermediates", "anchor", "kernels")},
                **{k: r[k] for k in ("output_at", "member_units", "output_specs")},
                "name": f["rewrite"],
                "node": f["node"],
                "why": f["why"],
                "win": f["win"],
                "roles": f["roles"],
                "kernel_contracts": {k: c.as_dict() for k, c in kernel_contracts.items()},
            },
        }
    )


def _body(wrapper_src: str, contract: Contract) -> list[str]:
    """``launch``'s statements: the intermediates' allocations and aliases, the members (Triton
    launches through their launchers, library calls as written), the output's other names
    renamed to the output argument (the same memory in the same layout)."""
    r = contract.rewrite
    fn = next(f for f in functions(ast.parse(wrapper_src)) if f.name == r["function"])
    stmts = statements_in_order(fn.body)
    aliases = unit_aliases(stmts)
    (out,) = r["outputs"]
    last = r["members"][-1]["index"]
    names = {n for s in stmts[: last + 1] for n in _assigned(s)} | {out}
    same = {n for n in names if aliases.root(n) == aliases.root(out)}
    # a fallback's result has no allocation: the layout the wrapper asserts, recorded at capture
    want = _significant(r["output_specs"][out] if r["output_at"] == "assign" else layout(stmts[:last], out, aliases))
    for n in same - {out}:
        if _significant(layout(stmts[:last], n, aliases)) != want:
            raise ValueError(f"{n} is the output's memory in another layout")
    rename = {n: out for n in same}
    members = {m["index"]: m for m in r["members"]}
    inter = set(r["intermediates"])
    dev = f"{r['inputs'][0]}.device"
    lines = []
    for i, s in enumerate(stmts[: last + 1]):
        if i in members:
            m = members[i]
            if m["kind"] == "triton":
                call = s.value  # type: ignore[attr-defined]
                j = r["kernels"].index(m["target"])
                a = ", ".join(ast.unparse(x) for x in call.args)
                lines.append(ast.unparse(renamed(ast.parse(f"k{j}_launch({a})").body[0], rename)))
            elif m["kind"] == "fallback" and i == last:
                lines.append(_into_output(s, out))
            else:
                lines.append(ast.unparse(renamed(s, rename)))
            continue
        t = _assigned(s)
        if not t or aliases.root(t[0]) not in inter or t[0] in same:
            continue
        v = s.value  # type: ignore[attr-defined]
        if is_call_to(v, ("empty_strided",)):
            shape, stride, dtype = (ast.unparse(x) for x in v.args[:3])
            lines.append(f"{t[0]} = torch.empty_strided({shape}, {stride}, dtype={dtype}, device={dev})")
        else:
            lines.append(ast.unparse(s))
    return lines


def _into_output(s: ast.stmt, out: str) -> str:
    """A fallback that computes the unit's output, written into the output argument: its
    ``.out`` overload (ATen's same kernel, no copy: the baseline is timed as the wrapper runs),
    else its result copied (said in a comment)."""
    import torch

    call = s.value  # type: ignore[attr-defined]
    name = dotted(call.func) or ""
    packet = getattr(torch.ops.aten, name.split(".")[3], None)
    if packet is not None and "out" in packet.overloads():
        args = [ast.unparse(a) for a in call.args] + [f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords]
        return f"{'.'.join(name.split('.')[:4])}.out({', '.join(args + [f'out={out}'])})"
    return f"{out}.copy_({ast.unparse(call)})  # no .out overload: the result copied into the output"


def _significant(spec: dict[str, Any]) -> tuple[Any, ...]:
    """A layout up to the strides of dims of size 1, which address nothing (Inductor's reused
    ``(8, 1), (1, 8)`` buffer is the ``(8, 1), (1, 1)`` output it becomes)."""
    return (
        spec["shape"],
        [st if size != 1 else None for size, st in zip(spec["shape"], spec["stride"])],
        spec["dtype"],
    )


def _assigned(s: ast.stmt) -> list[str]:
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        return [s.targets[0].id]
    return []


def render_rewrite(contract: Contract, wrapper_src: str, sources: dict[str, str]) -> str:
    """The unit's baseline (module docstring); ``sources``: each Triton member's source."""
    r = contract.rewrite
    names = [a["name"] for a in contract.args]
    lines = [
        f'"""Inductor\'s code for the graph-level unit {contract.unit} ({r["name"]}): its Triton kernels',
        f"and library calls as the wrapper runs them ({', '.join(m['target'] for m in r['members'])}).",
        f"The baseline the unit's candidates are timed against.  launch({', '.join(names)}) takes the",
        "unit's graph inputs, then its output; the intermediates are allocated inside it.",
        '"""',
        "import torch",
        "from torch._inductor.select_algorithm import extern_kernels",
        "",
        "reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor",
        "",
    ]
    for j, k in enumerate(r["kernels"]):
        lines += [strip_heuristics_decorator(sources[k], k).rstrip(), "", ""]
        lines += [*launcher_lines(k, Contract.from_dict(r["kernel_contracts"][k]), f"K{j}_", f"k{j}_"), "", ""]
    lines.append(f"def launch({', '.join(names)}):")
    lines += [f"    {line}" for line in _body(wrapper_src, contract)]
    return "\n".join(lines) + "\n"
