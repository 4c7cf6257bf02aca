"""Isolated timing of candidates against Inductor's kernel for a unit: on the real inputs of the
first gate seed, interleaved (measure.compare), under the GPU lock.  Used by the search's
``select_iter`` and by ``select``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core import gpulock, measure, runtime
from ..core.paths import ProblemPaths
from ..isolate.harness import ProblemRuntime, UnitHarness, load_module


def unit_harness(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> UnitHarness:
    """The unit's harness in this process (device prepared, the captured problem rebuilt)."""
    device = runtime.prepare(cfg["device"], paths.cache)
    return UnitHarness(paths, unit, ProblemRuntime(paths, device, cfg["seed"]))


def time_against_inductor(
    paths: ProblemPaths, unit: str, cfg: dict[str, Any], candidates: list[Path], what: str
) -> list[measure.Comparison]:
    """Each candidate's isolated time relative to Inductor's kernel (interleaved, on the real
    inputs of the first gate seed), under the GPU lock; one Comparison per candidate."""
    import torch

    h = unit_harness(paths, unit, cfg)
    device = h.rt.device
    before, _ = h.inputs(cfg["gates"]["seeds"][0])
    bufs = [a.clone() if isinstance(a, torch.Tensor) else a for a in before]
    base = load_module(paths.candidate_dir(unit, 0) / "candidate.py", "kernelopt_inductor")
    mods = [load_module(cand, "kernelopt_candidate") for cand in candidates]
    with gpulock.shared(device, f"{what}: warm-up"):  # JIT compiles share the GPU
        for m in [base, *mods]:
            measure.warm(lambda m=m: m.launch(*bufs), device)
    out = []
    with gpulock.exclusive(device, what):
        for mod in mods:
            out.append(
                measure.compare(
                    lambda: base.launch(*bufs),
                    lambda m=mod: m.launch(*bufs),
                    device,
                    measure.for_device(cfg["measure"], device),
                )
            )
    return out
