"""Gate 3: the stitched model against eager.

The stitched model runs only in a sandboxed child (``child.py``, job ``model``), which hands back
its outputs, how often each kernel ran as a candidate or as Inductor's, and what each candidate
launch dispatched.  Here, in the judging process, eager runs, the baseline wrapper (Inductor's
own code, configs pinned to capture's) runs, and everything is compared:

* inputs: fresh seeds (``gates.fresh_seeds``, at least 3 distinct, recorded) and the model's
  floating inputs in the second distribution (``gates.distributions``), several calls of the
  stitched model in one process, in random order;
* the outputs must equal eager's in structure, count, shape and dtype (rule ``output-structure``;
  dicts and dataclass records included), then in value at ``model_rtol``/``model_atol``, else by
  the FP64 fallback: err(candidate vs fp64) <= ``fp64_ratio`` x err(baseline vs fp64);
* the proof written at stitch time must hold, every replaced kernel must have run as its
  candidate, a fused producer or a region's earlier member must not have run
  (``stitch-proof``); what each candidate's launch dispatched, as the child watched it, is
  recorded as evidence (``advisory``), never a condition;
* the guard bytes around every tensor the judge shares with the child (the model's inputs, the
  output slots) must be as the judge wrote them after each call (``out-of-bounds``: a kernel
  that writes past the model's input; the judge reads its own memory).

The outputs come back in output slots this process laid out (``runner/wire.py``), shaped like
the baseline's; the child copies an output into its slot only where shape and dtype match.  A
child's exception is the candidates' failure unless the baseline wrapper, run the same way,
fails too (its text decides nothing).
"""

from __future__ import annotations

import copy
import math
import random
import secrets
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from ..core import gpulock, outputcode, outputs, problems, runtime
from ..core.phases import timed
from ..core.records import Baseline, ProblemPaths, Scratch, StitchPlan
from ..runner import sandbox
from ..runner.harness import ProblemRuntime, poison
from ..runner.pins import pin_configs
from ..runner.watch import ATEN_ALLOWED
from .faults import InfrastructureFault, looks_like_fault, suspect
from .isolated import fresh_seeds
from .verdict import FAIL, PASS, GateVerdict, stitched_model_failed


class NotStitchable(RuntimeError):
    """The capture could not prove that the wrapper's outputs are the model's outputs."""


class Problem:
    """The captured problem in the judging process: eager model, baseline wrapper (configs
    pinned), call arguments, the output map; no candidate code is loaded here."""

    def __init__(self, paths: ProblemPaths, cfg: dict[str, Any]):
        self.paths = paths
        self.device = runtime.prepare(cfg["device"], paths.cache)
        self.rt = ProblemRuntime.get(paths, self.device, cfg["seed"])
        grec = self.rt.record.graphs[0]
        self.out_idx = grec["standalone"].get("outputs") or []
        if not self.rt.record.stitchable or any(i is None for i in self.out_idx):
            why = grec["standalone"].get("reason", "not stitchable")
            raise NotStitchable(f"the captured wrapper cannot stand in for the model: {why} (capture.json)")
        self.oc = outputcode.parse(paths.output_code.read_text(), paths.output_code)
        self.base = self.rt.baseline()
        self.pins = pin_configs(self.base, self.oc, grec["standalone"]["launches"])
        # the compiled model's output structure as capture saw it (older captures: eager's)
        self.structure = self.rt.record.output_structure
        # a standalone Triton problem may define reference(*inputs) in plain PyTorch: the
        # stitched model must then match it too (problems.user_reference)
        self.user_reference = problems.user_reference(self.rt.problem, self.rt.record, self.rt.model)
        self.has_user_kernels = problems.has_user_kernels(self.rt.record)

    def outputs(self, mod: Any, args: list[Any]) -> list[Any]:
        """The model's tensor outputs, in ``outputs.flatten`` order, as the wrapper computes them."""
        outs = mod.call(list(args))
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return [outs[i] for i in self.out_idx]

    def leaves(self, tensors: list[Any], eager: Any) -> list[outputs.Leaf]:
        return outputs.leaves_from(self.structure or outputs.structure(eager), tensors)

    def job(self, stitched: Path, point: str) -> tuple[dict[str, Any], dict[str, Path]]:
        """A ``model`` or ``speed`` job's common part and the files bound into its sandbox: the
        baseline wrapper, the stitched one with its candidates, the lifted constants."""
        files: dict[str, Path] = {Scratch.BASELINE: self.paths.output_code, Scratch.STITCHED: Path(stitched)}
        cands = Path(stitched).parent / "candidates"
        if cands.is_dir() and Path(stitched).resolve() != self.paths.output_code.resolve():
            files[Scratch.STITCHED_CANDIDATES] = cands
        constants = self.paths.graph_constants(0)
        if constants.exists():
            files[Scratch.CONSTANTS] = constants
        job = {
            "device": self.device,
            "baseline": Scratch.BASELINE,
            "stitched": Scratch.STITCHED,
            "constants": Scratch.CONSTANTS if constants.exists() else None,
            "launches": self.rt.record.graphs[0]["standalone"]["launches"],
            "out_idx": self.out_idx,
            "point": point,
        }
        return job, files

    def model_ms(self) -> float | None:
        return Baseline.load(self.paths.baseline).compiled_ms


