"""Stitching: the baseline wrapper module with chosen kernels replaced, as a file on disk.

``write_stitched`` copies the captured ``output_code.py`` and replaces, for each replaced
kernel, exactly its definition statement ``K = async_compile.triton('K', '''...''')`` with
a line that loads the candidate file (copied beside it under ``candidates/``).  Every other
statement stays byte-identical, so the stitched model is the baseline minus exactly the
replaced kernels, and the file is exactly the module that runs (it still carries Inductor's
own ``benchmark_compiled_module`` harness).  Modules are loaded fresh each time
(``outputcode.load``), so no cached module can leak.
"""
from __future__ import annotations

import ast
import copy
import difflib
import hashlib
import json
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from . import outputcode

HELPER = '''

# --- kernelopt: loader for replaced kernels (the rest of this file is Inductor's, unchanged) ---
def _kernelopt_candidate(name, relpath):
    import importlib.util as _ilu
    import os as _os

    path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), relpath)
    spec = _ilu.spec_from_file_location("kernelopt_candidate_" + name, path)
    mod = _ilu.module_from_spec(spec)
    spec.loader.exec_module(mod)

    class KerneloptCandidate:
        """Stands where Inductor's kernel object stood: the wrapper calls .run(*args, stream=...)."""

        kernelopt_candidate = path

        def run(self, *args, stream=None, **kwargs):
            return mod.launch(*args)

    return KerneloptCandidate()
# --- end kernelopt loader ---

'''


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_stitched(baseline: Path, out_dir: Path, replacements: dict[str, Path], fusions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Write ``out_dir/output_code.py`` = baseline with ``replacements`` {kernel: candidate file}.
    ``fusions`` (fusion.py pairs, each with its ``unit``): the consumer's replacement is the fused
    kernel; the producer's launch is dropped and its other inputs are passed to the consumer."""
    fusions = fusions or []
    src = Path(baseline).read_text()
    oc = outputcode.parse(src, baseline)
    missing = [k for k in replacements if k not in oc.kernels]
    if missing:
        raise KeyError(f"kernels {missing} are not defined in {baseline}")
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    spans: dict[str, tuple[int, int]] = {}
    first_def = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in oc.kernels:
            first_def = node.lineno if first_def is None else first_def
            if node.targets[0].id in replacements:
                spans[node.targets[0].id] = (node.lineno, node.end_lineno or node.lineno)
    out_dir.mkdir(parents=True, exist_ok=True)
    cand_dir = out_dir / "candidates"
    if cand_dir.exists():
        shutil.rmtree(cand_dir)
    cand_dir.mkdir()
    info: dict[str, Any] = {"baseline": str(baseline), "replaced": {}}
    out: list[str] = []
    for i, line in enumerate(lines, start=1):
        if first_def is not None and i == first_def and replacements:
            out.append(HELPER)
        hit = next((k for k, (a, b) in spans.items() if a <= i <= b), None)
        if hit is None:
            out.append(line)
            continue
        if i == spans[hit][0]:
            dest = cand_dir / f"{hit}.py"
            shutil.copyfile(replacements[hit], dest)
            digest = sha256(dest)
            out.append(f"# kernelopt: Inductor's {hit} replaced by candidates/{hit}.py (sha256 {digest[:16]}; from {replacements[hit]})\n")
            out.append(f"{hit} = _kernelopt_candidate({hit!r}, {f'candidates/{hit}.py'!r})\n")
            info["replaced"][hit] = {"file": f"candidates/{hit}.py", "sha256": digest, "source": str(replacements[hit])}
    text = "".join(out)
    if fusions:
        from . import fusion

        for f in fusions:
            if f["consumer"] not in replacements:
                raise KeyError(f"fusion {f['unit']}: the consumer {f['consumer']} has no replacement")
        text = fusion.edit_call_sites(text, fusions)
        info["fusions"] = [{k: f[k] for k in ("unit", "producer", "consumer", "buffer", "function", "extra")} for f in fusions]
        info["dropped"] = sorted(f["producer"] for f in fusions)
    (out_dir / "output_code.py").write_text(text)
    info["proof"] = diff_proof(src, text, set(replacements), fusions)
    return info


def diff_proof(baseline: str, stitched: str, replaced: set[str], fusions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Show that the two modules differ only in the replaced kernels' definitions (plus the loader)
    and, for fusions, in exactly the declared call-site edits: the baseline's functions with
    ``fusion.expected_function`` applied on their AST must equal the stitched functions."""
    from . import fusion

    def dump(node: ast.stmt) -> str:
        if fusions and isinstance(node, ast.FunctionDef):
            node = fusion.expected_function(node, fusions)
        elif fusions and isinstance(node, ast.ClassDef):
            node = copy.deepcopy(node)
            node.body = [fusion.expected_function(n, fusions) if isinstance(n, ast.FunctionDef) else n for n in node.body]
        return ast.dump(node)

    def stmts(src: str, apply: bool) -> list[tuple[str, str]]:
        out = []
        for node in ast.parse(src).body:
            name = node.targets[0].id if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) else ""
            out.append((name, dump(node) if apply else ast.dump(node)))
        return out

    a, b = stmts(baseline, True), stmts(stitched, False)
    a_keep = [s for s in a if s[0] not in replaced]
    b_keep = [s for s in b if s[0] not in replaced and not (s[0] == "" and "_kernelopt_candidate" in s[1])]
    identical = a_keep == b_keep
    diff = list(difflib.unified_diff(baseline.splitlines(), stitched.splitlines(), lineterm="", n=0))
    changed_defs = sorted({s[0] for s in b if s[0] in replaced})
    # each declared fusion must be one that fusion.find_pairs allows on this very baseline
    # (consecutive launches, the buffer read by nothing else, ...), not just one that was declared
    unproven = []
    if fusions:
        oc = outputcode.parse(baseline)
        allowed, _ = fusion.find_pairs(baseline, {k: v.source for k, v in oc.kernels.items()}, {k: v.heuristic for k, v in oc.kernels.items()})
        key = lambda f: (f["producer"], f["consumer"], f["buffer"], f["producer_param"], f["consumer_param"], json.dumps(f["extra"], sort_keys=True))  # noqa: E731
        unproven = sorted({f["unit"] for f in fusions} - {f["unit"] for f in fusions if key(f) in {key(x) for x in allowed}})
    return {
        "identical_except_replaced": identical and changed_defs == sorted(replaced) and not unproven,
        "fusions_not_allowed_on_baseline": unproven,
        "fusion_edits": [f"{f['producer']} launch dropped; {f['consumer']} launch + {[e['call_arg'] for e in f['extra']]}" for f in fusions or []],
        "replaced_definitions": changed_defs,
        "statements_baseline": len(a),
        "statements_stitched": len(b),
        "diff_lines": len([l for l in diff if l.startswith(("+", "-")) and not l.startswith(("+++", "---"))]),
        "diff_head": [l[:160] for l in diff if l.startswith(("+", "-", "@@"))][:40],
    }


def pin_configs(mod: ModuleType, oc: outputcode.OutputCode, launches: list[dict[str, Any]]) -> dict[str, str]:
    """Restrict every Inductor kernel object to the config it ran with at capture, so that two
    loads of the same wrapper (baseline and stitched) cannot autotune to different configs."""
    recorded: dict[str, dict[str, Any]] = {}
    for l in launches:
        if l.get("config"):
            recorded.setdefault(l["kernel"], l["config"])
    status: dict[str, str] = {}
    for name in oc.kernels:
        obj = getattr(mod, name, None)
        configs = getattr(obj, "configs", None)
        if obj is None or getattr(obj, "kernelopt_candidate", None) or configs is None:
            continue
        want = recorded.get(name)
        if len(configs) <= 1:
            status[name] = "single"
            continue
        if want is None:
            status[name] = "unpinned: no recorded config"
            continue
        match = [c for c in configs if dict(getattr(c, "kwargs", {})) == want.get("kwargs", {})
                 and getattr(c, "num_warps", None) == want.get("num_warps", getattr(c, "num_warps", None))
                 and getattr(c, "num_stages", None) == want.get("num_stages", getattr(c, "num_stages", None))]
        if match:
            obj.configs = [match[0]]
            status[name] = "pinned"
        else:
            status[name] = "unpinned: recorded config not among the kernel's configs"
    return status


def graphed(fn: Callable[[], Any], device: str) -> Callable[[], Any]:
    """The whole forward captured in one CUDA graph (after eager warm-up, so every kernel's
    first launch and JIT compile happen outside the capture).  Identical for baseline and
    stitched; CPU: the function itself."""
    if device != "cuda":
        return fn
    import torch

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = fn()
    graphed.keep = getattr(graphed, "keep", []) + [static_out]  # outputs live as long as the graph

    def replay() -> Any:
        graph.replay()
        return static_out

    replay.graph = graph  # type: ignore[attr-defined]
    return replay


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
    tmp.replace(path)
