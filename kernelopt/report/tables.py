"""The report's tables: ``stages`` (one row per problem over stages 1-3: capture, classify,
isolate) and ``results`` (one row per problem from its ``result.json``, summaries per level
and overall), with their console summaries."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from ..core.records import (
    Baseline,
    Category,
    Dispatch,
    IsolateSummary,
    ProblemPaths,
    Result,
    gpu_busy_logs,
    load_readable,
)
from ..search.agents.llm.client import account as llm_account

STAGE_COLUMNS = [
    "problem",
    "status",
    "verdict",
    "device",
    "compile_s",
    "eager_ms",
    "compiled_ms",
    "speedup_compiled_vs_eager",
    "meaningful",
    "triton_share",
    "kinds",
    "units",
    "units_pass",
    "unit_failures",
    "reason",
]


def _dispatch(path: Path) -> Dispatch | None:
    """The problem's dispatch record, or None where there is none to read (the row says what it finds)."""
    return load_readable(Dispatch.load, path)


def _baseline(path: Path) -> Baseline | None:
    """The problem's baseline, or None where there is none to read (the row says what it finds)."""
    return load_readable(Baseline.load, path)


def read_result(path: Path) -> Result | None:
    """A problem's result, or None where there is none to read (a problem that ended in an error
    before its result was written: its row and page say what they find)."""
    return load_readable(Result.load, path)


def stage_row(workdir: Path, problem: str) -> dict[str, Any]:
    p = ProblemPaths(workdir, problem)
    base, disp = _baseline(p.baseline), _dispatch(p.dispatch)
    iso = load_readable(IsolateSummary.load, p.isolated)
    failed = bool(base and base.failed)
    base = base or Baseline()  # none to read: every figure of it empty
    kinds = disp.time_by_kind_ms if disp else {}
    failures = iso.failed_checks if iso else {}
    return {
        "problem": problem,
        "status": "error" if failed else (iso.status if iso else "missing"),
        "verdict": disp.verdict if disp else None,
        "device": base.device,
        "compile_s": base.compile_s,
        "eager_ms": base.eager_ms,
        "compiled_ms": base.compiled_ms,
        "speedup_compiled_vs_eager": base.speedup_compiled_vs_eager,
        "meaningful": (base.compiled or {}).get("meaningful"),
        "triton_share": disp.triton_share if disp else None,
        "kinds": ";".join(f"{k}={v:.4g}ms" for k, v in sorted(kinds.items())),
        "units": iso.units if iso else None,
        "units_pass": iso.units_pass if iso else None,
        "unit_failures": "; ".join(f"{u}: {c.get('status')} ({c.get('reason')})" for u, c in failures.items()),
        "reason": (disp.reason if disp else None) if not failed else (base.error or "").splitlines()[0],
    }


def stages(workdir: Path, problems: list[str], out_json: Path, out_csv: Path) -> dict[str, Any]:
    rows = [stage_row(workdir, p) for p in problems]
    total_units = sum(r["units"] or 0 for r in rows)
    passed = sum(r["units_pass"] or 0 for r in rows)
    summary = {
        "problems": len(rows),
        "errors": [r["problem"] for r in rows if r["status"] == "error"],
        "verdicts": {v: sum(1 for r in rows if r["verdict"] == v) for v in sorted({str(r["verdict"]) for r in rows})},
        "units": total_units,
        "units_pass": passed,
        "rows": rows,
    }
    out_json.parent.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps(summary, indent=2) + "\n")
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=STAGE_COLUMNS)
        w.writeheader()
        w.writerows(rows)
    print(console_summary(summary, out_csv))
    return summary