def _leaf_error(got: list[outputs.Leaf], ref: list[outputs.Leaf]) -> float:
    """Largest absolute error over the leaves, tensors compared as values (in float64): infinite
    when the leaves differ in number, path, kind or shape, or a plain value differs.  Dtypes are
    not compared: the FP64 fallback measures float32 outputs against a float64 run (comparing
    dtypes made both errors infinite, and ``inf <= ratio x inf`` passed every candidate)."""
    if len(got) != len(ref):
        return math.inf
    worst = 0.0
    for g, r in zip(got, ref):
        if g.path != r.path or g.is_tensor != r.is_tensor:
            return math.inf
        if g.is_tensor:
            worst = max(worst, outputs.compare(r.path, g.value, r.value, 0.0, 0.0).max_abs)
        elif g.value != r.value:
            return math.inf
    return worst


def fp64_pass(err_candidate: float, err_baseline: float, ratio: float) -> bool:
    """The FP64 fallback: the candidate's error against the FP64 run at most ``ratio`` x the
    baseline's.  An error that could not be measured (infinite or NaN) on either side fails."""
    if not (math.isfinite(err_candidate) and math.isfinite(err_baseline)):
        return False
    return err_candidate <= ratio * max(err_baseline, 1e-12)


def _sandbox_failure(outcome: Any, control: Callable[[], str | None], seeds: list[int]) -> GateVerdict:
    """A child that hung or died: the candidates' failure, unless the baseline wrapper run the
    same way fails too (then InfrastructureFault)."""
    failed = control()
    if failed:
        raise InfrastructureFault(
            f"gate 3's child {outcome.status} ({outcome.detail}), "
            f"and so did the baseline wrapper run the same way ({failed})"
        )
    return stitched_model_failed(3, outcome.status, outcome.detail, "in its sandbox", seeds=seeds)


def _runtime_error(
    reply: dict[str, Any], stream: ModelCalls, device: str, control: Callable[[], str | None], seeds: list[int]
) -> GateVerdict | None:
    """The first exception the child reported (import or call) as the failure; None when every
    call answered without one.  Fewer answers than calls and no exception: InfrastructureFault."""
    errors = [(k, c["error"]) for k, c in enumerate(reply.get("calls", [])) if c.get("error")]
    if reply.get("import_error"):
        errors.insert(0, (0, reply["import_error"]))
    if not errors and len(reply.get("calls", [])) < len(stream.sets):
        raise InfrastructureFault(f"gate 3's child answered {len(reply.get('calls', []))} of {len(stream.sets)} calls")
    if not errors:
        return None
    k, err = errors[0]
    seed, dist = stream.sets[min(k, len(stream.sets) - 1)]
    note = suspect(err, device, control, "gate 3") if looks_like_fault(err) else ""
    return GateVerdict(
        3,
        FAIL,
        f"rule runtime-error: seed {seed} ({dist} inputs): the stitched model raised "
        f"{err['type']}: {err['message'][:400]}{note}",
        rule="runtime-error",
        numbers={"traceback": err["traceback"][-1500:]},
        seeds=seeds,
    )


