"""Stage 2, classify: every launch in the output code gets a dispatch kind and a share of
device time; the problem gets a verdict; each Triton kernel becomes an optimisation unit.

Input: capture.json (launch sites, kernels) and profile.json (time per launch site).
Output: dispatch.json (``Dispatch``, core/records.py).  Kinds (``DispatchKind``,
docs/architecture.md): triton | cublas (blas on CPU) | cudnn | aten | other.  Triton template
GEMMs (``triton_tem_*`` from max-autotune) are kind ``triton`` with ``template: true`` so they
are never mistaken for pointwise/reduction kernels.
CUDA-graph input copies, which exist only in the real compiled run, are kind ``other``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.outputcode import dispatch_kind
from ..core.records import Capture, CaptureProfile, Dispatch, DispatchKind, DispatchVerdict, ProblemPaths
from . import fusion


def unit_id(graph: int, kernel: str) -> str:
    """Units are keyed by graph + kernel name (Inductor restarts kernel numbering per graph)."""
    return kernel if graph == 0 else f"g{graph}_{kernel}"


def _unit_of(g: int, site: dict[str, Any], k: dict[str, Any]) -> dict[str, Any]:
    """A Triton kernel's unit record, before any of its launches are counted."""
    uid = unit_id(g, site["target"])
    return {
        "id": uid,
        "graph": g,
        "kernel": site["target"],
        "heuristic": k.get("heuristic"),
        "template": k.get("heuristic") == "template",
        "user": bool(k.get("user")),
        "launches": 0,
        "time_ms": 0.0,
        "reference": "error" not in (k.get("reference") or {"error": 1}),
    }


