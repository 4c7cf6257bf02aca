"""The per-problem table of a run over problems/large/level1 (issue 8's H200 evidence): baseline
and final time, category, the roofline of Inductor's kernels and of the best candidate, the roof
when a row too large for one SM is read twice, and why each problem that was not optimized
stayed; the geomean speedup over the problems.

    python3 bench/level1_table.py [--exclude=PROBLEM ...] SOURCE [SOURCE ...] OUT.json OUT.md

A source is a run directory or the JSON of an earlier table (its rows as they were, for runs whose
directories are gone; a file, or one held in a summaries.json of bench/results, e.g.
``bench/results/large_h200/summaries.json/run14_level1/level1_table.json``: bench/evidence.py); a
later source's finished row replaces an earlier one's.

Several run directories (the suite run in chunks, one per device call) give one table: each
problem's row comes from the directory where it finished.

Times: where gate 4 ran, its baseline and stitched times (the output code in one CUDA graph,
interleaved); the speedup is gate 4's (1.0 where the baseline was kept).  ``inductor_kernels_ms``
is the sum of Inductor's kernel times (the search's profiles); ``compiled_ms`` torch.compile's own
call, CUDA-graph input copies included; ``wrapper_ms`` the output code alone in one CUDA graph
(runs captured from 2026-12-01 on).  The roofline is recomputed here with the current code from
the run directory (so runs made before the re-read roof existed get it too).
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import evidence  # noqa: E402

from kernelopt.core.records import ProblemPaths  # noqa: E402
from kernelopt.report.roofline import problem_roofline  # noqa: E402

PEAK_GBS = 4300.0


def _read(p: Path):
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def _r(x, n=2):
    return None if x is None else round(float(x), n)


def unit_stop(udir: Path) -> str | None:
    """The last stop reason a plan of the unit's search gave."""
    plans = sorted(udir.glob("iter*/plan.json"), key=lambda p: int(re.sub(r"\D", "", p.parent.name) or 0))
    for p in reversed(plans):
        stop = (_read(p) or {}).get("stop")
        if stop:
            return f"{p.parent.name}: {stop}"
    return None


def why_stayed(res: dict, roof: dict) -> str:
    cat = res.get("category", "")
    if cat == "optimized":
        return ""
    reason = (res.get("reason") or "").split("; Inductor's kernels ran at")[0]
    if cat.startswith("matched"):
        units = roof.get("units") or []
        units = [u for u in units if not u.get("composite")]
        near = [u for u in units if (u.get("inductor_pct") or 0) >= 90]
        floor = roof.get("reread_roof_pct")
        ind = roof.get("inductor_bw_pct")
        if floor and ind and ind >= 0.9 * floor:
            return f"near-optimal at the re-read roof ({ind:.0f} % of {floor:.0f} %); {reason}"
        if units and len(near) == len(units):
            return f"near-optimal ({ind:.0f} % of the copy bandwidth); {reason}"
        return f"no candidate faster; {reason}"
    return f"{cat}: {reason}"


def in_model_bound(disp: dict, roof: dict, wrapper_ms: float | None) -> tuple[float | None, float | None]:
    """(Inductor's kernels' time in the model at capture, the most any kernels could gain): the
    output code's time (one CUDA graph) with each kernel of Inductor (a fused pair or a region is
    its members again, left out) brought to its roof, the bytes its contract says it must move
    at the copy bandwidth (at the re-read roof where its rows do not fit on chip), a kernel
    already faster keeping its time; library calls and launch gaps keep theirs.  Capture times
    every kernel in the model, so this needs no isolated profile (run 14: Max's isolated profile
    was 28 % slower than its in-model time)."""
    by_unit = {u["unit"]: u for u in roof.get("units", [])}
    kernels = [u for u in disp.get("units", []) if not u.get("fused") and not u.get("region")]
    if not wrapper_ms or not kernels:
        return None, None
    t = floor = 0.0
    for u in kernels:
        r = by_unit.get(u["id"]) or {}
        if u.get("time_ms") is None or not r.get("bytes"):
            return None, None
        ms = float(u["time_ms"])  # every launch of the kernel; the contract's bytes are one launch's
        at_roof = int(u.get("launches") or 1) * r["bytes"] * 100.0 / (r.get("reread_roof_pct") or 100.0)
        at_roof /= PEAK_GBS * 1e9 / 1e3
        t += ms
        floor += min(ms, at_roof)
    # kernels timed one by one can add up to a little more than the graph's time: no negative gap
    return t, max(1.0, wrapper_ms / max(max(wrapper_ms - t, 0.0) + floor, 1e-9))


