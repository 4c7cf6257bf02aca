"""Stage functions of the judging half of the pipeline (Gates issue): candidate slots,
gates 1-2 per candidate, selection per unit, stitch attempts with gates 3-4, the result.

Every function reads and writes files under ``<workdir>/<problem>/`` only (see paths.py),
so each can be its own Snakemake rule.
"""
from __future__ import annotations

import copy
import math
import shutil
import traceback
from pathlib import Path
from typing import Any

from . import gates, gpulock, measure, outputcode, runtime, stitch
from .gates import FAIL, PASS, SKIPPED, SKIPPED_BY_MODE, GateVerdict
from .paths import ProblemPaths

write_json, read_json = stitch.write_json, stitch.read_json


# --------------------------------------------------------------------------- slots
def slot_count(cfg: dict[str, Any]) -> int:
    """Candidate slots per unit: Inductor's own kernel plus ``gates.user_candidates``."""
    return 1 + int(cfg["gates"]["user_candidates"])


def user_candidates(cfg: dict[str, Any], problem: str, unit: str) -> list[Path]:
    root = cfg.get("candidates")
    if not root:
        return []
    d = Path(root) / problem
    return sorted(p for p in d.glob(f"{unit}*.py")) if d.is_dir() else []


def prepare_slots(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """Fill the fixed candidate slots of a unit: c0 = Inductor's kernel, c1.. = user files."""
    files = [paths.inductor_kernel(unit), *user_candidates(cfg, paths.problem, unit)]
    slots = []
    for k in range(slot_count(cfg)):
        d = paths.candidate_dir(unit, k)
        d.mkdir(parents=True, exist_ok=True)
        if k < len(files):
            shutil.copyfile(files[k], d / "candidate.py")
            info = {"slot": k, "empty": False, "origin": "inductor" if k == 0 else "user", "source": str(files[k]), "sha256": stitch.sha256(d / "candidate.py")}
        else:
            (d / "candidate.py").unlink(missing_ok=True)
            info = {"slot": k, "empty": True}
        write_json(d / "slot.json", info)
        slots.append(info)
    extra = files[slot_count(cfg):]
    if extra:
        print(f"[candidates] {unit}: {len(extra)} candidate file(s) beyond gates.user_candidates={cfg['gates']['user_candidates']} ignored: {[str(e) for e in extra]}")
    return slots


def _harness(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> Any:
    from .harness import ProblemRuntime, UnitHarness

    device = runtime.prepare(cfg["device"], paths.cache)
    rt = ProblemRuntime(paths, device, cfg["seed"])
    return UnitHarness(paths, unit, rt)


def run_gate1(paths: ProblemPaths, unit: str, d: Path, cfg: dict[str, Any]) -> dict[str, Any]:
    """Gate 1 for the candidate in directory ``d`` (cands/c<k>, iter<i>/cand<j>, ...)."""
    slot = d.relative_to(paths.unit(unit)).as_posix()
    info = read_json(d / "slot.json")
    if info["empty"]:
        v = GateVerdict(1, SKIPPED, "empty slot: no candidate")
    else:
        contract = read_json(paths.contract(unit))
        if gates.static_problems((d / "candidate.py").read_text(), contract):
            v = gates.gate1(d / "candidate.py", contract, None, cfg["gates"]["seeds"][0])  # static rejection, nothing runs
        else:
            v = gates.run_in_child(1, paths.unit(unit), d / "candidate.py", cfg)  # the child shares the GPU lock
    out = {**v.to_dict(), "slot": slot, "unit": unit}
    write_json(d / "gate1.json", out)
    print(f"[gate1] {paths.problem}/{unit}/{slot}: {v.verdict}: {v.reason}")
    return out


def run_gate2(paths: ProblemPaths, unit: str, d: Path, cfg: dict[str, Any]) -> dict[str, Any]:
    slot = d.relative_to(paths.unit(unit)).as_posix()
    g1 = read_json(d / "gate1.json")
    if g1["verdict"] != PASS:
        v = GateVerdict(2, SKIPPED, f"gate 1 did not pass ({g1['verdict']})")
    else:
        v = gates.run_in_child(2, paths.unit(unit), d / "candidate.py", cfg)  # the child shares the GPU lock
    out = {**v.to_dict(), "slot": slot, "unit": unit}
    write_json(d / "gate2.json", out)
    print(f"[gate2] {paths.problem}/{unit}/{slot}: {v.verdict}: {v.reason}")
    return out


# --------------------------------------------------------------------------- select
INDUCTOR = "cands/c0/candidate.py"


def select(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """Rank every candidate of a unit that passed gates 1-2 (hand-written slots, and the search's
    final beam) by isolated time against Inductor's kernel.  ``ranked`` lists candidate files
    relative to the unit directory, best first; Inductor's own kernel is in it too."""
    entries: dict[str, dict[str, Any]] = {}
    for k in range(slot_count(cfg)):
        g2 = read_json(paths.candidate_dir(unit, k) / "gate2.json")
        if g2["verdict"] == PASS:
            entries[f"cands/c{k}/candidate.py"] = {"origin": "inductor" if k == 0 else "user"}
    iters = int(cfg["search"]["iterations"])
    if iters > 0:
        beam = read_json(paths.unit(unit) / f"iter{iters}" / "beam.json")
        for m in beam["members"]:
            entries.setdefault(m["path"], {"origin": "search", "ratio": m.get("ratio"), "meaningful": m.get("meaningful", True), "ci": m.get("ci")})
    result: dict[str, Any] = {"unit": unit, "candidates": entries, "ranked": []}
    if not entries:
        write_json(paths.best(unit), result)
        return result
    device = read_json(paths.capture_record)["device"]
    to_time = [p for p, e in entries.items() if p != INDUCTOR and e["origin"] == "user"]
    if to_time and INDUCTOR in entries:
        from .search import time_against_inductor

        cmps = time_against_inductor(paths, unit, cfg, [paths.unit(unit) / p for p in to_time], f"select {unit}")
        for p, cmp in zip(to_time, cmps):
            entries[p].update(ratio=cmp.ratio, ci=[cmp.ci_low, cmp.ci_high], meaningful=cmp.meaningful, timing=cmp.to_dict())
    if INDUCTOR in entries:
        entries[INDUCTOR].update(ratio=1.0, meaningful=device == "cuda")
    order = {"user": 0, "search": 1, "inductor": 2}

    def kernels(p: str) -> int:
        from .profiler import jit_kernel_names

        return len(jit_kernel_names((paths.unit(unit) / p).read_text()))

    def key(p: str) -> tuple:
        e = entries[p]
        if device == "cuda" and e.get("meaningful") and e.get("ratio") is not None:
            return (e["ratio"], order[e["origin"]], p)
        # CPU: times mean nothing; hand-written first, then searched; one kernel (a fusion) before a pair
        return (order[e["origin"]], kernels(p), p)

    result["ranked"] = sorted(entries, key=key)
    result["meaningful"] = device == "cuda"
    write_json(paths.best(unit), result)
    print(f"[select] {paths.problem}/{unit}: ranked {result['ranked']}")
    return result


# --------------------------------------------------------------------------- stitch attempts
def plan_attempt(paths: ProblemPaths, units: list[str], attempt: int, cfg: dict[str, Any]) -> dict[str, Any]:
    """Which candidate replaces each unit in this attempt; attempts after a passing one pass through."""
    d = paths.attempt_dir(attempt)
    d.mkdir(parents=True, exist_ok=True)
    if attempt > 0:
        prev = paths.attempt_dir(attempt - 1)
        p_plan = read_json(prev / "plan.json")
        if p_plan.get("status") in ("passed-through", "no-candidates") or (
            read_json(prev / "gate3.json")["verdict"] == PASS and read_json(prev / "gate4.json")["verdict"] in (PASS, SKIPPED_BY_MODE)
        ):
            plan = {"attempt": attempt, "status": "passed-through", "reason": f"attempt {attempt - 1} needs no retry", "replacements": {}}
            write_json(d / "plan.json", plan)
            (d / "output_code.py").write_text("# no retry needed\n")
            return plan
    replacements: dict[str, str] = {}
    for unit in units:
        best = read_json(paths.best(unit))
        ranked = [p for p in best["ranked"] if p != INDUCTOR or cfg["gates"]["replace_with_inductor"]]
        if cfg["device"] != "cpu" and best.get("meaningful"):
            # on the GPU, a candidate measured slower than Inductor's kernel is not worth a stitch
            ranked = [p for p in ranked if p == INDUCTOR or (best["candidates"][p].get("ratio") or 1.0) < 1.0]
        if attempt < len(ranked):
            replacements[unit] = str(paths.unit(unit) / ranked[attempt])
    replacements, fusion_choice = choose_fusions(paths, replacements, best_of={u: read_json(paths.best(u)) for u in replacements})
    if not replacements:
        reason = no_candidate_reason(valid_alternatives(paths, units)) if attempt == 0 else f"no rank-{attempt} candidates left"
        plan = {"attempt": attempt, "status": "no-candidates", "reason": reason, "replacements": {}}
        write_json(d / "plan.json", plan)
        (d / "output_code.py").write_text("# nothing to stitch\n")
        return plan
    info = _stitch(paths, {u: Path(f) for u, f in replacements.items()}, d)
    plan = {"attempt": attempt, "status": "stitched", "replacements": replacements, "stitch": info}
    if fusion_choice:
        plan["fusion_choice"] = fusion_choice
    write_json(d / "plan.json", plan)
    print(f"[stitch] {paths.problem} attempt {attempt}: replaced {sorted(info['replaced'])}" + (f", dropped {info['dropped']} (fused)" if info.get("dropped") else ""))
    return plan


def _stitch(paths: ProblemPaths, replacements: dict[str, Path], directory: Path) -> dict[str, Any]:
    """Splice {unit: candidate file} into the baseline wrapper; a fused unit replaces its
    consumer's kernel and drops its producer's launch."""
    kernel_files, fusions = {}, []
    for u, f in replacements.items():
        c = read_json(paths.contract(u))
        kernel_files[c["kernel"]] = Path(f)
        if c.get("fused"):
            fusions.append({**{k: v for k, v in c["fused"].items() if not k.endswith("_contract")}, "unit": u})
    return stitch.write_stitched(paths.output_code, directory, kernel_files, fusions)


def choose_fusions(paths: ProblemPaths, replacements: dict[str, str], best_of: dict[str, dict[str, Any]]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """A fused unit and its parts cannot all be replaced.  On the GPU the option that saves the
    most time wins: (producer + consumer time at capture) x (1 - ratio) for the fused candidate
    against the sum over the parts' own candidates; on the CPU (times mean nothing) the fused
    candidate is taken, so the fusion path is exercised.  Overlapping pairs: the larger saving first."""
    disp = {u["id"]: u for u in read_json(paths.dispatch)["units"]}
    out = dict(replacements)

    def saving(u: str) -> float | None:
        b = best_of.get(u) or {}
        if not b.get("meaningful") or u not in out:
            return None
        r = (b["candidates"].get(Path(out[u]).relative_to(paths.unit(u)).as_posix()) or {}).get("ratio")
        return (disp[u].get("time_ms") or 0.0) * (1.0 - r) if r is not None else None

    fused = sorted((u for u in out if (disp.get(u) or {}).get("fused")), key=lambda u: (-(saving(u) or 0.0), u))
    taken: set[str] = set()
    decisions = []
    for u in fused:
        f = disp[u]["fused"]
        parts = [f["producer_unit"], f["consumer_unit"]]
        if taken & set(parts):
            decisions.append({"unit": u, "taken": False, "why": f"a part is already replaced by another fused unit ({sorted(taken & set(parts))})"})
            out.pop(u)
            continue
        sf = saving(u)
        sep = sum(max(saving(p) or 0.0, 0.0) for p in parts)
        if sf is not None and sf <= sep:
            decisions.append({"unit": u, "taken": False, "saving_ms": sf, "parts_saving_ms": sep, "why": "the parts' own candidates save more"})
            out.pop(u)
            continue
        for p in parts:
            out.pop(p, None)
        taken.update(parts)
        decisions.append({"unit": u, "taken": True, "saving_ms": sf, "parts_saving_ms": sep,
                          "why": "saves more than the parts' own candidates" if sf is not None else "CPU mode: times mean nothing, the fused candidate is taken"})
    return out, decisions


def valid_alternatives(paths: ProblemPaths, units: list[str]) -> list[tuple[str, str, float | None]]:
    """(unit, candidate, isolated time ratio vs Inductor) of every candidate other than
    Inductor's own kernel that passed gates 1-2 and reached the unit's ranking."""
    out = []
    for u in units:
        best = read_json(paths.best(u)) if paths.best(u).exists() else {}
        for p, e in (best.get("candidates") or {}).items():
            if p != INDUCTOR:
                out.append((u, p, e.get("ratio") if best.get("meaningful") else None))
    return out


def no_candidate_reason(alts: list[tuple[str, str, float | None]]) -> str:
    """Why nothing was stitched, given ``valid_alternatives``."""
    if not alts:
        return "no candidate beyond Inductor's passed gates 1-2"
    timed = [a for a in alts if isinstance(a[2], (int, float))]
    closest = min(timed, key=lambda a: a[2]) if timed else None
    return (f"{len(alts)} candidate(s) besides Inductor's kernel passed gates 1-2 and reached the final ranking, but none measured faster than Inductor's kernel in isolation"
            + (f" (closest: {closest[0]} {closest[1]} at {closest[2]:.4f} of its time)" if closest else "") + ": nothing to stitch, the baseline is kept")


class NotStitchable(RuntimeError):
    """The capture could not prove that the wrapper's outputs are the model's outputs."""


class _Models:
    """Baseline and stitched wrapper modules for one problem, loaded fresh, configs pinned."""

    def __init__(self, paths: ProblemPaths, cfg: dict[str, Any], stitched: Path):
        from .harness import ProblemRuntime

        self.device = runtime.prepare(cfg["device"], paths.cache)
        self.rt = ProblemRuntime(paths, self.device, cfg["seed"])
        grec = self.rt.record["graphs"][0]
        self.out_idx = grec["standalone"].get("outputs") or []
        if not self.rt.record.get("stitchable") or any(i is None for i in self.out_idx):
            raise NotStitchable(f"the captured wrapper cannot stand in for the model: {grec['standalone'].get('reason', 'not stitchable')} (capture.json)")
        launches = grec["standalone"]["launches"]
        self.oc = outputcode.parse(paths.output_code.read_text(), paths.output_code)
        self.base = self.rt.load_wrapper(0, paths.output_code)
        self.stitched = self.rt.load_wrapper(0, stitched)
        self.pins = {"baseline": stitch.pin_configs(self.base, self.oc, launches), "stitched": stitch.pin_configs(self.stitched, self.oc, launches)}

    def outputs(self, mod: Any, args: list[Any]) -> list[Any]:
        outs = mod.call(list(args))
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return [outs[i] for i in self.out_idx]


def _max_err(a: list[Any], b: list[Any]) -> float:
    worst = 0.0
    for x, y in zip(a, b):
        d = (x.double() - y.double().to(x.device)).abs()
        both_nan = x.isnan() & y.to(x.device).isnan()
        d = d[~both_nan]
        if d.numel():
            m = float(d.max())
            worst = max(worst, m if m == m else math.inf)
    return worst


def run_gate3(paths: ProblemPaths, attempt: int, cfg: dict[str, Any], directory: Path | None = None) -> dict[str, Any]:
    d = directory or paths.attempt_dir(attempt)
    plan = read_json(d / "plan.json")
    gc = cfg["gates"]
    if plan["status"] != "stitched":
        v = GateVerdict(3, SKIPPED, plan.get("reason", "nothing stitched"))
        write_json(d / "gate3.json", {**v.to_dict(), "attempt": attempt})
        return v.to_dict()
    import torch

    from . import problems
    from .instrument import Observer, instrumented

    try:
        m = _Models(paths, cfg, d / "output_code.py")
    except NotStitchable as e:
        v = GateVerdict(3, FAIL, f"rule not-stitchable: {e}", rule="not-stitchable")
        write_json(d / "gate3.json", {**v.to_dict(), "attempt": attempt})
        return v.to_dict()
    except Exception as e:  # noqa: BLE001
        v = GateVerdict(3, FAIL, f"rule stitch-load: the stitched module does not load: {type(e).__name__}: {e}", rule="stitch-load", numbers={"traceback": traceback.format_exc()[-2000:]})
        write_json(d / "gate3.json", {**v.to_dict(), "attempt": attempt})
        return v.to_dict()
    replaced = set(plan["stitch"]["replaced"])
    dropped = set(plan["stitch"].get("dropped", []))

    class Count(Observer):
        def __init__(self) -> None:
            self.by_candidate: dict[str, int] = {}
            self.by_inductor: dict[str, int] = {}

        def on_kernel(self, name, inner, lineno, args, kwargs):  # noqa: ANN001
            sink = self.by_candidate if getattr(inner, "kernelopt_candidate", None) else self.by_inductor
            sink[name] = sink.get(name, 0) + 1
            return inner.run(*args, **kwargs)

    per_seed = []
    ok = True
    model64 = None
    with torch.no_grad(), gpulock.shared(m.device, f"gate3 {paths.problem}"):
        counter = Count()
        for seed in gc["seeds"]:
            inputs = problems.make_inputs(m.rt.problem, m.device, seed)
            args = m.rt.call_args(0, seed)
            eager = [t.detach() for t in _flat(m.rt.model(*inputs))]
            base = m.outputs(m.base, args)
            with instrumented(m.stitched, m.oc, counter):
                cand = m.outputs(m.stitched, args)
            direct = all(torch.allclose(c, e, rtol=gc["model_rtol"], atol=gc["model_atol"], equal_nan=True) for c, e in zip(cand, eager))
            row: dict[str, Any] = {"seed": seed, "vs_eager_max_abs": _max_err(cand, eager), "baseline_vs_eager_max_abs": _max_err(base, eager), "direct_pass": direct}
            if not direct:
                if model64 is None:
                    model64 = copy.deepcopy(m.rt.model).double()
                ref64 = _flat(model64(*[t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs]))
                err_c, err_b = _max_err(cand, ref64), _max_err(base, ref64)
                row.update(fp64_candidate_err=err_c, fp64_baseline_err=err_b, fp64_pass=err_c <= gc["fp64_ratio"] * max(err_b, 1e-12))
            row["pass"] = direct or row.get("fp64_pass", False)
            ok &= row["pass"]
            per_seed.append(row)
    proof = plan["stitch"]["proof"]
    ran = {k: counter.by_candidate.get(k, 0) for k in replaced}
    numbers = {"per_seed": per_seed, "proof": {**proof, "candidate_launches": ran, "inductor_launches": counter.by_inductor, "sha256": {k: v["sha256"] for k, v in plan["stitch"]["replaced"].items()}}, "config_pins": m.pins}
    tol = {"model_rtol": gc["model_rtol"], "model_atol": gc["model_atol"], "fp64_ratio": gc["fp64_ratio"]}
    if not proof["identical_except_replaced"]:
        v = GateVerdict(3, FAIL, "rule stitch-proof: the stitched module differs from the baseline beyond the replaced kernels", rule="stitch-proof", numbers=numbers, tolerances=tol, seeds=gc["seeds"])
    elif any(n == 0 for n in ran.values()) or any(k in counter.by_inductor for k in replaced):
        v = GateVerdict(3, FAIL, f"rule stitch-proof: a replaced kernel did not run as its candidate ({ran})", rule="stitch-proof", numbers=numbers, tolerances=tol, seeds=gc["seeds"])
    elif any(k in counter.by_inductor or k in counter.by_candidate for k in dropped):
        v = GateVerdict(3, FAIL, f"rule stitch-proof: a fused producer still ran ({sorted(dropped)})", rule="stitch-proof", numbers=numbers, tolerances=tol, seeds=gc["seeds"])
    elif ok:
        how = "directly at 1e-4" if all(r["direct_pass"] for r in per_seed) else "by the FP64 fallback"
        v = GateVerdict(3, PASS, f"stitched model matches eager on seeds {gc['seeds']} ({how}); replaced kernels ran as candidates {ran}" + (f"; fused producers {sorted(dropped)} did not run" if dropped else ""), numbers=numbers, tolerances=tol, seeds=gc["seeds"])
    else:
        bad = next(r for r in per_seed if not r["pass"])
        v = GateVerdict(3, FAIL, f"rule e2e-correctness: seed {bad['seed']}: stitched vs eager max abs {bad['vs_eager_max_abs']:.3g} > {gc['model_atol']}, and FP64 error {bad.get('fp64_candidate_err', float('nan')):.3g} > {gc['fp64_ratio']} x baseline's {bad.get('fp64_baseline_err', float('nan')):.3g}",
                        rule="e2e-correctness", numbers=numbers, tolerances=tol, seeds=gc["seeds"])
    out = {**v.to_dict(), "attempt": attempt}
    write_json(d / "gate3.json", out)
    print(f"[gate3] {paths.problem} attempt {attempt}: {v.verdict}: {v.reason}")
    return out


def _flat(out: Any) -> list[Any]:
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return []


def run_gate4(paths: ProblemPaths, attempt: int, cfg: dict[str, Any], directory: Path | None = None) -> dict[str, Any]:
    d = directory or paths.attempt_dir(attempt)
    g3 = read_json(d / "gate3.json")
    gc = cfg["gates"]
    tol = {"perf_margin": gc["perf_margin"], "decision": "pass iff the upper bound of the 95% CI of time(stitched)/time(baseline) <= 1 + perf_margin"}
    if g3["verdict"] != PASS:
        v = GateVerdict(4, SKIPPED, f"gate 3 did not pass ({g3['verdict']})", tolerances=tol)
    else:
        import torch

        m = _Models(paths, cfg, d / "output_code.py")
        args = m.rt.call_args(0, gc["seeds"][0])
        # warm-up, JIT compiles and graph capture share the GPU; only the timing holds it alone
        with torch.no_grad(), gpulock.shared(m.device, f"gate4 warm-up {paths.problem}"):
            fa = stitch.graphed(lambda: m.base.call(list(args)), m.device)
            fb = stitch.graphed(lambda: m.stitched.call(list(args)), m.device)
        with torch.no_grad(), gpulock.exclusive(m.device, f"gate4 {paths.problem}"):
            cmp = measure.compare(fa, fb, m.device, measure.for_device(cfg, m.device))
        numbers = {**cmp.to_dict(), "cuda_graphs": m.device == "cuda", "config_pins": m.pins}
        if not cmp.meaningful:
            v = GateVerdict(4, SKIPPED_BY_MODE, f"CPU mode: timings taken (ratio {cmp.ratio:.3f}) but not meaningful; gate 4 is not passed", numbers=numbers, tolerances=tol)
        elif cmp.ci_high <= 1 + gc["perf_margin"]:
            v = GateVerdict(4, PASS, f"stitched {cmp.b_ms:.4f} ms vs baseline {cmp.a_ms:.4f} ms: ratio {cmp.ratio:.4f} (95% CI {cmp.ci_low:.4f}-{cmp.ci_high:.4f}) <= {1 + gc['perf_margin']:.2f}", numbers=numbers, tolerances=tol)
        else:
            v = GateVerdict(4, FAIL, f"rule perf-gate: stitched {cmp.b_ms:.4f} ms vs baseline {cmp.a_ms:.4f} ms: ratio {cmp.ratio:.4f} (95% CI {cmp.ci_low:.4f}-{cmp.ci_high:.4f}) exceeds {1 + gc['perf_margin']:.2f}", rule="perf-gate", numbers=numbers, tolerances=tol)
    out = {**v.to_dict(), "attempt": attempt}
    write_json(d / "gate4.json", out)
    print(f"[gate4] {paths.problem} attempt {attempt}: {v.verdict}: {v.reason}")
    return out


def stitch_directly(paths: ProblemPaths, replacements: dict[str, Path], directory: Path) -> dict[str, Any]:
    """Stitch given candidate files {unit: file} into ``directory`` (for ``kernelopt stitch-check``)."""
    info = _stitch(paths, {u: Path(f) for u, f in replacements.items()}, directory)
    plan = {"attempt": "cli", "status": "stitched", "replacements": {u: str(f) for u, f in replacements.items()}, "stitch": info}
    write_json(directory / "plan.json", plan)
    return plan


# --------------------------------------------------------------------------- result
def finalize(paths: ProblemPaths, units: list[str], cfg: dict[str, Any]) -> dict[str, Any]:
    """result.json: category and reason exactly as DESIGN.md §4, speedups, noise band, cost."""
    base = read_json(paths.baseline)
    disp = read_json(paths.dispatch)
    res: dict[str, Any] = {"problem": paths.problem, "level": paths.problem.split("_")[0], "status": "ok", "verdict": disp.get("verdict"),
                           "units": len(disp.get("units", [])), "units_replaced": 0, "baseline_ms": None, "final_ms": None,
                           "speedup_vs_compiled": 1.0, "noise_band": None, "meaningful": base.get("device") == "cuda"}
    if base.get("failed"):
        res.update(status="error", category="error", stage=base.get("stage"), reason=base["error"].splitlines()[0], error=base["error"], speedup_vs_compiled=None)
    elif disp["verdict"] in ("library-dominated", "no-triton"):
        res.update(category="fallback", reason=disp["verdict"])
    else:
        chosen = None
        attempts = []
        for a in range(int(cfg["gates"]["retries"]) + 1):
            d = paths.attempt_dir(a)
            plan = read_json(d / "plan.json")
            if plan["status"] == "passed-through":
                break
            g3 = read_json(d / "gate3.json")
            g4 = read_json(d / "gate4.json")
            attempts.append({"attempt": a, "status": plan["status"], "gate3": g3["verdict"], "gate4": g4["verdict"], "reason": g4["reason"] if g3["verdict"] == PASS else g3["reason"]})
            if plan["status"] == "no-candidates":
                break
            if g3["verdict"] == PASS and g4["verdict"] == PASS:
                chosen = (a, plan, g4)
                break
        res["attempts"] = attempts
        last = attempts[-1] if attempts else None
        if chosen:
            a, plan, g4 = chosen
            n = g4["numbers"]
            speed = n["speedup"]
            res.update(baseline_ms=n["a_ms"], final_ms=n["b_ms"], noise_band=n["noise_band"], units_replaced=len(plan["replacements"]), stitched_attempt=a)
            significant = n["ci_high"] < 1.0 and speed > cfg["gates"]["optimized_min_speedup"]
            if significant:
                res.update(category="optimized", speedup_vs_compiled=speed, reason=None)
            else:
                res.update(category="matched (optimized)", speedup_vs_compiled=1.0, measured_speedup=speed,
                           reason=f"all gates passed but the speedup {speed:.4f} is not significant (time ratio 95% CI {n['ci_low']:.4f}-{n['ci_high']:.4f}; optimized needs the CI below 1 and a speedup over {cfg['gates']['optimized_min_speedup']}): the baseline is kept")
        elif last is None or last["status"] == "no-candidates" and len(attempts) == 1:
            alts = valid_alternatives(paths, units)
            if alts:
                # valid kernels were found, none faster than Inductor's: the search matched it
                res.update(category="matched (optimized)", reason=no_candidate_reason(alts))
            else:
                res.update(category="matched (synthesis failed)", reason=last["reason"] if last else "no attempt")
        elif any(x["gate3"] == FAIL for x in attempts) and not any(x["gate3"] == PASS for x in attempts):
            res.update(category="fallback", reason="e2e-correctness", detail=[x["reason"] for x in attempts])
        else:
            mode = any(x["gate4"] == SKIPPED_BY_MODE for x in attempts)
            res.update(category="fallback", reason="perf-gate", detail=[x["reason"] for x in attempts] + (["gate 4 is skipped in CPU mode, so no candidate is deployed"] if mode else []))
    res["baseline_compiled_ms"] = (base.get("compiled") or {}).get("median_ms")
    res["eager_ms"] = (base.get("eager") or {}).get("median_ms")
    if res.get("eager_ms") and res.get("baseline_compiled_ms") and res.get("speedup_vs_compiled"):
        # Gate 4 times the output code in one CUDA graph (no input copies); torch.compile's own
        # run (capture's compiled time) adds CUDA-graph-tree input copies.  The deployed time
        # is torch's compiled time minus the absolute time the replacement saves.
        saved = (res["baseline_ms"] - res["final_ms"]) if res["category"] == "optimized" else 0.0
        res["deployed_ms"] = res["baseline_compiled_ms"] - saved
        res["speedup_vs_eager"] = res["eager_ms"] / res["deployed_ms"] if res["deployed_ms"] > 0 else None
    res["gpu_seconds"] = _gpu_seconds(paths)
    write_json(paths.result, res)
    print(f"[result] {paths.problem}: {res.get('category')} ({res.get('reason')})")
    return res


def _gpu_seconds(paths: ProblemPaths) -> float | None:
    """Wall seconds of this problem's GPU rules, from Snakemake's benchmark files."""
    bench = paths.workdir / "benchmarks"
    total = 0.0
    found = False
    for f in bench.rglob(f"*{paths.problem}*.tsv") if bench.exists() else []:
        lines = f.read_text().splitlines()
        if len(lines) >= 2:
            try:
                total += float(lines[1].split("\t")[0])
                found = True
            except ValueError:
                pass
    return total if found else None
