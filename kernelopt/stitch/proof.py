"""Gate 3's proof of a stitch, computed when the stitch is written: the stitched module differs
from the baseline only in the replaced kernels' definitions (plus the loader) and, for fused
pairs and regions, in exactly the declared call-site edits, re-derived on the baseline's AST
independently of the text edit; and each declared fusion (region) is one that the pair finder
(``capture.regions.check_region``) allows on that baseline.
"""

from __future__ import annotations

import ast
import copy
import difflib
import json
from typing import Any

from ..capture import graphunits
from ..capture.regions import NotARegion, check_region
from ..classify.fusion import find_pairs
from ..core import outputcode
from .fusion import expected_function
from .graphunits import expected_function as rewrite_edits
from .regions import expected_function as region_edits
from .regions import region_args


def _fusion_key(f: dict[str, Any]) -> tuple:
    """What makes two declared fusions the same one."""
    extra = json.dumps(f["extra"], sort_keys=True)
    return (f["producer"], f["consumer"], f["buffer"], f["producer_param"], f["consumer_param"], extra)


REGION_KEYS = ("function", "members", "inputs", "outputs", "intermediates", "calls")


def _regions_not_allowed(baseline: str, oc: Any, regions: list[dict[str, Any]]) -> list[str]:
    """Declared regions that ``capture.regions.check_region`` does not derive, as declared, on
    this very baseline."""
    sources = {k: v.source for k, v in oc.kernels.items()}
    heuristics = {k: v.heuristic for k, v in oc.kernels.items()}
    bad = []
    for r in regions:
        try:
            derived = check_region(baseline, sources, heuristics, r["function"], r["members"])
        except NotARegion:
            bad.append(r["unit"])
            continue
        if any(derived[k] != r.get(k) for k in REGION_KEYS):
            bad.append(r["unit"])
    return sorted(bad)


def _rewrites_not_allowed(baseline: str, oc: Any, units: list[dict[str, Any]]) -> list[str]:
    """Declared graph-level units that ``capture.graphunits.derive`` does not derive, as declared,
    on this very baseline."""
    sources = {k: v.source for k, v in oc.kernels.items()}
    bad = []
    for u in units:
        try:
            derived = graphunits.derive(baseline, sources, u["function"], u["inputs"], u["outputs"][0])
        except graphunits.NotAGraphUnit:
            bad.append(u["unit"])
            continue
        if any(derived[k] != u.get(k) for k in graphunits.KEYS):
            bad.append(u["unit"])
    return sorted(bad)


def _rewrite_record(rewrites: list[dict[str, Any]], bad: list[str]) -> dict[str, Any]:
    """The proof's account of graph-level units: those not derived on the baseline, and each one's edits."""
    edits = [f"{', '.join(m['text'] for m in u['members'])} -> {u['anchor']}.run(...)" for u in rewrites]
    return {"rewrites_not_allowed_on_baseline": bad, "rewrite_edits": edits}


def diff_proof(
    baseline: str,
    stitched: str,
    replaced: set[str],
    fusions: list[dict[str, Any]] | None = None,
    regions: list[dict[str, Any]] | None = None,
    rewrites: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Show that the two modules differ only in the replaced kernels' definitions (plus the loader)
    and, for fusions and regions, in exactly the declared call-site edits: the baseline's
    functions with ``stitch.fusion.expected_function`` and ``stitch.regions.expected_function``
    applied on their AST must equal the stitched functions."""

    def edit(fn: ast.FunctionDef) -> ast.FunctionDef:
        return region_edits(expected_function(rewrite_edits(fn, rewrites or []), fusions or []), regions or [])

    edits = fusions or regions or rewrites

    def dump(node: ast.stmt) -> str:
        if edits and isinstance(node, ast.FunctionDef):
            node = edit(node)
        elif edits and isinstance(node, ast.ClassDef):
            node = copy.deepcopy(node)
            node.body = [edit(n) if isinstance(n, ast.FunctionDef) else n for n in node.body]
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
    # each declared fusion must be one that classify.fusion.find_pairs allows on this very baseline
    # (consecutive launches, the buffer read by nothing else, ...), not just one that was declared
    unproven = []
    oc = outputcode.parse(baseline)
    if fusions:
        allowed, _ = find_pairs(
            baseline, {k: v.source for k, v in oc.kernels.items()}, {k: v.heuristic for k, v in oc.kernels.items()}
        )
        unproven = sorted(
            {f["unit"] for f in fusions}
            - {f["unit"] for f in fusions if _fusion_key(f) in {_fusion_key(x) for x in allowed}}
        )
    regions_bad = _regions_not_allowed(baseline, oc, regions) if regions else []
    rewrites_bad = _rewrites_not_allowed(baseline, oc, rewrites) if rewrites else []
    return {
        "identical_except_replaced": identical
        and changed_defs == sorted(replaced)
        and not unproven
        and not regions_bad
        and not rewrites_bad,
        "fusions_not_allowed_on_baseline": unproven,
        "regions_not_allowed_on_baseline": regions_bad,
        **(_rewrite_record(rewrites, rewrites_bad) if rewrites else {}),
        "region_edits": [
            f"{', '.join(r['members'][:-1])} launch(es) dropped; {r['members'][-1]} launch takes {region_args(r)}"
            for r in regions or []
        ],
        "fusion_edits": [
            f"{f['producer']} launch dropped; {f['consumer']} launch + {[e['call_arg'] for e in f['extra']]}"
            for f in fusions or []
        ],
        "replaced_definitions": changed_defs,
        "statements_baseline": len(a),
        "statements_stitched": len(b),
        "diff_lines": len([l for l in diff if l.startswith(("+", "-")) and not l.startswith(("+++", "---"))]),
        "diff_head": [l[:160] for l in diff if l.startswith(("+", "-", "@@"))][:40],
    }
