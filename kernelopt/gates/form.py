"""Gate 1's static check: a candidate is a checked form, and anything outside the form is rejected.

The form is an allowlist, never a denylist.  A candidate module may contain only:

* a docstring and imports from a short table (``IMPORTS``): ``triton``, ``triton.language``,
  ``math``, ``torch``, Inductor's Triton helpers and Triton's ``libdevice``;
* module-level constants: literals, tuples, lists and dicts of them, arithmetic on them, dtypes,
  ``tl.constexpr(...)``;
* ``@triton.jit`` functions whose bodies use ``tl.*`` (and Inductor's helpers and ``libdevice``,
  which are Triton functions), arithmetic, comparisons, ``if``/``for``/``while``, calls of other
  jit functions of the module and a few builtins (``range``, ``min``, ``max``, ``len``, ``int``,
  ``float``, ``bool``);
* host functions (the one ``launch(...)`` with the contract's arguments, and helpers such as a
  grid function) in a small subset: assignments to local names, arithmetic on sizes, strides and
  shapes (``x.shape``, ``x.stride(i)``, ``x.numel()`` ...), ``torch.empty``/``empty_like``/
  ``empty_strided``, ``triton.cdiv``/``next_power_of_2``, ``math.*``, launches
  ``kernel[grid](...)``, calls of the module's other host functions, ``if``, ``for i in
  range(...)``, ``assert`` and ``return``.

Every attribute chain is resolved against the real module objects and must end in the table of
what that namespace may give (``tl.load`` yes; ``triton.language.extra.pkgutil`` or
``tl.core.os`` no): what is reachable through an allowed module is not allowed by being reachable.
A name that is neither a parameter, a local, a module-level definition nor an allowed builtin is
rejected, and so is every dunder, ``getattr``, ``open``, ``exec``, module-level call, decorator
other than ``@triton.jit``, class, ``global``, ``try``, ``with``, ``lambda`` outside host code,
stores to attributes or subscripts, inline assembly and Triton's random numbers.  The form leaves
a candidate no way to read the working directory, the environment, files, the clock or any
process-wide state, so the gates and the deployed model look the same to it.

Each finding is ``(rule, message, line)``.  The rule says which kind of thing the form refused
(``network``, ``file-access``, ``torch-compute`` ...; ``form`` for everything else), so the
report reads well; the decision is the allowlist's alone.  The operating-system boundary
(``runner/jail.py``) is what holds if this check has a hole.
"""

from __future__ import annotations

import ast
import importlib
import types
from typing import Any

from ..core.records import Contract