def _proof_failure(
    proof: dict[str, Any],
    ran: dict[str, int],
    by_candidate: dict[str, int],
    by_inductor: dict[str, int],
    replaced: set[str],
    dropped: set[str],
) -> str | None:
    """Why the stitch proof fails (the module differs beyond the replaced kernels, a replaced
    kernel did not run as its candidate, a dropped launch ran), or None."""
    if not proof["identical_except_replaced"]:
        return "the stitched module differs from the baseline beyond the replaced kernels"
    if any(n == 0 for n in ran.values()) or any(k in by_inductor for k in replaced):
        return f"a replaced kernel did not run as its candidate ({ran})"
    if any(k in by_inductor or k in by_candidate for k in dropped):
        return f"a dropped launch (fused producer, region member) still ran ({sorted(dropped)})"
    return None


def _pass_reason(per_seed: list[dict[str, Any]], calls: int, seeds: list[int], ran: Any, dropped: set[str]) -> str:
    """Gate 3's pass in words: how the outputs matched eager (and the problem's reference())."""
    how = "directly at 1e-4" if all(r["direct_pass"] for r in per_seed) else "by the FP64 fallback"
    fused = f"; dropped launches (fused producers, region members) {sorted(dropped)} did not run" if dropped else ""
    dists = sorted({r["distribution"] for r in per_seed})
    why = (
        f"stitched model matches eager on {calls} calls (fresh seeds {seeds}; "
        f"inputs {', '.join(dists)}; {how}); replaced kernels ran as candidates {ran}{fused}"
    )
    if any("reference_pass" in r for r in per_seed):
        missed = [r["reference_fp64_baseline_err"] for r in per_seed if "reference_fp64_baseline_err" in r]
        why += "; and the problem's reference() " + (
            "directly"
            if not missed
            else f"no worse than the user's own kernels, which miss it by up to {max(missed):.3g} (FP64)"
        )
    return why


def _value_failure(bad: dict[str, Any], gc: dict[str, Any]) -> tuple[str, str]:
    """The rule a failing call broke and why: the error profile, the problem's reference(), or
    the values against eager."""
    if bad.get("profile_violations"):
        return (
            "error-profile",
            f"seed {bad['seed']} ({bad['distribution']} inputs): " + "; ".join(bad["profile_violations"][:3]),
        )
    nan = float("nan")
    if bad.get("reference_pass") is False and (bad["direct_pass"] or bad.get("fp64_pass")):
        return (
            "reference-correctness",
            f"seed {bad['seed']} ({bad['distribution']} inputs): the stitched model matches the user's "
            f"kernels but not the problem's reference(): max abs {bad['vs_reference_max_abs']:.3g} > "
            f"{gc['model_atol']}, and FP64 error {bad.get('reference_fp64_candidate_err', nan):.3g} > "
            f"{gc['fp64_ratio']} x baseline's {bad.get('reference_fp64_baseline_err', nan):.3g}",
        )
    return (
        "e2e-correctness",
        f"seed {bad['seed']} ({bad['distribution']} inputs): stitched vs eager max abs "
        f"{bad['vs_eager_max_abs']:.3g} > {gc['model_atol']}, and FP64 error "
        f"{bad.get('fp64_candidate_err', nan):.3g} > {gc['fp64_ratio']} x baseline's "
        f"{bad.get('fp64_baseline_err', nan):.3g}",
    )


