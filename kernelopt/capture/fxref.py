"""Eager references for Triton kernels, cut out of Inductor's post-grad FX graph.

A kernel reads some buffers and writes others.  Each buffer holds the value of one FX
node of the post-grad graph (its origin node), so the kernel computes
``outputs = f(inputs)`` where ``f`` is the subgraph between those nodes.  ``build``
copies that subgraph into a fresh graph whose placeholders are the kernel's input
arguments and whose outputs are its written arguments, and returns the Python source
of that graph: a reference that uses only eager ATen ops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


class ReferenceUnavailable(Exception):
    """The kernel's buffers could not be mapped onto the FX graph."""


@dataclass
class ReferenceCode:
    source: str  # a def forward(self, <inputs>) -> tuple of outputs
    inputs: list[str]  # kernel argument names, in forward's order
    outputs: list[str]  # kernel argument names, in forward's return order
    input_nodes: dict[str, str] = field(default_factory=dict)  # arg -> fx node name
    output_nodes: dict[str, str] = field(default_factory=dict)
    aten_ops: list[str] = field(default_factory=list)
    level: str = "kernel"  # "kernel": from the kernel's inputs; "graph": from the graph's inputs
    input_shapes: dict[str, list[int]] = field(default_factory=dict)  # arg -> fx value shape
    output_shapes: dict[str, list[int]] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)  # get_attr targets -> tensors


def _shape(node: Any) -> list[int] | None:
    val = node.meta.get("val") if hasattr(node, "meta") else None
    try:
        return [int(s) for s in val.shape]
    except Exception:  # noqa: BLE001 - tuples, symbolic or missing values
        return None


def numel(node: Any) -> int | None:
    shape = _shape(node)
    return None if shape is None else int(math.prod(shape))


def build(
    gm: Any, inputs: dict[str, Any] | None, outputs: dict[str, Any], raw: dict[str, Any] | None = None
) -> ReferenceCode:
    """Cut ``outputs = f(inputs)`` (both ``{arg name: fx.Node}``) out of ``gm``.

    ``inputs=None`` builds a graph-level reference instead: its inputs are whichever graph
    placeholders the outputs depend on (used when a kernel reads a buffer that no FX node
    holds, e.g. an extern convolution's output before Inductor adds the bias).

    ``raw``: inputs that hold a convolution's value without its bias (``{arg: the bias's FX
    node}``, the arg mapped in ``inputs`` to the convolution's node): on the GPU Inductor runs the
    library call with ``bias=None`` and adds the bias in the Triton kernels after it.  The
    reference takes the raw output and adds the bias (another input) where the graph used the
    convolution's value.
    """
    import torch.fx as fx

    if not outputs:
        raise ReferenceUnavailable("the kernel writes no argument that maps to an FX node")
    level = "kernel" if inputs is not None else "graph"
    inputs = dict(inputs or {})
    for arg, node in {**inputs, **outputs}.items():
        if _shape(node) is None:
            raise ReferenceUnavailable(
                f"argument {arg} maps to FX node {node.name}, whose value is not a single tensor"
            )
    cut = _Cut(gm, level, inputs, raw or {})
    outs = [cut.copy(node) for node in outputs.values()]
    # Placeholders created while copying come after the others: FX keeps them in creation
    # order, which is the order of ``names``.
    cut.graph.output(tuple(outs))
    cut.graph.lint()
    root = __import__("torch").nn.Module()
    for target, value in cut.constants.items():
        _set_attr(root, target, value)
    code = fx.GraphModule(root, cut.graph).code
    return ReferenceCode(
        source=code,
        inputs=cut.names,
        outputs=list(outputs),
        input_nodes={a: n.name for a, n in inputs.items()},
        output_nodes={a: n.name for a, n in outputs.items()},
        aten_ops=sorted(set(cut.ops)),
        level=level,
        input_shapes={a: _shape(n) for a, n in inputs.items()},  # type: ignore[misc]
        output_shapes={a: _shape(n) for a, n in outputs.items()},  # type: ignore[misc]
        constants=cut.constants,
    )


