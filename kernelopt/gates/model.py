"""Gate 3: the stitched model against eager.

The baseline wrapper and the stitched one are loaded fresh in this process with every Inductor
kernel pinned to the config it ran with at capture (``Models``).  On each seed the stitched
model's outputs must match eager's in structure, count, shape and dtype (else rule
``output-structure``) and in value at ``model_rtol``/``model_atol``; an output that misses only
by accumulation order may pass by the FP64 fallback (err(candidate vs fp64) <= ``fp64_ratio`` x
err(baseline vs fp64)).  Beside the values, the proof written at stitch time must hold, every
replaced kernel must have run as its candidate, and a fused producer must not have run.
"""

from __future__ import annotations

import copy
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from ..core import gpulock, outputcode, outputs, problems, runtime
from ..core.instrument import Observer, instrumented
from ..core.paths import ProblemPaths
from ..isolate.harness import ProblemRuntime
from .verdict import FAIL, PASS, GateVerdict


class NotStitchable(RuntimeError):
    """The capture could not prove that the wrapper's outputs are the model's outputs."""


def pin_configs(mod: ModuleType, oc: outputcode.OutputCode, launches: list[dict[str, Any]]) -> dict[str, str]:
    """Restrict every Inductor kernel object to the config it ran with at capture, so that two
    loads of the same wrapper (baseline and stitched) cannot autotune to different configs."""
    recorded: dict[str, dict[str, Any]] = {}
    for l in launches:
        if l.get("config"):
            recorded.setdefault(l["kernel"], l["config"])
    status: dict[str, str] = {}
    for name in oc.kernels:
        obj = getattr(mod, name, None)
        configs = getattr(obj, "configs", None)
        if obj is None or getattr(obj, "kernelopt_candidate", None) or configs is None:
            continue
        want = recorded.get(name)
        if len(configs) <= 1:
            status[name] = "single"
            continue
        if want is None:
            status[name] = "unpinned: no recorded config"
            continue
        match = [
            c
            for c in configs
            if dict(getattr(c, "kwargs", {})) == want.get("kwargs", {})
            and getattr(c, "num_warps", None) == want.get("num_warps", getattr(c, "num_warps", None))
            and getattr(c, "num_stages", None) == want.get("num_stages", getattr(c, "num_stages", None))
        ]
        if match:
            obj.configs = [match[0]]
            status[name] = "pinned"
        else:
            status[name] = "unpinned: recorded config not among the kernel's configs"
    return status


class Models:
    """Baseline and stitched wrapper modules for one problem, loaded fresh, configs pinned."""

    def __init__(self, paths: ProblemPaths, cfg: dict[str, Any], stitched: Path):
        self.device = runtime.prepare(cfg["device"], paths.cache)
        self.rt = ProblemRuntime(paths, self.device, cfg["seed"])
        grec = self.rt.record["graphs"][0]
        self.out_idx = grec["standalone"].get("outputs") or []
        if not self.rt.record.get("stitchable") or any(i is None for i in self.out_idx):
            why = grec["standalone"].get("reason", "not stitchable")
            raise NotStitchable(f"the captured wrapper cannot stand in for the model: {why} (capture.json)")
        launches = grec["standalone"]["launches"]
        self.oc = outputcode.parse(paths.output_code.read_text(), paths.output_code)
        self.base = self.rt.load_wrapper(0, paths.output_code)
        self.stitched = self.rt.load_wrapper(0, stitched)
        self.pins = {
            "baseline": pin_configs(self.base, self.oc, launches),
            "stitched": pin_configs(self.stitched, self.oc, launches),
        }
        # the compiled model's output structure as capture saw it (older captures: eager's)
        self.structure = self.rt.record.get("output_structure")

    def outputs(self, mod: Any, args: list[Any]) -> list[Any]:
        """The model's tensor outputs, in ``outputs.flatten`` order, as the wrapper computes them."""
        outs = mod.call(list(args))
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return [outs[i] for i in self.out_idx]

    def leaves(self, tensors: list[Any], eager: Any) -> list[outputs.Leaf]:
        return outputs.leaves_from(self.structure or outputs.structure(eager), tensors)


class LaunchCounter(Observer):
    """Counts each kernel's launches, by whether a candidate or Inductor's own kernel ran."""

    def __init__(self) -> None:
        self.by_candidate: dict[str, int] = {}
        self.by_inductor: dict[str, int] = {}

    def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
        sink = self.by_candidate if getattr(inner, "kernelopt_candidate", None) else self.by_inductor
        sink[name] = sink.get(name, 0) + 1
        return inner.run(*args, **kwargs)


def _leaf_error(got: list[outputs.Leaf], ref: list[outputs.Leaf]) -> float:
    """Largest absolute error over the tensor leaves (infinite when the structures differ)."""
    return outputs.check_leaves(got, ref, 0.0, 0.0).max_abs


