"""The process NCU profiles: launches one candidate of one unit a few times, nothing else.

usage: python -m kernelopt.search.profile_harness UNIT_DIR CANDIDATE.py --config JSON [--launches 3]
                                          [--inputs INPUTS.pt] [--lock-report HELD.json]

With ``--inputs`` (the unit's argument list saved by the profile rule, for units up to
``SAVED_INPUTS_MAX_BYTES``) the process only imports torch and the candidate: no model is built
and no wrapper runs, so NCU's process starts fast.  Without it (larger units: no GiB-sized copy
through host memory and disk) the inputs are drawn from the seed on the GPU, as every stage does.

The process holds the GPU lock alone only around the profiled launches (NCU replays each
one there); its start-up and one unprofiled warm-up launch (the JIT compile) share the GPU.
``--lock-report`` writes the seconds it held the lock, for the job's own count.

The candidate runs sandboxed here as in every gate (``gates/sandbox.py``), loaded by the one
loader.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("unit_dir")
    ap.add_argument("candidate")
    ap.add_argument("--config", required=True)
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--inputs")
    ap.add_argument("--lock-report")
    a = ap.parse_args()
    from ..core import gpulock, gpumem, measure, runtime
    from ..core.loader import load_candidate
    from ..core.paths import ProblemPaths
    from ..gates import sandbox
    from ..isolate.harness import ProblemRuntime, UnitHarness

    cfg = json.loads(a.config)
    paths, unit = ProblemPaths.of_unit(a.unit_dir)
    device = runtime.prepare(cfg["device"], paths.cache)
    import torch

    if a.inputs:
        before = [x.to(device) if isinstance(x, torch.Tensor) else x for x in torch.load(a.inputs)]
    else:
        h = UnitHarness(paths, unit, ProblemRuntime(paths, device, cfg["seed"]))
        before = h.inputs(cfg["seed"])[0]  # the "after" copies go at once (GiB-sized units)
        del h
    import tempfile

    import triton.language  # noqa: F401 - loaded before the sandbox, as in the gates' child

    sandbox.enter(sandbox.Policy(scratch=Path(tempfile.mkdtemp(prefix="kernelopt-ncu-")), writable=[paths.cache]))
    mod = load_candidate(a.candidate)
    with gpulock.shared(device, "ncu harness warm-up"):  # outside the NVTX range: not profiled
        measure.warm(lambda: mod.launch(*before), device)
    with gpulock.exclusive(device, "ncu harness"):
        if device == "cuda":
            torch.cuda.nvtx.range_push("kernelopt_profile")
        for _ in range(a.launches):
            mod.launch(*before)
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
    if a.lock_report:
        Path(a.lock_report).write_text(json.dumps({**gpulock.HELD, "peak_mb": gpumem.peak_mb()}))


if __name__ == "__main__":
    main()
