"""Stage 1, capture: compile the problem once with max-autotune and save everything
later stages need, so that nothing downstream ever recompiles.

Artifacts (DESIGN.md §3, ``<workdir>/<problem>/capture/``):
  output_code.py          the wrapper module Inductor wrote (graph 0; more graphs: _g<k>)
  fx_graph_post_grad*.py  the post-grad FX graph each wrapper was lowered from
  kernels/<name>.py       each Triton kernel's source; kernels/<name>.reference.py its
                          eager reference cut from the FX graph (see fxref.py)
  capture.json            call-argument map, kernel <-> buffer maps, every launch
  profile.json            per-launch-site device time (classify's input)
  baseline.json           eager and compiled times, compile seconds, environment
"""
from __future__ import annotations

import json
import time
import traceback
from pathlib import Path
from typing import Any

from . import fxref, gpulock, measure, outputcode, problems, runtime
from .errors import ProblemError
from .hooks import CompileHooks, GraphCapture, KernelSite
from .instrument import LaunchRecorder, SiteTimer, instrumented
from .paths import ProblemPaths


def _json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
    tmp.replace(path)


def _flatten(out: Any) -> list[Any]:
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, dict):
        return [t for v in out.values() for t in _flatten(v)]
    return []


def _max_abs(a: list[Any], b: list[Any]) -> float:
    if len(a) != len(b):
        return float("inf")
    worst = 0.0
    for x, y in zip(a, b):
        if x.shape != y.shape:
            return float("inf")
        d = (x.double() - y.double()).abs()
        d = d[~(x.isnan() & y.isnan())] if x.is_floating_point() else d
        worst = max(worst, float(d.max()) if d.numel() else 0.0)
    return worst