class _Cut:
    """A fresh FX graph being copied out of ``gm``: its placeholders are the kernel's inputs
    (``inputs``, arg name -> node, in order), and at graph level also every graph input that a
    copied node depends on (added to ``inputs`` as they are met)."""

    def __init__(self, gm: Any, level: str, inputs: dict[str, Any], raw: dict[str, Any]):
        import torch.fx as fx

        self.gm, self.level, self.inputs = gm, level, inputs
        self.graph = fx.Graph()
        self.env: dict[Any, Any] = {}
        self.names: list[str] = []  # forward's parameters, in order (placeholder names are generated)
        self.constants: dict[str, Any] = {}
        self.ops: list[str] = []
        self.raw: dict[Any, tuple[Any, Any]] = {}  # convolution node -> (its raw output's placeholder, bias)
        for arg, node in inputs.items():
            ph = self._placeholder(arg, node)
            if arg in raw:
                self.raw[node] = (ph, raw[arg])
            else:
                self.env.setdefault(node, ph)  # two arguments holding one value: the first one feeds it

    def _placeholder(self, arg: str, node: Any) -> Any:
        ph = self.graph.placeholder(f"x{len(self.names)}")
        ph.meta = dict(node.meta)
        self.names.append(arg)
        return ph

    def copy(self, node: Any) -> Any:
        """The copy of ``node``, with everything it depends on copied first (iteratively: deep
        graphs would exhaust the recursion limit)."""
        env = self.env
        if node in env:
            return env[node]
        stack = [node]
        while stack:
            cur = stack[-1]
            if cur in env:
                stack.pop()
                continue
            if cur in self.raw:
                if self.raw[cur][1] not in env:
                    stack.append(self.raw[cur][1])
                    continue
                self._add_bias(cur)
                stack.pop()
                continue
            if cur.op == "placeholder":
                if self.level == "kernel":
                    raise ReferenceUnavailable(
                        f"FX node {node.name} depends on graph input {cur.name}, which the kernel does not read"
                    )
                env[cur] = self._placeholder(cur.name, cur)
                self.inputs[cur.name] = cur
                stack.pop()
                continue
            pending = [a for a in cur.all_input_nodes if a not in env]
            if pending:
                stack.extend(pending)
                continue
            self._copy_one(cur)
            stack.pop()
        return env[node]

    def _add_bias(self, conv: Any) -> None:
        """The convolution's value from its raw output: the bias, seen as [1, C, 1, ...], added."""
        import torch

        ph, bias = self.raw[conv]
        shape = _shape(conv) or []
        view = self.graph.call_function(
            torch.ops.aten.reshape.default, (self.env[bias], [1, shape[1]] + [1] * (len(shape) - 2))
        )
        self.env[conv] = self.graph.call_function(torch.ops.aten.add.Tensor, (ph, view))
        self.env[conv].meta = dict(conv.meta)
        self.ops += ["aten.reshape.default", "aten.add.Tensor"]

    def _copy_one(self, cur: Any) -> None:
        """Copy a node whose inputs are all copied: a constant is fetched, an op recorded."""
        import torch.fx as fx

        if cur.op == "get_attr":
            target = str(cur.target)
            self.constants[target] = _fetch_attr(self.gm, target)
        elif cur.op == "call_function":
            values_only = _values_only_max_pool(cur)
            if values_only is not None:
                self.ops.append(str(values_only))
                args, kwargs = fx.map_arg((cur.args, cur.kwargs), lambda n: self.env[n])
                self.env[cur] = self.graph.call_function(values_only, args, kwargs)
                self.env[cur].meta = dict(cur.meta)
                return
            self.ops.append(str(cur.target))
        else:
            raise ReferenceUnavailable(f"FX node {cur.name} is a {cur.op}, not supported in references")
        self.env[cur] = self.graph.node_copy(cur, lambda n: self.env[n])


