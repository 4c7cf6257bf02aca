"""The four gates (DESIGN.md §4).  Each returns a ``GateVerdict`` that is written as
``gateN.json``: the verdict, the numbers it compared, the tolerances, the seeds, and a
human-readable reason; a rejection names the rule that fired.

1 static      parses; kernel + ``launch`` with the contract's signature; no forbidden
              constructs; imports and runs once without error, launching no torch compute
2 isolated    N seeds vs the eager reference, allclose(rtol, atol); outputs poisoned (NaN)
              first; inputs must come back unchanged
3 model       stitched model vs eager at 1e-4; else the FP64 fallback
4 speed       stitched time <= (1 + perf_margin) x baseline, by measure.compare
"""
from __future__ import annotations

import ast
import math
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PASS, FAIL, SKIPPED, SKIPPED_BY_MODE = "pass", "fail", "skipped", "skipped-by-mode"


@dataclass
class GateVerdict:
    gate: int
    verdict: str
    reason: str
    rule: str | None = None
    numbers: dict[str, Any] = field(default_factory=dict)
    tolerances: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=list)
    candidate: str | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == PASS

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------- gate 1
FORBIDDEN_MODULES = {
    "os", "sys", "subprocess", "socket", "threading", "multiprocessing", "concurrent", "asyncio", "time",
    "pathlib", "shutil", "tempfile", "io", "pickle", "ctypes", "importlib", "requests", "urllib", "http",
    "signal", "gc", "inspect", "builtins", "kernelopt", "numpy", "functools", "timeit", "datetime", "random",
}
ALLOWED_MODULE_PREFIXES = ("triton", "torch", "math", "typing", "__future__")
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "setattr", "delattr", "input", "breakpoint", "getattr"}
STREAM_WORDS = {"Stream", "stream", "ExternalStream", "graph", "CUDAGraph", "graphs", "Event", "synchronize", "set_stream", "_sleep"}
TIMER_WORDS = {"do_bench", "elapsed_time", "perf_counter", "Timer"}
TORCH_ALLOWED = {"empty", "empty_like", "empty_strided", "float32", "float16", "bfloat16", "float64", "int32", "int64", "int8", "uint8", "bool", "device", "Size", "dtype", "Tensor"}
TENSOR_META_METHODS = {"stride", "size", "numel", "dim", "data_ptr", "is_contiguous", "element_size", "storage_offset", "get_device"}
CACHE_DECORATORS = {"cache", "lru_cache", "cached_property"}
# aten ops a launcher may run (allocation / metadata only); anything else is the unit's work done by torch
ATEN_ALLOWED = {"empty", "empty_strided", "empty_like", "as_strided", "view", "_reshape_alias", "detach", "alias", "lift_fresh", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "is_contiguous", "stride", "size"}


