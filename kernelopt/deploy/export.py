"""From a run directory to the deployed model: what is deployed for a problem, its call
signature, and the module (``load``) or a self-contained directory (``export``).

What is deployed follows the problem's result: the stitched output code of the attempt that
passed every gate when the problem is ``optimized``; Inductor's captured output code otherwise
(``matched``, ``fallback``: the baseline is kept).  A problem whose captured output code cannot
stand in for the model (several graphs, outputs not matched) deploys ``torch.compile``'s model.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..core import deployed, outputcode, problems
from ..core.errors import KerneloptError
from ..core.jsonio import write_json
from ..core.records import Capture, Category, ExportPaths, ProblemPaths, Result


class NotDeployable(KerneloptError):
    """The run holds no model to load for this problem (it failed, or has not finished)."""


def _result(paths: ProblemPaths) -> Result:
    if not paths.root.is_dir():
        found = paths.workdir.iterdir() if paths.workdir.is_dir() else []
        known = sorted(p.name for p in found if (p / "capture").is_dir())
        raise NotDeployable(f"{paths.root} does not exist; problems in {paths.workdir}: {', '.join(known) or 'none'}")
    if not paths.result.exists():
        raise NotDeployable(f"{paths.result} does not exist: the run has not finished this problem (rerun it)")
    res = Result.load(paths.result)
    if res.category == Category.ERROR:
        raise NotDeployable(f"{paths.problem} ended as an error, nothing to deploy: {res.reason}")
    return res


def deployed_code(paths: ProblemPaths, res: Result, record: Capture) -> tuple[str, Path | None]:
    """(kind, output code): ``stitched`` (the attempt that passed every gate), ``inductor`` (the
    captured baseline) or ``compile`` (no output code stands in for the model: None)."""
    if not record.stitchable:
        return "compile", None
    if res.optimized:
        return "stitched", paths.attempt(int(res.stitched_attempt)).output_code
    return "inductor", paths.output_code


def _device_name(device: str) -> str:
    import torch

    return str(torch.device(device, torch.cuda.current_device())) if device == "cuda" else device


def input_signature(problem: problems.Problem, device: str, seed: int) -> list[list[Any]]:
    """The inputs' signature at capture: ``get_inputs()`` run on ``meta`` (no memory), else drawn."""
    import torch

    try:
        torch.manual_seed(seed)
        with torch.device("meta"):
            inputs = list(problem.module.get_inputs())
    except Exception:  # noqa: BLE001 - code that cannot run on meta is drawn for real
        inputs = problems.make_inputs(problem, device, seed)
    sig = [deployed.signature_of(x) for x in inputs]
    for s in sig:
        if s[0] == "tensor":
            s[4] = _device_name(device)
            s[6] = True  # get_inputs' fresh tensors are allocated aligned
    return sig


def spec_of(paths: ProblemPaths, model: Any, problem: problems.Problem) -> tuple[dict[str, Any], Path | None]:
    """The manifest of the deployed model (without file names) and its output code."""
    record = Capture.load(paths.capture_record)
    res = _result(paths)
    kind, code = deployed_code(paths, res, record)
    device = record.device
    g0 = record.graphs[0]
    params = dict(model.named_parameters())
    params.update(dict(model.named_buffers()))
    used = [m["ref"] for m in g0.get("call_args") or [] if m["source"] == "param"]
    spec = {
        "schema": deployed.MANIFEST_SCHEMA,
        "problem": paths.problem,
        "device": device,
        "seed": record.seed,
        "mode": record.mode,
        "deployed": {
            "kind": kind,
            "why": {
                "stitched": "optimized: the stitched attempt that passed gates 1-4",
                "inductor": f"{res.category}: Inductor's output code (the baseline is kept)",
                "compile": "the captured output code cannot stand in for the model: torch.compile's model",
            }[kind],
        },
        "result": {
            k: getattr(res, k) for k in ("category", "reason", "speedup_vs_compiled", "baseline_ms", "final_ms")
        },
        "signature": {
            "inputs": input_signature(problem, device, record.seed),
            "params": {n: deployed.signature_of(params[n].detach()) for n in used},
        },
        "call_args": g0.get("call_args") or [],
        "out_idx": g0["standalone"].get("outputs") or [],
        "output_structure": record.output_structure,
        "kernels": sorted(outputcode.parse(code.read_text(), code).kernels) if code else [],
        "configs": deployed.recorded_configs(g0["standalone"].get("launches") or []) if code else {},
    }
    return spec, code


