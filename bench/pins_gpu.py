"""Does the baseline stay the kernel the capture recorded?  Per captured problem of a run
directory, on the GPU machine (repo on PYTHONPATH):

  python3 bench/pins_gpu.py RUN_DIR OUT.json [PROBLEM ...]

For each problem: the config each Inductor kernel ran with at capture, and its captured wrapper
loaded four ways and timed as gate 4 times it (one CUDA graph, L2 flushed, ``measure.time_graphed``):
unpinned (Inductor autotunes at the first call, as every gate did before pins worked on the GPU),
pinned (``deployed.pin_configs``: what the gates and the deployed model run now), and each of
the kernel's precompiled configs alone (for problems of one Triton kernel).  What the wrapper's
kernel objects hold after the import (``configs``, ``launchers``) is recorded too: pins that
looked only at ``configs`` found nothing to pin on the GPU (bench/README.md, "Pinned baselines").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _kernel_state(mod: Any, names: list[str]) -> dict[str, Any]:
    from kernelopt.core.instrument import config_dict

    out = {}
    for name in names:
        obj = getattr(mod, name, None)
        launchers = list(getattr(obj, "launchers", None) or [])
        configs = getattr(obj, "configs", None)
        out[name] = {
            "type": type(obj).__name__,
            "configs": None if configs is None else [config_dict(c) for c in configs],
            "launchers": [config_dict(launcher.config) for launcher in launchers],
        }
    return out


def probe(run_dir: Path, problem: str) -> dict[str, Any]:
    import torch

    from kernelopt.core import deployed, measure, outputcode
    from kernelopt.core.records import ProblemPaths
    from kernelopt.runner.harness import ProblemRuntime

    paths = ProblemPaths(run_dir, problem)
    rt = ProblemRuntime(paths, "cuda", 0)
    grec = rt.record.graphs[0]
    launches = grec["standalone"]["launches"]
    recorded = deployed.recorded_configs(launches)
    oc = outputcode.parse(paths.output_code.read_text(), paths.output_code)
    names = list(oc.kernels)
    args = rt.call_args(0, rt.record.seed)
    proto = measure.Protocol(rounds=5, reps=20, warmup=3, flush_l2=True)

    def timed(mod: Any) -> float:
        return round(measure.time_graphed(lambda: mod.call(list(args)), "cuda", proto)["median_ms"], 4)

    out: dict[str, Any] = {"recorded": recorded}
    mod = rt.load_wrapper(0, paths.output_code)
    out["after_import"] = _kernel_state(mod, names)
    out["unpinned_ms"] = timed(mod)
    out["unpinned_chose"] = _kernel_state(mod, names)
    mod = rt.load_wrapper(0, paths.output_code)
    out["pins"] = deployed.pin_configs(mod, names, recorded)
    out["pinned_ms"] = timed(mod)
    out["pinned_ran"] = _kernel_state(mod, names)
    triton_kernels = [n for n in names if out["after_import"][n]["launchers"]]
    if len(triton_kernels) == 1:
        (name,) = triton_kernels
        each = []
        for cfg in out["after_import"][name]["launchers"]:
            mod = rt.load_wrapper(0, paths.output_code)
            status = deployed.pin_configs(mod, [name], {name: cfg})[name]
            each.append({"config": cfg, "pin": status, "ms": timed(mod)})
        out["each_config"] = each
    del mod
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return out


def main() -> None:
    run_dir, out_path = Path(sys.argv[1]), Path(sys.argv[2])
    problems = sys.argv[3:] or sorted(p.name for p in run_dir.iterdir() if (p / "capture" / "capture.json").exists())
    result = json.loads(out_path.read_text()) if out_path.exists() else {}
    for problem in problems:
        if problem in result:
            continue
        try:
            result[problem] = probe(run_dir, problem)
        except Exception as e:  # noqa: BLE001 - one problem's failure is a row, not the end
            result[problem] = {"error": f"{type(e).__name__}: {str(e)[:500]}"}
        r = result[problem]
        print(problem, r.get("pins"), r.get("unpinned_ms"), r.get("pinned_ms"), r.get("error", ""), flush=True)
        out_path.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