def console_summary(summary: dict[str, Any], csv_path: Path) -> str:
    lines = [
        f"[report] {summary['problems']} problems; {summary['units_pass']}/{summary['units']} units match "
        f"their eager reference on all seeds; errors: {', '.join(summary['errors']) or 'none'}"
    ]
    for r in summary["rows"]:
        share = f"{r['triton_share']:.0%}" if isinstance(r["triton_share"], float) else "-"
        lines.append(
            f"  {r['problem']:<45} {r['status']:<6} {str(r['verdict']):<18} triton {share:>5}  "
            f"units {r['units_pass']}/{r['units']}"
        )
        if r["status"] == "error":
            lines.append(f"      {r['reason']}")
    lines.append(f"[report] table: {csv_path}")
    return "\n".join(lines)


LLM_COLUMNS = ["llm_calls", "input_tokens", "output_tokens", "cache_read_tokens", "usd"]
RESULT_COLUMNS = [
    "level",
    "problem",
    "verdict",
    "category",
    "fallback_reason",
    "baseline_ms",
    "final_ms",
    "speedup_vs_compiled",
    "speedup_vs_eager",
    "slower_than_eager",
    "noise_band",
    "gate4_caveat",
    "units",
    "units_replaced",
    "winner",
    "won_at",
    "inductor_bw_pct",
    "best_candidate_bw_pct",
    "gpu_seconds",
    "jobs",
    "wall_s",
    "gpu_busy_pct",
    "candidates_judged",
    "gpu_peak_mb",
    "disk_mb",
    "meaningful",
    *LLM_COLUMNS,
]
CATEGORIES = [str(c) for c in Category]  # in the tables' order
# what only a GPU measures: empty in the CSV of a CPU-mode run, left out of its HTML tables
GPU_COLUMNS = ("gpu_seconds", "gpu_busy_pct", "gpu_peak_mb")
CPU_MODE_RANKING = (
    "ranks ignore the times, which mean nothing there: candidates are ranked by origin (the user's first, "
    "then the search's and synthesized ones, Inductor's kernel last; fewer kernels first, then by path)"
)


def slower_than_eager(result: dict[str, Any]) -> bool | None:
    """Whether the deployed model (the stitched one of an optimized problem, else torch.compile's)
    is slower than eager: its speedup vs eager below 1.  None where times mean nothing (CPU
    mode) or there is no such speedup (an error)."""
    s = result.get("speedup_vs_eager")
    if not result.get("meaningful") or not isinstance(s, (int, float)):
        return None
    return s < 1.0


def _geomean(values: list[float]) -> float | None:
    import math

    vals = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


FAST_P = (1.0, 1.5, 2.0)


def fast_p(speedups: list[float | None], p: float) -> float | None:
    """KernelBench's fast_p: the share of all problems that are correct (not ``None``) and
    faster than ``p`` times the reference; a problem without a speedup (an error) counts as
    neither correct nor fast."""
    return sum(1 for s in speedups if s is not None and s > p) / len(speedups) if speedups else None


def deployed_speedups(rows: list[dict[str, Any]], against: str = "compiled") -> list[float | None]:
    """The speedup each problem ships with: an optimized problem's measured one, anything else
    runs the baseline (1x vs the compiled baseline; the compiled time vs eager), an error none."""
    out: list[float | None] = []
    for r in rows:
        if r["category"] == "error":
            out.append(None)
        elif against == "compiled":
            out.append(r["speedup_vs_compiled"] if r["category"] == "optimized" else 1.0)
        else:
            out.append(r.get("speedup_vs_eager"))
    return out


def _round(v: float | None) -> float | None:
    return round(v, 1) if isinstance(v, (int, float)) else None


def winner_text(winners: list[dict[str, Any]]) -> str:
    """One cell: each replaced unit's class and what produced its candidate (report/stage.py:
    ``winners``), e.g. ``scan: handwritten`` or ``pooling: handwritten, then smaller-xblock``."""
    parts = []
    for w in winners:
        how = w.get("source") or w.get("origin") or "?"
        if w.get("direction"):
            how += f", then {w['direction'].split(' on ')[0]}"
        what = f"graph-level {w['graph_level']['rewrite']}" if w.get("graph_level") else (w.get("class") or "?")
        parts.append(f"{what}: {how}")
    return "; ".join(parts)


