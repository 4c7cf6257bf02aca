"""Stage 3, isolate: per unit, the launch contract, Inductor's kernel as a standalone
candidate, the eager reference, and the 3-seed check of the one against the other.

Artifacts under ``units/<unit>/``: contract.json, inductor.py, reference.py,
isolate_check.json.
"""
from __future__ import annotations

import ast
import json
import shutil
import traceback
from pathlib import Path
from typing import Any

from .paths import ProblemPaths


def access_of(name: str, written: bool) -> str:
    if name.startswith("in_out_ptr"):
        return "readwrite"
    if name.startswith("out_ptr"):
        return "write"
    if name.startswith("in_ptr"):
        return "readwrite" if written else "read"
    return "write" if written else "read"


def build_contract(capture: dict[str, Any], dispatch: dict[str, Any], unit: str) -> dict[str, Any]:
    u = next((x for x in dispatch["units"] if x["id"] == unit), None)
    if u is None:
        raise KeyError(f"unit {unit} is not in dispatch.json")
    grec = capture["graphs"][u["graph"]]
    kernel = u["kernel"]
    kinfo = grec["kernels"][kernel]
    launches = [l for l in (grec.get("standalone") or {}).get("launches", []) if l["kernel"] == kernel]
    if not launches:
        raise RuntimeError(f"kernel {kernel} was never launched in the standalone run ({(grec.get('standalone') or {}).get('reason', '')})")
    first = launches[0]
    site = (kinfo.get("sites") or [{}])[0]
    buffer_of: dict[str, str] = {}
    for outer, inner in {**site.get("inputs", {}), **site.get("outputs", {})}.items():
        buffer_of[inner] = outer
    for inner, bufs in site.get("inplace", {}).items():
        buffer_of[inner] = bufs[-1]
    ref = kinfo.get("reference") or {}
    args = []
    for i, a in enumerate(first["args"]):
        spec = dict(a)
        if a["kind"] == "tensor":
            spec["access"] = "write" if a["name"] in ref.get("write_only", []) else access_of(a["name"], i in first["written"])
            spec["buffer"] = buffer_of.get(a["name"])
        args.append(spec)
    return {
        "unit": unit,
        "problem": capture["problem"],
        "graph": u["graph"],
        "kernel": kernel,
        "heuristic": kinfo.get("heuristic"),
        "template": kinfo.get("heuristic") == "template",
        "device": capture["device"],
        "args": args,
        "launch_config": first.get("config"),
        "grid": first.get("grid"),
        "grid_expr": first.get("grid_expr"),
        "launches": len(launches),
        "launch_shapes_identical": all(l["args"] == first["args"] for l in launches),
        "aten_ops": ref.get("aten_ops", []),
        "reference": {k: v for k, v in ref.items() if k != "file"},
        "fx_origins": site.get("origins", []),
        "share": u.get("share"),
    }


