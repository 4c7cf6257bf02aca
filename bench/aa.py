"""A/A benchmark of gate 4 (docs/architecture.md, "Measurement") on a finished run directory.

For each captured problem, the same compiled model (its output_code.py) is loaded twice, as
A and as B, each replayed in its own CUDA graph exactly as gate 4 does, and compared
``--trials`` times with the full protocol (measure.compare).  Reported per problem: the
ratios, the p95 spread |ratio - 1|, gate 4's false-reject rate (A/A judged slower than
1 + perf_margin) and false-accept rate (A/A judged 'optimized').  Then B is made slower by
a redundant extra pass calibrated to ~5 % of A's time, and the rejection rate is reported.

``--load N`` (issue 12, "A warm executor"): N processes run correctness-like work on the same
GPU the whole time, each under the per-GPU lock in shared mode as gates 1-3 do
(``core/gpulock.py``), while every comparison holds the lock exclusively as gate 4 does: the
spread then says what the region-granular exclusivity leaves of the load.

usage: python bench/aa.py WORKDIR OUT.json [--trials 20] [--problems p1,p2] [--load N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from kernelopt.core import config, gpulock, measure
from kernelopt.core.records import ProblemPaths
from kernelopt.gates.model import Problem
from kernelopt.runner import sandbox
from kernelopt.runner.harness import load_wrapper


def p95(values):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(0.95 * (len(v) - 1))))] if v else None


def _load(device: str, stop) -> None:
    """Correctness-like work beside the measurements: bursts of a matmul and an elementwise
    pass (~50-200 ms each), each burst under the shared lock and finished before it is
    released, as a gates-1-3 job's calls are."""
    import random

    import torch

    a = torch.randn(4096, 4096, device=device)
    big = torch.empty(256 * 2**20 // 4, device=device)
    while not stop.is_set():
        with gpulock.shared(device, "aa load"):
            for _ in range(random.randint(5, 20)):
                a @ a
                big.mul_(1.0)
            torch.cuda.synchronize()
        time.sleep(random.uniform(0.0, 0.02))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("out")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--problems", default="")
    ap.add_argument("--slowdown", type=float, default=0.05)
    ap.add_argument("--load", type=int, default=0, help="processes running shared-lock work beside")
    a = ap.parse_args()
    cfg = config.validate({"device": "auto"})
    margin, min_speed = cfg["gates"]["perf_margin"], cfg["gates"]["optimized_min_speedup"]
    proto = measure.Protocol.from_config(cfg["measure"])
    wd = Path(a.workdir)
    names = [p for p in a.problems.split(",") if p] or sorted(
        p.name for p in wd.iterdir() if (p / "capture" / "capture.json").is_file()
    )
    out = {"protocol": proto.__dict__, "perf_margin": margin, "trials": a.trials, "load": a.load, "problems": {}}
    import multiprocessing

    import torch

    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    loaders = [ctx.Process(target=_load, args=("cuda", stop), daemon=True) for _ in range(a.load)]
    for p in loaders:
        p.start()

    def compare(fa, fb, device):
        with gpulock.exclusive(device, "aa compare"):
            return measure.compare(fa, fb, device, proto)

    for name in names:
        paths = ProblemPaths(wd, name)
        cap = json.loads(paths.capture_record.read_text())
        if cap.get("failed") or not cap.get("stitchable"):
            continue
        t0 = time.time()
        m = Problem(paths, cfg)  # the baseline loaded twice: A = m.base, B = a second load of it
        second = load_wrapper(paths, 0, paths.output_code, m.device)
        args = m.rt.call_args(0, 0)
        # gate 4's own path: both loads timed in its jailed child, `trials` times
        job, files = m.job(paths.output_code, "aa")
        job.update(kind="speed", args=args, protocol=proto.__dict__, trials=a.trials)
        outcome = sandbox.run(job, 600, cache=paths.cache, files=files)
        gate4_path = [
            measure.Comparison(**{k: v for k, v in t.items() if k in measure.Comparison.__dataclass_fields__})
            for t in (outcome.reply or {}).get("trials", [])
        ]
        with torch.no_grad():
            fa = measure.graphed(lambda: m.base.call(list(args)), m.device)
            fb = measure.graphed(lambda: second.call(list(args)), m.device)
            aa = [compare(fa, fb, m.device) for _ in range(a.trials)]
            base_ms = statistics.median(c.a_ms for c in aa)
            # a redundant pass over a buffer, sized to cost `slowdown` of the model's time
            probe = torch.empty(64 * 2**20 // 4, device=m.device)
            with gpulock.exclusive(m.device, "aa calibrate"):
                t = measure.time_one(lambda: probe.mul_(1.0), m.device, proto)["median_ms"]
            n = max(1, int(probe.numel() * a.slowdown * base_ms / t))
            extra = torch.empty(n, device=m.device)

            def slower():
                r = second.call(list(args))
                extra.mul_(1.0)
                return r

            fs = measure.graphed(slower, m.device)
            slow = [compare(fa, fs, m.device) for _ in range(a.trials)]
        ratios = [c.ratio for c in aa]
        rec = {
            "baseline_ms": base_ms,
            "aa_ratios": ratios,
            "aa_ci": [[c.ci_low, c.ci_high] for c in aa],
            "aa_spread_p95": p95([abs(r - 1) for r in ratios]),
            "aa_ci_halfwidth_median": statistics.median((c.ci_high - c.ci_low) / 2 for c in aa),
            "gate4_false_reject_rate": sum(c.ci_high > 1 + margin for c in aa) / len(aa),
            "false_optimized_rate": sum(c.ci_high < 1.0 and c.speedup > min_speed for c in aa) / len(aa),
            "slow_true_ratio_median": statistics.median(c.ratio for c in slow),
            "slow_reject_rate": sum(c.ci_high > 1 + margin for c in slow) / len(slow),
            "slow_ratios": [c.ratio for c in slow],
            "seconds": time.time() - t0,
            "config_pins": m.pins,
            "gate4_child_ratios": [c.ratio for c in gate4_path],
            "gate4_child_spread_p95": p95([abs(c.ratio - 1) for c in gate4_path]) if gate4_path else None,
            "gate4_child_false_reject_rate": (sum(c.ci_high > 1 + margin for c in gate4_path) / len(gate4_path))
            if gate4_path
            else None,
            "gate4_child_false_optimized_rate": (
                sum(c.ci_high < 1.0 and c.speedup > min_speed for c in gate4_path) / len(gate4_path)
                if gate4_path
                else None
            ),
            "gate4_child_status": outcome.status,
        }
        out["problems"][name] = rec
        print(
            f"{name:<40} base {base_ms:.4f} ms  A/A p95 spread {rec['aa_spread_p95']:.4f}  "
            f"false-reject {rec['gate4_false_reject_rate']:.2f}  "
            f"false-optimized {rec['false_optimized_rate']:.2f}  slower x{rec['slow_true_ratio_median']:.3f} "
            f"rejected {rec['slow_reject_rate']:.2f}",
            flush=True,
        )
        Path(a.out).write_text(json.dumps(out, indent=2) + "\n")
    stop.set()
    for p in loaders:
        p.join(10)
    probs = out["problems"].values()
    out["overall"] = {
        "problems": len(out["problems"]),
        "aa_spread_p95": p95([abs(r - 1) for p in probs for r in p["aa_ratios"]]),
        "gate4_false_reject_rate": statistics.mean(p["gate4_false_reject_rate"] for p in probs) if probs else None,
        "false_optimized_rate": statistics.mean(p["false_optimized_rate"] for p in probs) if probs else None,
        "slow_reject_rate": statistics.mean(p["slow_reject_rate"] for p in probs) if probs else None,
        "gate4_child_spread_p95": p95([abs(r - 1) for p in probs for r in p["gate4_child_ratios"]]),
        "gate4_child_false_reject_rate": statistics.mean(p["gate4_child_false_reject_rate"] or 0 for p in probs)
        if probs
        else None,
        "gate4_child_false_optimized_rate": (
            statistics.mean(p["gate4_child_false_optimized_rate"] or 0 for p in probs) if probs else None
        ),
        "meaningful": m.device == "cuda" if out["problems"] else None,
    }
    Path(a.out).write_text(json.dumps(out, indent=2) + "\n")
    print("overall", json.dumps(out["overall"]))


if __name__ == "__main__":
    main()