def _tensors(paths: ProblemPaths, device: str) -> dict[str, dict[str, Any]]:
    import torch

    out: dict[str, dict[str, Any]] = {}
    const = paths.graph_constants(0)
    out["constants"] = torch.load(const, map_location=device) if const.exists() else {}
    saved = torch.load(paths.saved_call_args, map_location=device) if paths.saved_call_args.exists() else {}
    out["saved"] = {k.split(".", 1)[1]: v for k, v in saved.items() if k.startswith("g0.")}
    return out


def _model(paths: ProblemPaths) -> tuple[problems.Problem, Any, Capture]:
    """The problem's model rebuilt as at capture (the same seed; the fingerprint proves it)."""
    record = Capture.load(paths.capture_record)
    problem = problems.load(record.path)
    device = record.device
    if device == "cpu":
        from ..core import cpu_mode

        cpu_mode.install()
    model = problems.build_model(problem, device, record.seed)
    if problems.param_fingerprint(model) != record.param_fingerprint:
        raise NotDeployable(
            f"{record.path}: the model rebuilt on seed {record.seed} has other parameters than at capture "
            "(Model.__init__ must be deterministic under torch.manual_seed, and the file unchanged since the run)"
        )
    return problem, model, record


def load(run_dir: str | Path, problem_id: str, fallback: str = "compile") -> Any:
    """The deployed model of ``problem_id`` in the run directory ``run_dir`` (docs/use.md)."""
    paths = ProblemPaths(Path(run_dir), problem_id)
    _result(paths)
    problem, model, record = _model(paths)
    spec, code = spec_of(paths, model, problem)
    return deployed.deploy(model, spec, str(code) if code else None, _tensors(paths, record.device), fallback)


def export(problem_dir: str | Path, out: str | Path) -> Path:
    """Write the deployed model of the problem in ``problem_dir`` (``<workdir>/<problem>``) to
    ``out``: output code (and stitched kernels), the problem's source, its parameters, the
    signature, the gate records and a loader; it loads without the run directory."""
    import torch

    paths = ProblemPaths.of(Path(problem_dir).resolve())
    _result(paths)
    problem, model, record = _model(paths)
    spec, code = spec_of(paths, model, problem)
    ex = ExportPaths(Path(out))
    if ex.dir.exists() and any(ex.dir.iterdir()):
        raise NotDeployable(f"{ex.dir} exists and is not empty; export writes a new directory")
    ex.dir.mkdir(parents=True, exist_ok=True)
    files: dict[str, str | None] = {"problem": ex.problem.name, "state_dict": ex.state_dict.name, "output_code": None}
    shutil.copyfile(problem.path, ex.problem)
    torch.save(model.state_dict(), ex.state_dict)
    if code is not None:
        shutil.copyfile(code, ex.output_code)
        files["output_code"] = ex.output_code.name
        if (code.parent / ex.candidates.name).is_dir():
            shutil.copytree(code.parent / ex.candidates.name, ex.candidates)
    for key, path in (("constants", ex.constants), ("saved", ex.saved_call_args)):
        tensors = _tensors(paths, "cpu")[key]
        if tensors:
            torch.save(tensors, path)
            files[key] = path.name
    _copy_records(paths, spec, ex)
    shutil.copyfile(deployed.__file__, ex.loader)
    write_json(ex.manifest, {**spec, "files": files})
    ex.readme.write_text(_readme(spec, ex))
    return ex.dir


def _copy_records(paths: ProblemPaths, spec: dict[str, Any], ex: ExportPaths) -> None:
    ex.records.mkdir()
    wanted = [paths.capture_record, paths.dispatch, paths.result, paths.baseline]
    if spec["deployed"]["kind"] == "stitched":
        attempt = paths.attempt(int(Result.load(paths.result).stitched_attempt))
        wanted += [attempt.plan, attempt.gate(3), attempt.gate(4)]
    for f in wanted:
        if f.exists():
            shutil.copyfile(f, ex.records / f.name)


def _readme(spec: dict[str, Any], ex: ExportPaths) -> str:
    return (
        f"# {spec['problem']}: the model kernelopt deployed\n\n"
        f"Deployed: {spec['deployed']['kind']} ({spec['deployed']['why']}).\n\n"
        "```python\n"
        "import sys\n"
        f"sys.path.insert(0, {str(ex.dir.resolve())!r})\n"
        "import loader\n\n"
        f"model = loader.load({str(ex.dir.resolve())!r})  # torch.nn.Module, the problem's Model\n"
        "out = model(*inputs)  # the deployed output code when the call matches the captured signature\n"
        "```\n\n"
        f"`{ex.manifest.name}` holds the signature; `records/` the run's records of the problem.\n"
    )