def strip_heuristics_decorator(source: str, kernel: str) -> str:
    """Drop ``@triton_heuristics.<kind>(...)`` above the kernel (located through the AST)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            drop: set[int] = set()
            for dec in node.decorator_list:
                text = ast.get_source_segment(source, dec) or ""
                if text.startswith("triton_heuristics."):
                    drop.update(range(dec.lineno - 1, (dec.end_lineno or dec.lineno)))
                    # the '@' sits on the decorator's first line
            return "\n".join(l for i, l in enumerate(lines) if i not in drop) + "\n"
    raise ValueError(f"kernel {kernel} not found in its source")


INDUCTOR_TITLE = """Inductor's kernel for unit {unit} ({heuristic}), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``{kernel}.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place."""
def launcher_lines(kernel: str, contract: dict[str, Any], cfg_prefix: str = "", fn_prefix: str = "") -> list[str]:
    """``inductor.py`` form: CONFIG / NUM_WARPS / NUM_STAGES, ``grid(...)`` and ``launch(...)``
    for ``kernel`` with the config and grid recorded in ``contract`` (the prefixes name a second
    kernel's copies, as in a fused unit's pair)."""
    cfg = contract.get("launch_config") or {}
    kwargs = dict(cfg.get("kwargs", {}))
    g = contract.get("grid_expr") or {}
    if not g:
        raise RuntimeError(f"no grid expression was recorded for {kernel}")
    params = ", ".join(a["name"] for a in contract["args"])
    call = ", ".join(a["name"] for a in contract["args"] if not a["name"].startswith("_grid_"))
    unpack = "; ".join(f"{k} = {cfg_prefix}CONFIG[{k!r}]" for k in kwargs) or "pass"
    extra = "".join(f", {k}={cfg_prefix}{k.upper()}" for k in ("num_warps", "num_stages") if cfg.get(k) is not None)
    return [
        f"{cfg_prefix}CONFIG = {kwargs!r}  # constexpr block sizes chosen by Inductor",
        f"{cfg_prefix}NUM_WARPS = {cfg.get('num_warps')!r}",
        f"{cfg_prefix}NUM_STAGES = {cfg.get('num_stages')!r}",
        "",
        "",
        f"def {fn_prefix}grid({params}):",
        f"    # Inductor's grid for grid_type {g.get('type')!r}",
        f"    {unpack}",
        *(f"    {line}" for line in g.get("prefix", [])),
        f"    return ({g.get('x', 1)}, {g.get('y', 1)}, {g.get('z', 1)})",
        "",
        "",
        f"def {fn_prefix}launch({params}):",
        f"    {kernel}[{fn_prefix}grid({params})]({call}, **{cfg_prefix}CONFIG{extra})",
    ]


def render_inductor(contract: dict[str, Any], kernel_source: str, title: str | None = None) -> str:
    kernel = contract["kernel"]
    title = title or INDUCTOR_TITLE.format(unit=contract["unit"], heuristic=contract.get("heuristic"), kernel=kernel)
    return "\n".join([f'"""{title}', '"""', strip_heuristics_decorator(kernel_source, kernel).rstrip(), "", *launcher_lines(kernel, contract), ""])


