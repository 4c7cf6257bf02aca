"""Gate 1's static rules: the fast first filter.  The sandbox (``sandbox.py``) is the guarantee;
these reject at once what a candidate has no business doing, with the rule that fired:

  syntax               does not parse
  signature            no ``launch`` with exactly the contract's argument names
  no-triton-kernel     no ``@triton.jit`` kernel
  forbidden-import     imports beyond triton, torch (plus Inductor's runtime helpers), math,
                       typing (network, subprocess, threads, file-access, timer-tampering,
                       harness-tampering name the worst ones)
  torch-compute        any torch function or tensor method beyond allocation, dtypes and
                       metadata; torch functions aliased (``f = torch.softmax``) count too
  harness-tampering    ``__builtins__``, ``__import__``, dunder attributes, ``getattr``/``setattr``/
                       ``globals``/``vars``/``exec``/``eval``/``compile``/``type``/``object``,
                       ``sys.modules``, assigning to an attribute of an imported module
                       (``torch.allclose = ...``), private torch internals
  state-across-calls   ``global``/``nonlocal``, classes, mutable defaults, caching decorators,
                       module-level objects made by a call (``iter(...)``), mutating anything
                       module-level inside a function
  streams              other CUDA streams, graphs, events or synchronisation
  timer-tampering      timers and benchmarking helpers
  randomness           ``tl.rand``/``tl.randn``/``tl.randint``: an inference kernel is deterministic
"""

from __future__ import annotations

import ast
from typing import Any