def won_at(result: dict[str, Any]) -> str:
    """Where an optimized problem's win came from: ``graph-level`` when a replaced unit is a
    graph-level rewrite (issue 16: algebra above the kernel, library calls included), else
    ``kernel-level``; '' for a problem that is not optimized."""
    if result.get("category") != "optimized":
        return ""
    return "graph-level" if any(w.get("graph_level") for w in result.get("winners") or []) else "kernel-level"


def _wins_apart(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The optimized problems split by where their win came from: count and geomean vs compiled."""
    out = {}
    for level in ("graph-level", "kernel-level"):
        speedups = [r["speedup_vs_compiled"] for r in rows if r.get("won_at") == level]
        out[level] = {"problems": len(speedups), "geomean": _geomean(speedups)}
    return out


def gate4_caveat(x: dict[str, Any]) -> str:
    """What ``result.json`` says against gate 4's speedup (``report/stage.py``): a side whose
    rounds stayed unsteady after being measured again, a baseline off capture's time of the same
    output code, and the speedup on capture's time; empty when it says nothing."""
    out = [f"{side} unsteady (rounds spread {s:.0%})" for side, s in (x.get("gate4_unsteady") or {}).items()]
    if x.get("gate4_baseline_vs_capture"):
        out.append(f"baseline {x['gate4_baseline_vs_capture']:.2f}x capture's time")
    if x.get("speedup_on_capture_baseline"):
        out.append(f"{x['speedup_on_capture_baseline']:.3f}x on capture's time")
    return "; ".join(out)


def result_row(workdir: Path, problem: str) -> dict[str, Any]:
    found = read_result(ProblemPaths(workdir, problem).result)
    # a problem that ended in an error may have no result.json: an error row, its figures empty
    res = found or Result(problem=problem, category=Category.ERROR)
    x = res.extra  # what the result has beyond its typed fields, under the file's keys
    category = str(res.category)
    band = res.noise_band
    # gate 4's baseline time, else the output code's own (capture), else torch.compile's call
    base_ms = res.baseline_ms or x.get("baseline_wrapper_ms") or x.get("baseline_compiled_ms")
    roof = x.get("roofline") or {}
    whole = res.as_dict()
    return {
        "level": x.get("level", problem.split("_")[0]),
        "problem": problem,
        "verdict": res.verdict,
        "category": category,
        "fallback_reason": res.reason if found and category in ("fallback", "error", "unit-not-checkable") else "",
        "baseline_ms": base_ms,
        "final_ms": res.final_ms or base_ms,
        "speedup_vs_compiled": res.speedup_vs_compiled,
        "speedup_vs_eager": x.get("speedup_vs_eager"),
        "slower_than_eager": slower_than_eager(whole),
        "noise_band": f"{band[0]:.4f}-{band[1]:.4f}" if band else "",
        "gate4_caveat": gate4_caveat(x),
        "units": res.units,
        "units_replaced": res.units_replaced,
        "winner": winner_text(x.get("winners") or []) if res.optimized else "",
        "won_at": won_at(whole),
        "inductor_bw_pct": _round(roof.get("inductor_bw_pct")),
        "best_candidate_bw_pct": _round(roof.get("best_candidate_bw_pct")),
        "gpu_seconds": x.get("gpu_seconds"),
        "jobs": x.get("jobs"),
        "wall_s": x.get("wall_s"),
        "gpu_busy_pct": x.get("gpu_busy_pct"),
        "candidates_judged": x.get("candidates_judged"),
        "_wall": (x.get("wall_started"), x.get("wall_ended")),
        "_reason": res.reason or "",  # every category's, for the console (the CSV has fallbacks' only)
        "gpu_peak_mb": x.get("gpu_peak_mb"),
        "disk_mb": x.get("disk_mb"),
        "meaningful": res.meaningful if found else None,
        # without a result.json, count the problem's transcripts
        **{k: (x.get("llm") or llm_account(ProblemPaths(workdir, problem).root)).get(k, 0) for k in LLM_COLUMNS},
    }


def _noise_band_halfwidth(rows: list[dict[str, Any]]) -> float | None:
    """Median half-width of gate 4's 95% CI of time(stitched)/time(baseline) over the problems
    gate 4 timed (with ``gates.replace_with_inductor`` an A/A measurement): the noise band."""
    import statistics

    widths = []
    for r in rows:
        lo, _, hi = str(r.get("noise_band") or "").partition("-")
        try:
            widths.append((float(hi) - float(lo)) / 2)
        except ValueError:
            continue
    return statistics.median(widths) if widths else None


def _throughput(rows: list[dict[str, Any]], gpus: int = 1) -> dict[str, Any]:
    """The rows' wall time (first job start to last job end) and candidates judged (gates 1-2
    verdicts pass or fail) per minute of it: per GPU-minute on a GPU run (the wall time times
    the ``gpus`` the run used), per wall minute in CPU mode."""
    spans = [r.get("_wall") or (None, None) for r in rows]
    starts = [a for a, _ in spans if isinstance(a, (int, float))]
    ends = [b for _, b in spans if isinstance(b, (int, float))]
    wall = (max(ends) - min(starts)) if starts and ends else None
    judged = sum(int(r.get("candidates_judged") or 0) for r in rows)
    gpu = any(r.get("gpu_busy_pct") is not None for r in rows) or all(bool(r.get("meaningful")) for r in rows)
    per_min = round(judged / (wall / 60) / (max(gpus, 1) if gpu else 1), 2) if wall else None
    return {
        "wall_s": round(wall, 1) if wall is not None else None,
        "candidates_judged": judged,
        ("candidates_per_gpu_minute" if gpu else "candidates_per_wall_minute"): per_min,
    }


def summarize(rows: list[dict[str, Any]], gpus: int = 1) -> dict[str, Any]:
    """Category counts, deployed and conditional geomeans, optimized rate and fast_p of a set
    of ``result_row`` rows (a level, or all of them)."""
    counts = {c: 0 for c in CATEGORIES}
    reasons: dict[str, int] = {}
    for r in rows:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
        if r["category"] == "fallback":
            reasons[r["fallback_reason"]] = reasons.get(r["fallback_reason"], 0) + 1
    deployed = deployed_speedups(rows)
    deployed_eager = deployed_speedups(rows, "eager")
    optimized = [r["speedup_vs_compiled"] for r in rows if r["category"] == "optimized"]
    optimized_eager = [r.get("speedup_vs_eager") for r in rows if r["category"] == "optimized"]
    infrastructure = sum(
        1 for r in rows if r["category"] == "error" and str(r["fallback_reason"]).startswith("infrastructure")
    )
    return {
        "problems": len(rows),
        "categories": counts,
        "slower_than_eager": sum(1 for r in rows if r.get("slower_than_eager")),
        "errors_by_cause": {"infrastructure": infrastructure, "problem": counts.get("error", 0) - infrastructure},
        "fallback_reasons": reasons,
        "deployed_geomean": _geomean([s for s in deployed if s is not None]),
        "optimized_rate": len(optimized) / len(rows) if rows else None,
        "conditional_geomean_over_optimized": _geomean(optimized),
        "deployed_geomean_vs_eager": _geomean([s for s in deployed_eager if s is not None]),
        "conditional_geomean_over_optimized_vs_eager": _geomean([s for s in optimized_eager if s]),
        "optimized_by_where_won": _wins_apart(rows),
        "fast_p": {
            "vs_compiled": {f"{p:.1f}": fast_p(deployed, p) for p in FAST_P},
            "vs_eager": {f"{p:.1f}": fast_p(deployed_eager, p) for p in FAST_P},
        },
        "noise_band_halfwidth_median": _noise_band_halfwidth(rows),
        **_throughput(rows, gpus),
        "llm": {k: round(sum(r[k] or 0 for r in rows), 6) for k in LLM_COLUMNS},
    }


def summary_of(rows: list[dict[str, Any]], gpus: int = 1) -> dict[str, Any]:
    """summary.json: ``summarize`` overall and per level, and whether times mean anything."""
    levels = sorted({r["level"] for r in rows})
    return {
        "overall": summarize(rows, gpus),
        "levels": {lv: summarize([r for r in rows if r["level"] == lv], gpus) for lv in levels},
        "meaningful": all(bool(r["meaningful"]) for r in rows if r["category"] != "error"),
        "notes": (
            "deployed geomean counts fallbacks and matched problems as 1x; speedups are vs the torch.compile "
            "max-autotune output code replayed in one CUDA graph, the same way for baseline and stitched model; "
            "fast_p is the share of all problems that are correct and faster than p x (an error counts as "
            "neither); the noise band is the median half-width of gate 4's 95% CI of the time ratio"
        ),
    }


def results(workdir: Path, problems: list[str], out_csv: Path, out_json: Path) -> dict[str, Any]:
    rows = [result_row(workdir, p) for p in problems]
    gpus = len(gpu_busy_logs(workdir)) or 1
    summary = summary_of(rows, gpus)
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT_COLUMNS, extrasaction="ignore")
        w.writeheader()
        # the same columns in every run; a CPU-mode run has no GPU: its GPU columns are empty
        w.writerows(r if summary["meaningful"] else {**r, **dict.fromkeys(GPU_COLUMNS)} for r in rows)
    out_json.write_text(json.dumps(summary, indent=2) + "\n")
    summary["rows"] = rows
    return summary