# imports: module -> names that may be taken from it with ``from ... import`` (None: any name the
# namespace rules of that module allow); ``import X`` / ``import X as Y`` for the keys marked True
IMPORTS: dict[str, tuple[bool, frozenset[str] | None]] = {
    "triton": (True, frozenset({"jit", "cdiv", "next_power_of_2", "language"})),
    "triton.language": (True, None),
    "triton.language.math": (True, None),
    "triton.language.extra": (False, frozenset({"libdevice"})),
    "triton.language.extra.libdevice": (True, None),
    "triton.language.extra.cuda": (False, frozenset({"libdevice"})),
    "triton.language.extra.cuda.libdevice": (True, None),
    "math": (True, None),
    "torch": (True, frozenset()),
    "torch._inductor.runtime": (False, frozenset({"triton_helpers", "triton_heuristics"})),
    "torch._inductor.runtime.triton_helpers": (True, None),
    # Helion's generated kernels take libdevice from here
    "torch._inductor.runtime.triton_compat": (False, frozenset({"libdevice"})),
    # Inductor's kernels import these; they may be bound, never used
    "torch._inductor.runtime.hints": (
        False,
        frozenset({"AutotuneHint", "ReductionHint", "TileHint", "DeviceProperties"}),
    ),
    "__future__": (False, frozenset({"annotations"})),
}
# names a module may give in a jit body
TL_NAMES = frozenset(
    """abs add advance arange argmax argmin associative_scan assume atomic_add atomic_and atomic_cas
    atomic_max atomic_min atomic_or atomic_xchg atomic_xor bitonic_merge broadcast broadcast_to cast cat
    cdiv ceil clamp cos cumprod cumsum debug_barrier device_assert div_rn dot dot_scaled erf exp exp2
    expand_dims fdiv flip floor fma full gather histogram interleave join load log log2 make_block_ptr
    max max_constancy max_contiguous maximum min minimum mul multiple_of num_programs permute program_id
    ravel reduce reduce_or reshape rsqrt sigmoid sin softmax sort split sqrt sqrt_rn squeeze static_assert
    static_range range store sub sum swizzle2d topk trans umulhi unsqueeze view where xor_sum zeros
    zeros_like constexpr tensor PropagateNan bfloat16 float16 float32 float64 float8e4b15 float8e4b8
    float8e4nv float8e5 float8e5b16 int1 int16 int32 int64 int8 uint16 uint32 uint64 uint8 void
    pointer_type block_type dtype math extra""".split()
)
TL_MATH_NAMES = frozenset(
    "abs ceil cos div_rn erf exp exp2 fdiv floor fma log log2 rsqrt sin sqrt sqrt_rn umulhi".split()
)
DTYPES = frozenset(
    """bfloat16 float16 float32 float64 int1 int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool half
    float double long int""".split()
)
# in host code
TORCH_HOST = frozenset({"empty", "empty_like", "empty_strided"}) | DTYPES
TRITON_HOST = frozenset({"cdiv", "next_power_of_2"})
TENSOR_META_ATTRS = frozenset({"shape", "dtype", "device", "ndim"})
TENSOR_META_METHODS = frozenset({"stride", "size", "numel", "dim", "is_contiguous", "element_size"})
JIT_BUILTINS = frozenset({"range", "min", "max", "len", "int", "float", "bool"})
HOST_BUILTINS = frozenset({"range", "min", "max", "len", "int", "float", "bool", "abs", "tuple", "list"})
JIT_DECORATOR_KWARGS = frozenset({"do_not_specialize", "do_not_specialize_on_alignment", "noinline", "debug"})
REFUSED_TL = {
    "inline_asm_elementwise": "inline assembly can read the device's clocks and state",
    "rand": "randomness",
    "randn": "randomness",
    "randint": "randomness",
    "rand4x": "randomness",
    "randn4x": "randomness",
    "randint4x": "randomness",
    "philox": "randomness",
    "device_print": "printing from the device",
    "static_print": "printing at compile time",
}

# the rule a refused import or name is reported under (the decision is the allowlist's)
LABELS = {
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
    "os": "file-access",
    "pathlib": "file-access",
    "shutil": "file-access",
    "tempfile": "file-access",
    "io": "file-access",
    "pickle": "file-access",
    "open": "file-access",
    "kernelopt": "harness-tampering",
    "gc": "harness-tampering",
    "inspect": "harness-tampering",
    "sys": "harness-tampering",
    "builtins": "harness-tampering",
    "importlib": "harness-tampering",
    "ctypes": "harness-tampering",
    "linecache": "harness-tampering",
    "getattr": "harness-tampering",
    "setattr": "harness-tampering",
    "globals": "harness-tampering",
    "locals": "harness-tampering",
    "vars": "harness-tampering",
    "exec": "harness-tampering",
    "eval": "harness-tampering",
    "compile": "harness-tampering",
    "__import__": "harness-tampering",
    "exit": "harness-tampering",
    "quit": "harness-tampering",
    "functools": "state-across-calls",
    "iter": "state-across-calls",
    "next": "state-across-calls",
    "id": "harness-tampering",
    "type": "harness-tampering",
    "object": "harness-tampering",
    "numpy": "torch-compute",
}
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
    "form",
    "signature",
    "no-triton-kernel",
]


def _label(name: str, default: str = "form") -> str:
    return LABELS.get(name.split(".")[0], default)


