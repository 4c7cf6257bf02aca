"""Units whose kernel the user wrote (a standalone Triton problem: the model launches its own
``@triton.jit`` kernels).  There is no ATen graph to cut a reference from: the user's kernel
itself, launched with the user's launch parameters, is the unit's oracle.  ``reference.py`` is
that kernel (as captured, renamed to the kernel's name in the wrapper) with LEVEL ``"user"``.

Which written arguments the kernel also *reads* is not in its name (Inductor's ``out_ptr``
convention does not apply) and Inductor's write analysis says nothing about reads: it is
measured.  The user's kernel runs twice on the same inputs, the written argument filled with
NaN once and with a random pattern once; equal results mean the prior contents are never read
(``write``: candidates get it poisoned), different ones mean ``readwrite``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.records import Contract
from .inductor import render_inductor


def infer_grid(contract: Contract) -> dict[str, str]:
    """A user kernel's grid is three numbers the user computed (Inductor's ``FixedGrid``), so a
    block-size change would keep the old grid.  Where a grid dimension equals ``cdiv(n, B)`` for
    exactly one integer size ``n`` (arguments of equal value count as one) and one constexpr
    block size ``B`` of the launch (``cdiv(n_elements, BLOCK)``), the contract's grid says so,
    and a candidate with another ``B`` gets the grid it needs; other dimensions stay the
    recorded numbers.  Only a hint to the search: the baseline's grid is the same numbers either
    way, and every candidate still goes through the gates.  Returns the dimensions rewritten
    (``with_inferred_grid`` puts them in the contract)."""
    g = contract.grid_expr or {}
    grid = contract.grid or []
    if g.get("type") != "FixedGrid" or len(grid) != 3:
        return {}
    blocks = {
        k: v
        for k, v in ((contract.launch_config or {}).get("kwargs") or {}).items()
        if isinstance(v, int) and not isinstance(v, bool) and v > 1 and "BLOCK" in k.upper()
    }
    sizes = {
        a["name"]: a["value"]
        for a in contract.args
        if a["kind"] == "scalar"
        and a.get("type") == "int"
        and not a["name"].startswith("_grid_")
        and isinstance(a.get("value"), int)
        and a["value"] > 1
    }
    out: dict[str, str] = {}
    for axis, value in zip(("x", "y", "z"), grid):
        if value <= 1:
            continue
        hits = [(n, b) for n, nv in sizes.items() for b, bv in blocks.items() if -(-nv // bv) == value]
        # arguments of the same value (a contiguous row's stride and length) are one size
        if len({(sizes[n], b) for n, b in hits}) == 1:
            n, b = hits[0]
            out[axis] = f"triton.cdiv({n}, {b})"
    return out


def with_inferred_grid(contract: Contract) -> Contract:
    """The contract with its ``grid_inferred`` (``infer_grid``, ``{}`` when none), and its
    ``grid_expr`` rewritten where a dimension was."""
    out = infer_grid(contract)
    g = contract.grid_expr
    if out:
        g = {**(g or {}), **out, "inferred_from": "user grid = cdiv(size, block)"}
    return replace(contract, grid_expr=g, grid_inferred=out)


USER_TITLE = """The user's own kernel for unit {unit}, the oracle of this unit: the kernel as the user
wrote it (captured from the compiled model, renamed to {kernel}), launched with the user's
launch parameters.  ``reference(**args)`` launches it on the given arguments and returns the
arguments it writes."""


def render_reference(contract: Contract, kernel_source: str) -> str:
    names = [a["name"] for a in contract.args]
    outputs = [a["name"] for a in contract.args if a.get("access") in ("write", "readwrite")]
    shapes = {a["name"]: a["shape"] for a in contract.args if a["kind"] == "tensor"}
    body = render_inductor(contract, kernel_source, USER_TITLE.format(unit=contract.unit, kernel=contract.kernel))
    return "\n".join(
        [
            body.rstrip(),
            "",
            "",
            'LEVEL = "user"',
            f"ARGS = {names!r}",
            f"INPUTS = {names!r}  # every argument: the kernel runs as the user launched it",
            f"OUTPUTS = {outputs!r}",
            f"SHAPES = {shapes!r}",
            f"OUT_SHAPES = { ({n: shapes[n] for n in outputs})!r}",
            "",
            "",
            "def reference(**args):",
            '    """The user\'s kernel on these arguments (its outputs on copies: the inputs are left as',
            '    they are).  Returns argument name -> tensor for the arguments it writes."""',
            "    call = {n: (args[n].clone() if n in OUTPUTS else args[n]) for n in ARGS}",
            "    launch(*(call[n] for n in ARGS))",
            "    return {n: call[n] for n in OUTPUTS}",
            "",
        ]
    )


def probe_reads(reference: Any, before: list[Any], names: list[str], written: list[str]) -> dict[str, bool]:
    """For each written argument: does the user's kernel read what it held before?  (Run twice,
    NaN-filled and randomly filled; the results differ exactly when the old contents matter.)"""
    from ..core.outputs import same_values
    from ..runner.harness import poison

    reads: dict[str, bool] = {}
    for name in written:
        results = []
        for pattern in ("nan", "random"):
            args = dict(zip(names, before))
            buf = args[name].clone()
            poison(buf, pattern, seed=1)
            args[name] = buf
            results.append(reference.reference(**args))
        reads[name] = any(not same_values(results[0][o], results[1][o]) for o in results[0])
    return reads
