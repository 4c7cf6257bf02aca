"""The eager reference of a unit (``reference.py``), as capture writes it (``capture/fxref.py``):
module constants LEVEL (``kernel``: from the kernel's own inputs; ``graph``: from the compiled
graph's inputs), INPUTS, OUTPUTS, SHAPES, OUT_SHAPES, a ``Reference`` module whose ``forward``
is the ATen ops of the FX subgraph, and ``reference(**args)``.  Parsed here for the
synthesizers and for composing fused references; loaded and run by the harness.
"""

from __future__ import annotations

import ast
from typing import Any

CONSTANTS = ("LEVEL", "INPUTS", "OUTPUTS", "SHAPES", "OUT_SHAPES")


class NoForward(Exception):
    """The reference has no ``Reference.forward`` to read ops from."""


def reference_constants(reference_src: str) -> dict[str, Any]:
    """LEVEL, INPUTS, OUTPUTS, SHAPES, OUT_SHAPES of a reference.py (those it defines)."""
    consts: dict[str, Any] = {}
    for node in ast.parse(reference_src).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in CONSTANTS:
            consts[node.targets[0].id] = ast.literal_eval(node.value)
    return consts


def reference_forward(reference_src: str) -> tuple[ast.FunctionDef, dict[str, Any]]:
    """``Reference.forward``'s AST and the module constants."""
    tree = ast.parse(reference_src)
    consts = reference_constants(reference_src)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Reference"), None)
    fwd = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None) if cls else None
    if fwd is None:
        raise NoForward("reference.py has no Reference.forward")
    return fwd, consts
