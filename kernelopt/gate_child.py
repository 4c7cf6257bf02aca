"""Runs gate 1 or gate 2 of one candidate in a process of its own.

A wrong kernel can take its process down (an out-of-bounds access segfaults the Triton
interpreter; on the GPU an illegal address poisons the CUDA context).  The parent
(``gates.run_in_child``) turns such a death into a failed gate with rule ``crash`` instead
of a failed pipeline job.  The child holds the GPU lock (shared) itself, from its first CUDA
work on, and reports the seconds it held it to the parent.

usage: python -m kernelopt.gate_child {1|2} UNIT_DIR CANDIDATE.py OUT.json CONFIG_JSON
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    gate, unit_dir, cand, out, cfg_json = sys.argv[1:6]
    cfg = json.loads(cfg_json)
    from . import gates, gpulock, runtime
    from .harness import ProblemRuntime, UnitHarness
    from .paths import ProblemPaths

    unit_dir = Path(unit_dir)
    paths = ProblemPaths.of(unit_dir.parents[1])
    device = runtime.prepare(cfg["device"], paths.cache)
    gc = cfg["gates"]
    # the GPU is shared from the first CUDA work on (imports above do not hold it)
    with gpulock.shared(device, f"gate{gate} {unit_dir.name}"):
        h = UnitHarness(paths, unit_dir.name, ProblemRuntime(paths, device, cfg["seed"]))
        if gate == "1":
            v = gates.gate1(Path(cand), h.contract, h, gc["seeds"][0])
        else:
            v = gates.gate2(Path(cand), h, gc["seeds"], gc["rtol"], gc["atol"])
    Path(out).write_text(json.dumps({**v.to_dict(), "lock_held_s": gpulock.HELD}, default=str))


if __name__ == "__main__":
    main()
