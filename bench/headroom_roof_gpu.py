"""Where Inductor stands on problems/headroom/ (issue 13), measured on the GPU: for each problem at
its full size, eager and torch.compile times (CUDA events, median of repeated calls after warm-up),
the bytes the model must move at least (its inputs read once, its output written once), the copy
roof that makes (PEAK_GBS), and what Inductor generated (Triton kernels, library calls).

    python3 bench/headroom_roof_gpu.py OUT.json [PROBLEM ...]    # on the GPU machine

A problem already in OUT.json is skipped, so a second device call resumes the first.

    python3 bench/headroom_roof_gpu.py --copy OUT.json    # the roof itself, on whatever card came

times a copy of 2 GiB into another 2 GiB (``copy_``) and a sum over two such tensors, each the
median of 20 CUDA-event timings after warm-up, 5 rounds, as GB/s moved: the
figure ``core/hardware.py`` declares as ``copy_gbs`` (4,300 on the H200), for the card it ran on.

    python3 bench/headroom_roof_gpu.py --pins RUN_DIR OUT.json [PROBLEM ...]   # after a run

does the baseline stay the kernel the capture recorded?  Per captured problem of a run
directory: the config each Inductor kernel ran with at capture, the kernel objects after the
wrapper's import (``configs``, ``launchers``), and the captured wrapper timed as gate 4 times it
(one CUDA graph, L2 flushed): unpinned (Inductor autotunes at the first call, as every gate did
before pins worked on the GPU), pinned (``deployed.pin_configs``: what the gates and the deployed
model run now), and, for a problem of one Triton kernel, at each config its import holds.  Pins
that looked only at ``configs`` found nothing to pin on the GPU (bench/README.md, "Pinned
baselines").  Inductor's kernel objects are shared between loads of one wrapper in a process
(its code cache): the rows are in the order they ran.  The roof
here is a lower bound on time from the problem's own inputs and output, not from Inductor's
kernels (an intermediate Inductor writes and reads again counts against it).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kernelopt.core import problems  # noqa: E402

PEAK_GBS = 4300.0
SUITE = Path(__file__).resolve().parents[1] / "problems" / "headroom"


def _time(fn, reps: int = 20) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def measure(path: Path) -> dict:
    from torch._inductor.utils import run_and_get_code

    mod = problems.load(path).module
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs()).cuda().eval()
    inputs = [t.cuda() if isinstance(t, torch.Tensor) else t for t in mod.get_inputs()]
    nbytes = sum(t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor))
    with torch.no_grad():
        out = model(*inputs)
        nbytes += out.numel() * out.element_size()
        eager_ms = _time(lambda: model(*inputs))
        torch._dynamo.reset()
        compiled = torch.compile(model)
        t0 = time.time()
        _, codes = run_and_get_code(compiled, *inputs)
        compile_s = time.time() - t0
        compiled_ms = _time(lambda: compiled(*inputs))
    code = "\n".join(codes)
    kernels = sorted(set(re.findall(r"^def (triton_\w+)\(", code, flags=re.M)))
    extern = sorted(set(re.findall(r"(extern_kernels\.\w+|aten\.\w+(?:\.\w+)?)\(", code)))
    roof_ms = nbytes / (PEAK_GBS * 1e9) * 1e3
    return {
        "problem": f"{path.parent.name}/{path.stem}",
        "bytes_min": nbytes,
        "roof_ms": round(roof_ms, 4),
        "eager_ms": round(eager_ms, 4),
        "compiled_ms": round(compiled_ms, 4),
        "compiled_roof_pct": round(100 * roof_ms / compiled_ms, 1),
        "compile_s": round(compile_s, 1),
        "triton_kernels": kernels,
        "library_calls": extern,
    }


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


def pins_probe(run_dir: Path, problem: str) -> dict[str, Any]:
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


def pins_main(argv: list[str]) -> None:
    run_dir, out_path = Path(argv[0]), Path(argv[1])
    names = argv[2:] or sorted(p.name for p in run_dir.iterdir() if (p / "capture" / "capture.json").exists())
    result = json.loads(out_path.read_text()) if out_path.exists() else {}
    for problem in names:
        if problem in result:
            continue
        try:
            result[problem] = pins_probe(run_dir, problem)
        except Exception as e:  # noqa: BLE001 - one problem's failure is a row, not the end
            result[problem] = {"error": f"{type(e).__name__}: {str(e)[:500]}"}
        r = result[problem]
        print(problem, r.get("pins"), r.get("unpinned_ms"), r.get("pinned_ms"), r.get("error", ""), flush=True)
        out_path.write_text(json.dumps(result, indent=1))


def main(argv: list[str]) -> None:
    out = Path(argv[0])
    rows = json.loads(out.read_text()) if out.exists() else []
    done = {r["problem"] for r in rows}
    order = lambda p: (p.parent.name, int(p.stem.split("_")[0]))  # noqa: E731
    paths = [Path(p) for p in argv[1:]] or sorted(SUITE.rglob("*.py"), key=order)
    for p in paths:
        name = f"{p.parent.name}/{p.stem}"
        if name in done:
            continue
        try:
            row = measure(p)
        except Exception as e:  # a problem that fails is recorded, the rest go on
            row = {"problem": name, "error": f"{type(e).__name__}: {e}"[:500]}
            torch.cuda.empty_cache()
        rows.append(row)
        out.write_text(json.dumps(rows, indent=1))
        keys = ("problem", "compiled_ms", "eager_ms", "compiled_roof_pct", "error")
        print(json.dumps({k: row.get(k) for k in keys}), flush=True)
        torch._dynamo.reset()
        torch.cuda.empty_cache()


def copy_main(argv: list[str]) -> None:
    x = torch.randn(2**29, device="cuda")
    y, z = torch.empty_like(x), torch.randn_like(x)
    gb = 2 * x.numel() * x.element_size() / 1e9
    rounds = [(gb / _time(lambda: y.copy_(x)), gb / _time(lambda: (x.sum(), z.sum()))) for _ in range(5)]
    row = {
        "device": torch.cuda.get_device_name(),
        "bytes_moved": int(gb * 1e9),
        "copy_gbs": [round(c * 1e3) for c, _ in rounds],
        "read_two_gbs": [round(r * 1e3) for _, r in rounds],
        "method": "median of 20 CUDA-event timings after 3 warm-ups, 5 rounds; GB moved / time",
    }
    Path(argv[0]).write_text(json.dumps(row, indent=1))
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--pins"]:
        pins_main(sys.argv[2:])
    elif sys.argv[1:2] == ["--copy"]:
        copy_main(sys.argv[2:])
    else:
        main(sys.argv[1:])