ROOT_RULES = {
    "subprocess": "subprocess",
    "socket": "network",
    "ssl": "network",
    "requests": "network",
    "urllib": "network",
    "http": "network",
    "threading": "threads",
    "_thread": "threads",
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
    "importlib": "harness-tampering",
    "ctypes": "harness-tampering",
    "linecache": "harness-tampering",
    "functools": "state-across-calls",
    "os": "file-access",
    "pathlib": "file-access",
    "shutil": "file-access",
    "tempfile": "file-access",
    "io": "file-access",
    "pickle": "file-access",
}
ALLOWED_IMPORTS = ("triton", "math", "typing", "__future__")
ALLOWED_TORCH_IMPORTS = ("torch", "torch._inductor.runtime")  # `import torch`; Inductor's kernel helpers
FORBIDDEN_CALLS = {
    "open": "file-access",
    "exec": "harness-tampering",
    "eval": "harness-tampering",
    "compile": "harness-tampering",
    "__import__": "harness-tampering",
    "globals": "harness-tampering",
    "locals": "harness-tampering",
    "vars": "harness-tampering",
    "setattr": "harness-tampering",
    "delattr": "harness-tampering",
    "getattr": "harness-tampering",
    "type": "harness-tampering",
    "object": "harness-tampering",
    "super": "harness-tampering",
    "memoryview": "harness-tampering",
    "input": "harness-tampering",
    "breakpoint": "harness-tampering",
    "exit": "harness-tampering",
    "quit": "harness-tampering",
    "help": "harness-tampering",
}
FORBIDDEN_NAMES = {"__builtins__", "__import__", "__loader__", "__spec__", "__file__", "__name__", "__dict__"}
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
TIMER_WORDS = {"do_bench", "elapsed_time", "perf_counter", "Timer", "globaltimer"}
RANDOM_WORDS = {"rand", "randn", "randint", "randint4x", "philox", "randn4x", "rand4x"}
# what host code may take from torch: allocation, dtypes, devices
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
    "int16",
    "int8",
    "uint8",
    "bool",
    "device",
    "Size",
    "dtype",
    "Tensor",
    "cuda",  # torch.cuda.current_device only (streams and events are rejected as such)
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
CACHE_DECORATORS = {"cache", "lru_cache", "cached_property", "cached"}
# module-level calls whose result is an immutable value, not state
PURE_CALLS = {
    "tl.constexpr",
    "triton.language.constexpr",
    "triton.Config",
    "frozenset",
    "tuple",
    "int",
    "float",
    "str",
    "bool",
    "triton.cdiv",
    "triton.next_power_of_2",
}
MUTATING_METHODS = {
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "remove",
    "clear",
    "update",
    "setdefault",
    "add",
    "discard",
    "sort",
    "reverse",
    "fill_",
    "zero_",
    "copy_",
}
SAFE_METHODS = {"cdiv", "next_power_of_2", "format", "join", "run", "items", "keys", "values", "get", "index", "count"}

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
    "randomness",
    "forbidden-import",
    "torch-compute",
    "signature",
    "no-triton-kernel",
]


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _chain(node: ast.AST) -> list[str]:
    """``a.b.c`` -> ["a", "b", "c"] (empty when not a plain dotted name)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return []


class _Checker(ast.NodeVisitor):
    def __init__(self, tree: ast.Module) -> None:
        self.problems: list[tuple[str, str, int]] = []
        self.jit_functions: list[str] = []
        self.modules: dict[str, str] = {}  # local name -> module it is bound to
        self.module_level: set[str] = set()  # every name bound at module level
        self._fn_depth = 0
        self._in_jit = False
        for node in tree.body:
            for t in node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]:
                if isinstance(t, ast.Name):
                    self.module_level.add(t.id)
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.module_level.add(node.name)

    def bad(self, rule: str, msg: str, node: ast.AST) -> None:
        self.problems.append((rule, msg, getattr(node, "lineno", 0)))

    # -- imports ------------------------------------------------------------------------
    def _module(self, name: str, node: ast.AST) -> None:
        root = name.split(".")[0]
        if root in ROOT_RULES:
            self.bad(ROOT_RULES[root], f"imports {name}", node)
        elif root == "torch":
            if name not in ALLOWED_TORCH_IMPORTS and not name.startswith("torch._inductor.runtime."):
                self.bad("torch-compute", f"imports {name}: host code may use torch only for allocation", node)
        elif not name.startswith(ALLOWED_IMPORTS):
            self.bad("forbidden-import", f"imports {name} (allowed: triton, torch, math, typing)", node)
        if name.startswith("triton.testing"):
            self.bad("timer-tampering", "imports triton.testing (benchmarking helpers)", node)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._module(a.name, node)
            self.modules[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            self.bad("forbidden-import", "relative import", node)
        self._module(base, node)
        for a in node.names:
            full = f"{base}.{a.name}"
            if base == "torch" or (base.startswith("torch.") and not base.startswith("torch._inductor.runtime")):
                self.bad("torch-compute", f"imports {full}: host code may use torch only for allocation", node)
            self.modules[a.asname or a.name] = full

    # -- definitions ------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        is_jit = False
        for dec in node.decorator_list:
            text = ast.unparse(dec)
            head = text.split("(")[0]
            if head in ("triton.jit", "jit"):
                is_jit = True
            if any(c == head.split(".")[-1] for c in CACHE_DECORATORS):
                self.bad("state-across-calls", f"decorator @{text} caches results across calls", dec)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None and not isinstance(default, (ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp)):
                self.bad(
                    "state-across-calls",
                    f"default argument {ast.unparse(default)[:40]} of {node.name} outlives a call",
                    node,
                )
        if is_jit and self._fn_depth == 0:
            self.jit_functions.append(node.name)
        prev = self._in_jit
        self._in_jit = self._in_jit or is_jit
        self._fn_depth += 1
        self.generic_visit(node)
        self._fn_depth -= 1
        self._in_jit = prev

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in node.args.defaults:
            if not isinstance(default, (ast.Constant, ast.Name, ast.Attribute)):
                self.bad("state-across-calls", "lambda default argument outlives a call", node)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bad("state-across-calls", f"defines class {node.name}: a class keeps state across calls", node)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.bad("state-across-calls", f"'global {', '.join(node.names)}' keeps state between calls", node)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.bad("state-across-calls", "'nonlocal' keeps state between calls", node)

    # -- stores --------------------------------------------------------------------------------
    def _store(self, target: ast.AST, node: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._store(t, node)
            return
        if isinstance(target, ast.Starred):
            self._store(target.value, node)
            return
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            root = _root(target)
            if isinstance(root, ast.Name):
                if root.id in self.modules:
                    self.bad("harness-tampering", f"assigns to {ast.unparse(target)}: patches an imported module", node)
                elif self._fn_depth > 0 and root.id in self.module_level:
                    self.bad("state-across-calls", f"writes to module-level {root.id} inside a function", node)
                elif self._fn_depth == 0:
                    self.bad("state-across-calls", f"assigns to {ast.unparse(target)} at module level", node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._store(t, node)
        if self._fn_depth == 0:
            self._module_value(node.value, node, [ast.unparse(t) for t in node.targets])
        self._alias(node.value, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._store(node.target, node)
        if node.value is not None:
            if self._fn_depth == 0:
                self._module_value(node.value, node, [ast.unparse(node.target)])
            self._alias(node.value, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._store(node.target, node)
        if isinstance(node.target, ast.Name) and self._fn_depth > 0 and node.target.id in self.module_level:
            self.bad("state-across-calls", f"updates module-level {node.target.id} inside a function", node)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self._store(t, node)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._alias(node.value, node)
        self.generic_visit(node)

    def _module_value(self, value: ast.AST, node: ast.AST, names: list[str]) -> None:
        """A module-level value must be a constant table, not an object made by a call."""
        for call in (n for n in ast.walk(value) if isinstance(n, ast.Call)):
            func = ast.unparse(call.func)
            if func not in PURE_CALLS and not func.startswith(("math.", "tl.constexpr")):
                self.bad(
                    "state-across-calls",
                    f"module-level {', '.join(names)} = ...{func}(...) is an object that outlives a call",
                    node,
                )
                return
        if isinstance(value, (ast.GeneratorExp, ast.Lambda)):
            self.bad("state-across-calls", f"module-level {', '.join(names)} keeps state between calls", node)

    def _alias(self, value: ast.AST, node: ast.AST) -> None:
        """``f = torch.softmax``: a torch function under another name is torch compute all the same."""
        chain = _chain(value)
        if chain and self.modules.get(chain[0], "").startswith("torch") and not self._in_jit:
            if len(chain) > 1 and chain[1] not in TORCH_ALLOWED:
                self.bad(
                    "torch-compute", f"aliases {'.'.join(chain)}: the unit's work must be done by Triton kernels", node
                )

    # -- uses ------------------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id in FORBIDDEN_NAMES:
            self.bad("harness-tampering", f"uses {node.id}", node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__") and node.attr.endswith("__"):
            self.bad("harness-tampering", f"touches {ast.unparse(node)}", node)
        chain = _chain(node)
        if chain and chain[0] in self.modules:
            module = self.modules[chain[0]]
            if module == "sys" or "modules" in chain[1:]:
                self.bad("harness-tampering", f"touches {'.'.join(chain)}", node)
            if (
                module.startswith("torch")
                and any(p.startswith("_") for p in chain[1:])
                and not module.startswith("torch._inductor.runtime")
            ):
                self.bad("harness-tampering", f"touches torch internals {'.'.join(chain)}", node)
            if module.startswith("triton") and len(chain) > 1 and chain[-1] in RANDOM_WORDS:
                self.bad("randomness", f"uses {'.'.join(chain)}: an inference kernel is deterministic", node)
            if chain[-1] in TIMER_WORDS:
                self.bad("timer-tampering", f"uses {'.'.join(chain)}", node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = ast.unparse(node.func)
        chain = _chain(node.func)
        head, last = (chain[0], chain[-1]) if chain else ("", "")
        if isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            self.bad(FORBIDDEN_CALLS[node.func.id], f"calls {node.func.id}()", node)
        module = self.modules.get(head, "")
        if not self._in_jit:
            if last in STREAM_WORDS and module.split(".")[0] in ("torch", "triton"):
                self.bad("streams", f"calls {func}: no extra streams, graphs, events or syncs in a candidate", node)
            if module.startswith("torch") and not module.startswith("torch._inductor.runtime"):
                allowed = (
                    len(chain) > 1
                    and chain[1] in TORCH_ALLOWED
                    and (chain[1] != "cuda" or chain[2:] == ["current_device"])
                )
                if not allowed or len(chain) == 1:
                    self.bad(
                        "torch-compute",
                        f"calls {func}: the unit's work must be done by Triton kernels, not torch",
                        node,
                    )
            elif isinstance(node.func, ast.Attribute) and not module and head not in self.jit_functions:
                # method calls on tensors (x.sum(), x.copy_(), ...) compute with torch
                if last in MUTATING_METHODS and head in self.module_level:
                    self.bad("state-across-calls", f"calls {func}() on module-level {head}", node)
                elif last not in TENSOR_META_METHODS and last not in SAFE_METHODS:
                    self.bad(
                        "torch-compute",
                        f"calls method {func}() in host code: only metadata methods "
                        f"({', '.join(sorted(TENSOR_META_METHODS))}) are allowed on tensors",
                        node,
                    )
        self.generic_visit(node)


def static_problems(source: str, contract: dict[str, Any]) -> list[tuple[str, str, int]]:
    """Every static finding as (rule, message, line), the most specific first; [] when clean."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [("syntax", f"does not parse: {e.msg} (line {e.lineno})", e.lineno or 0)]
    checker = _Checker(tree)
    checker.visit(tree)
    probs = list(checker.problems)
    launch = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "launch"), None)
    want = [a["name"] for a in contract["args"]]
    if launch is None:
        probs.append(("signature", "defines no top-level function launch(...)", 0))
    else:
        got = [a.arg for a in launch.args.args]
        if got != want or launch.args.vararg or launch.args.kwarg or launch.args.kwonlyargs or launch.args.posonlyargs:
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
