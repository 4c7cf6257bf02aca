"""Gate 2: isolated correctness.  The candidate on the unit's real inputs of each seed against
the eager reference, ``allclose(rtol, atol)``; write-only outputs poisoned (NaN) first; inputs
the contract marks read-only must come back unchanged.  Where the reference is graph-level and
Inductor's own kernel misses it too, the bounded fallback of ``UnitHarness.check`` applies.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..isolate.harness import load_module
from .verdict import FAIL, PASS, GateVerdict


def gate2(candidate: Path, harness: Any, seeds: list[int], rtol: float, atol: float) -> GateVerdict:
    import torch

    mod = load_module(Path(candidate), "kernelopt_candidate")
    tol = {"rtol": rtol, "atol": atol}
    try:
        res = harness.check(mod, seeds, rtol, atol)
    except Exception as e:  # noqa: BLE001
        return GateVerdict(
            2,
            FAIL,
            f"rule runtime-error: {type(e).__name__}: {str(e)[:500]}",
            rule="runtime-error",
            tolerances=tol,
            seeds=seeds,
            candidate=str(candidate),
        )
    # inputs the contract marks read-only must come back unchanged
    for seed in seeds[:1]:
        before, _ = harness.inputs(seed)
        copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in before]
        mod.launch(*[a for a in before])  # on the real buffers: writes are visible
        if harness.rt.device == "cuda":
            torch.cuda.synchronize()
        for spec, a, c in zip(harness.contract["args"], before, copies):
            if (
                spec.get("access") == "read"
                and isinstance(a, torch.Tensor)
                and not torch.equal(a.nan_to_num(0.25), c.nan_to_num(0.25))
            ):
                return GateVerdict(
                    2,
                    FAIL,
                    f"rule wrote-input: launch() modified read-only argument {spec['name']}",
                    rule="wrote-input",
                    tolerances=tol,
                    seeds=seeds,
                    candidate=str(candidate),
                )
    worst = max((o["max_abs"] for s in res["seeds"] for o in s["outputs"]), default=0.0)
    if not res["ok"]:
        bad = next(s for s in res["seeds"] if not s["ok"])
        o = next(o for o in bad["outputs"] if not o["ok"])
        unwritten = math.isinf(o["max_abs"]) or o["max_abs"] != o["max_abs"]
        rule = "mismatch"
        return GateVerdict(
            2,
            FAIL,
            f"rule {rule}: seed {bad['seed']}: output {o['name']} differs from the eager reference: "
            f"{o['mismatched']}/{o['numel']} elements outside rtol={rtol}, atol={atol} "
            f"(max abs {o['max_abs']:.3g}){' ; ' + o['note'] if o.get('note') else ''}",
            rule=rule,
            numbers={"max_abs": worst, "per_seed": res["seeds"], "unwritten_suspected": unwritten},
            tolerances=tol,
            seeds=seeds,
            candidate=str(candidate),
        )
    fb = res["graph_level_fallback"]
    how = (
        (
            f"; outputs {fb} by the graph-level fallback: the reference recomputes upstream library ops, "
            "Inductor's own kernel misses it too, "
            "and the candidate's error is at most 2x Inductor's and it matches Inductor's output"
        )
        if fb
        else ""
    )
    return GateVerdict(
        2,
        PASS,
        f"matches the eager reference on seeds {seeds} (max abs error {worst:.3g}){how}",
        numbers={"max_abs": worst, "per_seed": res["seeds"], "graph_level_fallback": fb},
        tolerances=tol,
        seeds=seeds,
        candidate=str(candidate),
    )