def gate3(paths: ProblemPaths, plan: StitchPlan, stitched: Path, cfg: dict[str, Any]) -> GateVerdict:
    """Gate 3 of a stitch attempt whose ``plan`` stitched something into ``stitched``."""

    gc = cfg["gates"]
    tol = {"model_rtol": gc["model_rtol"], "model_atol": gc["model_atol"], "fp64_ratio": gc["fp64_ratio"]}
    try:
        with timed("rebuild the problem (model, baseline wrapper)"):
            m = Problem(paths, cfg)
    except NotStitchable as e:
        return GateVerdict(3, FAIL, f"rule not-stitchable: {e}", rule="not-stitchable")
    seeds = fresh_seeds(max(3, int(gc["fresh_seeds"])))
    rng = random.Random(secrets.randbits(64))
    sets = [(s, "normal") for s in seeds] + [(seeds[0], d) for d in gc["distributions"]]
    order = list(range(len(sets)))
    rng.shuffle(order)
    job, files = m.job(stitched, "gate3")
    job["kind"] = "model"
    budget = sandbox.budget_s(gc["timeout_s"], gc["timeout_factor"], m.model_ms(), len(order))
    stream = ModelCalls(m, [sets[i] for i in order], gc)
    with timed("the sandboxed run of the stitched model (child and judging)"):
        outcome = sandbox.run(job, budget, cache=paths.cache, stream=stream, files=files, hidden=[paths.root.parent])

    def control() -> str | None:
        return _control_failure(paths, m, [sets[i] for i in order], budget)

    if outcome.status != "ok":
        return _sandbox_failure(outcome, control, seeds)
    reply = outcome.reply
    replaced = set(plan.stitch["replaced"])
    dropped = set(plan.stitch.get("dropped", []))
    error = _runtime_error(reply, stream, m.device, control, seeds)
    if error is not None:
        return error
    per_seed, structure_fault = stream.rows, stream.structure_fault
    proof = plan.stitch["proof"]
    by_candidate = _counts(reply.get("candidate_launches"))
    by_inductor = _counts(reply.get("inductor_launches"))
    ran = {k: by_candidate.get(k, 0) for k in replaced}
    numbers = {
        "per_seed": per_seed,
        "calls": len(stream.sets),
        "proof": {
            **proof,
            "candidate_launches": ran,
            "inductor_launches": by_inductor,
            "sha256": {k: v["sha256"] for k, v in plan.stitch["replaced"].items()},
        },
        "config_pins": {"baseline": m.pins, "stitched": (reply.get("pins") or {}).get("stitched")},
        "advisory": _advisory(reply),
        "sandbox": sandbox.boundary(),
    }

    def fail(rule: str, why: str) -> GateVerdict:
        return GateVerdict(3, FAIL, f"rule {rule}: {why}", rule=rule, numbers=numbers, tolerances=tol, seeds=seeds)

    broken = _proof_failure(proof, ran, by_candidate, by_inductor, replaced, dropped)
    if broken:
        return fail("stitch-proof", broken)
    if stream.trampled:
        seed, where = stream.trampled
        return fail(
            "out-of-bounds",
            f"seed {seed}: the stitched model wrote outside the tensors the judge handed it (the guard bytes "
            f"around {', '.join(where)} changed)",
        )
    if structure_fault:
        seed, why = structure_fault
        return fail(outputs.STRUCTURE_RULE, f"seed {seed}: the stitched model's outputs differ from eager's: {why}")
    if all(r["pass"] for r in per_seed):
        why = _pass_reason(per_seed, len(stream.sets), seeds, ran, dropped)
        return GateVerdict(3, PASS, why, numbers=numbers, tolerances=tol, seeds=seeds)
    return fail(*_value_failure(next(r for r in per_seed if not r["pass"]), gc))