def row(wd: Path, problem: str) -> dict:
    paths = ProblemPaths(wd, problem)
    res = _read(paths.result) or {}
    disp = _read(paths.dispatch) or {}
    units = [u["id"] for u in disp.get("units", [])]
    base = _read(paths.baseline) or {}
    roof = problem_roofline(paths, units, PEAK_GBS) if units and res.get("category") != "error" else {}
    kernels_ms = sum(u["inductor_ms"] for u in roof.get("units", []) if u.get("inductor_ms") and not u.get("composite"))
    kernels_ms = kernels_ms or None
    # what the problem ships with: gate 4's speedup, the baseline (1.0) when it was kept; an error
    # has none (left out of the geomean, as the report does)
    cat = res.get("category")
    speedup = res.get("speedup_vs_compiled") if cat == "optimized" else None if cat == "error" else 1.0
    wrapper_ms = (base.get("wrapper") or {}).get("median_ms")
    capture_kernels_ms, bound = in_model_bound(disp, roof, wrapper_ms)
    per_unit = []
    for u in roof.get("units", []):
        best = u.get("best_candidate") or {}
        per_unit.append(
            {
                "unit": u["unit"],
                "inductor_pct": _r(u.get("inductor_pct"), 1),
                "reread_roof_pct": _r(u.get("reread_roof_pct"), 1),
                "best_candidate": best.get("path"),
                "best_ratio": _r(best.get("ratio"), 4),
                "best_pct": _r(best.get("pct"), 1),
                "search_stop": unit_stop(paths.unit(u["unit"])),
            }
        )
    return {
        "problem": problem,
        "category": res.get("category", "unfinished" if not res else "error"),
        "gate4_baseline_ms": _r(res.get("baseline_ms"), 4),
        "gate4_final_ms": _r(res.get("final_ms"), 4),
        "speedup": _r(speedup, 4) if res else None,
        "inductor_kernels_ms": _r(kernels_ms, 4),
        "wrapper_ms": _r((base.get("wrapper") or {}).get("median_ms"), 4),
        "compiled_ms": _r((base.get("compiled") or {}).get("median_ms"), 4),
        "eager_ms": _r((base.get("eager") or {}).get("median_ms"), 4),
        "inductor_bw_pct": _r(roof.get("inductor_bw_pct"), 1),
        "best_candidate_bw_pct": _r(roof.get("best_candidate_bw_pct"), 1),
        "reread_roof_pct": _r(roof.get("reread_roof_pct"), 1),
        "capture_kernels_ms": _r(capture_kernels_ms, 4),
        # the most any kernel set could gain: Inductor's kernels (timed in the model at capture)
        # brought to their roof within the output code's time
        "roof_bound_speedup": _r(bound, 3),
        # the same from the search's isolated profiles alone (regions and their members both count)
        "roof_bound_isolated": _r(max((roof.get("reread_roof_pct") or 100.0) / roof["inductor_bw_pct"], 1.0), 3)
        if roof.get("inductor_bw_pct")
        else None,
        "why": why_stayed(res, roof) if res else "not finished in the run",
        "units": per_unit,
    }