def _graph_launches(
    g: int, grec: dict[str, Any], gprof: dict[str, Any], device: str, units: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """One graph's launch sites with their kind and time; each Triton launch counted to its unit."""
    site_ms = {int(k): v for k, v in (gprof.get("site_ms") or {}).items()}
    launches = []
    for site in grec["sites"]:
        kind = dispatch_kind(site["kind"], device)
        entry: dict[str, Any] = {
            "graph": g,
            "lineno": site["lineno"],
            "kind": kind,
            "target": site["target"],
            "function": site["function"],
            "time_ms": site_ms.get(site["lineno"]),
        }
        if kind == DispatchKind.TRITON:
            k = grec["kernels"].get(site["target"], {})
            entry["heuristic"] = k.get("heuristic")
            entry["template"] = k.get("heuristic") == "template"
            uid = unit_id(g, site["target"])
            entry["unit"] = uid
            u = units.setdefault(uid, _unit_of(g, site, k))
            u["launches"] += 1
            u["time_ms"] += entry["time_ms"] or 0.0
        else:
            entry["op"] = site["target"].split(".")[1] if "." in site["target"] else site["target"]
        launches.append(entry)
    return launches


def _verdict(
    units: dict[str, Any], launches: list[dict[str, Any]], triton_share: float, device: str, min_triton_share: float
) -> tuple[DispatchVerdict, str]:
    """The problem's verdict and its reason, from the Triton kernels' share of device time."""
    lost = [
        l["target"] for l in launches if l["kind"] == DispatchKind.TRITON and l["time_ms"] is None and device == "cuda"
    ]
    if not units:
        return DispatchVerdict.NO_TRITON, "the compiled model launches no Triton kernel"
    if lost:  # never a verdict from a missing time: the profile lost events (capture profiled 3 times)
        return (
            DispatchVerdict.ERROR,
            f"infrastructure: the profile has no time for Triton kernel(s) {sorted(set(lost))[:5]}; re-run capture",
        )
    if triton_share < min_triton_share:
        return DispatchVerdict.LIBRARY_DOMINATED, (
            f"Triton kernels take {triton_share:.1%} of device time, "
            f"under classify.min_triton_share={min_triton_share:.0%}"
        )
    return DispatchVerdict.OPTIMIZABLE, f"Triton kernels take {triton_share:.1%} of device time"


def classify(capture: Capture, profile: CaptureProfile, min_triton_share: float) -> dict[str, Any]:
    device = capture.device
    launches: list[dict[str, Any]] = []
    units: dict[str, dict[str, Any]] = {}
    for g, grec in enumerate(capture.graphs):
        gprof = (profile.graphs or [None] * (g + 1))[g] or {}
        launches.extend(_graph_launches(g, grec, gprof, device, units))

    copy_ms = profile.copy_ms
    if copy_ms:
        launches.append(
            {
                "graph": None,
                "lineno": None,
                "kind": DispatchKind.OTHER,
                "target": "cudagraph input copies / memcpy",
                "function": "runtime",
                "time_ms": copy_ms,
            }
        )
    total = sum(l["time_ms"] or 0.0 for l in launches)
    for l in launches:
        l["share"] = (l["time_ms"] or 0.0) / total if total > 0 else None
    for u in units.values():
        u["share"] = u["time_ms"] / total if total > 0 else None

    by_kind: dict[str, float] = {}
    for l in launches:
        by_kind[l["kind"]] = by_kind.get(l["kind"], 0.0) + (l["time_ms"] or 0.0)
    triton_ms = by_kind.get(DispatchKind.TRITON, 0.0)
    triton_share = triton_ms / total if total > 0 else (1.0 if units else 0.0)
    verdict, reason = _verdict(units, launches, triton_share, device, min_triton_share)
    gprofs = [p for p in profile.graphs if p]
    return {
        "problem": capture.problem,
        "device": device,
        "verdict": verdict,
        "reason": reason,
        "triton_share": triton_share,
        "min_triton_share": min_triton_share,
        "time_by_kind_ms": by_kind,
        "total_ms": total,
        "shares_method": (gprofs[0]["method"] if gprofs else "no profile")
        + ("; + copies from the CUDA-graph run" if copy_ms else ""),
        "meaningful": device == "cuda",
        "stitchable": capture.stitchable,
        "launches": launches,
        "units": sorted(units.values(), key=lambda u: -(u["time_ms"] or 0.0)),
    }


def add_fused_units(dispatch: dict[str, Any], pairs: list[dict[str, Any]], refused: list[dict[str, Any]]) -> None:
    """Neighbour fusion (classify/fusion.py): each fusible pair of graph-0 kernels becomes one more unit,
    ``fz_<producer>__<consumer>``; its parts stay units too, and the stitch stage takes either
    the fused candidate or the parts' own, whichever saves more."""
    by_kernel = {u["kernel"]: u for u in dispatch["units"] if u["graph"] == 0}
    fused = []
    for p in pairs:
        pu, cu = by_kernel[p["producer"]], by_kernel[p["consumer"]]
        uid = fusion.unit_id(pu["id"], cu["id"])
        time_ms = (pu["time_ms"] or 0.0) + (cu["time_ms"] or 0.0)
        fused.append(
            {
                "id": uid,
                "graph": 0,
                "kernel": cu["kernel"],
                "heuristic": cu["heuristic"],
                "template": False,
                "launches": 1,
                "time_ms": time_ms,
                "share": time_ms / dispatch["total_ms"] if dispatch["total_ms"] > 0 else None,
                "reference": pu["reference"] and cu["reference"],
                "fused": {**p, "producer_unit": pu["id"], "consumer_unit": cu["id"]},
            }
        )
    dispatch["units"] += fused
    dispatch["fusion"] = {"fused_units": [u["id"] for u in fused], "refused_pairs": refused}


def add_region_units(dispatch: dict[str, Any], capture: Capture, fusible: bool = True) -> None:
    """Regions (capture/regions.py, found at capture with their references): each becomes one
    more unit ``rg_<first>__<last>``; its members stay units (a split region's are not checkable
    on their own), and the stitch stage takes the region's candidate in their place when it saves
    more (stitch/fusion.py).  ``fusible``: also the regions whose members each have a reference
    (kind "fusible"), formed to drop a round trip through memory."""
    rec = capture.graphs[0].get("regions") or {}
    # the kernels' own units (a fused unit carries its consumer's kernel too)
    by_kernel = {u["kernel"]: u for u in dispatch["units"] if u["graph"] == 0 and not u.get("fused")}
    added = []
    for r in rec.get("found", []):
        if r.get("kind") == "fusible" and not fusible:
            continue
        members = [by_kernel.get(k) for k in r["members"]]
        if any(m is None for m in members):
            continue
        time_ms = sum(m["time_ms"] or 0.0 for m in members)  # type: ignore[index]
        added.append(
            {
                "id": r["id"],
                "graph": 0,
                "kernel": r["members"][-1],
                "heuristic": members[-1]["heuristic"],  # type: ignore[index]
                "template": False,
                "launches": 1,
                "time_ms": time_ms,
                "share": time_ms / dispatch["total_ms"] if time_ms is not None and dispatch["total_ms"] > 0 else None,
                "reference": True,
                "region": {**r, "member_units": [m["id"] for m in members]},  # type: ignore[index]
            }
        )
    dispatch["units"] += added
    dispatch["regions"] = {
        "region_units": [u["id"] for u in added],
        "refused_starts": rec.get("refused", []),
        **({"error": rec["error"]} if rec.get("error") else {}),
    }


def add_rewrite_units(dispatch: dict[str, Any], capture: Capture) -> None:
    """Graph-level units (capture/graphunits.py, formed at capture where a rewrite of
    capture/rewrites.py has a candidate generator): each becomes one more unit ``rw_<rewrite>_<buf>``
    spanning its Triton kernels and library calls; its Triton members stay units too.  A problem
    with one is ``optimizable`` even where the library calls dominate: the rewrite drops them.
    ``dispatch["rewrites"]`` lists every finding, unit or not (the report says which and why)."""
    rec = capture.graphs[0].get("rewrites") or {}
    if not (rec.get("findings") or rec.get("error")):
        return  # nothing found: the dispatch is what it was without the analysis
    by_kernel = {
        u["kernel"]: u for u in dispatch["units"] if u["graph"] == 0 and not (u.get("fused") or u.get("region"))
    }
    site_ms = {l["lineno"]: l["time_ms"] for l in dispatch["launches"] if l["graph"] == 0}
    added = []
    for r in rec.get("units", []):
        members = [by_kernel.get(k) for k in r["kernels"]]
        if any(m is None for m in members):
            continue
        # a member the profile has no time for (an ATen call inside a GPU's CUDA graph) leaves
        # the unit's time unknown, never 0 (search.negligible would skip it as free)
        times = [site_ms.get(m["lineno"]) for m in r["members"]]
        time_ms = None if any(t is None for t in times) else sum(times)  # type: ignore[arg-type]
        added.append(
            {
                "id": r["id"],
                "graph": 0,
                "kernel": r["anchor"],
                # a run of library calls alone has no Triton kernel: its anchor is a new name
                "heuristic": by_kernel[r["anchor"]]["heuristic"] if r["kernels"] else None,
                "template": False,
                "launches": 1,
                "time_ms": time_ms,
                "share": time_ms / dispatch["total_ms"] if time_ms is not None and dispatch["total_ms"] > 0 else None,
                "reference": True,
                "rewrite": {**r, "member_units": [m["id"] for m in members]},  # type: ignore[index]
            }
        )
    dispatch["units"] += added
    dispatch["rewrites"] = {
        "rewrite_units": [u["id"] for u in added],
        "findings": rec.get("findings", []),
        "refused": rec.get("refused", []),
        **({"error": rec["error"]} if rec.get("error") else {}),
    }
    if added and dispatch["verdict"] in (DispatchVerdict.LIBRARY_DOMINATED, DispatchVerdict.NO_TRITON):
        names = ", ".join(sorted({u["rewrite"]["rewrite"]["rewrite"] for u in added}))
        dispatch["verdict"] = DispatchVerdict.OPTIMIZABLE
        dispatch["reason"] += f"; but a graph-level rewrite ({names}) replaces library calls"


def run(
    paths: ProblemPaths,
    min_triton_share: float,
    fuse_neighbours: bool = True,
    regions: bool = True,
    fusible_regions: bool = True,
) -> Dispatch:
    """Classifies the problem's capture and writes ``dispatch.json`` (a ``Dispatch``)."""
    capture = Capture.load(paths.capture_record)
    profile = CaptureProfile.load(paths.profile)
    if capture.failed:
        dispatch = {
            "problem": paths.problem,
            "verdict": DispatchVerdict.ERROR,
            "reason": f"capture failed at {capture.stage}: {str(capture.error).splitlines()[0]}",
            "launches": [],
            "units": [],
            "time_by_kind_ms": {},
            "triton_share": None,
        }
    else:
        dispatch = classify(capture, profile, min_triton_share)
        if fuse_neighbours and dispatch["verdict"] == DispatchVerdict.OPTIMIZABLE:
            kernels = capture.graphs[0]["kernels"]
            sources = {k: (paths.capture / v["source"]).read_text() for k, v in kernels.items()}
            pairs, refused = fusion.find_pairs(
                paths.output_code.read_text(), sources, {k: v.get("heuristic") for k, v in kernels.items()}
            )
            add_fused_units(dispatch, pairs, refused)
        if regions and dispatch["verdict"] == DispatchVerdict.OPTIMIZABLE:
            add_region_units(dispatch, capture, fusible_regions)
        if dispatch["verdict"] in (
            DispatchVerdict.OPTIMIZABLE,
            DispatchVerdict.LIBRARY_DOMINATED,
            DispatchVerdict.NO_TRITON,
        ):
            add_rewrite_units(dispatch, capture)
    record = Dispatch.from_dict(dispatch)
    record.save(paths.dispatch)
    kinds = ", ".join(f"{k} {v:.3f} ms" for k, v in record.time_by_kind_ms.items())
    nf = len((record.fusion or {}).get("fused_units", []))
    print(
        f"[classify] {paths.problem}: {record.verdict} ({record.reason}); {len(record.units)} unit(s)"
        + (f" ({nf} fused neighbour pair(s))" if nf else "")
        + (f" ({nr} region(s))" if (nr := len((record.regions or {}).get("region_units", []))) else "")
        + (f" ({ng} graph-level)" if (ng := len((record.rewrites or {}).get("rewrite_units", []))) else "")
        + f"; {kinds}",
        flush=True,
    )
    return record


def units_of(dispatch_path: Path) -> list[str]:
    """Unit ids a classify checkpoint fans out to (all Triton kernels of the problem)."""
    return Dispatch.load(dispatch_path).unit_ids
