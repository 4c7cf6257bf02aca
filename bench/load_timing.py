"""The deployed model a user loads (``kernelopt.load``) against gate 4's figure (issue "15 · Use
the result"), on the GPU machine after a pipeline run:

    python3 bench/load_timing.py WORKDIR OUT.json

For every problem of the run that has a result: load it, check 5 calls against eager, and time
it the way gate 4 timed the stitched output code (the whole forward in one CUDA graph, L2
flushed, interleaved rounds against Inductor's captured output code loaded the same way), and
also as a plain eager-mode call (Python, the signature check and the launches: what a user's
loop pays without CUDA graphs).  Gate 4's figures are read from the run's result.json.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

import kernelopt
from kernelopt.core import deployed, measure, outputcode, problems
from kernelopt.core.jsonio import read_json
from kernelopt.core.records import ProblemPaths
from kernelopt.deploy import export as ex


def one(workdir: Path, pid: str) -> dict:
    paths = ProblemPaths(workdir, pid)
    res = read_json(paths.result)
    t0 = time.perf_counter()
    m = kernelopt.load(workdir, pid, fallback="eager")
    load_s = time.perf_counter() - t0
    rec = read_json(paths.capture_record)
    prob = problems.load(rec["path"])
    eager = problems.build_model(prob, "cuda", rec["seed"])
    errs = []
    with torch.no_grad():
        for s in range(5):
            x = problems.make_inputs(prob, "cuda", 500 + s)
            errs.append((m(*x) - eager(*x)).abs().max().item())
        x = problems.make_inputs(prob, "cuda", 0)
        # Inductor's captured output code, loaded the same way, as gate 4's baseline
        _, base_model, _ = ex._model(paths)
        spec, _ = ex.spec_of(paths, base_model, prob)
        spec["kernels"] = sorted(outputcode.parse(paths.output_code.read_text()).kernels)
        base = deployed.deploy(base_model, spec, str(paths.output_code), ex._tensors(paths, "cuda"), "eager")
        fa, fb = measure.graphed(lambda: base(*x), "cuda"), measure.graphed(lambda: m(*x), "cuda")
        graphed = measure.compare(fa, fb, "cuda")
        plain = measure.compare(lambda: base(*x), lambda: m(*x), "cuda")
    return {
        "problem": pid,
        "category": res.get("category"),
        "deployed": m.kernelopt_info["deployed"]["kind"],
        "load_s": round(load_s, 2),
        "max_abs_err_vs_eager_5_calls": max(errs),
        "stats": m.kernelopt_stats,
        "gate4_baseline_ms": res.get("baseline_ms"),
        "gate4_final_ms": res.get("final_ms"),
        "gate4_speedup": res.get("speedup_vs_compiled")
        if res.get("category") == "optimized"
        else res.get("measured_speedup"),
        "loaded_graphed_ms": graphed.b_ms,
        "inductor_graphed_ms": graphed.a_ms,
        # speedup = 1 / (median over rounds of loaded / Inductor), its 95% CI from the rounds
        "loaded_graphed_speedup": graphed.speedup,
        "loaded_graphed_speedup_ci": [1 / graphed.ci_high, 1 / graphed.ci_low],
        "loaded_plain_ms": plain.b_ms,
        "inductor_plain_ms": plain.a_ms,
        "loaded_plain_speedup": plain.speedup,
    }


def main() -> None:
    workdir, out = Path(sys.argv[1]), Path(sys.argv[2])
    rows = []
    for r in sorted(workdir.glob("*/result.json")):
        try:
            rows.append(one(workdir, r.parent.name))
        except Exception as e:  # noqa: BLE001 - a bench row says what failed
            rows.append({"problem": r.parent.name, "error": f"{type(e).__name__}: {e}"})
        print(json.dumps(rows[-1]), flush=True)
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    out.write_text(json.dumps({**meta, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
