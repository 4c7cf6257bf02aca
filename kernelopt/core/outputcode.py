"""Inductor's output (wrapper) module: parse its kernels and launch sites, load it standalone.

The wrapper module is the runnable artifact of a compile: kernel definitions via
``name = async_compile.triton('name', '''src''', device_str=...)`` and a ``call(args)``
(top level, or a ``Runner`` method in newer torch, possibly split into partitions) that
launches Triton kernels (``name.run(...)``), library calls (``extern_kernels.mm(...)``) and
ATen fallbacks.  Everything here reads the module's AST, not its comments.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .records import DispatchKind

# Library GEMMs Inductor keeps as extern calls (cuBLAS on CUDA, BLAS/oneDNN on CPU).
GEMM_OPS = {"mm", "addmm", "bmm", "baddbmm", "_int_mm", "_mm_plus_mm", "addmv", "mv", "_scaled_mm", "dot", "matmul"}
CONV_OPS = {"convolution", "_convolution", "convolution_backward", "cudnn_convolution", "mkldnn_convolution", "conv2d"}
# Calls in the wrapper that launch no device work (allocation, views, checks, bookkeeping).
NON_LAUNCH = {
    "assert_size_stride",
    "assert_alignment",
    "reinterpret_tensor",
    "get_raw_stream",
    "alloc_from_pool",
    "run_intermediate_hooks",
    "maybe_profile",
    "start_graph",
    "end_graph",
    "len",
    "range",
    "print",
    "_DeviceGuard",
    "set_device",
    "current_device",
    "clear",
    "align",
    "empty_strided",
}
SKIP_FUNCS = {"get_args", "benchmark_compiled_module", "__init__", "recursively_apply_fns"}
HEURISTIC_KINDS = (
    "persistent_reduction",
    "reduction",
    "pointwise",
    "template",
    "foreach",
    "split_scan",
    "user_autotune",
    "cooperative_reduction",
)
_HEUR_RE = re.compile(r"@triton_heuristics\.(\w+)\(")


@dataclass
class KernelDef:
    name: str
    source: str
    heuristic: str  # pointwise | reduction | persistent_reduction | template | foreach | ...
    lineno: int
    device_str: str | None
    function: str = ""  # the @triton.jit function's own name (Inductor's: the same as name)

    @property
    def is_template(self) -> bool:
        return self.heuristic == "template"

    @property
    def is_user(self) -> bool:
        """A kernel the user wrote (a ``@triton.jit`` launched from the model), not Inductor."""
        return self.heuristic == "user_autotune"


@dataclass
class LaunchSite:
    """One call in the wrapper that launches device work."""

    lineno: int
    kind: str  # triton | gemm | conv | aten | copy
    target: str  # kernel name, or e.g. "extern_kernels.addmm" / "aten.convolution.default"
    function: str  # wrapper function holding the call (call, partition_0, ...)
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class OutputCode:
    path: str
    aot_id: str | None
    kernels: dict[str, KernelDef] = field(default_factory=dict)
    sites: list[LaunchSite] = field(default_factory=list)
    call_args: list[str] = field(default_factory=list)
    other_defs: list[str] = field(default_factory=list)  # non-Triton compiled kernels (cpp, cuda ...)

    def launches_of(self, kernel: str) -> list[LaunchSite]:
        return [s for s in self.sites if s.kind == "triton" and s.target == kernel]


def dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _heuristic(src: str) -> str:
    m = _HEUR_RE.search(src)
    if not m:
        return "unknown"
    name = m.group(1)
    return name if name in HEURISTIC_KINDS else name


def parse(source: str, path: str | Path = "<output_code>") -> OutputCode:
    tree = ast.parse(source)
    lines = source.splitlines()
    first = lines[0] if lines else ""
    m = re.match(r"#\s*AOT ID:\s*(.*)", first)
    oc = OutputCode(path=str(path), aot_id=m.group(1).strip() if m else None)

    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = dotted(node.value.func)
            if func and func.startswith("async_compile."):
                target = node.targets[0]
                name = target.id if isinstance(target, ast.Name) else None
                if func == "async_compile.triton" and name and len(node.value.args) >= 2:
                    src_node = node.value.args[1]
                    src = src_node.value if isinstance(src_node, ast.Constant) else ""
                    dev = next(
                        (
                            k.value.value
                            for k in node.value.keywords
                            if k.arg == "device_str" and isinstance(k.value, ast.Constant)
                        ),
                        None,
                    )
                    fn_node = node.value.args[0]
                    fn = fn_node.value if isinstance(fn_node, ast.Constant) else name
                    oc.kernels[name] = KernelDef(name, src, _heuristic(src), node.lineno, dev, str(fn))
                elif name:
                    oc.other_defs.append(name)

    def visit_function(fn: ast.FunctionDef) -> None:
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and fn.name == "call" and not oc.call_args:
                if isinstance(node.value, ast.Name) and node.value.id == "args":
                    tgt = node.targets[0]
                    elts = tgt.elts if isinstance(tgt, (ast.Tuple, ast.List)) else [tgt]
                    oc.call_args = [e.id for e in elts if isinstance(e, ast.Name)]
            if not isinstance(node, ast.Call):
                continue
            site = classify_call(node, oc.kernels)
            if site is not None:
                kind, target = site
                text = ast.get_source_segment(source, node) or ""
                oc.sites.append(LaunchSite(node.lineno, kind, target, fn.name, text[:200]))

    for fn in functions(tree):
        if fn.name not in SKIP_FUNCS:
            visit_function(fn)
    oc.sites.sort(key=lambda s: s.lineno)
    return oc


def functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """The wrapper's functions: top level, and methods of top-level classes (``Runner.call``)."""
    out: list[ast.FunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out.append(node)
        elif isinstance(node, ast.ClassDef):
            out.extend(n for n in node.body if isinstance(n, ast.FunctionDef))
    return out


def classify_call(node: ast.Call, kernels: dict[str, KernelDef]) -> tuple[str, str] | None:
    func = node.func
    name = dotted(func)
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "run"
        and isinstance(func.value, ast.Name)
        and func.value.id in kernels
    ):
        return "triton", func.value.id
    if name is None:
        return None
    parts = name.split(".")
    if parts[-1] in NON_LAUNCH or parts[0] in NON_LAUNCH:
        return None
    if parts[0] == "extern_kernels":
        op = parts[1] if len(parts) > 1 else ""
        return (_op_kind(op), name)
    if parts[0] == "aten" or name.startswith("torch.ops.aten."):
        op = parts[1] if parts[0] == "aten" else parts[3]
        return (_op_kind(op), name)
    if name.startswith("torch.ops.") and len(parts) > 3:
        if parts[2] == "inductor" and parts[3].startswith("_alloc"):
            return None
        return ("aten", name)
    if parts[-1] in ("copy_", "fill_", "zero_", "index_put_", "scatter_", "set_"):
        return ("copy", name)
    return None


