"""Gate 1: static checks, then one watched run.  The candidate parses; defines a ``@triton.jit``
kernel and ``launch`` with the contract's signature; uses no forbidden construct (torch doing
the unit's work, other streams, threads, file or network access, timer or harness tampering,
state kept across calls); imports and runs once on the seed's real inputs without error and
without dispatching torch compute.
"""

from __future__ import annotations

import ast
import traceback
from pathlib import Path
from typing import Any

from ..isolate.harness import load_module
from .verdict import FAIL, PASS, GateVerdict

FORBIDDEN_MODULES = {
    "os",
    "sys",
    "subprocess",
    "socket",
    "threading",
    "multiprocessing",
    "concurrent",
    "asyncio",
    "time",
    "pathlib",
    "shutil",
    "tempfile",
    "io",
    "pickle",
    "ctypes",
    "importlib",
    "requests",
    "urllib",
    "http",
    "signal",
    "gc",
    "inspect",
    "builtins",
    "kernelopt",
    "numpy",
    "functools",
    "timeit",
    "datetime",
    "random",
}
ALLOWED_MODULE_PREFIXES = ("triton", "torch", "math", "typing", "__future__")
FORBIDDEN_CALLS = {
    "open",
    "exec",
    "eval",
    "compile",
    "__import__",
    "globals",
    "locals",
    "vars",
    "setattr",
    "delattr",
    "input",
    "breakpoint",
    "getattr",
}
STREAM_WORDS = {
    "Stream",
    "stream",
    "ExternalStream",
    "graph",
    "CUDAGraph",
    "graphs",
    "Event",
    "synchronize",
    "set_stream",
    "_sleep",
}
TIMER_WORDS = {"do_bench", "elapsed_time", "perf_counter", "Timer"}
TORCH_ALLOWED = {
    "empty",
    "empty_like",
    "empty_strided",
    "float32",
    "float16",
    "bfloat16",
    "float64",
    "int32",
    "int64",
    "int8",
    "uint8",
    "bool",
    "device",
    "Size",
    "dtype",
    "Tensor",
}
TENSOR_META_METHODS = {
    "stride",
    "size",
    "numel",
    "dim",
    "data_ptr",
    "is_contiguous",
    "element_size",
    "storage_offset",
    "get_device",
}
CACHE_DECORATORS = {"cache", "lru_cache", "cached_property"}
# aten ops a launcher may run (allocation / metadata only); anything else is the unit's work done by torch
ATEN_ALLOWED = {
    "empty",
    "empty_strided",
    "empty_like",
    "as_strided",
    "view",
    "_reshape_alias",
    "detach",
    "alias",
    "lift_fresh",
    "sym_size",
    "sym_stride",
    "sym_numel",
    "sym_storage_offset",
    "is_contiguous",
    "stride",
    "size",
}


# The most specific finding is reported first (e.g. open(...).read() is file access, not a
# tensor method call).
RULE_PRIORITY = [
    "syntax",
    "subprocess",
    "network",
    "threads",
    "file-access",
    "timer-tampering",
    "harness-tampering",
    "streams",
    "state-across-calls",
    "forbidden-import",
    "torch-compute",
    "signature",
    "no-triton-kernel",
]