# --------------------------------------------------------------------------- call args
def map_call_args(call_args: list[Any], model: Any, inputs: list[Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Say where each argument of ``call`` comes from: a parameter/buffer, an input, or a saved tensor."""
    import torch

    def key(t: torch.Tensor) -> tuple:
        return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype, t.storage_offset())

    known: dict[tuple, tuple[str, Any]] = {}
    for i, t in enumerate(inputs):
        if isinstance(t, torch.Tensor):
            known.setdefault(key(t), ("input", i))
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        known.setdefault(key(t), ("param", name))
    mapping: list[dict[str, Any]] = []
    saved: dict[str, Any] = {}
    for i, a in enumerate(call_args):
        if isinstance(a, torch.Tensor):
            hit = known.get(key(a))
            if hit:
                mapping.append({"source": hit[0], "ref": hit[1]})
            else:
                name = f"call_arg_{i}"
                saved[name] = a.detach().cpu()
                mapping.append({"source": "saved", "ref": name})
        else:
            mapping.append({"source": "scalar", "value": a if isinstance(a, (int, float, bool)) else repr(a)})
    return mapping, saved


def build_call_args(mapping: list[dict[str, Any]], model: Any, inputs: list[Any], saved: dict[str, Any], device: str) -> list[Any]:
    params = dict(model.named_parameters())
    params.update(dict(model.named_buffers()))
    out: list[Any] = []
    for m in mapping:
        src = m["source"]
        if src == "input":
            out.append(inputs[m["ref"]])
        elif src == "param":
            out.append(params[m["ref"]].detach())
        elif src == "saved":
            out.append(saved[m["ref"]].to(device))
        else:
            out.append(m["value"])
    return out


def match_outputs(model_outs: list[Any], call_outs: list[Any]) -> list[int | None]:
    """For each model output, the index of the wrapper output holding the same values
    (bitwise first; else within 1e-5, for kernels with nondeterministic accumulation; else,
    when exactly one wrapper output has that shape and dtype, that one if within 1e-3: the
    fresh import re-autotunes, and a reduction run with another block size sums in another
    order: a row sum over 16384 elements differs by ~1e-4 between configs)."""
    import torch

    res: list[int | None] = []
    for mo in model_outs:
        cands = [j for j, co in enumerate(call_outs) if isinstance(co, torch.Tensor) and co.shape == mo.shape and co.dtype == mo.dtype]
        hit = next((j for j in cands if torch.equal(call_outs[j].nan_to_num(0.5), mo.nan_to_num(0.5))), None)
        if hit is None:
            hit = next((j for j in cands if torch.allclose(call_outs[j], mo, rtol=1e-5, atol=1e-5, equal_nan=True)), None)
        if hit is None and len(cands) == 1 and mo.is_floating_point() and torch.allclose(call_outs[cands[0]], mo, rtol=1e-3, atol=1e-3, equal_nan=True):
            hit = cands[0]
        res.append(hit)
    return res


# --------------------------------------------------------------------------- references
def kernel_reference(cap: GraphCapture, site: KernelSite) -> tuple[fxref.ReferenceCode, dict[str, Any]]:
    """Map the kernel's argument buffers to FX nodes and cut the subgraph between them.

    Returns the reference and notes: ``write_only`` lists in-place arguments whose
    incoming buffer the kernel computes itself (reused memory, never read), and
    ``layout_copy`` is set when the output is a re-laid-out copy of the single input
    (Inductor's stride conversions for extern kernels have no FX node of their own).
    """
    if cap.gm is None:
        raise fxref.ReferenceUnavailable("the post-grad graph was not captured")
    nodes = {n.name: n for n in cap.gm.graph.nodes}
    computed = set(site.computed)

    def node_of(buf: str) -> Any:
        name = buf if buf in nodes and nodes[buf].op == "placeholder" else cap.buffer_origin.get(buf)
        if name is None or name not in nodes:
            raise fxref.ReferenceUnavailable(f"buffer {buf} has no origin FX node")
        return nodes[name]

    inputs: dict[str, Any] = {}
    out_bufs: dict[str, str] = {}
    notes: dict[str, Any] = {"write_only": [], "layout_copy": False}
    unmapped: list[str] = []
    for inner in site.argdefs:
        if inner in site.inplace:
            bufs = site.inplace[inner]
            if bufs[0] in computed:
                notes["write_only"].append(inner)
            else:
                try:
                    inputs[inner] = node_of(bufs[0])
                except fxref.ReferenceUnavailable:
                    unmapped.append(bufs[0])
            out_bufs[inner] = bufs[-1]
    for outer, inner in site.inputs.items():
        if inner not in site.inplace:
            try:
                inputs[inner] = node_of(outer)
            except fxref.ReferenceUnavailable:
                unmapped.append(outer)
    for outer, inner in site.outputs.items():
        if inner not in site.inplace:
            out_bufs[inner] = outer
    outputs: dict[str, Any] = {}
    for inner, buf in out_bufs.items():
        try:
            outputs[inner] = node_of(buf)
        except fxref.ReferenceUnavailable:
            only = next(iter(inputs.values())) if len(inputs) == 1 else None
            if only is not None and len(out_bufs) == 1 and not unmapped and cap.buffer_numel.get(buf) == fxref.numel(only):
                outputs[inner] = only  # same values in another layout (e.g. channels-last for a conv)
                notes["layout_copy"] = True
            else:
                raise fxref.ReferenceUnavailable(f"output buffer {buf} holds no FX node's value (e.g. the partial sums of a split reduction)") from None
    if unmapped:
        notes["graph_level_because"] = f"input buffer(s) {', '.join(unmapped)} hold no FX node's value"
        return fxref.build(cap.gm, None, outputs), notes
    return fxref.build(cap.gm, inputs, outputs), notes


# --------------------------------------------------------------------------- profiling
def profile_sites(call: Any, mod: Any, oc: outputcode.OutputCode, device: str, reps: int) -> dict[str, Any]:
    """Time per launch site of the standalone wrapper (ms per call)."""
    timer = SiteTimer(device)
    with instrumented(mod, oc, timer):
        call()  # warm
        runtime.sync(device)
        timer.cpu_ms.clear()
        if device == "cuda":
            import torch
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(reps):
                    call()
                torch.cuda.synchronize()
            site_ms: dict[int, float] = {}
            kernel_ms: dict[str, float] = {}
            for evt in prof.key_averages():
                dev_us = float(getattr(evt, "device_time_total", 0.0) or getattr(evt, "cuda_time_total", 0.0) or 0.0)
                if evt.key.startswith("ko_site:"):
                    site_ms[int(evt.key.split(":")[1])] = dev_us / 1e3 / reps
            for evt in prof.events():
                if str(getattr(evt, "device_type", "")).endswith("CUDA"):
                    kernel_ms[evt.name] = kernel_ms.get(evt.name, 0.0) + float(evt.device_time) / 1e3 / reps
            total = sum(kernel_ms.values())
            method = "torch.profiler device time per wrapper launch site (record_function ranges)"
        else:
            for _ in range(reps):
                call()
            site_ms = {k: v / reps for k, v in timer.cpu_ms.items()}
            kernel_ms = {}
            total = sum(site_ms.values())
            method = "wall time per launch site on CPU (Triton interpreter; not meaningful for GPU)"
    return {"method": method, "site_ms": {str(k): v for k, v in sorted(site_ms.items())}, "device_kernels_ms": kernel_ms, "total_ms": total, "reps": reps}


def profile_compiled(fn: Any, oc_kernels: set[str], device: str, reps: int) -> dict[str, Any]:
    """Device time of the real compiled model (with its CUDA graphs): Triton vs copies vs rest."""
    if device != "cuda":
        return {"method": "skipped on CPU", "total_ms": None}
    import torch
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    by_name: dict[str, float] = {}
    for evt in prof.events():
        if str(getattr(evt, "device_type", "")).endswith("CUDA"):
            by_name[evt.name] = by_name.get(evt.name, 0.0) + float(evt.device_time) / 1e3 / reps
    triton = sum(v for k, v in by_name.items() if k in oc_kernels)
    copies = sum(v for k, v in by_name.items() if k not in oc_kernels and ("memcpy" in k.lower() or "copy" in k.lower() or "memset" in k.lower()))
    total = sum(by_name.values())
    return {
        "method": "torch.profiler over the torch.compile'd model as torch runs it (CUDA-graph trees)",
        "total_ms": total,
        "triton_ms": triton,
        "copy_ms": copies,
        "other_ms": total - triton - copies,
        "device_kernels_ms": dict(sorted(by_name.items(), key=lambda kv: -kv[1])),
        "reps": reps,
    }


# --------------------------------------------------------------------------- main
def run(problem_path: Path, paths: ProblemPaths, cfg: dict[str, Any]) -> dict[str, Any]:
    """Capture one problem.  Raises ProblemError for faults in the problem itself."""
    device = runtime.prepare(cfg["device"], paths.cache, fresh=True)
    import torch

    ccfg = cfg["capture"]
    seed = int(cfg["seed"])
    paths.capture.mkdir(parents=True, exist_ok=True)
    problem = problems.load(problem_path)
    model = problems.build_model(problem, device, seed)
    inputs = problems.make_inputs(problem, device, seed)
    fingerprint = problems.param_fingerprint(model)
    print(f"[capture] {paths.problem}: device={device}, {sum(p.numel() for p in model.parameters())} parameters", flush=True)

    with torch.no_grad():
        try:
            eager_out = model(*inputs)
        except Exception as e:  # noqa: BLE001
            raise ProblemError(str(problem_path), "forward", f"eager forward crashed: {type(e).__name__}: {e}\n{''.join(traceback.format_exception(e)[-3:])}") from e
        runtime.sync(device)
        with gpulock.exclusive(device, f"eager timing {paths.problem}"):
            eager_t = measure.time_one(lambda: model(*inputs), device, measure.for_device(cfg, device))

        # The compile holds the GPU lock shared: it is minutes of CPU work (codegen,
        # precompiling template choices) around short autotuning benchmarks, so compiles may
        # overlap one another, but no measurement (exclusive) runs while one autotunes.
        hooks = CompileHooks()
        with hooks.active(), gpulock.shared(device, f"compile {paths.problem}"):
            compiled = torch.compile(model, mode=ccfg["mode"])
            t0 = time.perf_counter()
            try:
                # clone: CUDA-graph trees may reuse output memory on later calls
                compiled_out = [t.clone() for t in _flatten(compiled(*inputs))]
                runtime.sync(device)
            except Exception as e:  # noqa: BLE001
                raise ProblemError(str(problem_path), "compile", f"torch.compile(mode={ccfg['mode']!r}) failed: {type(e).__name__}: {str(e)[:2000]}") from e
            compile_s = time.perf_counter() - t0
        print(f"[capture] compiled in {compile_s:.1f} s, {len(hooks.graphs)} graph(s)", flush=True)
        compiled_vs_eager = _max_abs(compiled_out, _flatten(eager_out))
        with gpulock.exclusive(device, f"compiled timing {paths.problem}"):
            compiled_t = measure.time_one(lambda: compiled(*inputs), device, measure.for_device(cfg, device))

    if not hooks.graphs:
        raise ProblemError(str(problem_path), "compile", "torch.compile produced no Inductor graph (the forward has no tensor work, or Dynamo fell back to eager)")

    graphs_rec: list[dict[str, Any]] = []
    saved_all: dict[str, Any] = {}
    all_kernels: set[str] = set()
    paths.kernels_dir.mkdir(parents=True, exist_ok=True)
    for cap in hooks.graphs:
        g = cap.index
        out_path = paths.graph_output_code(g)
        source = Path(cap.path).read_text() if cap.path else ""
        out_path.write_text(source)
        if cap.gm is not None:
            (paths.capture / (f"fx_graph_post_grad.py" if g == 0 else f"fx_graph_post_grad_g{g}.py")).write_text(
                cap.gm.print_readable(print_output=False) if hasattr(cap.gm, "print_readable") else str(cap.gm.graph)
            )
        oc = outputcode.parse(source, out_path)
        kernels: dict[str, Any] = {}
        for name, kd in oc.kernels.items():
            all_kernels.add(name)
            stem = name if g == 0 else f"g{g}_{name}"
            (paths.kernels_dir / f"{stem}.py").write_text(kd.source.lstrip("\n"))
            sites = cap.kernel_sites.get(name, [])
            entry: dict[str, Any] = {"heuristic": kd.heuristic, "source": f"kernels/{stem}.py", "sites": [s.__dict__ for s in sites]}
            if sites:
                try:
                    ref, notes = kernel_reference(cap, sites[0])
                    (paths.kernels_dir / f"{stem}.reference.py").write_text(fxref.render(stem, ref))
                    if ref.constants:
                        torch.save({k: v.detach().cpu() for k, v in ref.constants.items()}, paths.kernels_dir / f"{stem}.reference_constants.pt")
                    entry["reference"] = {
                        "file": f"kernels/{stem}.reference.py",
                        "inputs": ref.input_nodes,
                        "outputs": ref.output_nodes,
                        "aten_ops": ref.aten_ops,
                        **notes,
                    }
                except fxref.ReferenceUnavailable as e:
                    entry["reference"] = {"error": str(e)}
            else:
                entry["reference"] = {"error": "define_kernel hook did not see this kernel"}
            kernels[name] = entry

        rec: dict[str, Any] = {
            "index": g,
            "output_code": out_path.name,
            "aot_id": oc.aot_id,
            "graph_inputs": cap.graph_inputs,
            "codegen_s": cap.codegen_s,
            "kernels": kernels,
            "constants": sorted(cap.constants),
            "sites": [s.to_dict() for s in oc.sites],
        }
        if cap.constants:
            torch.save({k: v.detach().cpu() for k, v in cap.constants.items() if isinstance(v, torch.Tensor)}, paths.capture / f"constants_g{g}.pt")
        if cap.call_args is None:
            rec["call_args"] = None
            rec["standalone"] = {"ok": False, "reason": "the wrapper's call() was never invoked"}
        else:
            mapping, saved = map_call_args(cap.call_args, model, inputs)
            rec["call_args"] = mapping
            saved_all.update({f"g{g}.{k}": v for k, v in saved.items()})
            rec["standalone"] = _standalone_check(out_path, oc, cap, mapping, saved, model, inputs, compiled_out, device, ccfg, len(hooks.graphs))
        graphs_rec.append(rec)

    if saved_all:
        torch.save(saved_all, paths.capture / "call_args_saved.pt")
    profile = {"graphs": [r.get("standalone", {}).pop("profile", None) for r in graphs_rec]}
    with torch.no_grad(), gpulock.exclusive(device, f"profile {paths.problem}"):
        profile["compiled"] = profile_compiled(lambda: compiled(*inputs), all_kernels, device, ccfg["profile_reps"])
    _json(paths.profile, profile)

    capture_rec = {
        "problem": paths.problem,
        "path": str(problem_path),
        "device": device,
        "seed": seed,
        "mode": ccfg["mode"],
        "param_fingerprint": fingerprint,
        "graphs": graphs_rec,
        "hook_errors": hooks.errors,
        "stitchable": len(graphs_rec) == 1 and bool(graphs_rec[0].get("standalone", {}).get("ok")),
    }
    _json(paths.capture_record, capture_rec)
    baseline = {
        "problem": paths.problem,
        "device": device,
        "mode": ccfg["mode"],
        "compile_s": compile_s,
        "graphs": len(graphs_rec),
        "eager": eager_t,
        "compiled": compiled_t,
        "speedup_compiled_vs_eager": eager_t["median_ms"] / compiled_t["median_ms"] if compiled_t["median_ms"] > 0 else None,
        "compiled_vs_eager_max_abs": compiled_vs_eager,
        "environment": runtime.environment(device),
        "inductor_config": _inductor_config(device),
    }
    _json(paths.baseline, baseline)
    print(f"[capture] eager {eager_t['median_ms']:.4f} ms, compiled {compiled_t['median_ms']:.4f} ms ({'meaningful' if eager_t['meaningful'] else 'CPU mode: not meaningful'})", flush=True)
    return baseline


def _inductor_config(device: str) -> dict[str, Any]:
    import torch._inductor as ind

    out = dict(ind.list_mode_options("max-autotune"))
    if device == "cpu":
        from . import cpu_mode

        out.update(cpu_mode.inductor_config())
    return {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)) for k, v in out.items()}


def _standalone_check(
    out_path: Path, oc: outputcode.OutputCode, cap: GraphCapture, mapping: list[dict[str, Any]], saved: dict[str, Any],
    model: Any, inputs: list[Any], compiled_out: Any, device: str, ccfg: dict[str, Any], n_graphs: int,
) -> dict[str, Any]:
    """Import the saved wrapper in this process, run it with the real arguments, and record
    every launch.  Proves the file on disk is a runnable copy of what the compile produced."""
    import torch

    try:
        mod = outputcode.load(out_path, cap.constants)
        args = build_call_args(mapping, model, inputs, saved, device)
        recorder = LaunchRecorder()
        with torch.no_grad(), gpulock.exclusive(device, "standalone run"), instrumented(mod, oc, recorder):
            outs = mod.call(list(args))
        runtime.sync(device)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        result: dict[str, Any] = {
            "ok": True,
            "launches": [l.__dict__ for l in recorder.launches],
            "externs": recorder.externs,
        }
        if n_graphs == 1:
            model_outs = _flatten(compiled_out)
            out_map = match_outputs(model_outs, outs)
            result["outputs"] = out_map
            if any(o is None for o in out_map):
                result["ok"] = False
                result["reason"] = "a model output could not be found among the standalone wrapper's outputs"
        with torch.no_grad(), gpulock.exclusive(device, "site profile"):
            result["profile"] = profile_sites(lambda: mod.call(list(args)), mod, oc, device, ccfg["profile_reps"])
        return result
    except Exception as e:  # noqa: BLE001 - recorded; classify/isolate report it
        return {"ok": False, "reason": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-2000:]}


def run_or_record_failure(problem_path: Path, paths: ProblemPaths, cfg: dict[str, Any]) -> dict[str, Any]:
    """``run``, but a fault of the problem itself (import, build, forward, compile) is recorded
    in every capture output (and so, later, in result.json) instead of failing the job, so downstream
    stages pass it through and the report names it; the other problems go on."""
    try:
        return run(problem_path, paths, cfg)
    except ProblemError as e:
        message = str(e)
        print(f"[capture] {paths.problem}: FAILED at {e.stage}: {message}", flush=True)
        failure = {"problem": paths.problem, "path": str(problem_path), "failed": True, "stage": e.stage, "error": message}
        paths.capture.mkdir(parents=True, exist_ok=True)
        for p in (paths.capture_record, paths.profile, paths.baseline):
            _json(p, failure)
        paths.output_code.write_text(f"# capture failed: {message.splitlines()[0]}\n")
        return failure
