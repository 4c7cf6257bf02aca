"""Graph-level units (issue 16) in the prompts: a unit whose contract carries ``rewrite`` spans
Inductor's Triton kernels and library calls, and the roles that write or direct its kernels are
shown its whole FX subgraph with every value's dtype and shape (the post-grad graph's lines for
the nodes of the unit's eager reference), the launches it replaces, the analysis' finding (the
rewrite, why it holds, what it saves) and the instruction to look for the algebraic
simplification first (``prompts/graph_level.md``).  A unit that is not graph-level gets ``""``:
its prompts are unchanged.  The reply goes through the same protocol and gates as any other."""

from __future__ import annotations

import ast
import re
from typing import Any

from ....core.records import Contract
from .common import prompt

# a node of the post-grad graph's readable text: `name: "f32[16, 8]" = torch.ops....`
NODE = re.compile(r"^\s*(\w+): \"([^\"]*)\" = (.*)$")
PARAM = re.compile(r"(\w+): \"([^\"]*)\"")
# FX's "drop the last use" tail: `;  a = b = None`
DEAD = re.compile(r";\s+(?:\w+\s*=\s*)+None\s*$")
SOURCE = re.compile(r"#\s*File: .*?code: (.*)$")
ASSIGNED = re.compile(r"^\s+(\w+) = (.*)$")
SHORT = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int64": "i64", "int32": "i32",
         "bool": "b8", "int8": "i8", "uint8": "u8"}  # fmt: skip


def is_graph_level(contract: Contract) -> bool:
    return bool(contract.rewrite)


def _forward(reference_src: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The reference's ``forward``: its parameters (x0, x1, ...) and its (node, expression) lines."""
    params: list[str] = []
    body: list[tuple[str, str]] = []
    inside = False
    for line in reference_src.splitlines():
        m = re.match(r"\s+def forward\(self,?\s*(.*)\):", line)
        if m:
            params, inside = [p.strip() for p in m.group(1).split(",") if p.strip()], True
            continue
        if not inside:
            continue
        if re.match(r"\s+return\b", line) or (line.strip() and not line.startswith(" " * 8)):
            break
        a = ASSIGNED.match(line)
        if a:
            body.append((a.group(1), DEAD.sub("", a.group(2))))
    return params, body


def _post_grad(fx_text: str) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    """The post-grad graph's placeholders (name -> "f32[16]") and nodes (name -> (type, expression,
    the model's source line that made it))."""
    params: dict[str, str] = {}
    nodes: dict[str, tuple[str, str, str]] = {}
    source = ""
    for line in fx_text.splitlines():
        if re.match(r"\s+def forward\(", line):
            params.update(PARAM.findall(line))
            continue
        s = SOURCE.search(line)
        if s and line.lstrip().startswith("#"):
            source = s.group(1).strip()
            continue
        m = NODE.match(line)
        if m:
            nodes[m.group(1)] = (m.group(2), DEAD.sub("", m.group(3)), source)
    return params, nodes


def _type(spec: dict[str, Any]) -> str:
    return f"{SHORT.get(spec['dtype'], spec['dtype'])}{list(spec['shape'])}"


def fx_subgraph(contract: Contract, reference_src: str, fx_text: str) -> str:
    """The unit's FX subgraph as readable code: its inputs, every node from the eager reference in
    the post-grad graph's order with its dtype and shape, and which output buffer the last holds."""
    ref = contract.reference or {}
    args = {a["name"]: a for a in contract.args if a["kind"] == "tensor"}
    inputs = dict(ref.get("inputs") or {n: n for n in contract.rewrite["inputs"]})  # contract name -> FX node
    outputs = dict(ref.get("outputs") or {})
    params, body = _forward(reference_src)
    placeholders, nodes = _post_grad(fx_text)
    # the reference calls its inputs x0, x1, ... in INPUTS order (the contract's names)
    order = re.search(r"^INPUTS = (\[.*\])$", reference_src, re.M)
    names = ast.literal_eval(order.group(1)) if order else list(inputs)
    rename = {p: inputs.get(n, n) for p, n in zip(params, names)}
    sig = []
    for n in names:
        node = inputs.get(n, n)
        t = placeholders.get(node) or (nodes[node][0] if node in nodes else _type(args[n]) if n in args else "?")
        sig.append(f'{node}: "{t}"')
    lines = [f"def unit({', '.join(sig)}):"]
    if any(inputs.get(n, n) != n for n in names):
        lines.append("    # launch argument -> graph value: " + ", ".join(f"{n} -> {inputs.get(n, n)}" for n in names))
    seen_source = ""
    wanted = {n for n, _ in body}
    ordered = [n for n in nodes if n in wanted] + [n for n, _ in body if n not in nodes]
    exprs = dict(body)
    for n in ordered:
        if n in nodes:
            t, expr, source = nodes[n]
            if source and source != seen_source:
                lines.append(f"    # model source: {source}")
                seen_source = source
            lines.append(f'    {n}: "{t}" = {expr}')
        else:  # not in the post-grad text (or none was saved): the reference's line, its inputs renamed
            expr = re.sub(r"\b(x\d+)\b", lambda m: rename.get(m.group(1), m.group(1)), exprs[n])
            lines.append(f"    {n} = {expr}")
    outs = ", ".join(f"{buf!r}: {node}" for buf, node in outputs.items())
    types = ", ".join(f"{buf} {_type(args[buf])}" for buf in outputs if buf in args)
    lines.append(f"    return {{{outs}}}  # written to the unit's output argument(s): {types}")
    return "\n".join(lines)


def section(contract: Contract, reference_src: str, fx_text: str, limit: int = 16000) -> str:
    """The prompt section of a graph-level unit ('' for any other unit); the subgraph's text is
    cut at ``limit`` characters."""
    if not is_graph_level(contract):
        return ""
    r = contract.rewrite
    sub = fx_subgraph(contract, reference_src, fx_text)
    if len(sub) > limit:
        sub = sub[:limit] + "\n    # ... (truncated)"
    members = []
    for m in r.get("members", []):
        what = "Triton kernel" if m["kind"] == "triton" else "library call"
        members.append(f"- `{m.get('text') or m['target']}` ({what})")
    inter = ", ".join(f"`{b}`" for b in r.get("intermediates", [])) or "none"
    roles = ", ".join(f"{k} = `{v}`" for k, v in sorted((r.get("roles") or {}).items()))
    parts = [
        f"## The unit's whole graph: a graph-level unit (rewrite `{r['name']}`)",
        f"This unit is not one Inductor kernel: it replaces this run of launches of the compiled model's "
        f"`{r.get('function', 'call')}`, Triton kernels and library calls alike:\n" + "\n".join(members),
        f"Intermediate buffers Inductor allocates between them: {inter}.",
        "Its FX subgraph (Inductor's post-grad graph: ATen ops, each value's dtype and shape), from the "
        "unit's inputs to its output:\n```python\n" + sub + "\n```",
        "The analysis of the graph found the rewrite "
        f"`{r['name']}`" + (f" ({roles})" if roles else "") + f".\nWhy it holds: {r.get('why', '')}\n"
        f"What it saves: {r.get('win', '')}",
        prompt("graph_level").strip(),
    ]
    return "\n\n".join(parts)