class ModelCalls(sandbox.Stream):
    """Gate 3's calls handed to the child one at a time, each judged as its outputs come back,
    so that a problem of GiB-sized inputs holds one call's tensors at a time.

    Per call the judge puts the arguments the child gets in slots, runs the baseline wrapper
    (Inductor's code) on a fresh draw of the same arguments, and hands the child output slots
    shaped like the baseline's outputs, poisoned, to copy the stitched model's outputs into;
    then eager runs on a fresh draw of the inputs, and the outputs (copied out of the slots) are
    compared (the FP64 fallback when they differ).  ``judge=False``: the calls only (the
    control run)."""

    def __init__(self, m: Problem, sets: list[tuple[int, str]], gc: dict[str, Any], judge: bool = True):
        self.m, self.sets, self.gc, self.judge = m, sets, gc, judge
        self.calls = len(sets)
        self.rows: list[dict[str, Any]] = []
        self.structure_fault: tuple[int, str] | None = None
        self.trampled: tuple[int, list[str]] | None = None  # (seed, slots) of the first call that did
        self._base: list[Any] = []
        self._model64: Any = None

    def send(self, k: int, slots: sandbox.Slots) -> dict[str, Any]:
        import torch

        seed, dist = self.sets[k]
        # the child's arguments in slots (the same memory every call, the model's parameters too)
        drawn = self.m.rt.call_args(0, seed, dist)
        call: dict[str, Any] = {
            "args": [slots.put(("arg", i), a) if isinstance(a, torch.Tensor) else a for i, a in enumerate(drawn)]
        }
        del drawn
        if self.judge:
            with torch.no_grad(), gpulock.shared(self.m.device, f"gate3 {self.m.paths.problem}"):
                # the baseline on arguments of its own: the child's could be written by a candidate
                self._base = self.m.outputs(self.m.base, self.m.rt.call_args(0, seed, dist))
            # NaN-poisoned: an output the child says it copied but did not is never last call's
            call["outs"] = [
                self._out_slot(slots, i, b) if isinstance(b, torch.Tensor) else None for i, b in enumerate(self._base)
            ]
        return call

    def _out_slot(self, slots: sandbox.Slots, i: int, like: Any) -> Any:
        buf = slots.empty_like(("out", i), like)
        poison(buf)
        return buf

    def receive(self, k: int, result: dict[str, Any], sent: dict[str, Any]) -> bool:
        if result.get("trampled") and self.trampled is None:  # the judge's reading (sandbox._feed)
            self.trampled = (self.sets[k][0], [str(t) for t in result["trampled"]])
        if result.get("error") is not None:
            return False
        if self.judge:
            import torch

            outs = result.get("outputs") or []
            values = result.get("values") or []
            got: list[Any] = []
            for i, b in enumerate(self._base):
                o = outs[i] if i < len(outs) else None
                if isinstance(b, torch.Tensor):
                    got.append(o.clone() if o is not None else None)  # out of the shared slot first
                else:
                    got.append(values[i] if i < len(values) else None)
            missing = [i for i, (g, b) in enumerate(zip(got, self._base)) if g is None and isinstance(b, torch.Tensor)]
            if missing:
                seed = self.sets[k][0]
                why = "; ".join(result.get("mismatch") or []) or f"outputs {missing} were not handed back"
                self.structure_fault = self.structure_fault or (seed, f"output shape or dtype differs ({why})")
                self.rows.append({"seed": seed, "distribution": self.sets[k][1], "pass": False, "structure": why})
            else:
                self.rows.append(self._judge(k, got))
        self._base = []
        return True

    def _judge(self, k: int, got: list[Any]) -> dict[str, Any]:
        import torch

        m, gc = self.m, self.gc
        seed, dist = self.sets[k]
        with torch.no_grad(), gpulock.shared(m.device, f"gate3 {m.paths.problem}"):
            inputs = m.rt.model_inputs(seed, dist)
            eager_out = m.rt.model(*inputs)
            eager = outputs.flatten(eager_out)
            base = m.leaves(self._base, eager_out)
            cand = m.leaves([t.to(m.device) if isinstance(t, torch.Tensor) else t for t in got], eager_out)
            direct = outputs.check_leaves(cand, eager, gc["model_rtol"], gc["model_atol"])
            row: dict[str, Any] = {
                "seed": seed,
                "distribution": dist,
                "outputs_compared": len(direct.leaves),
                "vs_eager_max_abs": direct.max_abs,
                "baseline_vs_eager_max_abs": _leaf_error(base, eager),
                "direct_pass": direct.ok,
            }
            if direct.rule == outputs.STRUCTURE_RULE:
                row["structure"] = direct.reason
                self.structure_fault = self.structure_fault or (seed, direct.reason)
            elif not direct.ok:
                err_c, err_b = self._fp64_errors(seed, dist, cand, base)
                row.update(
                    fp64_candidate_err=err_c,
                    fp64_baseline_err=err_b,
                    fp64_pass=fp64_pass(err_c, err_b, gc["fp64_ratio"]),
                )
            row["pass"] = direct.ok or row.get("fp64_pass", False)
            if row["pass"]:
                profile = _profile_violations(cand, base, eager, gc)
                if profile:
                    row.update(profile_violations=profile)
                    row["pass"] = False
            if m.user_reference is not None and direct.rule != outputs.STRUCTURE_RULE:
                # the problem's plain-PyTorch reference() as a second oracle (standalone Triton
                # problems), on inputs of its own (a forward may change its inputs in place); its
                # tensors in the model's output structure (a tuple of one for a tensor is fine)
                ref = m.leaves(outputs.tensors(m.user_reference(*m.rt.model_inputs(seed, dist))), eager_out)
                vs_ref = outputs.check_leaves(cand, ref, gc["model_rtol"], gc["model_atol"])
                row.update(vs_reference_max_abs=vs_ref.max_abs, reference_direct_pass=vs_ref.ok)
                ref_ok = vs_ref.ok
                if not vs_ref.ok:
                    err_c, err_b = self._fp64_errors(seed, dist, cand, base, of_reference=True)
                    ref_ok = fp64_pass(err_c, err_b, gc["fp64_ratio"])
                    row.update(reference_fp64_candidate_err=err_c, reference_fp64_baseline_err=err_b)
                row["reference_pass"] = ref_ok
                row["pass"] = row["pass"] and ref_ok
        return row

    def _fp64_errors(
        self, seed: int, dist: str, cand: Any, base: Any, of_reference: bool = False
    ) -> tuple[float, float]:
        """The candidate's and the baseline's errors against an FP64 run on fresh inputs of the
        call: of the model in float64 (the eager oracle's fallback; a standalone Triton problem's
        model is the user's kernels, and if they cannot run in float64 there is no fallback:
        infinite errors, a fail), or of the problem's ``reference()`` (``of_reference``: the
        second oracle's fallback, never the eager one's)."""
        import torch

        m = self.m
        inputs = m.rt.model_inputs(seed, dist)
        inputs64 = [t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs]
        if of_reference:
            ref_out = m.user_reference(*inputs64)
        else:
            try:
                if self._model64 is None:
                    self._model64 = copy.deepcopy(m.rt.model).double()
                ref_out = self._model64(*inputs64)
            except Exception:  # noqa: BLE001 - only the user's own kernels may refuse float64
                if m.user_reference is None and not m.has_user_kernels:
                    raise
                return math.inf, math.inf
        ref64 = m.leaves(outputs.tensors(ref_out), ref_out) if of_reference else outputs.flatten(ref_out)
        return _leaf_error(cand, ref64), _leaf_error(base, ref64)


