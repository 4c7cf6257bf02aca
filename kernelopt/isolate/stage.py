"""Stage 3, isolate: per unit, the launch contract, Inductor's kernel as a standalone
candidate, the eager reference, and the 3-seed check of the one against the other.

Artifacts under ``units/<unit>/``: contract.json, inductor.py, reference.py,
isolate_check.json.
"""

from __future__ import annotations

import shutil
import traceback
from dataclasses import replace
from typing import Any

from ..classify.fusion import NotFusible
from ..core import gpulock, runtime
from ..core.records import (
    Baseline,
    Capture,
    Contract,
    Dispatch,
    DispatchUnit,
    IsolateCheck,
    IsolateSummary,
    ProblemPaths,
)
from ..runner.harness import ProblemRuntime, UnitHarness, load_module
from . import fused, graphunits, regions, user
from .contract import build_contract
from .inductor import render_inductor


def run(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> dict[str, Any]:
    device = runtime.prepare(cfg["device"], paths.cache)
    capture = Capture.load(paths.capture_record)
    dispatch = Dispatch.load(paths.dispatch)
    udir = paths.unit(unit)
    udir.mkdir(parents=True, exist_ok=True)
    entry = dispatch.unit(unit) or DispatchUnit(id=unit)
    fused, region = entry.fused, entry.region
    if entry.rewrite:
        result = _isolate_rewrite(paths, unit, cfg, device, capture, dispatch, entry)
    elif region:
        result = _isolate_region(paths, unit, cfg, device, capture, dispatch, region)
    else:
        result = (_isolate_fused if fused else _isolate_kernel)(paths, unit, cfg, device, capture, dispatch, fused)
    result["meaningful_timing"] = device == "cuda"
    IsolateCheck.from_dict(result).save(paths.isolate_check(unit))
    what = f" (fused {fused['producer_unit']} + {fused['consumer_unit']})" if fused else ""
    what = f" (region {' -> '.join(region['member_units'])})" if region else what
    what = f" (graph-level: {entry.rewrite['rewrite']['rewrite']})" if entry.rewrite else what
    print(
        f"[isolate] {paths.problem}/{unit}{what}: {result['status']}"
        + (f" ({result.get('reason')})" if result.get("reason") else ""),
        flush=True,
    )
    return result


def _isolate_kernel(
    paths: ProblemPaths,
    unit: str,
    cfg: dict[str, Any],
    device: str,
    capture: Capture,
    dispatch: Dispatch,
    _: Any,
) -> dict[str, Any]:
    contract = build_contract(capture, dispatch, unit)
    if contract.user:
        contract = user.with_inferred_grid(contract)
    stem = unit  # kernels/<unit>.py: graph 0 units are named after the kernel, others g<k>_<kernel>
    kernel_src = paths.kernel_source(stem).read_text()
    contract.save(paths.contract(unit))
    paths.inductor_kernel(unit).write_text(render_inductor(contract, kernel_src))
    ref_src = paths.kernel_reference(stem)
    result: dict[str, Any] = {"unit": unit, "problem": paths.problem, "device": device}
    if contract.user and contract.aliases:
        names = [", ".join(contract.args[i]["name"] for i in pair) for pair in contract.aliases]
        result.update(
            ok=False,
            status="no-reference",
            reason=f"arguments {'; '.join(names)} are the same memory (an in-place launch): a standalone "
            "launch on separate copies cannot reproduce it, so the unit stays the user's kernel",
        )
    elif contract.user:
        rt = ProblemRuntime.get(paths, device, cfg["seed"])  # one rebuild of the problem for both steps
        result["reads_written"], contract = _user_reference(paths, unit, contract, kernel_src, cfg, rt)
        result.update(_check(paths, unit, contract, cfg, device, rt))
    elif not ref_src.exists():
        result.update(ok=False, status="no-reference", reason=contract.reference.get("error", "no reference"))
    else:
        _copy_reference(paths, unit, stem)
        result.update(_check(paths, unit, contract, cfg, device))
    return result


def _copy_reference(paths: ProblemPaths, unit: str, stem: str) -> None:
    """Capture's ``kernels/<stem>.reference.py`` (and its constants) into the unit's directory."""
    shutil.copyfile(paths.kernel_reference(stem), paths.reference(unit))
    consts = paths.kernel_reference_constants(stem)
    if consts.exists():
        shutil.copyfile(consts, paths.reference_constants(unit))


def _user_reference(
    paths: ProblemPaths,
    unit: str,
    contract: Contract,
    kernel_src: str,
    cfg: dict[str, Any],
    rt: ProblemRuntime,
) -> tuple[dict[str, bool], Contract]:
    """The user's kernel as the unit's reference; written arguments whose old contents it reads
    become ``readwrite`` in the contract (measured, user.probe_reads).  ``inductor.py`` does
    not depend on the accesses and stays as written.  Returns what was measured and the contract
    as written."""
    paths.reference(unit).write_text(user.render_reference(contract, kernel_src))
    written = [a["name"] for a in contract.args if a.get("access") == "write"]
    before, _ = UnitHarness(paths, unit, rt).inputs(cfg["isolate"]["seeds"][0])
    reference = load_module(paths.reference(unit), "kernelopt_reference")
    with gpulock.shared(rt.device, f"isolate {paths.problem}/{unit}"):
        reads = user.probe_reads(reference, before, [a["name"] for a in contract.args], written)
    args = [{**a, "access": "readwrite"} if reads.get(a["name"]) else a for a in contract.args]
    contract = replace(contract, args=args)
    contract.save(paths.contract(unit))
    paths.reference(unit).write_text(user.render_reference(contract, kernel_src))
    return reads, contract


def _isolate_fused(
    paths: ProblemPaths,
    unit: str,
    cfg: dict[str, Any],
    device: str,
    capture: Capture,
    dispatch: Dispatch,
    pair: dict[str, Any],
) -> dict[str, Any]:
    """A fused neighbour pair (fusion.py): merged contract, the pair as Inductor launches it
    (inductor.py), the composed reference, and the same 3-seed check."""
    pu, cu = pair["producer_unit"], pair["consumer_unit"]
    contract = fused.fused_contract(
        build_contract(capture, dispatch, pu), build_contract(capture, dispatch, cu), pair, unit
    )
    p_src, c_src = (paths.kernel_source(u).read_text() for u in (pu, cu))
    contract.save(paths.contract(unit))
    paths.inductor_kernel(unit).write_text(fused.render_pair(contract, p_src, c_src))
    result: dict[str, Any] = {"unit": unit, "problem": paths.problem, "device": device, "fused": [pu, cu]}
    refs = [paths.kernel_reference(u) for u in (pu, cu)]
    missing = [r.name for r in refs if not r.exists()]
    try:
        if missing:
            raise NotFusible(f"no eager reference for {missing}")
        fused.write_reference(paths.unit(unit), contract, *refs)
        result.update(_check(paths, unit, contract, cfg, device))
    except NotFusible as e:
        result.update(ok=False, status="no-reference", reason=str(e))
    return result


def _isolate_region(
    paths: ProblemPaths,
    unit: str,
    cfg: dict[str, Any],
    device: str,
    capture: Capture,
    dispatch: Dispatch,
    region: dict[str, Any],
) -> dict[str, Any]:
    """A region (capture/regions.py): its contract, its kernels as Inductor launches them
    (inductor.py), the reference cut at capture, and the same 3-seed check."""
    members = [build_contract(capture, dispatch, u) for u in region["member_units"]]
    contract = regions.region_contract(members, region, unit)
    contract.save(paths.contract(unit))
    sources = [paths.kernel_source(u).read_text() for u in region["member_units"]]
    paths.inductor_kernel(unit).write_text(regions.render_region(contract, sources))
    _copy_reference(paths, unit, unit)  # kernels/<region>.reference.py, cut at capture
    result: dict[str, Any] = {"unit": unit, "problem": paths.problem, "device": device, "region": region["members"]}
    result.update(_check(paths, unit, contract, cfg, device))
    return result


def _isolate_rewrite(
    paths: ProblemPaths,
    unit: str,
    cfg: dict[str, Any],
    device: str,
    capture: Capture,
    dispatch: Dispatch,
    entry: DispatchUnit,
) -> dict[str, Any]:
    """A graph-level unit (capture/graphunits.py): its contract, the wrapper's run of its kernels
    and library calls (inductor.py), the reference cut at capture, and the same 3-seed check."""
    r = entry.rewrite or {}
    kernels = {k: build_contract(capture, dispatch, u) for k, u in zip(r["kernels"], r["member_units"])}
    contract = graphunits.rewrite_contract(capture, kernels, entry)
    contract.save(paths.contract(unit))
    sources = {k: paths.kernel_source(u).read_text() for k, u in zip(r["kernels"], r["member_units"])}
    paths.inductor_kernel(unit).write_text(graphunits.render_rewrite(contract, paths.output_code.read_text(), sources))
    _copy_reference(paths, unit, unit)  # kernels/<unit>.reference.py, cut at capture
    result: dict[str, Any] = {"unit": unit, "problem": paths.problem, "device": device, "rewrite": r["rewrite"]}
    result.update(_check(paths, unit, contract, cfg, device))
    return result


def _check(
    paths: ProblemPaths,
    unit: str,
    contract: Contract,
    cfg: dict[str, Any],
    device: str,
    rt: ProblemRuntime | None = None,
) -> dict[str, Any]:
    icfg = cfg["isolate"]
    try:
        rt = rt or ProblemRuntime.get(paths, device, cfg["seed"])
        h = UnitHarness(paths, unit, rt)
        cand = load_module(paths.inductor_kernel(unit), "kernelopt_inductor")
        with gpulock.shared(device, f"isolate {paths.problem}/{unit}"):
            res = h.check(cand, icfg["seeds"], icfg["rtol"], icfg["atol"])
        res["status"] = "pass" if res["ok"] else "mismatch"
        fb = res["graph_level_fallback"]
        if fb:
            res["reason"] = (
                f"graph-level reference: outputs {fb} differ from it by the upstream library ops' numerics "
                "(Inductor's kernel is its own baseline here)"
            )
        if not res["ok"]:
            bad = [
                f"seed {s['seed']}: "
                + ", ".join(
                    f"{c['name']} max_abs={c['max_abs']:.3g} ({c['mismatched']}/{c['numel']} off)"
                    for c in s["outputs"]
                    if not c["ok"]
                )
                for s in res["seeds"]
                if not s["ok"]
            ]
            res["reason"] = "Inductor's kernel differs from the eager reference: " + "; ".join(bad)
        return res
    except Exception as e:  # noqa: BLE001 - recorded per unit, the pipeline goes on
        return {
            "ok": False,
            "status": "error",
            "reason": f"{type(e).__name__}: {e}",
            "traceback": traceback.format_exc()[-3000:],
        }


def summarize(paths: ProblemPaths, units: list[str]) -> dict[str, Any]:
    """Per-problem record of stages 1-3 (isolate.json)."""
    baseline = Baseline.load(paths.baseline)
    dispatch = Dispatch.load(paths.dispatch)
    checks = {u: IsolateCheck.load(paths.isolate_check(u)) for u in units}
    summary = {
        "problem": paths.problem,
        "status": "error" if baseline.failed else "ok",
        "device": baseline.device,
        "verdict": dispatch.verdict,
        "reason": dispatch.reason,
        "triton_share": dispatch.triton_share,
        "units": len(units),
        "units_pass": sum(1 for c in checks.values() if c.passed),
        "checks": {u: {"status": c.status, "reason": c.reason} for u, c in checks.items()},
    }
    IsolateSummary.from_dict(summary).save(paths.isolated)
    print(
        f"[isolated] {paths.problem}: {summary['verdict']}, {summary['units_pass']}/{summary['units']} unit(s) "
        "match their reference on all seeds",
        flush=True,
    )
    return summary