class _StaticChecker(ast.NodeVisitor):
    def __init__(self) -> None:
        self.problems: list[tuple[str, str, int]] = []
        self.jit_functions: list[str] = []
        self.module_mutables: set[str] = set()
        self._fn_depth = 0
        self._in_jit = False

    def bad(self, rule: str, msg: str, node: ast.AST) -> None:
        self.problems.append((rule, msg, getattr(node, "lineno", 0)))

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._module(a.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._module(node.module or "", node)
        if (node.module or "").startswith("triton.testing"):
            self.bad("timer-tampering", "imports triton.testing (benchmarking helpers)", node)

    def _module(self, name: str, node: ast.AST) -> None:
        root = name.split(".")[0]
        if root in FORBIDDEN_MODULES:
            rule = {
                "subprocess": "subprocess",
                "socket": "network",
                "requests": "network",
                "urllib": "network",
                "http": "network",
                "threading": "threads",
                "multiprocessing": "threads",
                "concurrent": "threads",
                "asyncio": "threads",
                "time": "timer-tampering",
                "timeit": "timer-tampering",
                "kernelopt": "harness-tampering",
                "gc": "harness-tampering",
                "inspect": "harness-tampering",
                "sys": "harness-tampering",
                "builtins": "harness-tampering",
                "functools": "state-across-calls",
                "os": "file-access",
                "pathlib": "file-access",
                "shutil": "file-access",
                "tempfile": "file-access",
                "io": "file-access",
                "pickle": "file-access",
            }.get(root, "forbidden-import")
            self.bad(rule, f"imports {name}", node)
        elif not name.startswith(ALLOWED_MODULE_PREFIXES):
            self.bad("forbidden-import", f"imports {name} (allowed: triton, torch, math)", node)
        if name.startswith("triton.testing"):
            self.bad("timer-tampering", "imports triton.testing (benchmarking helpers)", node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        is_jit = False
        for dec in node.decorator_list:
            text = ast.unparse(dec)
            if text.split("(")[0] in ("triton.jit", "jit", "triton.autotune", "triton.heuristics"):
                is_jit = is_jit or text.startswith(("triton.jit", "jit"))
            if any(c in text for c in CACHE_DECORATORS):
                self.bad("state-across-calls", f"decorator @{text} caches results across calls", dec)
        if is_jit:
            self.jit_functions.append(node.name)
        prev = self._in_jit
        self._in_jit = is_jit or any(ast.unparse(d).startswith(("triton.jit", "jit")) for d in node.decorator_list)
        self._fn_depth += 1
        self.generic_visit(node)
        self._fn_depth -= 1
        self._in_jit = prev

    def visit_Global(self, node: ast.Global) -> None:
        self.bad("state-across-calls", f"'global {', '.join(node.names)}' keeps state between calls", node)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.bad("state-across-calls", "'nonlocal' keeps state between calls", node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._fn_depth == 0:
            if isinstance(node.value, (ast.Dict, ast.List, ast.Set, ast.ListComp, ast.DictComp)) or (
                isinstance(node.value, ast.Call)
                and ast.unparse(node.value.func) in ("dict", "list", "set", "collections.OrderedDict")
            ):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id.upper() != t.id:  # CONSTANT_TABLES are fine
                        self.module_mutables.add(t.id)
            if isinstance(node.value, ast.Call) and ast.unparse(node.value.func).startswith("torch."):
                self.bad(
                    "state-across-calls",
                    f"module-level tensor {ast.unparse(node.targets[0])} = "
                    f"{ast.unparse(node.value.func)}(...) outlives a call",
                    node,
                )
        else:
            for t in node.targets:
                if isinstance(t, (ast.Attribute, ast.Subscript)):
                    base = t.value
                    while isinstance(base, (ast.Attribute, ast.Subscript)):
                        base = base.value
                    if isinstance(base, ast.Name) and (base.id in self.module_mutables or base.id == "launch"):
                        self.bad("state-across-calls", f"writes to module-level {base.id} inside a function", node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = ast.unparse(node.func)
        head = func.split(".")[0]
        last = func.split(".")[-1]
        if func in FORBIDDEN_CALLS:
            rule = "file-access" if func == "open" else "harness-tampering"
            self.bad(rule, f"calls {func}()", node)
        if not self._in_jit:
            if last in STREAM_WORDS and head in ("torch", "cuda", "triton"):
                self.bad("streams", f"calls {func}: no extra streams, graphs, events or syncs in a candidate", node)
            if last in TIMER_WORDS:
                self.bad("timer-tampering", f"calls {func}", node)
            if head == "torch" and not func.startswith("torch.cuda.current_device"):
                if last not in TORCH_ALLOWED:
                    self.bad(
                        "torch-compute",
                        f"calls {func}: the unit's work must be done by Triton kernels, not torch",
                        node,
                    )
            elif head in ("F", "nn") or func.startswith("torch.nn"):
                self.bad(
                    "torch-compute", f"calls {func}: the unit's work must be done by Triton kernels, not torch", node
                )
            elif (
                isinstance(node.func, ast.Attribute)
                and head not in ("triton", "tl", "math", "libdevice", "tl_math", "triton_helpers")
                and last not in TENSOR_META_METHODS
                and head not in self.jit_functions
                and not func.endswith(("append", "items", "keys", "values", "get"))
            ):
                # method calls on tensors (x.sum(), x.copy_(), ...) compute with torch
                if last not in ("cdiv", "next_power_of_2", "format", "join", "run") and not last.startswith("__"):
                    self.bad(
                        "torch-compute",
                        f"calls method {func}() in host code: "
                        f"only metadata methods ({', '.join(sorted(TENSOR_META_METHODS))}) are allowed on tensors",
                        node,
                    )
        if head == "sys" and "modules" in func:
            self.bad("harness-tampering", "touches sys.modules", node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in ("__globals__", "__builtins__", "__code__", "__dict__", "modules") and not self._in_jit:
            self.bad("harness-tampering", f"touches {ast.unparse(node)}", node)
        self.generic_visit(node)


def static_problems(source: str, contract: dict[str, Any]) -> list[tuple[str, str, int]]:
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [("syntax", f"does not parse: {e.msg} (line {e.lineno})", e.lineno or 0)]
    checker = _StaticChecker()
    # first pass: module-level mutables, so uses inside functions are seen
    for node in tree.body:
        if isinstance(node, ast.Assign):
            checker._fn_depth = 0
    checker.visit(tree)
    probs = sorted(
        checker.problems, key=lambda p: RULE_PRIORITY.index(p[0]) if p[0] in RULE_PRIORITY else len(RULE_PRIORITY)
    )
    launch = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "launch"), None)
    want = [a["name"] for a in contract["args"]]
    if launch is None:
        probs.append(("signature", "defines no top-level function launch(...)", 0))
    else:
        got = [a.arg for a in launch.args.args]
        if got != want or launch.args.vararg or launch.args.kwarg:
            probs.append(
                (
                    "signature",
                    f"launch({', '.join(got)}) does not match the contract launch({', '.join(want)})",
                    launch.lineno,
                )
            )
    if not checker.jit_functions:
        probs.append(("no-triton-kernel", "defines no @triton.jit kernel", 0))
    return sorted(probs, key=lambda p: RULE_PRIORITY.index(p[0]) if p[0] in RULE_PRIORITY else len(RULE_PRIORITY))


def gate1(candidate: Path, contract: dict[str, Any], harness: Any | None, seed: int) -> GateVerdict:
    """Static checks, then import and one run on the seed's real inputs (torch ops watched)."""
    source = Path(candidate).read_text()
    probs = static_problems(source, contract)
    if probs:
        rule, msg, line = probs[0]
        return GateVerdict(
            1,
            FAIL,
            f"rule {rule}: {msg}"
            + (f" (line {line})" if line else "")
            + (f"; {len(probs) - 1} more finding(s)" if len(probs) > 1 else ""),
            rule=rule,
            numbers={"findings": [{"rule": r, "message": m, "line": l} for r, m, l in probs]},
            candidate=str(candidate),
        )
    if harness is None:
        return GateVerdict(1, PASS, "static checks passed (not run: no harness)", candidate=str(candidate))
    try:
        mod = load_module(Path(candidate), "kernelopt_candidate")
    except Exception as e:  # noqa: BLE001
        return GateVerdict(
            1,
            FAIL,
            f"rule import-error: importing the candidate failed: {type(e).__name__}: {e}",
            rule="import-error",
            candidate=str(candidate),
        )
    try:
        before, _after = harness.inputs(seed)
        watch = _AtenWatch()
        harness.run_candidate(mod, before, watch=watch)
        ops = watch.seen
        # Whatever launching Inductor's own kernel dispatches is the launcher's, not the
        # candidate's work (the Triton interpreter in CPU mode copies through torch).
        reference_watch = _AtenWatch()
        harness.run_candidate(
            load_module(harness.paths.inductor_kernel(harness.unit), "kernelopt_inductor"),
            before,
            watch=reference_watch,
        )
        launcher_ops = reference_watch.seen
    except Exception as e:  # noqa: BLE001
        return GateVerdict(
            1,
            FAIL,
            f"rule runtime-error: the first run failed: {type(e).__name__}: {str(e)[:500]}",
            rule="runtime-error",
            numbers={"traceback": traceback.format_exc()[-1500:]},
            seeds=[seed],
            candidate=str(candidate),
        )
    compute = sorted(op for op in ops - launcher_ops if op.split(".")[0] not in ATEN_ALLOWED)
    if compute:
        return GateVerdict(
            1,
            FAIL,
            f"rule torch-compute: launch() ran torch ops {compute[:5]}; the unit's work must be done by Triton kernels",
            rule="torch-compute",
            numbers={"aten_ops": compute},
            seeds=[seed],
            candidate=str(candidate),
        )
    return GateVerdict(
        1,
        PASS,
        "static checks passed; imports and runs once without error and without torch compute",
        numbers={"aten_ops": sorted(ops)},
        seeds=[seed],
        candidate=str(candidate),
    )


class _AtenWatch:
    """Records the aten ops torch dispatches inside the block (a Triton launch dispatches none)."""

    def __init__(self) -> None:
        from torch.utils._python_dispatch import TorchDispatchMode

        seen: set[str] = set()

        class Watch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
                seen.add(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        self.seen = seen
        self._mode = Watch()

    def __enter__(self) -> _AtenWatch:
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._mode.__exit__(*exc)