def _op_kind(op: str) -> str:
    if op in GEMM_OPS:
        return "gemm"
    if op in CONV_OPS:
        return "conv"
    return "aten"


def dispatch_kind(site_kind: str, device: str) -> DispatchKind:
    """The dispatch kinds (docs/architecture.md): triton | cublas (blas on CPU) | cudnn (conv) | aten | other."""
    if site_kind == "triton":
        return DispatchKind.TRITON
    if site_kind == "gemm":
        return DispatchKind.CUBLAS if device == "cuda" else DispatchKind.BLAS
    if site_kind == "conv":
        return DispatchKind.CUDNN if device == "cuda" else DispatchKind.ATEN
    if site_kind == "aten":
        return DispatchKind.ATEN
    return DispatchKind.OTHER


_counter = itertools.count()


def load(path: str | Path, constants: dict[str, Any] | None = None) -> ModuleType:
    """Import a wrapper module from ``path`` as a fresh module object.

    Each call gives a new module (kernels re-created from the Triton cache, never a stale
    module from an earlier import).  ``constants`` are the attributes Inductor attaches
    at load time (lifted tensor constants); capture saves them next to the module.
    """
    path = Path(path).resolve()
    name = f"kernelopt_wrapper_{next(_counter)}_{abs(hash(str(path))) % 10**8}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    for k, v in (constants or {}).items():
        setattr(mod, k, v)
    return mod


def kernel_objects(mod: ModuleType, oc: OutputCode) -> dict[str, Any]:
    return {name: getattr(mod, name) for name in oc.kernels if hasattr(mod, name)}


