"""The end of the pipeline.

result          ``result.json`` of one problem: category and reason, speedups (vs the compiled
                baseline and vs eager), the noise band, GPU seconds
stages_report   ``report/stages.json``, ``stages.csv``: stages 1-3 over all problems
report          ``report/results.csv``, ``summary.json`` (tables.py): one row per problem, per level and
                overall (deployed geomean, optimized rate, conditional geomean, fast_p); the
                HTML report (html.py)
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from ..core.measure import UNSTABLE_SPREAD
from ..core.records import (
    JOB_GPU_SUFFIX,
    JOB_SPAN_SUFFIX,
    Baseline,
    Beam,
    Best,
    Capture,
    Category,
    Contract,
    Dispatch,
    DispatchVerdict,
    GateVerdict,
    JobGpu,
    JobSpan,
    PlanStatus,
    ProblemPaths,
    Result,
    Slot,
    SlotPaths,
    StitchPlan,
    benchmarks_dir,
    gpu_busy_logs,
    load_readable,
    logs_dir,
)
from ..gates.verdict import ERROR, FAIL, NOT_CHECKABLE, PASS, SKIPPED_BY_MODE
from ..search.agents.llm.client import account as llm_account
from ..select.stage import no_candidate_reason, valid_alternatives
from .roofline import describe, problem_roofline


def winners(paths: ProblemPaths, replacements: dict[str, str]) -> list[dict[str, Any]]:
    """What produced each replacement the stitch made: the unit's class, where the candidate came
    from (a synthesis source, a search direction and the member it was applied to), and what the
    candidate says it is; read from the slot records beside the candidates."""
    from ..search.synth.classes import unit_class

    out = []
    for unit, cand in sorted(replacements.items()):
        # the candidate under the unit's directory (a run directory moved since keeps the tail)
        marker = f"/units/{unit}/"
        rel = cand.split(marker, 1)[1] if marker in cand else Path(cand).name
        slot = SlotPaths(paths.unit(unit) / Path(rel).parent).slot
        info = Slot.load_or_none(slot) or Slot(slot=rel)
        ref = paths.reference(unit)
        row = {
            "unit": unit,
            "class": info.unit_class or (unit_class(ref.read_text()) if ref.exists() else ""),
            "candidate": rel,
            "origin": info.origin or "",
        }
        if info.source:
            row["source"] = info.source
        if info.direction:
            row["direction"] = info.direction_name
            parent = Slot.load_or_none(paths.slot(unit, str(info.direction.get("member", ""))).slot)
            if parent:  # the member the direction was applied to: its own synthesis record
                row.update({k: v for k, v in (("source", parent.source), ("what", parent.what)) if v and k not in row})
        if info.what:
            row["what"] = info.what
        rw = (Contract.load_or_none(paths.contract(unit)) or Contract()).rewrite
        if rw:  # a graph-level unit (issue 16): the rewrite, apart from kernel-level wins
            row["graph_level"] = {"rewrite": rw["name"], "why": rw["why"], "win": rw["win"]}
        out.append(row)
    return out


def graph_level(paths: ProblemPaths, disp: Dispatch, attempts: int) -> dict[str, Any] | None:
    """What the rewrite analysis found (capture/rewrites.py), which findings became graph-level
    units, and which of those each stitch attempt replaced with its gate-3 verdict; None when
    nothing was found (the problem's result is what it was without the analysis)."""
    rec = disp.rewrites
    if not rec:
        return None
    stitched = []
    for a in range(attempts):
        d = paths.attempt(a)
        plan = StitchPlan.load_or_none(d.plan)
        for u in ((plan and plan.stitch) or {}).get("rewrites", []):
            g3 = GateVerdict.load_or_none(d.gate(3))
            stitched.append(
                {"attempt": a, "unit": u["unit"], "rewrite": u["name"], "gate3": g3.verdict if g3 else None}
            )
    keep = ("rewrite", "node", "why", "win", "candidate")
    return {
        "findings": [{k: f[k] for k in keep} for f in rec.get("findings", [])],
        "units": rec.get("rewrite_units", []),
        "refused": rec.get("refused", []),
        "stitched": stitched,
    }


def _attempts(
    paths: ProblemPaths, cfg: dict[str, Any]
) -> tuple[list[dict[str, Any]], tuple[int, StitchPlan, GateVerdict] | None]:
    """The stitch attempts up to the first that passed gates 3 and 4 (chosen: attempt, plan, gate 4),
    or to one that passed the problem through or had no candidate."""
    attempts = []
    for a in range(int(cfg["gates"]["retries"]) + 1):
        d = paths.attempt(a)
        plan = StitchPlan.load(d.plan)
        if plan.status == PlanStatus.PASSED_THROUGH:
            break
        g3, g4 = GateVerdict.load(d.gate(3)), GateVerdict.load(d.gate(4))
        attempts.append(
            {
                "attempt": a,
                "status": plan.status,
                "gate3": g3.verdict,
                "gate4": g4.verdict,
                "reason": g4.reason if g3.passed else g3.reason,
            }
        )
        if plan.status == PlanStatus.NO_CANDIDATES:
            break
        if g3.passed and g4.passed:
            return attempts, (a, plan, g4)
    return attempts, None


def _deployed(
    res: dict[str, Any], paths: ProblemPaths, chosen: tuple[int, StitchPlan, GateVerdict], cfg: dict[str, Any]
) -> None:
    """The attempt that passed every gate: optimized when its speedup is significant, else matched."""
    a, plan, g4 = chosen
    n = g4.numbers
    speed = n["speedup"]
    res.update(
        baseline_ms=n["a_ms"],
        final_ms=n["b_ms"],
        noise_band=n["noise_band"],
        units_replaced=len(plan.replacements),
        stitched_attempt=a,
        winners=winners(paths, plan.replacements),
    )
    # gate 4's rounds still unsteady after being measured again (``measure.compare``): the
    # decision stands on the ratio's interval, but the times beside it are less certain
    unsteady = {
        side: n.get(f"spread_{key}")
        for side, key in (("baseline", "a"), ("candidate", "b"))
        if n.get("meaningful") and n.get("stable") is False and (n.get(f"spread_{key}") or 0) > UNSTABLE_SPREAD
    }
    if unsteady:
        res["gate4_unsteady"] = unsteady
    significant = n["ci_high"] < 1.0 and speed > cfg["gates"]["optimized_min_speedup"]
    if significant:
        res.update(category=Category.OPTIMIZED, speedup_vs_compiled=speed, reason=None)
        return
    res.update(
        category=Category.MATCHED_OPTIMIZED,
        speedup_vs_compiled=1.0,
        measured_speedup=speed,
        reason=(
            f"all gates passed but the speedup {speed:.4f} "
            + ("is below the minimum" if n["ci_high"] < 1.0 else "is not significant")
            + f" (time ratio 95% CI {n['ci_low']:.4f}-{n['ci_high']:.4f}; optimized needs the CI below 1 "
            f"and a speedup over {cfg['gates']['optimized_min_speedup']}): the baseline is kept"
        ),
    )


def _not_deployed(
    res: dict[str, Any],
    paths: ProblemPaths,
    units: list[str],
    attempts: list[dict[str, Any]],
    faults: list[dict[str, Any]],
    not_checkable: dict[str, str],
) -> None:
    """No attempt passed every gate: a fault, units that cannot be checked, no candidate, or the
    gate that refused them."""
    last = attempts[-1] if attempts else None
    if faults:  # a fault is never a verdict: whatever the gates could not decide is reported as such
        first = faults[0]
        res.update(
            status="error",
            category=Category.ERROR,
            reason=f"infrastructure: {first['cause'].removeprefix('infrastructure: ')[:300]} ({first['where']})",
            speedup_vs_compiled=None,
        )
    elif not_checkable and len(not_checkable) == len(units):
        res.update(
            category=Category.UNIT_NOT_CHECKABLE,
            # the gate's reason already names its rule ("unit-not-checkable: ...")
            reason=f"unit-not-checkable: {next(iter(not_checkable.values())).removeprefix('unit-not-checkable: ')}",
        )
    elif last is None or last["status"] == "no-candidates" and len(attempts) == 1:
        alts = valid_alternatives(paths, units)
        if alts:
            # valid kernels were found, none faster than Inductor's: the search matched it
            res.update(category=Category.MATCHED_OPTIMIZED, reason=no_candidate_reason(alts))
        else:
            category, reason = nothing_passed(paths, units)
            res.update(category=category, reason=reason)
    elif any(x["gate3"] == FAIL for x in attempts) and not any(x["gate3"] == PASS for x in attempts):
        res.update(category=Category.FALLBACK, reason="e2e-correctness", detail=[x["reason"] for x in attempts])
    elif any(x["gate4"] == SKIPPED_BY_MODE for x in attempts):
        # gate 4 did not fail: CPU mode never decides it, so nothing can be deployed
        res.update(
            category=Category.FALLBACK, reason=CPU_MODE, detail=[CPU_MODE_DETAIL, *(x["reason"] for x in attempts)]
        )
    else:
        res.update(category=Category.FALLBACK, reason="perf-gate", detail=[x["reason"] for x in attempts])


def _categorize(res: dict[str, Any], paths: ProblemPaths, units: list[str], cfg: dict[str, Any]) -> None:
    """Category and reason of a problem that classify found optimizable, from its stitch attempts."""
    faults = infrastructure_faults(paths, units)
    not_checkable = units_not_checkable(paths, units)
    if faults:
        res["infrastructure_faults"] = faults
    if not_checkable:
        res["units_not_checkable"] = not_checkable
    attempts, chosen = _attempts(paths, cfg)
    res["attempts"] = attempts
    if chosen:
        _deployed(res, paths, chosen, cfg)
    else:
        _not_deployed(res, paths, units, attempts, faults, not_checkable)


def _speedups(res: dict[str, Any], base: Baseline, disp: Dispatch) -> None:
    """The baseline times, and the speedups against eager and the user's own module."""
    res["baseline_compiled_ms"] = base.compiled_ms
    res["baseline_wrapper_ms"] = base.wrapper_ms
    res["eager_ms"] = base.eager_ms
    # capture's GPU times whose rounds stayed unsteady after being measured again
    # (``measure.time_one``): the slowest round over the fastest, less one (a CPU wall clock
    # means nothing, steady or not)
    unsteady = {
        name: t.get("spread")
        for name, t in (("eager", base.eager), ("compiled", base.compiled), ("wrapper", base.wrapper))
        if isinstance(t, dict) and t.get("meaningful") and t.get("stable") is False
    }
    if unsteady:
        res["baseline_unsteady"] = unsteady
    # gate 4 times the baseline on capture's basis (one CUDA graph of the output code): where the
    # two differ by more than the unsteady bound, the speedup rests on a baseline time the
    # capture did not see (on the H100, 2026-12-06: a suffix sum's 2.41 ms in gate 4, 1.57 ms at
    # capture, a 1.97x speedup reported as 3.02x); named, with the speedup on capture's time
    off = res.get("baseline_ms") and base.wrapper_ms and (base.wrapper or {}).get("meaningful") and res.get("final_ms")
    if off and abs(res["baseline_ms"] / base.wrapper_ms - 1.0) > UNSTABLE_SPREAD:
        res["gate4_baseline_vs_capture"] = round(res["baseline_ms"] / base.wrapper_ms, 4)
        res["speedup_on_capture_baseline"] = base.wrapper_ms / res["final_ms"]
    # Gate 4 times the output code in one CUDA graph (no input copies), and so does capture
    # (baseline_wrapper_ms: the same basis as gate 4's baseline_ms).  A deployed torch.compile
    # model runs under CUDA-graph trees, which copy fresh inputs into the graph on every call:
    # its time (baseline_compiled_ms) includes them, and so does the deployed time, torch's
    # compiled time minus the absolute time the replacement saves.
    if res.get("eager_ms") and res.get("baseline_compiled_ms") and res.get("speedup_vs_compiled"):
        saved = (res["baseline_ms"] - res["final_ms"]) if res["category"] == Category.OPTIMIZED else 0.0
        res["deployed_ms"] = res["baseline_compiled_ms"] - saved
        res["speedup_vs_eager"] = res["eager_ms"] / res["deployed_ms"] if res["deployed_ms"] > 0 else None
    if any(u.user for u in disp.units) and res.get("eager_ms") and res.get("baseline_ms"):
        # a standalone Triton / Helion problem: the user's own module (eager: the user's kernels,
        # as the user launches them) against the deployed output code as gate 4 timed it
        final = res["final_ms"] if res["category"] == Category.OPTIMIZED else res["baseline_ms"]
        res["speedup_vs_user_module"] = res["eager_ms"] / final if final else None


def finalize(paths: ProblemPaths, units: list[str], cfg: dict[str, Any]) -> dict[str, Any]:
    """result.json: category and reason (docs/architecture.md, "Categories"), speedups, noise band, cost."""
    base = Baseline.load(paths.baseline)
    disp = Dispatch.load(paths.dispatch)
    res: dict[str, Any] = {
        "problem": paths.problem,
        "level": paths.problem.split("_")[0],
        "status": "ok",
        "verdict": disp.verdict,
        "units": len(disp.units),
        "units_replaced": 0,
        "baseline_ms": None,
        "final_ms": None,
        "speedup_vs_compiled": 1.0,
        "noise_band": None,
        "meaningful": base.device == "cuda",
    }
    if base.failed:
        res.update(
            status="error",
            category=Category.ERROR,
            stage=base.stage,
            reason=base.error.splitlines()[0],
            error=base.error,
            speedup_vs_compiled=None,
        )
    elif disp.verdict == DispatchVerdict.ERROR:  # capture failed, or its profile lost a kernel's events
        res.update(
            status="error",
            category=Category.ERROR,
            reason=disp.reason or "classify: error",
            speedup_vs_compiled=None,
        )
    elif disp.verdict in (DispatchVerdict.LIBRARY_DOMINATED, DispatchVerdict.NO_TRITON):
        res.update(category=Category.FALLBACK, reason=disp.verdict)
    else:
        _categorize(res, paths, units, cfg)
    _speedups(res, base, disp)
    gl = graph_level(paths, disp, int(cfg["gates"]["retries"]) + 1)
    if gl:
        res["graph_level"] = gl
    if res["category"] != Category.ERROR and disp.verdict not in (
        DispatchVerdict.LIBRARY_DOMINATED,
        DispatchVerdict.NO_TRITON,
    ):
        res["roofline"] = problem_roofline(paths, units, float(cfg["search"]["peak_bandwidth_gbs"]))
        clause = describe(res["roofline"])
        if clause and res["category"].startswith("matched"):
            res["reason"] = f"{res['reason']}; {clause}" if res.get("reason") else clause
    res["gpu_seconds"] = gpu_seconds(paths)
    res.update(job_account(paths))
    res["llm"] = llm_account(paths.root)  # every transcript under the problem (none for the heuristic)
    Result.from_dict(res).save(paths.result)
    print(f"[result] {paths.problem}: {res.get('category')} ({res.get('reason')})")
    return res


CPU_MODE = "cpu-mode"  # a fallback's reason: gate 4 skipped by mode, not failed
CPU_MODE_DETAIL = (
    "gate 4 skipped in CPU mode (times mean nothing there): the stitched model passed gate 3, "
    "but no speedup can be shown, so nothing is deployed"
)
SEARCH_OFF = "synthesis and search off (search.iterations: 0)"
SYNTHESIS_OFF = "synthesis off (search.synthesis_attempts: 0)"
NOTHING_TRIED = "no candidate was tried beyond Inductor's own kernel"


def _short(text: Any, n: int = 200) -> str:
    t = " ".join(str(text or "").split())
    return t if len(t) <= n else t[: n - 3] + "..."


def rejection(slot: SlotPaths) -> str | None:
    """Why a slot's candidate did not pass gates 1-2 (``gate 2 (rule): reason``), None if it passed."""
    g1, g2 = GateVerdict.load_or_none(slot.gate(1)), GateVerdict.load_or_none(slot.gate(2))
    if g2 and g2.passed:
        return None
    bad = g1 if g1 and g1.verdict not in (PASS, None) else g2
    if bad is None:
        return "never judged (no gate verdict)"
    rule = f" ({bad.rule})" if bad.rule else ""
    return f"gate {bad.gate}{rule}: {_short(bad.reason)}"


def synthesis_tries(paths: ProblemPaths, unit: str) -> tuple[bool, list[str]]:
    """(whether synthesis was attempted for the unit, what became of it).  An attempt skipped
    because Inductor's kernel is at its roof or too small a share of the time is no attempt."""
    tried, said = False, []
    for sp in paths.synth_slots(unit):
        info = Slot.load_or_none(sp.slot) or Slot(slot=sp.dir.name, empty=False)
        if info.near_roof or info.negligible:
            if f"{unit}: {info.reason}" not in said:
                said.append(f"{unit}: {info.reason}")
            continue
        tried = True
        why = _short(info.reason, 160) if info.empty else rejection(sp)
        if why:
            said.append(f"{unit}: synthesis {sp.dir.name} failed: {why}")
    return tried, said


def user_tries(paths: ProblemPaths, unit: str) -> list[str]:
    """What became of the user's candidates of the unit (slots ``c1``, ``c2``, ...)."""
    said, best = [], Best.load_or_empty(paths.best(unit))
    k = 1
    while (sp := paths.cand(unit, k)).slot.exists():
        info, k = Slot.load(sp.slot), k + 1
        if info.empty:
            continue
        name = sp.dir.relative_to(paths.unit(unit)).as_posix()
        why = rejection(sp)
        if why:
            said.append(f"{unit}: the user's candidate {name} was rejected by {why}")
        else:
            untimed = next((v for p, v in (best.not_timed or {}).items() if p.startswith(f"{name}/")), None)
            said.append(f"{unit}: the user's candidate {name} passed gates 1-2 but was not timed: {untimed or '?'}")
    return said


def search_tries(paths: ProblemPaths, unit: str) -> list[str]:
    """What the search of the unit tried (nothing is said where it never ran)."""
    beams = paths.beams(unit)
    if not beams:
        return []
    iters = {b.parent.name for b in beams}
    udir = paths.unit(unit)
    slots = {f.parent for f in paths.slot_verdicts(unit) if f.relative_to(udir).parts[0] in iters}
    if slots:
        return [f"{unit}: the search's {len(slots)} candidate(s) all failed gates 1-2"]
    stopped = Beam.load(beams[0]).stopped
    return [f"{unit}: the search tried no candidate" + (f" ({_short(stopped, 160)})" if stopped else "")]


def nothing_passed(paths: ProblemPaths, units: list[str]) -> tuple[Category, str]:
    """Category and reason of a problem no candidate but Inductor's kernel passed gates 1-2 of:
    ``synthesis failed`` only where synthesis was attempted; else ``not synthesized``, with why
    (off, or skipped at the roof) and what was tried instead: the user's candidates, the search."""
    tried, said, user, search = False, [], [], []
    for unit in units:
        t, s = synthesis_tries(paths, unit)
        tried, said = tried or t, said + s
        user += user_tries(paths, unit)
        search += search_tries(paths, unit)
    if tried:
        head = "no candidate beyond Inductor's passed gates 1-2"
    elif not any(paths.synth_slots(u) or paths.beams(u) for u in units):
        head = SEARCH_OFF  # synthesis runs only for the search: iterations 0 turns both off
    elif not any(paths.synth_slots(u) for u in units):
        head = SYNTHESIS_OFF
    else:
        head = "synthesis skipped"
    if not tried and not user and not search:
        head = f"{head}: {NOTHING_TRIED}"
    reason = "; ".join([head, *said, *user, *search])
    return (Category.MATCHED_SYNTHESIS_FAILED if tried else Category.MATCHED_NOT_SYNTHESIZED), reason


def infrastructure_faults(paths: ProblemPaths, units: list[str]) -> list[dict[str, str]]:
    """Every place a fault, not a verdict, was recorded for this problem's candidates."""
    out: list[dict[str, str]] = []
    for unit in units:
        for f in paths.slot_verdicts(unit):
            v = GateVerdict.load(f)
            if v.verdict == ERROR:
                out.append({"where": f.relative_to(paths.root).as_posix(), "cause": str(v.reason)})
        faults = [(paths.best(unit), Best.load_or_empty(paths.best(unit)).infrastructure)]
        faults += [(f, Beam.load(f).infrastructure) for f in paths.beams(unit)]
        out += [{"where": f.relative_to(paths.root).as_posix(), "cause": str(c)} for f, c in faults if c]
    for f in paths.attempt_verdicts():
        v = GateVerdict.load(f)
        if v.verdict == ERROR:
            out.append({"where": f.relative_to(paths.root).as_posix(), "cause": str(v.reason)})
    return out


def units_not_checkable(paths: ProblemPaths, units: list[str]) -> dict[str, str]:
    """Units whose candidates were not judged (no trustworthy reference), with the reason."""
    out = {}
    for unit in units:
        g = GateVerdict.load_or_none(paths.cand(unit, 0).gate(2))
        if g and g.verdict == NOT_CHECKABLE:
            out[unit] = str(g.reason)
    return out


def _job_files(root: Path, problem: str, suffix: str) -> list[Path]:
    """``<root>/<rule>/<problem><suffix>`` and ``<root>/<rule>/<problem>/**/*<suffix>`` (per unit)."""
    if not root.exists():
        return []
    return [
        f
        for rule in sorted(root.iterdir())
        if rule.is_dir()
        for f in ([rule / f"{problem}{suffix}"] + sorted((rule / problem).rglob(f"*{suffix}")))
        if f.is_file()
    ]


def job_account(paths: ProblemPaths) -> dict[str, Any]:
    """What the problem cost the machine: its jobs (one log each), the largest GPU memory one of
    them used (``<log>.gpu.json``, core/gpumem.py; capture's own record on a machine without
    it), the memory they declared, and the disk its run directory takes."""
    logs = _job_files(logs_dir(paths.workdir), paths.problem, ".log")
    peaks, declared = [], []
    for f in _job_files(logs_dir(paths.workdir), paths.problem, JOB_GPU_SUFFIX):
        mem = getattr(load_readable(JobGpu.load, f), "memory", None) or {}
        if mem.get("peak_mb") is not None:
            peaks.append(float(mem["peak_mb"]))
        if mem.get("declared_mb"):
            declared.append(int(mem["declared_mb"]))
    capture = Capture.load_or_none(paths.capture_record)
    capture_mem = (capture.memory if capture else None) or {}
    if capture_mem.get("job_peak_mb"):
        peaks.append(float(capture_mem["job_peak_mb"]))
    disk = sum(f.stat().st_size for f in paths.root.rglob("*") if f.is_file()) if paths.root.exists() else 0
    found = _job_files(logs_dir(paths.workdir), paths.problem, JOB_SPAN_SUFFIX)
    spans = [s for f in found if (s := load_readable(JobSpan.load, f)) is not None]
    starts = [s.started for s in spans if isinstance(s.started, (int, float))]
    ends = [s.ended for s in spans if isinstance(s.ended, (int, float))]
    span = (min(starts), max(ends)) if starts and ends else None
    judged = [v for g in paths.gate2_verdicts() if (v := GateVerdict.load(g).verdict) in (PASS, FAIL)]
    return {
        "jobs": len(logs),
        "wall_started": span[0] if span else None,
        "wall_ended": span[1] if span else None,
        "wall_s": round(span[1] - span[0], 1) if span else None,
        "gpu_busy_pct": gpu_busy_pct(paths.workdir, span),
        "candidates_judged": len(judged),
        "gpu_peak_mb": round(max(peaks), 1) if peaks else None,
        "gpu_declared_max_mb": max(declared) if declared else None,
        "disk_mb": round(disk / 2**20, 2),
    }


def gpu_busy_pct(workdir: Path, span: tuple[float, float] | None) -> float | None:
    """The share of the GPU-utilisation samples (``logs/gpu-busy-*.jsonl``, one a second, taken
    by the warm workers) within ``span`` in which a GPU was busy; None without samples (CPU
    mode, or the executor off)."""
    if span is None:
        return None
    samples = []
    for f in gpu_busy_logs(workdir):
        for line in f.read_text().splitlines():
            with contextlib.suppress(ValueError, KeyError, TypeError):
                d = json.loads(line)
                if span[0] <= float(d["t"]) <= span[1]:
                    samples.append(float(d["util"]) > 0)
    return round(100.0 * sum(samples) / len(samples), 1) if samples else None


def gpu_seconds(paths: ProblemPaths) -> float | None:
    """Wall seconds of this problem's GPU rules, from Snakemake's benchmark files:
    ``benchmarks/<rule>/<problem>.tsv`` and ``benchmarks/<rule>/<problem>/...tsv`` (per unit)."""
    files = _job_files(benchmarks_dir(paths.workdir), paths.problem, ".tsv")
    total = 0.0
    found = False
    for f in files:
        lines = f.read_text().splitlines()
        if len(lines) >= 2:
            try:
                total += float(lines[1].split("\t")[0])
                found = True
            except ValueError:
                pass
    return total if found else None
