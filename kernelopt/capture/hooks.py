"""Compile-time hooks into Inductor, used only during capture.

Two long-standing entry points (same signatures in torch 2.11 and 2.13):
- ``GraphLowering.compile_to_module``: gives the wrapper module object of each compiled
  graph (so nothing has to search loaded modules for it), the post-grad FX graph it was
  lowered from, each buffer's origin FX node, and the graph's constants.  We also wrap the
  module's ``call`` to see the exact argument list Inductor's runtime passes it.
- ``TritonScheduling.define_kernel(src_code, node_schedule, kernel)``: for every kernel
  definition (also deduplicated ones), the kernel's argument <-> buffer mapping.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class KernelSite:
    """What define_kernel saw for one use of a kernel (one launch site, in codegen order)."""

    kernel: str
    argdefs: list[str]
    call_buffers: list[str]  # outer buffer per argdef (for in-place args: the final name)
    inputs: dict[str, str]  # outer buffer -> inner arg name
    outputs: dict[str, str]
    inplace: dict[str, list[str]]  # inner arg -> buffer names (first = read, last = written)
    scheduled: list[str]  # scheduler node names
    computed: list[str]  # buffers the kernel computes itself (incl. ones fused away)
    origins: list[str]  # FX nodes fused into the kernel


def _fallback_origin(buf: Any) -> str | None:
    """The FX node an ATen fallback call's buffer holds the value of, where Inductor gave it no
    origin node: one origin, a single-output call (not a tuple's layout); None otherwise."""
    from torch._inductor import ir

    if not isinstance(buf, ir.FallbackKernel) or isinstance(getattr(buf, "layout", None), ir.MultiOutputLayout):
        return None
    origins = [o for o in getattr(buf, "origins", ()) if getattr(o, "op", None) == "call_function"]
    return origins[0].name if len(origins) == 1 else None


@dataclass
class GraphCapture:
    index: int
    module: Any = None
    path: str | None = None
    gm: Any = None  # post-grad torch.fx.GraphModule
    graph_inputs: list[str] = field(default_factory=list)
    buffer_origin: dict[str, str] = field(default_factory=dict)  # buffer -> fx node name
    # a library call's own result that Inductor then copied into another layout (an ATen pool of a
    # channels-last convolution's output): the copy holds the node's value as its origin, the call's
    # buffer has none; buffer -> the one fx node it came from
    fallback_origin: dict[str, str] = field(default_factory=dict)
    buffer_numel: dict[str, int] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)
    kernel_sites: dict[str, list[KernelSite]] = field(default_factory=dict)
    call_args: list[Any] | None = None  # arguments of the first call (references, not copies)
    calls: int = 0
    codegen_s: float = 0.0


class CompileHooks:
    """Context manager recording every graph Inductor compiles while active."""

    def __init__(self) -> None:
        self.graphs: list[GraphCapture] = []
        self._current: GraphCapture | None = None
        self._errors: list[str] = []

    @contextlib.contextmanager
    def active(self) -> Iterator[CompileHooks]:
        from torch._inductor.codegen.triton import TritonScheduling
        from torch._inductor.graph import GraphLowering

        orig_compile = GraphLowering.compile_to_module
        orig_define = TritonScheduling.define_kernel
        hooks = self

        def compile_to_module(graph_self: Any) -> Any:
            cap = GraphCapture(index=len(hooks.graphs))
            hooks.graphs.append(cap)
            hooks._current = cap
            t0 = time.perf_counter()
            try:
                mod = orig_compile(graph_self)
            finally:
                hooks._current = None
            cap.codegen_s = time.perf_counter() - t0
            cap.module = mod
            cap.path = getattr(mod, "__file__", None)
            cap.gm = getattr(graph_self, "module", None)
            cap.graph_inputs = list(getattr(graph_self, "graph_input_names", []) or [])
            cap.constants = dict(getattr(graph_self, "constants", {}) or {})
            for buf in getattr(graph_self, "buffers", []):
                try:
                    import math as _math

                    cap.buffer_numel[buf.get_name()] = int(_math.prod(int(s) for s in buf.get_size()))
                except Exception:  # noqa: BLE001 - symbolic or sizeless buffers
                    pass
                try:
                    node = buf.get_origin_node()
                except Exception:  # noqa: BLE001 - not every IR node has one
                    node = None
                if node is not None:
                    cap.buffer_origin[buf.get_name()] = node.name
                elif (name := _fallback_origin(buf)) is not None:
                    cap.fallback_origin[buf.get_name()] = name
            orig_call = mod.call

            def call(args: list[Any]) -> Any:
                if cap.call_args is None:
                    cap.call_args = list(args)  # call() clears the list it is given
                cap.calls += 1
                return orig_call(args)

            mod.call = call
            return mod

        def define_kernel(sched_self: Any, src_code: str, node_schedule: Any, kernel: Any) -> Any:
            name = orig_define(sched_self, src_code, node_schedule, kernel)
            cap = hooks._current
            if cap is not None:
                try:
                    cap.kernel_sites.setdefault(name, []).append(_kernel_site(name, node_schedule, kernel))
                except Exception as e:  # noqa: BLE001 - recorded, reported by capture
                    hooks._errors.append(f"define_kernel({name}): {type(e).__name__}: {e}")
            return name

        GraphLowering.compile_to_module = compile_to_module  # type: ignore[method-assign]
        TritonScheduling.define_kernel = define_kernel  # type: ignore[method-assign]
        try:
            yield self
        finally:
            GraphLowering.compile_to_module = orig_compile  # type: ignore[method-assign]
            TritonScheduling.define_kernel = orig_define  # type: ignore[method-assign]

    @property
    def errors(self) -> list[str]:
        return list(self._errors)


def _kernel_site(name: str, node_schedule: Any, kernel: Any) -> KernelSite:
    args = kernel.args
    argdefs, call_args, _types, _pre = args.python_argdefs()
    argdefs = [getattr(a, "name", str(a)) for a in argdefs]
    removed = lambda v: type(v).__name__ == "RemovedArg" or str(v).startswith("REMOVED")  # noqa: E731
    inplace: dict[str, list[str]] = {}
    for ib in args.inplace_buffers.values():
        if removed(ib):
            continue
        inplace[ib.inner_name] = list(ib.other_names)
    inputs = {k: v for k, v in args.input_buffers.items() if not removed(v)}
    outputs = {k: v for k, v in args.output_buffers.items() if not removed(v)}
    scheduled: list[str] = []
    computed: list[str] = []
    origins: set[str] = set()
    for node in node_schedule:
        if isinstance(node, type) or not hasattr(node, "get_name"):
            continue  # reduction markers
        try:
            scheduled.append(node.get_name())
        except Exception:  # noqa: BLE001
            pass
        for sub in getattr(node, "get_nodes", lambda node=node: [node])():
            try:
                computed.extend(b.get_name() for b in sub.get_outputs())
            except Exception:  # noqa: BLE001 - older schedulers: the IR node is the buffer
                if getattr(sub, "node", None) is not None:
                    computed.append(sub.node.get_name())
            ir_node = getattr(sub, "node", None)
            for o in getattr(ir_node, "origins", ()) or ():
                origins.add(o.name)
    return KernelSite(
        kernel=name,
        argdefs=argdefs,
        call_buffers=[str(c) for c in call_args],
        inputs=dict(inputs),
        outputs=dict(outputs),
        inplace=inplace,
        scheduled=scheduled,
        computed=computed,
        origins=sorted(origins),
    )