def run(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> dict[str, Any]:
    from . import runtime

    device = runtime.prepare(cfg["device"], paths.cache)
    capture = json.loads(paths.capture_record.read_text())
    dispatch = json.loads(paths.dispatch.read_text())
    udir = paths.unit(unit)
    udir.mkdir(parents=True, exist_ok=True)
    fused = next((u.get("fused") for u in dispatch["units"] if u["id"] == unit), None)
    result = (_isolate_fused if fused else _isolate_kernel)(paths, unit, cfg, device, capture, dispatch, fused)
    result["meaningful_timing"] = device == "cuda"
    paths.isolate_check(unit).write_text(json.dumps(result, indent=2) + "\n")
    what = f" (fused {fused['producer_unit']} + {fused['consumer_unit']})" if fused else ""
    print(f"[isolate] {paths.problem}/{unit}{what}: {result['status']}" + (f" ({result.get('reason')})" if result.get("reason") else ""), flush=True)
    return result


def _isolate_kernel(paths: ProblemPaths, unit: str, cfg: dict[str, Any], device: str, capture: dict[str, Any], dispatch: dict[str, Any], _: Any) -> dict[str, Any]:
    contract = build_contract(capture, dispatch, unit)
    stem = unit  # kernels/<unit>.py: graph 0 units are named after the kernel, others g<k>_<kernel>
    kernel_src = (paths.kernels_dir / f"{stem}.py").read_text()
    paths.contract(unit).write_text(json.dumps(contract, indent=2) + "\n")
    paths.inductor_kernel(unit).write_text(render_inductor(contract, kernel_src))
    ref_src = paths.kernels_dir / f"{stem}.reference.py"
    result: dict[str, Any] = {"unit": unit, "problem": paths.problem, "device": device}
    if not ref_src.exists():
        result.update(ok=False, status="no-reference", reason=contract["reference"].get("error", "no reference"))
    else:
        shutil.copyfile(ref_src, paths.reference(unit))
        consts = paths.kernels_dir / f"{stem}.reference_constants.pt"
        if consts.exists():
            shutil.copyfile(consts, paths.unit(unit) / "reference_constants.pt")
        result.update(_check(paths, unit, contract, cfg, device))
    return result


def _isolate_fused(paths: ProblemPaths, unit: str, cfg: dict[str, Any], device: str, capture: dict[str, Any], dispatch: dict[str, Any], pair: dict[str, Any]) -> dict[str, Any]:
    """A fused neighbour pair (fusion.py): merged contract, the pair as Inductor launches it
    (inductor.py), the composed reference, and the same 3-seed check."""
    from . import fusion

    pu, cu = pair["producer_unit"], pair["consumer_unit"]
    contract = fusion.fused_contract(build_contract(capture, dispatch, pu), build_contract(capture, dispatch, cu), pair, unit)
    p_src, c_src = ((paths.kernels_dir / f"{u}.py").read_text() for u in (pu, cu))
    paths.contract(unit).write_text(json.dumps(contract, indent=2) + "\n")
    paths.inductor_kernel(unit).write_text(fusion.render_pair(contract, p_src, c_src))
    result: dict[str, Any] = {"unit": unit, "problem": paths.problem, "device": device, "fused": [pu, cu]}
    refs = [paths.kernels_dir / f"{u}.reference.py" for u in (pu, cu)]
    missing = [r.name for r in refs if not r.exists()]
    try:
        if missing:
            raise fusion.NotFusible(f"no eager reference for {missing}")
        fusion.write_reference(paths.unit(unit), contract, *refs)
        result.update(_check(paths, unit, contract, cfg, device))
    except fusion.NotFusible as e:
        result.update(ok=False, status="no-reference", reason=str(e))
    return result


def _check(paths: ProblemPaths, unit: str, contract: dict[str, Any], cfg: dict[str, Any], device: str) -> dict[str, Any]:
    from .harness import ProblemRuntime, UnitHarness, load_module

    icfg = cfg["isolate"]
    try:
        rt = ProblemRuntime(paths, device, cfg["seed"])
        h = UnitHarness(paths, unit, rt)
        cand = load_module(paths.inductor_kernel(unit), "kernelopt_inductor")
        from . import gpulock

        with gpulock.shared(device, f"isolate {paths.problem}/{unit}"):
            res = h.check(cand, icfg["seeds"], icfg["rtol"], icfg["atol"])
        res["status"] = "pass" if res["ok"] else "mismatch"
        fb = res["graph_level_fallback"]
        if fb:
            res["reason"] = f"graph-level reference: outputs {fb} differ from it by the upstream library ops' numerics (Inductor's kernel is its own baseline here)"
        if not res["ok"]:
            bad = [f"seed {s['seed']}: " + ", ".join(f"{c['name']} max_abs={c['max_abs']:.3g} ({c['mismatched']}/{c['numel']} off)" for c in s["outputs"] if not c["ok"]) for s in res["seeds"] if not s["ok"]]
            res["reason"] = "Inductor's kernel differs from the eager reference: " + "; ".join(bad)
        return res
    except Exception as e:  # noqa: BLE001 - recorded per unit, the pipeline goes on
        return {"ok": False, "status": "error", "reason": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-3000:]}


def summarize(paths: ProblemPaths, units: list[str]) -> dict[str, Any]:
    """Per-problem record of stages 1-3 (isolate.json)."""
    baseline = json.loads(paths.baseline.read_text())
    dispatch = json.loads(paths.dispatch.read_text())
    checks = {u: json.loads(paths.isolate_check(u).read_text()) for u in units}
    failed = bool(baseline.get("failed"))
    summary = {
        "problem": paths.problem,
        "status": "error" if failed else "ok",
        "device": baseline.get("device"),
        "verdict": dispatch["verdict"],
        "reason": dispatch.get("reason"),
        "triton_share": dispatch.get("triton_share"),
        "units": len(units),
        "units_pass": sum(1 for c in checks.values() if c.get("status") == "pass"),
        "checks": {u: {"status": c.get("status"), "reason": c.get("reason")} for u, c in checks.items()},
    }
    Path(paths.isolated).write_text(json.dumps(summary, indent=2) + "\n")
    print(f"[isolated] {paths.problem}: {summary['verdict']}, {summary['units_pass']}/{summary['units']} unit(s) match their reference on all seeds", flush=True)
    return summary