def rename_function(source: str, old: str, new: str) -> str:
    """``source`` with the top-level ``def old(`` renamed to ``new`` (located through the AST;
    a user kernel's function is saved under the kernel's name in the wrapper, ``k_0``)."""
    if old == new:
        return source
    lines = source.splitlines(keepends=True)
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == old:
            i = node.lineno - 1
            while not lines[i].lstrip().startswith("def "):
                i += 1  # decorators above sit on the node's first lines in older Pythons
            lines[i] = lines[i].replace(f"def {old}(", f"def {new}(", 1)
            return "".join(lines)
    raise ValueError(f"function {old} not found in the kernel source")


# --------------------------------------------------------------------------- wrapper analysis
# (shared by classify/fusion.py, capture/regions.py and the stitch halves)
class Refused(Exception):
    """A wrapper or kernel shape an analysis does not handle; the message says why."""


def statements_in_order(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements of a function in execution order, ``with`` blocks opened."""
    out: list[ast.stmt] = []
    for s in body:
        if isinstance(s, ast.With):
            out.extend(statements_in_order(s.body))
        else:
            out.append(s)
    return out


def renamed(stmt: ast.stmt, rename: dict[str, str], loads_only: bool = False) -> ast.stmt:
    """A copy of ``stmt`` with its variables renamed through ``rename`` (``loads_only``: only
    the ones it reads, e.g. an aliased variable read as its source)."""
    import copy

    class R(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            if node.id not in rename or (loads_only and not isinstance(node.ctx, ast.Load)):
                return node
            return ast.copy_location(ast.Name(rename[node.id], node.ctx), node)

    return R().visit(copy.deepcopy(stmt)) if rename else stmt


def launched_kernel(stmt: ast.stmt, kernels: set[str]) -> str | None:
    """The kernel a statement ``K.run(...)`` launches (outputcode's launch-site rule)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        site = classify_call(stmt.value, kernels)  # type: ignore[arg-type]
        if site and site[0] == "triton":
            return site[1]
    return None


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def passed_names(s: ast.stmt) -> list[tuple[str, Any]]:
    """The names a launch statement passes as arguments themselves (not inside another call such
    as ``reinterpret_tensor``): (name, positional index or keyword).  A graph-level unit's made
    input is taken where a member passes it so (``harness.rewrite_io``)."""
    call = s.value if isinstance(s, (ast.Expr, ast.Assign)) else None
    if not isinstance(call, ast.Call):
        return []
    places: list[tuple[str, Any]] = [(a.id, i) for i, a in enumerate(call.args) if isinstance(a, ast.Name)]
    return places + [(k.value.id, k.arg) for k in call.keywords if isinstance(k.value, ast.Name)]


def is_call_to(node: ast.AST, suffixes: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and (dotted(node.func) or "").split(".")[-1].startswith(suffixes)


def kernel_params(source: str, kernel: str) -> tuple[list[str], list[str]]:
    """(runtime parameters in order, constexpr parameters) of ``kernel`` in ``source``."""
    fn = kernel_def(ast.parse(source), kernel)
    runtime, const = [], []
    for a in fn.args.args:
        (const if a.annotation is not None and "constexpr" in ast.unparse(a.annotation) else runtime).append(a.arg)
    return runtime, const


def kernel_def(tree: ast.Module, kernel: str) -> ast.FunctionDef:
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == kernel), None)
    if fn is None:
        raise Refused(f"kernel {kernel} not found in its source")
    return fn


def jit_kernel_names(source: str) -> list[str]:
    """Names of the ``@triton.jit`` (or ``@jit``) functions anywhere in ``source``, in the order
    ``ast.walk`` meets them."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(
            ast.unparse(d).split("(")[0] in ("triton.jit", "jit") for d in node.decorator_list
        ):
            names.append(node.name)
    return names


def stores_to(source: str, arg: str) -> bool:
    """Whether a Triton kernel's source can write through argument ``arg``: every use of the name
    in its body but ``tl.load(arg ...)`` counts as a possible write (a store, an atomic, a pointer
    handed on), so only an argument that is only ever loaded is read-only."""
    head = re.search(r"^def \w+\(.*?\)\s*:[ \t]*$", source, re.S | re.M)
    body = source[head.end() :] if head else source
    uses = [m.start() for m in re.finditer(rf"\b{re.escape(arg)}\b", body)]
    return any(not re.search(r"tl\.load\(\s*$", body[max(0, i - 40) : i]) for i in uses)