def gate3(paths: ProblemPaths, plan: dict[str, Any], stitched: Path, cfg: dict[str, Any]) -> GateVerdict:
    """Gate 3 of a stitch attempt whose ``plan`` stitched something into ``stitched``."""
    import torch

    gc = cfg["gates"]
    tol = {"model_rtol": gc["model_rtol"], "model_atol": gc["model_atol"], "fp64_ratio": gc["fp64_ratio"]}
    try:
        m = Models(paths, cfg, stitched)
    except NotStitchable as e:
        return GateVerdict(3, FAIL, f"rule not-stitchable: {e}", rule="not-stitchable")
    except Exception as e:  # noqa: BLE001
        why = f"rule stitch-load: the stitched module does not load: {type(e).__name__}: {e}"
        return GateVerdict(3, FAIL, why, rule="stitch-load", numbers={"traceback": traceback.format_exc()[-2000:]})
    replaced = set(plan["stitch"]["replaced"])
    dropped = set(plan["stitch"].get("dropped", []))
    per_seed = []
    structure_fault = None
    model64 = None
    counter = LaunchCounter()
    with torch.no_grad(), gpulock.shared(m.device, f"gate3 {paths.problem}"):
        for seed in gc["seeds"]:
            inputs = problems.make_inputs(m.rt.problem, m.device, seed)
            args = m.rt.call_args(0, seed)
            eager_out = m.rt.model(*inputs)
            eager = outputs.flatten(eager_out)
            base = m.leaves(m.outputs(m.base, args), eager_out)
            with instrumented(m.stitched, m.oc, counter):
                cand = m.leaves(m.outputs(m.stitched, args), eager_out)
            direct = outputs.check_leaves(cand, eager, gc["model_rtol"], gc["model_atol"])
            row: dict[str, Any] = {
                "seed": seed,
                "outputs_compared": len(direct.leaves),
                "vs_eager_max_abs": direct.max_abs,
                "baseline_vs_eager_max_abs": _leaf_error(base, eager),
                "direct_pass": direct.ok,
            }
            if direct.rule == outputs.STRUCTURE_RULE:
                row["structure"] = direct.reason
                structure_fault = structure_fault or (seed, direct.reason)
            elif not direct.ok:
                if model64 is None:
                    model64 = copy.deepcopy(m.rt.model).double()
                inputs64 = [t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs]
                ref64 = outputs.flatten(model64(*inputs64))
                err_c, err_b = _leaf_error(cand, ref64), _leaf_error(base, ref64)
                row.update(
                    fp64_candidate_err=err_c,
                    fp64_baseline_err=err_b,
                    fp64_pass=err_c <= gc["fp64_ratio"] * max(err_b, 1e-12),
                )
            row["pass"] = direct.ok or row.get("fp64_pass", False)
            per_seed.append(row)
    proof = plan["stitch"]["proof"]
    ran = {k: counter.by_candidate.get(k, 0) for k in replaced}
    numbers = {
        "per_seed": per_seed,
        "proof": {
            **proof,
            "candidate_launches": ran,
            "inductor_launches": counter.by_inductor,
            "sha256": {k: v["sha256"] for k, v in plan["stitch"]["replaced"].items()},
        },
        "config_pins": m.pins,
    }
    seeds = gc["seeds"]

    def fail(rule: str, why: str) -> GateVerdict:
        return GateVerdict(3, FAIL, f"rule {rule}: {why}", rule=rule, numbers=numbers, tolerances=tol, seeds=seeds)

    if not proof["identical_except_replaced"]:
        return fail("stitch-proof", "the stitched module differs from the baseline beyond the replaced kernels")
    if any(n == 0 for n in ran.values()) or any(k in counter.by_inductor for k in replaced):
        return fail("stitch-proof", f"a replaced kernel did not run as its candidate ({ran})")
    if any(k in counter.by_inductor or k in counter.by_candidate for k in dropped):
        return fail("stitch-proof", f"a fused producer still ran ({sorted(dropped)})")
    if structure_fault:
        seed, why = structure_fault
        return fail(outputs.STRUCTURE_RULE, f"seed {seed}: the stitched model's outputs differ from eager's: {why}")
    if all(r["pass"] for r in per_seed):
        how = "directly at 1e-4" if all(r["direct_pass"] for r in per_seed) else "by the FP64 fallback"
        fused = f"; fused producers {sorted(dropped)} did not run" if dropped else ""
        why = f"stitched model matches eager on seeds {seeds} ({how}); replaced kernels ran as candidates {ran}{fused}"
        return GateVerdict(3, PASS, why, numbers=numbers, tolerances=tol, seeds=seeds)
    bad = next(r for r in per_seed if not r["pass"])
    nan = float("nan")
    return fail(
        "e2e-correctness",
        f"seed {bad['seed']}: stitched vs eager max abs {bad['vs_eager_max_abs']:.3g} > {gc['model_atol']}, "
        f"and FP64 error {bad.get('fp64_candidate_err', nan):.3g} > {gc['fp64_ratio']} x "
        f"baseline's {bad.get('fp64_baseline_err', nan):.3g}",
    )