# The most specific finding is reported first (e.g. open(...).read() is file access, not a
# tensor method call).
RULE_PRIORITY = [
    "syntax", "subprocess", "network", "threads", "file-access", "timer-tampering", "harness-tampering", "streams",
    "state-across-calls", "forbidden-import", "torch-compute", "signature", "no-triton-kernel",
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
            rule = {"subprocess": "subprocess", "socket": "network", "requests": "network", "urllib": "network", "http": "network",
                    "threading": "threads", "multiprocessing": "threads", "concurrent": "threads", "asyncio": "threads",
                    "time": "timer-tampering", "timeit": "timer-tampering", "kernelopt": "harness-tampering", "gc": "harness-tampering",
                    "inspect": "harness-tampering", "sys": "harness-tampering", "builtins": "harness-tampering",
                    "functools": "state-across-calls", "os": "file-access", "pathlib": "file-access", "shutil": "file-access",
                    "tempfile": "file-access", "io": "file-access", "pickle": "file-access"}.get(root, "forbidden-import")
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
                isinstance(node.value, ast.Call) and ast.unparse(node.value.func) in ("dict", "list", "set", "collections.OrderedDict")
            ):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id.upper() != t.id:  # CONSTANT_TABLES are fine
                        self.module_mutables.add(t.id)
            if isinstance(node.value, ast.Call) and ast.unparse(node.value.func).startswith("torch."):
                self.bad("state-across-calls", f"module-level tensor {ast.unparse(node.targets[0])} = {ast.unparse(node.value.func)}(...) outlives a call", node)
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
                    self.bad("torch-compute", f"calls {func}: the unit's work must be done by Triton kernels, not torch", node)
            elif head in ("F", "nn") or func.startswith("torch.nn"):
                self.bad("torch-compute", f"calls {func}: the unit's work must be done by Triton kernels, not torch", node)
            elif isinstance(node.func, ast.Attribute) and head not in ("triton", "tl", "math", "libdevice", "tl_math", "triton_helpers") \
                    and last not in TENSOR_META_METHODS and head not in self.jit_functions and not func.endswith(("append", "items", "keys", "values", "get")):
                # method calls on tensors (x.sum(), x.copy_(), ...) compute with torch
                if last not in ("cdiv", "next_power_of_2", "format", "join", "run") and not last.startswith("__"):
                    self.bad("torch-compute", f"calls method {func}() in host code: only metadata methods ({', '.join(sorted(TENSOR_META_METHODS))}) are allowed on tensors", node)
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
    probs = sorted(checker.problems, key=lambda p: RULE_PRIORITY.index(p[0]) if p[0] in RULE_PRIORITY else len(RULE_PRIORITY))
    launch = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "launch"), None)
    want = [a["name"] for a in contract["args"]]
    if launch is None:
        probs.append(("signature", "defines no top-level function launch(...)", 0))
    else:
        got = [a.arg for a in launch.args.args]
        if got != want or launch.args.vararg or launch.args.kwarg:
            probs.append(("signature", f"launch({', '.join(got)}) does not match the contract launch({', '.join(want)})", launch.lineno))
    if not checker.jit_functions:
        probs.append(("no-triton-kernel", "defines no @triton.jit kernel", 0))
    return sorted(probs, key=lambda p: RULE_PRIORITY.index(p[0]) if p[0] in RULE_PRIORITY else len(RULE_PRIORITY))


def gate1(candidate: Path, contract: dict[str, Any], harness: Any | None, seed: int) -> GateVerdict:
    """Static checks, then import and one run on the seed's real inputs (torch ops watched)."""
    source = Path(candidate).read_text()
    probs = static_problems(source, contract)
    if probs:
        rule, msg, line = probs[0]
        return GateVerdict(1, FAIL, f"rule {rule}: {msg}" + (f" (line {line})" if line else "") + (f"; {len(probs) - 1} more finding(s)" if len(probs) > 1 else ""),
                           rule=rule, numbers={"findings": [{"rule": r, "message": m, "line": l} for r, m, l in probs]}, candidate=str(candidate))
    if harness is None:
        return GateVerdict(1, PASS, "static checks passed (not run: no harness)", candidate=str(candidate))
    from .harness import load_module

    try:
        mod = load_module(Path(candidate), "kernelopt_candidate")
    except Exception as e:  # noqa: BLE001
        return GateVerdict(1, FAIL, f"rule import-error: importing the candidate failed: {type(e).__name__}: {e}", rule="import-error", candidate=str(candidate))
    try:
        before, _after = harness.inputs(seed)
        watch = _AtenWatch()
        harness.run_candidate(mod, before, watch=watch)
        ops = watch.seen
        # Whatever launching Inductor's own kernel dispatches is the launcher's, not the
        # candidate's work (the Triton interpreter in CPU mode copies through torch).
        reference_watch = _AtenWatch()
        harness.run_candidate(load_module(harness.paths.inductor_kernel(harness.unit), "kernelopt_inductor"), before, watch=reference_watch)
        launcher_ops = reference_watch.seen
    except Exception as e:  # noqa: BLE001
        return GateVerdict(1, FAIL, f"rule runtime-error: the first run failed: {type(e).__name__}: {str(e)[:500]}", rule="runtime-error",
                           numbers={"traceback": traceback.format_exc()[-1500:]}, seeds=[seed], candidate=str(candidate))
    compute = sorted(op for op in ops - launcher_ops if op.split(".")[0] not in ATEN_ALLOWED)
    if compute:
        return GateVerdict(1, FAIL, f"rule torch-compute: launch() ran torch ops {compute[:5]}; the unit's work must be done by Triton kernels", rule="torch-compute",
                           numbers={"aten_ops": compute}, seeds=[seed], candidate=str(candidate))
    return GateVerdict(1, PASS, "static checks passed; imports and runs once without error and without torch compute", numbers={"aten_ops": sorted(ops)}, seeds=[seed], candidate=str(candidate))


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

    def __enter__(self) -> "_AtenWatch":
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._mode.__exit__(*exc)