def _values_only_max_pool(node: Any) -> Any:
    """ATen's ``max_pool{2,3}d_with_indices`` for Inductor's ``prims._low_memory_max_pool_with_offsets``
    when the graph uses only its values, else None.  The prim's eager form computes the values
    with that very op and then turns the int64 indices into int8 window offsets through five more
    tensors of the output's size in int64: on the H200 the reference of a dilated 3x3 max pool
    (1 GB in, 1 GB out) peaked at 20 GB in every job that judged it (bench/README.md, "GPU memory
    learned from isolate").  The values are the same bits; the offsets are never built."""
    import operator

    import torch

    prim = getattr(torch.ops.prims, "_low_memory_max_pool_with_offsets", None)
    if prim is None or node.target is not getattr(prim, "default", None):
        return None
    if any(u.target is not operator.getitem or u.args[1] != 0 for u in node.users):
        return None  # the offsets are used: keep the prim
    dims = len(node.args[1]) if len(node.args) > 1 else 0
    aten = torch.ops.aten
    return {2: aten.max_pool2d_with_indices.default, 3: aten.max_pool3d_with_indices.default}.get(dims)


def _fetch_attr(gm: Any, target: str) -> Any:
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _set_attr(root: Any, target: str, value: Any) -> None:
    import torch

    *path, last = target.split(".")
    obj = root
    for part in path:
        if not hasattr(obj, part):
            setattr(obj, part, torch.nn.Module())
        obj = getattr(obj, part)
    if isinstance(value, torch.Tensor):
        obj.register_buffer(last, value)
    else:
        setattr(obj, last, value)


REFERENCE_TEMPLATE = '''"""Eager reference for unit {unit}: the ATen ops of Inductor's post-grad graph
between the kernel's inputs and outputs (generated by kernelopt from the FX graph).

ATen ops: {ops}
"""
import math

import torch
from torch import device
from math import inf, nan

# LEVEL "kernel": INPUTS are the kernel's argument names.  LEVEL "graph": INPUTS are the
# compiled graph's inputs (the wrapper's call() arguments), because the kernel reads a
# buffer no FX node holds; the reference then recomputes the outputs from the graph inputs.
LEVEL = {level!r}
INPUTS = {inputs!r}
OUTPUTS = {outputs!r}
# FX value shape of each argument (a kernel may see a buffer through a view of another
# shape, and an in-place argument may hold values of two different shapes)
SHAPES = {shapes!r}
OUT_SHAPES = {out_shapes!r}


class Reference(torch.nn.Module):
    def __init__(self, constants=None):
        super().__init__()
        for name, value in (constants or {{}}).items():
            self.register_buffer(name, value)
{body}


def reference(**args):
    """Map kernel argument name -> tensor (inputs) to argument name -> tensor (outputs)."""
    constants = {{}}
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_constants.pt")
    if os.path.exists(path):
        constants = torch.load(path, map_location="cpu")
        dev = next((t.device for t in args.values() if isinstance(t, torch.Tensor)), None)
        constants = {{k: v.to(dev) for k, v in constants.items()}}
    ins = []
    for name in INPUTS:
        t = args[name]
        shape = SHAPES.get(name)
        if isinstance(t, torch.Tensor) and shape is not None and list(t.shape) != shape:
            t = t.reshape(shape)
        ins.append(t)
    with torch.no_grad():
        outs = Reference(constants)(*ins)
    return dict(zip(OUTPUTS, outs))
'''


def render(unit: str, ref: ReferenceCode) -> str:
    body = "\n".join("    " + line if line.strip() else "" for line in ref.source.strip("\n").splitlines())
    return REFERENCE_TEMPLATE.format(
        unit=unit,
        ops=", ".join(ref.aten_ops) or "(none)",
        level=ref.level,
        inputs=ref.inputs,
        outputs=ref.outputs,
        shapes=ref.input_shapes,
        out_shapes=ref.output_shapes,
        body=body,
    )


_ = math  # referenced by generated code only