def _apart_text(level: str, v: dict[str, Any]) -> str:
    geo = f" (geomean {v['geomean']:.3f}x)" if v.get("geomean") else ""
    how = "rewrites above the kernel" if level == "graph-level" else "kernel candidates"
    return f"{level} ({how}): {v['problems']}{geo}"


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def results_console(summary: dict[str, Any]) -> str:
    o = summary["overall"]
    g = o["deployed_geomean"]
    lines = [
        f"[report] {o['problems']} problems: "
        + ", ".join(f"{k} {v}" for k, v in o["categories"].items() if v)
        + (f"; deployed geomean {g:.3f}x" if g else "")
        + ("" if summary["meaningful"] else " (CPU mode: no timing is meaningful)")
    ]
    llm = o.get("llm") or {}
    if llm.get("llm_calls"):
        lines.append(
            f"[report] LLM: {llm['llm_calls']} calls, {llm['input_tokens']} input + {llm['output_tokens']} output "
            f"tokens ({llm['cache_read_tokens']} read from the prompt cache), ${llm['usd']:.4f}"
        )
    if not summary["meaningful"]:
        lines.append(
            "[report] CPU mode: gate 4 is skipped (fallback reason cpu-mode), so nothing is deployed; "
            + CPU_MODE_RANKING
        )
    apart = o.get("optimized_by_where_won") or {}
    if (apart.get("graph-level") or {}).get("problems"):
        lines.append("[report] optimized " + "; ".join(_apart_text(k, v) for k, v in apart.items()))
    if o.get("slower_than_eager"):
        lines.append(f"[report] {o['slower_than_eager']} problem(s) deploy a model slower than eager (marked below)")
    for r in summary["rows"]:
        sp = r["speedup_vs_compiled"]
        cost = f"  [{r['llm_calls']} calls, ${r['usd']:.4f}]" if r.get("llm_calls") else ""
        slow = f"  [slower than eager: {r['speedup_vs_eager']:.3f}x]" if r.get("slower_than_eager") else ""
        caveat = f"  [gate 4: {r['gate4_caveat']}]" if r.get("gate4_caveat") else ""
        lines.append(
            f"  {r['problem']:<45} {r['category']:<28} {f'{sp:.3f}x' if sp else '-':>8}  "
            + _clip(r["fallback_reason"] or r.get("_reason") or "", 160)
            + slow
            + caveat
            + cost
        )
    return "\n".join(lines)
