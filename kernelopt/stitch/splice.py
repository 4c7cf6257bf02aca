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
import inspect
import shutil
from pathlib import Path
from typing import Any

from ..core import loader, outputcode
from ..core.jsonio import sha256
from ..core.records import AttemptPaths
from .fusion import edit_call_sites
from .graphunits import edit_call_sites as edit_rewrite_calls
from .proof import diff_proof
from .regions import edit_call_sites as edit_region_calls


def helper() -> str:
    """The loader the stitched module carries: ``core.loader.load_candidate`` itself, copied from
    its source (so the deployed model loads candidates exactly as the gates did), and the object
    that stands where Inductor's kernel stood."""
    body = inspect.getsource(loader.load_candidate).replace(
        "def load_candidate(", "def _kernelopt_candidate_loader(", 1
    )
    return f'''

# --- kernelopt: loader for replaced kernels (the rest of this file is Inductor's, unchanged) ---
{body}

def _kernelopt_candidate(name, relpath):
    import os as _os

    path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), relpath)
    mod = _kernelopt_candidate_loader(path)

    class KerneloptCandidate:
        """Stands where Inductor's kernel object stood: the wrapper calls .run(*args, stream=...)."""

        kernelopt_candidate = name

        def run(self, *args, stream=None, **kwargs):
            return mod.launch(*args)

    return KerneloptCandidate()
# --- end kernelopt loader ---

'''


def write_stitched(
    baseline: Path,
    out_dir: Path,
    replacements: dict[str, Path],
    fusions: list[dict[str, Any]] | None = None,
    regions: list[dict[str, Any]] | None = None,
    rewrites: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Write ``out_dir/output_code.py`` = baseline with ``replacements`` {kernel: candidate file}.
    ``fusions`` (classify/fusion.py pairs, each with its ``unit``): the consumer's replacement is the fused
    kernel; the producer's launch is dropped and its other inputs are passed to the consumer.
    ``regions`` (capture/regions.py, each with its ``unit``): the last member's replacement is the
    region's candidate, the other members' launches are dropped, the last launch takes the
    region's arguments.  ``rewrites`` (capture/graphunits.py, each with its ``unit``): the anchor's
    replacement is the unit's candidate, every member launch (library calls too) is dropped and the
    last one's line launches the candidate with the unit's arguments."""
    fusions, regions, rewrites = fusions or [], regions or [], rewrites or []
    src = Path(baseline).read_text()
    oc = outputcode.parse(src, baseline)
    # graph-level units of library calls alone: their candidate is a definition of its own
    added = [u["anchor"] for u in rewrites if not u["kernels"] and u["anchor"] in replacements]
    missing = [k for k in replacements if k not in oc.kernels and k not in added]
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
    if first_def is None and added:  # no Triton kernel at all: before the first function or class
        first_def = next(n.lineno for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
    out_dir.mkdir(parents=True, exist_ok=True)
    cand_dir = out_dir / "candidates"
    if cand_dir.exists():
        shutil.rmtree(cand_dir)
    cand_dir.mkdir()
    info: dict[str, Any] = {"baseline": str(baseline), "replaced": {}}
    out: list[str] = []
    for i, line in enumerate(lines, start=1):
        if first_def is not None and i == first_def and replacements:
            out.append(helper())
            for k in added:
                out.append(_definition(k, replacements[k], cand_dir, info, "a graph-level unit of library calls"))
        hit = next((k for k, (a, b) in spans.items() if a <= i <= b), None)
        if hit is None:
            out.append(line)
            continue
        if i == spans[hit][0]:
            out.append(_definition(hit, replacements[hit], cand_dir, info, f"Inductor's {hit}"))
    text = "".join(out)
    if rewrites:  # first: its members are named by position, which the edits below would move
        text = _rewrite_edits(text, info, set(replacements), rewrites)
    if fusions:
        for f in fusions:
            if f["consumer"] not in replacements:
                raise KeyError(f"fusion {f['unit']}: the consumer {f['consumer']} has no replacement")
        text = edit_call_sites(text, fusions)
        info["fusions"] = [
            {k: f[k] for k in ("unit", "producer", "consumer", "buffer", "function", "extra")} for f in fusions
        ]
        info["dropped"] = sorted(info.get("dropped", []) + [f["producer"] for f in fusions])
    if regions:
        for r in regions:
            if r["members"][-1] not in replacements:
                raise KeyError(f"region {r['unit']}: the last member {r['members'][-1]} has no replacement")
        text = edit_region_calls(text, regions)
        info["regions"] = [{k: r[k] for k in ("unit", "members", "function", "inputs", "outputs")} for r in regions]
        info["dropped"] = sorted(info.get("dropped", []) + [k for r in regions for k in r["members"][:-1]])
    AttemptPaths(out_dir).output_code.write_text(text)
    info["proof"] = diff_proof(src, text, set(replacements), fusions, regions, rewrites)
    return info


def _definition(name: str, source: Path, cand_dir: Path, info: dict[str, Any], what: str) -> str:
    """The statement that defines ``name`` as the candidate ``source`` (copied under
    ``candidates/``), with the comment that says what it replaces; recorded in ``info``."""
    dest = cand_dir / f"{name}.py"
    shutil.copyfile(source, dest)
    digest = sha256(dest)
    info["replaced"][name] = {"file": f"candidates/{name}.py", "sha256": digest, "source": str(source)}
    return (
        f"# kernelopt: {what} replaced by candidates/{name}.py (sha256 {digest[:16]}; from {source})\n"
        f"{name} = _kernelopt_candidate({name!r}, {f'candidates/{name}.py'!r})\n"
    )


def _rewrite_edits(text: str, info: dict[str, Any], replaced: set[str], rewrites: list[dict[str, Any]]) -> str:
    """Graph-level units' call-site edits (stitch/graphunits.py), recorded in ``info``: the units,
    the Triton launches dropped, the library calls dropped."""
    for u in rewrites:
        if u["anchor"] not in replaced:
            raise KeyError(f"graph-level unit {u['unit']}: the anchor {u['anchor']} has no replacement")
    info["rewrites"] = [
        {k: u[k] for k in ("unit", "name", "anchor", "function", "inputs", "outputs")} for u in rewrites
    ]
    info["dropped"] = sorted(k for u in rewrites for k in u["kernels"] if k != u["anchor"])
    info["dropped_library_calls"] = [
        m["text"] for u in rewrites for m in u["members"] if m["kind"] in ("extern", "fallback")
    ]
    return edit_rewrite_calls(text, rewrites)