def _chain(node: ast.AST) -> list[str]:
    """``a.b.c`` -> ["a", "b", "c"] (empty when not a plain dotted name)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return []


def _module(name: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - an optional backend (libdevice of another vendor) is absent
        return None


def _jit_namespace(obj: Any, attr: str) -> tuple[bool, str]:
    """Whether jit code may take ``attr`` from ``obj`` (a module or an allowed class)."""
    if attr.startswith("_"):
        return False, "private names are outside the form"
    name = getattr(obj, "__name__", "")
    if isinstance(obj, types.ModuleType):
        if name == "triton":
            return attr in ("language", "cdiv", "next_power_of_2"), "only triton.language, cdiv, next_power_of_2"
        if name == "triton.language":
            if attr in REFUSED_TL:
                return False, REFUSED_TL[attr]
            return attr in TL_NAMES, "not among triton.language's kernel functions"
        if name == "triton.language.math":
            return attr in TL_MATH_NAMES, "not among triton.language.math's functions"
        if name == "triton.language.extra":
            return attr in ("libdevice", "cuda"), "only libdevice"
        if name == "triton.language.extra.cuda":
            return attr == "libdevice", "only libdevice"
        if name.endswith("libdevice"):
            v = getattr(obj, attr, None)
            ok = callable(v) and not isinstance(v, (type, types.ModuleType))
            return ok, "not a libdevice math function"
        if name == "torch._inductor.runtime.triton_helpers":
            if attr in ("libdevice", "math"):
                return True, ""
            v = getattr(obj, attr, None)
            kind = type(v).__name__
            ok = kind in ("JITFunction", "InterpretedFunction") or bool(getattr(v, "__triton_builtin__", False))
            if "rand" in attr:
                return False, "randomness"
            return ok, "not one of Inductor's Triton helper functions"
        if name == "math":
            return True, ""
        return False, f"{name} gives nothing to kernel code"
    tl = _module("triton.language")
    if tl is not None and obj is getattr(tl, "PropagateNan", None):
        return attr in ("ALL", "NONE"), "not a PropagateNan member"
    return False, "attributes of this object are outside the form"


def _host_namespace(obj: Any, attr: str) -> tuple[bool, str]:
    if attr.startswith("_"):
        return False, "private names are outside the form"
    name = getattr(obj, "__name__", "")
    if name == "torch":
        return attr in TORCH_HOST, "host code may take from torch only empty, empty_like, empty_strided and dtypes"
    if name == "triton":
        return attr in TRITON_HOST | {"language"}, "host code may take from triton only cdiv and next_power_of_2"
    if name == "triton.language":
        return attr in DTYPES | {"constexpr"}, "host code may take from triton.language only dtypes"
    if name == "math":
        return True, ""
    return False, f"host code may take nothing from {name or type(obj).__name__}"


class _Scope:
    def __init__(self, kind: str, names: set[str], module: _Module):
        self.kind, self.names, self.module = kind, set(names), module


class _Module:
    def __init__(self) -> None:
        self.imports: dict[str, Any] = {}  # alias -> object (module, or the value of a from-import)
        self.import_names: dict[str, str] = {}  # alias -> dotted name, for messages
        self.constants: set[str] = set()
        self.dict_constants: set[str] = set()
        self.jit: set[str] = set()
        self.host: set[str] = set()


class FormChecker:
    def __init__(self) -> None:
        self.problems: list[tuple[str, str, int]] = []
        self.m = _Module()

    def bad(self, rule: str, msg: str, node: ast.AST | None) -> None:
        self.problems.append((rule, msg, getattr(node, "lineno", 0) or 0))

    # ---------------------------------------------------------------- module level
    def check(self, tree: ast.Module) -> None:
        # definitions first: a host function may call one defined below it
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                if self._is_jit(node):
                    self.m.jit.add(node.name)
                elif not node.decorator_list:
                    self.m.host.add(node.name)
        for i, node in enumerate(tree.body):
            if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # docstring
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._import(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                self._constant(node)
            elif isinstance(node, ast.FunctionDef):
                self._function(node)
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                continue  # a string statement (comment-like)
            elif isinstance(node, ast.ClassDef):
                self.bad("state-across-calls", f"defines class {node.name}: outside the form", node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                what = ast.unparse(node.value.func)
                self.bad(_label(what), f"module-level call {what}(...): the form has no module-level code", node)
            else:
                self.bad("form", f"module-level {type(node).__name__}: outside the form", node)

    def _is_jit(self, node: ast.FunctionDef) -> bool:
        if len(node.decorator_list) != 1:
            return False
        dec = node.decorator_list[0]
        target = dec.func if isinstance(dec, ast.Call) else dec
        obj = self._resolve_quiet(target)
        return obj is not None and getattr(obj, "__name__", "") == "jit" and "triton" in getattr(obj, "__module__", "")

    def _resolve_quiet(self, node: ast.AST) -> Any:
        chain = _chain(node)
        if not chain or chain[0] not in self.m.imports:
            # before the imports are read (the first pass): the usual spellings
            return _module("triton").jit if ast.unparse(node) in ("triton.jit", "jit") else None
        obj = self.m.imports[chain[0]]
        for attr in chain[1:]:
            obj = getattr(obj, attr, None)
        return obj

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                plain, _ = IMPORTS.get(a.name, (False, None))
                if not plain:
                    rule = _label(a.name, "forbidden-import")
                    self.bad(rule, f"imports {a.name}: not among the form's imports ({_allowed_imports()})", node)
                    continue
                if a.asname:
                    self._bind(a.asname, _module(a.name), a.name, node)
                else:
                    top = a.name.split(".")[0]
                    self._bind(top, _module(top), top, node)
            return
        base = node.module or ""
        if node.level or base not in IMPORTS:
            rule = _label(base, "forbidden-import") if not node.level else "forbidden-import"
            self.bad(rule, f"imports from {'.' * node.level}{base}: not among the form's imports", node)
            return
        _, names = IMPORTS[base]
        mod = _module(base)
        for a in node.names:
            if a.name == "*":
                self.bad("forbidden-import", f"from {base} import *: outside the form", node)
                continue
            if names is not None:
                ok = a.name in names
                why = f"{base} gives only {', '.join(sorted(names)) or 'nothing'}"
            else:
                ok, why = _jit_namespace(mod, a.name) if mod is not None else (False, "not installed")
            if not ok:
                self.bad(_label(a.name), f"from {base} import {a.name}: {why}", node)
                continue
            value = getattr(mod, a.name, None) if mod is not None else None
            if value is None and base != "__future__":
                value = _module(f"{base}.{a.name}")
            self._bind(a.asname or a.name, value, f"{base}.{a.name}", node)

    def _bind(self, alias: str, obj: Any, dotted: str, node: ast.AST) -> None:
        if (alias in self.m.imports and self.m.imports[alias] is not obj) or alias in self.m.constants:
            self.bad("form", f"{alias} bound twice to different things", node)
        self.m.imports[alias] = obj
        self.m.import_names[alias] = dotted

    def _constant(self, node: ast.Assign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if isinstance(node, ast.AnnAssign):
            self._annotation(node.annotation)
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, (ast.Attribute, ast.Subscript)):
                    root = _chain(n.value)
                    rule = "harness-tampering" if root and root[0] in self.m.imports else "state-across-calls"
                    self.bad(rule, f"assigns to {ast.unparse(t)}: only names are bound", node)
                    return
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    if n.id in self.m.imports or n.id in self.m.jit or n.id in self.m.host:
                        self.bad("harness-tampering", f"rebinds {n.id}", node)
                    self.m.constants.add(n.id)
        value = node.value
        if value is None:
            return
        self._const_expr(value)
        if isinstance(value, ast.Dict) and all(isinstance(t, ast.Name) for t in targets):
            self.m.dict_constants.update(t.id for t in targets if isinstance(t, ast.Name))

    def _const_expr(self, node: ast.AST) -> None:
        """A module-level value: literals and arithmetic on them, dtypes, tl.constexpr(...)."""
        scope = _Scope("const", set(), self.m)
        if isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.DictComp, ast.SetComp)):
            self.bad("state-across-calls", f"module-level {type(node).__name__}: outside the form", node)
            return
        before = len(self.problems)
        self._expr(node, scope)
        if len(self.problems) > before:
            return
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                chain = _chain(n.func)
                name = ".".join(chain)
                obj = self._chain_value(n.func, scope, report=False) if chain else None
                pure = name in ("int", "float", "bool", "str", "tuple", "min", "max", "abs") or (
                    obj is not None
                    and (
                        getattr(obj, "__name__", "") in ("constexpr", "cdiv", "next_power_of_2")
                        or getattr(obj, "__module__", "") == "math"
                    )
                )
                if not pure:
                    rule = _label(chain[0] if chain else "", "state-across-calls")
                    self.bad(rule, f"module-level call {name or ast.unparse(n.func)}(...): only constants", n)
                    return

    def _annotation(self, node: ast.AST | None) -> None:
        if node is None or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return
        if isinstance(node, ast.Name) and node.id in ("int", "float", "bool", "str"):
            return
        obj = self._chain_value(node, _Scope("const", set(), self.m), report=False)
        if obj is not None and getattr(obj, "__name__", "") in ("constexpr", "tensor", "dtype"):
            return
        self.bad("form", f"annotation {ast.unparse(node)}: only tl.constexpr, tl.tensor, int, float, bool, str", node)

    # ---------------------------------------------------------------- functions
    def _function(self, node: ast.FunctionDef) -> None:
        jit = self._is_jit(node)
        if node.decorator_list and not jit:
            what = ", ".join(ast.unparse(d) for d in node.decorator_list)
            rule = "state-across-calls" if any(w in what for w in ("cache", "autotune", "heuristics")) else "form"
            self.bad(rule, f"decorator @{what} of {node.name}: only @triton.jit", node)
        if jit and isinstance(node.decorator_list[0], ast.Call):
            for kw in node.decorator_list[0].keywords:
                if kw.arg not in JIT_DECORATOR_KWARGS or not _literal(kw.value):
                    self.bad("form", f"@triton.jit({ast.unparse(kw)}): not an allowed option", node)
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            self.bad("form", f"{node.name}: *args, **kwargs and keyword-only arguments are outside the form", node)
        for d in [*args.defaults, *args.kw_defaults]:
            if d is not None and not _immutable_literal(d):
                self.bad("state-across-calls", f"default argument {ast.unparse(d)[:40]} of {node.name}", node)
        params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        for a in args.args:
            self._annotation(a.annotation)
        if node.returns is not None:
            self._annotation(node.returns)
        for p in params:
            if p.startswith("__") or p in self.m.imports:
                self.bad("harness-tampering", f"parameter {p} of {node.name} shadows {p}", node)
        scope = _Scope("jit" if jit else "host", params, self.m)
        self._body(node.body, scope, docstring=True)

    def _body(self, stmts: list[ast.stmt], scope: _Scope, docstring: bool = False) -> None:
        for i, s in enumerate(stmts):
            if docstring and i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
                continue
            self._stmt(s, scope)

    def _stmt(self, s: ast.stmt, scope: _Scope) -> None:
        jit = scope.kind == "jit"
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if isinstance(s, ast.AnnAssign):
                self._annotation(s.annotation)
            if s.value is not None:
                self._expr(s.value, scope)
            for t in targets:
                self._store(t, scope, s)
            return
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return
            if not isinstance(s.value, ast.Call):
                self.bad("form", f"statement {ast.unparse(s)[:60]}: only calls and launches", s)
            self._expr(s.value, scope)
            return
        if isinstance(s, ast.If):
            self._expr(s.test, scope)
            self._body(s.body, scope)
            self._body(s.orelse, scope)
            return
        if isinstance(s, ast.For):
            if s.orelse:
                self.bad("form", "for ... else: outside the form", s)
            it = s.iter
            ok_iter = isinstance(it, ast.Call) and (
                (isinstance(it.func, ast.Name) and it.func.id == "range")
                or (jit and _chain(it.func)[-1:] in (["range"], ["static_range"]))
            )
            if not ok_iter:
                self.bad("form", f"for over {ast.unparse(it)[:60]}: loops run over range(...)", s)
            self._expr(it, scope)
            self._store(s.target, scope, s)
            self._body(s.body, scope)
            return
        if isinstance(s, ast.While) and jit:
            self._expr(s.test, scope)
            self._body(s.body, scope)
            if s.orelse:
                self.bad("form", "while ... else: outside the form", s)
            return
        if isinstance(s, ast.Return):
            if s.value is not None:
                self._expr(s.value, scope)
            return
        if isinstance(s, ast.Assert):
            self._expr(s.test, scope)
            if s.msg is not None:
                self._expr(s.msg, scope)
            return
        if isinstance(s, (ast.Pass, ast.Break, ast.Continue)):
            return
        kind = type(s).__name__
        rule = {
            "Global": "state-across-calls",
            "Nonlocal": "state-across-calls",
            "ClassDef": "state-across-calls",
            "Import": "forbidden-import",
            "ImportFrom": "forbidden-import",
            "While": "form",
        }.get(kind, "form")
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in s.names] if isinstance(s, ast.Import) else [s.module or ""]
            rule = _label(names[0], "forbidden-import")
        self.bad(rule, f"{kind} inside {'a jit function' if jit else 'host code'}: outside the form", s)

    def _store(self, target: ast.AST, scope: _Scope, node: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._store(t, scope, node)
            return
        if isinstance(target, ast.Name):
            n = target.id
            if n.startswith("__") or n in self.m.imports or n in self.m.jit or n in self.m.host:
                self.bad("harness-tampering", f"rebinds {n}", node)
            scope.names.add(n)
            return
        what = ast.unparse(target)
        root = _chain(target.value) if isinstance(target, (ast.Attribute, ast.Subscript)) else []
        rule = "harness-tampering" if root and root[0] in self.m.imports else "state-across-calls"
        if root and root[0] in scope.names:
            rule = "torch-compute" if scope.kind == "host" else "form"
        self.bad(rule, f"assigns to {what}: only local names are bound", node)

    # ---------------------------------------------------------------- expressions
    def _expr(self, node: ast.AST, scope: _Scope) -> None:
        jit, host = scope.kind == "jit", scope.kind == "host"
        if isinstance(node, ast.Constant):
            return
        if isinstance(node, ast.Name):
            self._name(node, scope)
            return
        if isinstance(node, ast.Attribute):
            self._attribute(node, scope)
            return
        if isinstance(node, ast.Call):
            self._call(node, scope)
            return
        if isinstance(node, ast.Subscript):
            if host and isinstance(node.value, ast.Name) and node.value.id in self.m.jit:
                self.bad("form", f"{ast.unparse(node)} outside a launch call", node)
            self._expr(node.value, scope)
            self._expr(node.slice, scope)
            return
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    if not host:
                        self.bad("form", "starred expressions are outside the form in kernel code", e)
                        continue
                    e = e.value  # (a, *rest) in host code: rest is checked like any value
                self._expr(e, scope)
            return
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is None:
                    self.bad("form", "** in a dict display is outside the form", node)
                    continue
                self._expr(k, scope)
                self._expr(v, scope)
            return
        if isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self._expr(part, scope)
            return
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp)):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.operator, ast.unaryop, ast.boolop, ast.cmpop)):
                    continue
                self._expr(child, scope)
            return
        if isinstance(node, ast.Lambda) and host:
            a = node.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.kw_defaults:
                self.bad("state-across-calls", "lambda with defaults or *args: outside the form", node)
            inner = _Scope("host", scope.names | {x.arg for x in a.args}, self.m)
            self._expr(node.body, inner)
            return
        if isinstance(node, ast.JoinedStr) and host:
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    self._expr(v.value, scope)
            return
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and host:
            inner = _Scope("host", set(scope.names), self.m)
            for gen in node.generators:
                self._expr(gen.iter, inner)
                self._store(gen.target, inner, node)
                for cond in gen.ifs:
                    self._expr(cond, inner)
            self._expr(node.elt, inner)
            return
        kind = type(node).__name__
        rule = "state-across-calls" if kind in ("Lambda", "NamedExpr") else "form"
        self.bad(rule, f"{kind} in {'a jit function' if jit else 'host code' if host else 'a constant'}", node)

    def _name(self, node: ast.Name, scope: _Scope) -> None:
        n = node.id
        if n.startswith("__"):
            self.bad("harness-tampering", f"uses {n}", node)
            return
        if n in scope.names or n in self.m.constants:
            return
        if n in self.m.jit:
            if scope.kind == "jit":
                return  # a combine function handed to tl.reduce / associative_scan
            self.bad("form", f"{n} used as a value in host code: a kernel is only launched, {n}[grid](...)", node)
            return
        if n in self.m.host:
            if scope.kind == "host":
                return
            self.bad("form", f"host function {n} used in {scope.kind} code", node)
            return
        if n in self.m.imports:
            self.bad(
                _label(self.m.import_names.get(n, n)),
                f"{n} as a value: a module is only the start of an allowed name ({n}.x)",
                node,
            )
            return
        builtins = JIT_BUILTINS if scope.kind == "jit" else HOST_BUILTINS
        if n in ("True", "False", "None"):
            return
        if n in builtins:
            return
        self.bad(_label(n), f"uses {n}: not a parameter, local, module definition or allowed builtin", node)

    def _chain_value(self, node: ast.AST, scope: _Scope, report: bool = True) -> Any:
        """The object an attribute chain rooted at an import names, each step allowed by the
        namespace rules of the context; None (and a finding when ``report``) otherwise."""
        chain = _chain(node)
        if not chain or chain[0] not in self.m.imports:
            return None
        obj = self.m.imports[chain[0]]
        rules = _host_namespace if scope.kind == "host" else _jit_namespace
        if scope.kind == "const":
            rules = _const_namespace
        for i, attr in enumerate(chain[1:], start=1):
            ok, why = rules(obj, attr)
            if not ok:
                if report:
                    dotted = ".".join(chain[: i + 1])
                    value = getattr(obj, attr, None) if not attr.startswith("__") else None
                    rule = _attr_rule(chain, attr, scope.kind, self.m.import_names.get(chain[0], ""), value)
                    self.bad(rule, f"{dotted}: {why}", node)
                return None
            obj = getattr(obj, attr, None)
            if obj is None:
                if report:
                    self.bad("form", f"{'.'.join(chain[: i + 1])} does not exist", node)
                return None
        return obj

    def _attribute(self, node: ast.Attribute, scope: _Scope) -> None:
        if node.attr.startswith("_"):
            self.bad(
                "harness-tampering", f"touches {ast.unparse(node)}: private and dunder names are outside the form", node
            )
            return
        chain = _chain(node)
        if chain and chain[0] in self.m.imports:
            self._chain_value(node, scope)
            return
        if scope.kind == "host":
            # metadata of a tensor: x.shape, x.dtype, x.device, x.ndim
            before = len(self.problems)
            self._expr(node.value, scope)
            if len(self.problems) > before:
                return
            if node.attr not in TENSOR_META_ATTRS:
                self.bad(
                    "torch-compute",
                    f"{ast.unparse(node)}: host code reads only {', '.join(sorted(TENSOR_META_ATTRS))} of a tensor",
                    node,
                )
            return
        if scope.kind == "const":
            self.bad("form", f"{ast.unparse(node)} in a constant", node)
            return
        base = node.value
        while isinstance(base, (ast.Attribute, ast.Subscript)):
            base = base.value
        if isinstance(base, ast.Name) and base.id in self.m.constants and base.id not in scope.names:
            why = "a module constant is used as a value, never its attributes"
            self.bad("form", f"{ast.unparse(node)}: {why}", node)
            return
        self._expr(node.value, scope)

    def _call(self, node: ast.Call, scope: _Scope) -> None:
        host = scope.kind == "host"
        for kw in node.keywords:
            if kw.arg is None:
                ok = host and isinstance(kw.value, ast.Name) and kw.value.id in self.m.dict_constants
                if not ok:
                    self.bad("form", f"**{ast.unparse(kw.value)}: only a module-level dict constant", node)
                continue
            self._expr(kw.value, scope)
        for a in node.args:
            if isinstance(a, ast.Starred):
                ok = host and isinstance(a.value, (ast.Name, ast.Tuple, ast.List, ast.Attribute, ast.Call))
                if not ok:
                    self.bad("form", "*args in a call: outside the form", node)
                self._expr(a.value, scope)
                continue
            self._expr(a, scope)
        func = node.func
        if (
            host
            and isinstance(func, ast.Subscript)
            and isinstance(func.value, ast.Name)
            and func.value.id in self.m.jit
        ):
            self._expr(func.slice, scope)  # a launch: kernel[grid](...)
            return
        if isinstance(func, ast.Name):
            n = func.id
            if n in self.m.jit and scope.kind == "jit":
                return
            if n in self.m.host and host:
                return
            if n in self.m.jit and host:
                self.bad("form", f"{n}(...) called directly: launch it, {n}[grid](...)", node)
                return
            self._name(func, scope)
            return
        if isinstance(func, ast.Attribute):
            if func.attr.startswith("_"):
                why = "private and dunder names are outside the form"
                self.bad("harness-tampering", f"calls {ast.unparse(func)}: {why}", node)
                return
            chain = _chain(func)
            if chain and chain[0] in self.m.imports:
                self._chain_value(func, scope)
                return
            if host:
                before = len(self.problems)
                self._expr(func.value, scope)
                if func.attr not in TENSOR_META_METHODS and len(self.problems) == before:
                    base = func.value
                    while isinstance(base, (ast.Attribute, ast.Subscript, ast.Call)):
                        base = base.func if isinstance(base, ast.Call) else base.value
                    own = isinstance(base, ast.Name) and base.id in scope.names
                    const = isinstance(base, ast.Name) and base.id in self.m.constants and not own
                    rule = "state-across-calls" if const else "torch-compute" if own else "form"
                    self.bad(
                        rule,
                        f"calls {ast.unparse(func)}(): host code calls only "
                        f"{', '.join(sorted(TENSOR_META_METHODS))} on a tensor",
                        node,
                    )
                return
            self._attribute(func, scope)  # x.to(...), x.reshape(...) on a Triton value
            return
        before = len(self.problems)
        self._expr(func, scope)
        if len(self.problems) == before:
            self.bad("form", f"calls {ast.unparse(func)[:60]}: outside the form", node)


def _const_namespace(obj: Any, attr: str) -> tuple[bool, str]:
    ok, why = _host_namespace(obj, attr)
    if ok:
        return ok, why
    return _jit_namespace(obj, attr)


def _attr_rule(chain: list[str], attr: str, kind: str, dotted: str, value: Any = None) -> str:
    root = dotted.split(".")[0]
    if attr in ("Stream", "stream", "Event", "synchronize", "graph", "CUDAGraph", "graphs", "cuda"):
        return "streams"
    if isinstance(value, types.ModuleType):
        return "harness-tampering"  # another module reached through an allowed one
    if attr in REFUSED_TL:
        return "randomness" if "rand" in attr or attr == "philox" else "form"
    if "rand" in attr:
        return "randomness"
    if attr in ("do_bench", "testing", "perf_counter", "globaltimer", "clock"):
        return "timer-tampering"
    if attr in ("os", "pathlib", "io", "open", "subprocess", "sys", "importlib", "pkgutil", "builtins"):
        return _label(attr, "harness-tampering")
    if root == "torch":
        private = attr.startswith("_") or attr in ("ops", "library", "utils", "overrides")
        return "harness-tampering" if private else "torch-compute"
    return "form"


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _immutable_literal(node: ast.AST) -> bool:
    """A default argument that cannot carry state from one call to the next."""
    if isinstance(node, ast.Tuple):
        return all(_immutable_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _immutable_literal(node.operand)
    return isinstance(node, ast.Constant)


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _allowed_imports() -> str:
    return "triton, triton.language, math, torch, Inductor's triton_helpers, libdevice"


def static_problems(source: str, contract: Contract) -> list[tuple[str, str, int]]:
    """Every finding as (rule, message, line), the most specific first; [] when the source is in
    the form and defines ``launch`` with exactly the contract's arguments and a jit kernel."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [("syntax", f"does not parse: {e.msg} (line {e.lineno})", e.lineno or 0)]
    checker = FormChecker()
    checker.check(tree)
    probs = list(checker.problems)
    launch = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "launch"), None)
    want = [a["name"] for a in contract.args]
    if launch is None or launch.name in checker.m.jit:
        probs.append(("signature", "defines no top-level host function launch(...)", 0))
    else:
        got = [a.arg for a in launch.args.args]
        if got != want:
            probs.append(
                (
                    "signature",
                    f"launch({', '.join(got)}) does not match the contract launch({', '.join(want)})",
                    launch.lineno,
                )
            )
    if not checker.m.jit:
        probs.append(("no-triton-kernel", "defines no @triton.jit kernel", 0))
    order = {r: i for i, r in enumerate(RULE_PRIORITY)}
    return sorted(probs, key=lambda p: (order.get(p[0], len(RULE_PRIORITY)), p[2]))