def _control_failure(paths: ProblemPaths, m: Problem, sets: list[tuple[int, str]], budget: float) -> str | None:
    """The baseline wrapper run as the stitched model was (the same streamed calls, the same
    budget), in a jailed child: None when it gets through, else what failed."""
    job, files = m.job(paths.output_code, "control")
    job["kind"] = "model"
    with timed("the control run (the baseline wrapper, the same calls)"):
        control = sandbox.run(
            job,
            budget,
            cache=paths.cache,
            stream=ModelCalls(m, sets, {}, judge=False),
            files=files,
            hidden=[paths.root.parent],
        )
    if control.status != "ok":
        return f"{control.status}: {control.detail}"
    if control.reply is None:
        return "no reply"
    err = control.reply.get("import_error") or next(
        (c["error"] for c in control.reply.get("calls", []) if c.get("error")), None
    )
    return f"{err['type']}: {err['message'][:200]}" if err else None


__all__ = ["NotStitchable", "Problem", "fp64_pass", "gate3", "traceback", "ModuleType"]


def _profile_violations(cand: list[Any], base: list[Any], eager: list[Any], gc: dict[str, Any]) -> list[str]:
    """Gate 2's error profile on the model's outputs: each floating tensor output of the
    stitched model against eager, held to what the baseline (Inductor's compiled model) does on
    the same inputs (``errprofile.py``)."""
    import torch

    from . import errprofile

    out: list[str] = []
    if "error_ratio" not in gc:
        return out
    for c, b, e in zip(cand, base, eager):
        if not (c.is_tensor and b.is_tensor and e.is_tensor):
            continue
        cv, bv, ev = c.value, b.value, e.value
        if not all(isinstance(t, torch.Tensor) for t in (cv, bv, ev)) or cv.numel() != ev.numel():
            continue
        prof = errprofile.derive(ev, bv)
        why = errprofile.violations(cv, ev, prof, gc["error_ratio"], gc["error_floor_ulps"], gc["small_rel_floor"])
        out += [f"output {c.path}: {w}" for w in why]
    return out


def _counts(d: Any) -> dict[str, int]:
    """A child's launch counts as plain data (its claim; used only to fail the stitch proof)."""
    if not isinstance(d, dict):
        return {}
    return {str(k): int(v) for k, v in d.items() if isinstance(v, int)}


def _advisory(reply: dict[str, Any]) -> dict[str, Any]:
    """What each candidate's launches dispatched, as the child watched it: evidence, never a
    condition (the child could forge it; the form leaves host code no torch compute)."""
    launcher = set(reply.get("launcher_ops") or [])
    ops = reply.get("candidate_ops") if isinstance(reply.get("candidate_ops"), dict) else {}
    foreign = reply.get("foreign_launches") if isinstance(reply.get("foreign_launches"), dict) else {}
    return {
        "torch_compute": {
            str(k): sorted(o for o in set(map(str, v)) - launcher if o.split(".")[0] not in ATEN_ALLOWED)[:20]
            for k, v in ops.items()
        },
        "foreign_launches": {str(k): [str(x) for x in v][:20] for k, v in foreign.items()},
    }