# --------------------------------------------------------------------------- gate 2
def gate2(candidate: Path, harness: Any, seeds: list[int], rtol: float, atol: float) -> GateVerdict:
    import torch

    from .harness import load_module

    mod = load_module(Path(candidate), "kernelopt_candidate")
    tol = {"rtol": rtol, "atol": atol}
    try:
        res = harness.check(mod, seeds, rtol, atol)
    except Exception as e:  # noqa: BLE001
        return GateVerdict(2, FAIL, f"rule runtime-error: {type(e).__name__}: {str(e)[:500]}", rule="runtime-error", tolerances=tol, seeds=seeds, candidate=str(candidate))
    # inputs the contract marks read-only must come back unchanged
    for seed in seeds[:1]:
        before, _ = harness.inputs(seed)
        copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in before]
        mod.launch(*[a for a in before])  # on the real buffers: writes are visible
        if harness.rt.device == "cuda":
            torch.cuda.synchronize()
        for spec, a, c in zip(harness.contract["args"], before, copies):
            if spec.get("access") == "read" and isinstance(a, torch.Tensor) and not torch.equal(a.nan_to_num(0.25), c.nan_to_num(0.25)):
                return GateVerdict(2, FAIL, f"rule wrote-input: launch() modified read-only argument {spec['name']}", rule="wrote-input", tolerances=tol, seeds=seeds, candidate=str(candidate))
    worst = max((o["max_abs"] for s in res["seeds"] for o in s["outputs"]), default=0.0)
    if not res["ok"]:
        bad = next(s for s in res["seeds"] if not s["ok"])
        o = next(o for o in bad["outputs"] if not o["ok"])
        unwritten = math.isinf(o["max_abs"]) or o["max_abs"] != o["max_abs"]
        rule = "mismatch"
        return GateVerdict(2, FAIL, f"rule {rule}: seed {bad['seed']}: output {o['name']} differs from the eager reference: {o['mismatched']}/{o['numel']} elements outside rtol={rtol}, atol={atol} (max abs {o['max_abs']:.3g}){' ; ' + o['note'] if o.get('note') else ''}",
                           rule=rule, numbers={"max_abs": worst, "per_seed": res["seeds"], "unwritten_suspected": unwritten}, tolerances=tol, seeds=seeds, candidate=str(candidate))
    fb = res["graph_level_fallback"]
    how = (f"; outputs {fb} by the graph-level fallback: the reference recomputes upstream library ops, Inductor's own kernel misses it too, "
           "and the candidate's error is at most 2x Inductor's and it matches Inductor's output") if fb else ""
    return GateVerdict(2, PASS, f"matches the eager reference on seeds {seeds} (max abs error {worst:.3g}){how}", numbers={"max_abs": worst, "per_seed": res["seeds"], "graph_level_fallback": fb}, tolerances=tol, seeds=seeds, candidate=str(candidate))


def run_in_child(gate: int, unit_dir: Path, candidate: Path, cfg: dict[str, Any], timeout: int = 3600) -> GateVerdict:
    """Gate 1 or 2 in a separate process; a candidate that kills it fails with rule ``crash``."""
    import json
    import signal
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as td:
        out = Path(td) / "verdict.json"
        cmd = [sys.executable, "-m", "kernelopt.gate_child", str(gate), str(unit_dir), str(candidate), str(out), json.dumps(cfg, default=str)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return GateVerdict(gate, FAIL, f"rule timeout: checking the candidate took more than {timeout} s", rule="timeout", candidate=str(candidate))
        if r.stdout or r.stderr:
            print((r.stdout + r.stderr)[-4000:], end="", flush=True)
        if r.returncode == 0 and out.exists():
            d = json.loads(out.read_text())
            from . import gpulock

            gpulock.add_held(d.get("lock_held_s") or {})
            return GateVerdict(**{k: d[k] for k in GateVerdict.__dataclass_fields__ if k in d})
        if r.returncode < 0:
            try:
                how = f"killed by {signal.Signals(-r.returncode).name}"
            except ValueError:
                how = f"killed by signal {-r.returncode}"
        else:
            how = f"exit status {r.returncode}"
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
        return GateVerdict(gate, FAIL, f"rule crash: the candidate crashed the checking process ({how}); last line: {tail[0][:300]}", rule="crash", candidate=str(candidate))
