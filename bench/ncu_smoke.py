"""NCU smoke test on the GPU machine: profile Inductor's kernel of one unit of a finished
(or partly finished) run directory exactly the way the `profile` rule does
(`kernelopt.search.profiler.run_ncu` on `python -m kernelopt.search.profile_harness`), then parse it and
print the heuristic analyst's summary.  Also times the same profile with ncu off, so the
NCU overhead is on record.

usage: python bench/ncu_smoke.py WORKDIR OUT.json [--units 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kernelopt.core import config as kconfig
from kernelopt.search import agents, profiler


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("out")
    ap.add_argument("--units", type=int, default=2)
    a = ap.parse_args()
    cfg = kconfig.validate({"device": "cuda", "workdir": a.workdir})
    units = sorted(p.parent for p in Path(a.workdir).glob("*/units/*/inductor.py"))[: a.units]
    results = []
    for u in units:
        cand = u / "inductor.py"
        names = profiler.jit_kernel_names(cand.read_text())
        cmd = [sys.executable, "-m", "kernelopt.search.profile_harness", str(u), str(cand), "--config", json.dumps(cfg)]
        t0 = time.time()
        res = profiler.run_ncu(
            cmd, "^(" + "|".join(names) + ")$", Path("/tmp") / f"{u.name}.ncu-rep", cfg["search"]["ncu_sections"]
        )
        ncu_s = time.time() - t0
        import subprocess

        t0 = time.time()
        subprocess.run(cmd, capture_output=True, timeout=300)
        plain_s = time.time() - t0
        rec = {
            "unit": str(u),
            "ok": res.get("ok"),
            "ncu_s": round(ncu_s, 2),
            "harness_without_ncu_s": round(plain_s, 2),
            "metrics": res.get("metrics"),
            "stderr": res.get("stderr"),
        }
        if res.get("ok"):
            raw = subprocess.run(
                ["ncu", "--import", res["report"], "--csv", "--page", "raw"],
                capture_output=True,
                text=True,
                timeout=300,
            )
            rec["raw_header"] = raw.stdout.splitlines()[:2]
        if res.get("metrics"):
            s = agents.backend("heuristic").summarize_profile("inductor", res["metrics"], "ncu")
            rec["summary"] = s.to_dict()
        print(json.dumps(rec, indent=1)[:3000], flush=True)
        results.append(rec)
    Path(a.out).write_text(json.dumps({"ncu": profiler.ncu_available(), "units": results}, indent=1))


if __name__ == "__main__":
    main()