def _older_row(r: dict, table: Path) -> dict:
    """A row of a table written before the in-model bound existed: its bound was the isolated one."""
    if "roof_bound_isolated" not in r:
        r = {**r, "roof_bound_isolated": r.get("roof_bound_speedup"), "roof_bound_speedup": None}
    return {"capture_kernels_ms": None, **r, "run_dir": f"{table.parent.name}/{table.name}:{r.get('run_dir')}"}


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    # --exclude=PROBLEM (repeatable): a problem of a run directory that is not the suite's (run
    # 15 ran a fresh problem beside two of the suite's in one directory)
    exclude = {a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--exclude=")}
    *wds, out_json, out_md = (Path(a) for a in sys.argv[1:] if not a.startswith("--exclude="))
    # several run directories (a suite run in chunks, one per device call): a problem's row is
    # taken from the directory where it finished (else the last one that has it)
    by_problem: dict[str, dict] = {}
    for wd in wds:
        if wd.suffix == ".json":  # an earlier table (its run directories gone): its rows as they were
            older = evidence.load(wd)["rows"]
            found = [(r["problem"], _older_row(r, wd)) for r in older]
        else:
            found = [(p.name, {**row(wd, p.name), "run_dir": wd.name}) for p in wd.glob("level*_*")]
            found = [(p, r) for p, r in found if (wd / p / "capture").is_dir()]
        for p, r in found:
            if p in exclude:
                continue
            if p not in by_problem or r["speedup"] or not by_problem[p]["speedup"]:
                by_problem[p] = r
    rows = [by_problem[p] for p in sorted(by_problem, key=lambda n: (n.split("_")[0], int(n.split("_")[1])))]
    all_rows, rows = rows, [r for r in rows if r["problem"].startswith("level1_")]  # issue 8's geomean: level 1
    done = [r for r in rows if r["speedup"]]
    geo = math.exp(sum(math.log(r["speedup"]) for r in done) / len(done)) if done else None
    # the in-model bound where the run directory had capture's times, else the isolated one
    bound = [r["roof_bound_speedup"] or r["roof_bound_isolated"] for r in rows]
    bound = [b for b in bound if b]
    summary = {
        "problems_with_a_roof_bound": len(bound),
        "problems_with_an_isolated_bound_only": sum(
            1 for r in rows if not r["roof_bound_speedup"] and r["roof_bound_isolated"]
        ),
        "geomean_roof_bound_speedup": _r(math.exp(sum(math.log(b) for b in bound) / len(bound)), 4) if bound else None,
        "problems": len(rows),
        "finished": len(done),
        "optimized": sum(r["category"] == "optimized" for r in rows),
        "regressions": sum(1 for r in done if r["speedup"] < 1.0),
        "geomean_speedup_finished": _r(geo, 4),
        "peak_gbs": PEAK_GBS,
        "other_levels": {
            "problems": len(all_rows) - len(rows),
            "optimized": sum(r["category"] == "optimized" for r in all_rows if r not in rows),
            "regressions": sum(1 for r in all_rows if r not in rows and r["speedup"] and r["speedup"] < 1.0),
        },
    }
    rows = all_rows
    out_json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")

    def f(x, suffix=""):
        return "–" if x is None else f"{x}{suffix}"

    def bound_text(r):
        if r["roof_bound_speedup"]:
            return f(r["roof_bound_speedup"], "x")
        return f(r["roof_bound_isolated"], "x (isolated)")

    lines = [
        "| problem | category | baseline → final ms (gate 4) | speedup | Inductor kernels ms | "
        "Inductor % of roof | best candidate % | re-read roof % | in-model kernels ms | at most (roof) | "
        "why it stayed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        times = f"{r['gate4_baseline_ms']} → {r['gate4_final_ms']}" if r["gate4_baseline_ms"] else "–"
        lines.append(
            f"| `{r['problem']}` | {r['category']} | {times} | {f(r['speedup'])} | {f(r['inductor_kernels_ms'])} | "
            f"{f(r['inductor_bw_pct'])} | {f(r['best_candidate_bw_pct'])} | {f(r['reread_roof_pct'])} | "
            f"{f(r['capture_kernels_ms'])} | "
            f"{bound_text(r)} | "
            f"{r['why'][:220]} |"
        )
    lines.append("")
    lines.append(
        f"Level 1: {summary['finished']} of {summary['problems']} problems finished, {summary['optimized']} optimized, "
        f"{summary['regressions']} regressions; geomean speedup over the finished ones: "
        f"{f(summary['geomean_speedup_finished'])}; geomean of the roof bound over the "
        f"{summary['problems_with_a_roof_bound']} problems with a kernel time: "
        f"{f(summary['geomean_roof_bound_speedup'])}"
        + (
            f" ({summary['problems_with_an_isolated_bound_only']} of them from isolated profiles only)"
            if summary["problems_with_an_isolated_bound_only"]
            else ""
        )
        + (
            f".  Other levels: {summary['other_levels']['problems']} problems, "
            f"{summary['other_levels']['optimized']} optimized, {summary['other_levels']['regressions']} regressions"
            if summary["other_levels"]["problems"]
            else ""
        )
    )
    out_md.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
