"""Issue 13's table: problems/headroom/ run on the GPU, one table per class: Inductor's share of
its roof, the best candidate's, gate 4's speedup, the bound (Inductor's kernels at their roof,
in the model), what produced the winner or why the baseline stayed; geomeans over level 1 and
level 2 and the regressions.

    python3 bench/headroom_table.py SOURCE [SOURCE ...] OUT.json OUT.md

A source is a run directory or an earlier table's JSON (its rows as they were).  A problem run in
several sources takes its optimized row, else the last source's finished row (the sources are
runs of different commits: the rule and which row came from where are stated in bench/README.md).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import evidence  # noqa: E402
from level1_table import row  # noqa: E402

from kernelopt.core.jsonio import read_json  # noqa: E402
from kernelopt.core.records import ProblemPaths  # noqa: E402
from kernelopt.report.stage import winners  # noqa: E402
from kernelopt.report.tables import winner_text  # noqa: E402

# the classes, by the problem's number in problems/headroom/<level>/
CLASSES = {
    "level1": {
        **dict.fromkeys(range(1, 7), "pooling"),
        **dict.fromkeys((7, 8), "L1 norm"),
        **dict.fromkeys((9, 10), "LayerNorm over trailing dims"),
        **dict.fromkeys((11, 12), "InstanceNorm"),
        13: "GroupNorm",
        **dict.fromkeys(range(14, 18), "scan"),
        **dict.fromkeys((18, 19, 20), "min / index reductions"),
        **dict.fromkeys(range(21, 25), "loss"),
    },
    "level2": dict.fromkeys((1, 2, 3), "norm after a convolution"),
    "level3": dict.fromkeys((1, 2), "attention"),
}


def problem_class(problem: str) -> str:
    level, num = problem.split("_")[:2]
    return CLASSES.get(level, {}).get(int(num), "other")


def _geo(xs: list[float]) -> float | None:
    return round(math.exp(sum(math.log(x) for x in xs) / len(xs)), 4) if xs else None


def main() -> None:
    *srcs, out_json, out_md = (Path(a) for a in sys.argv[1:])
    by_problem: dict[str, dict] = {}
    for src in srcs:
        if src.suffix == ".json":
            found = [(r["problem"], r) for r in evidence.load(src)["rows"]]
        else:
            found = []
            for p in sorted(src.glob("level*_*")):
                if not (p / "capture").is_dir():
                    continue
                r = {**row(src, p.name), "run_dir": src.name}
                paths = ProblemPaths(src, p.name)
                res = read_json(paths.result) if paths.result.exists() else {}
                won = res.get("winners")
                plan = paths.attempt_dir(res.get("stitched_attempt") or 0) / "plan.json"
                if won is None and r["category"] == "optimized" and plan.exists():
                    # a run made before result.json recorded them: read from the run's own slot records
                    won = winners(paths, read_json(plan)["replacements"])
                r["winner"] = winner_text(won or []) if r["category"] == "optimized" else ""
                found.append((p.name, r))
        for p, r in found:
            old = by_problem.get(p)
            keep_old = old and old["category"] == "optimized" and r["category"] != "optimized"
            if not keep_old and (old is None or r["speedup"] or not old["speedup"]):
                by_problem[p] = {**r, "class": problem_class(p)}
    rows = sorted(by_problem.values(), key=lambda r: (r["problem"].split("_")[0], int(r["problem"].split("_")[1])))
    summary = {}
    for level in ("level1", "level2", "level3"):
        lr = [r for r in rows if r["problem"].startswith(level)]
        done = [r["speedup"] for r in lr if r["speedup"]]
        summary[level] = {
            "problems": len(lr),
            "finished": len(done),
            "optimized": sum(r["category"] == "optimized" for r in lr),
            "regressions": sum(1 for s in done if s < 1.0),
            "geomean_speedup_finished": _geo(done),
            "geomean_roof_bound": _geo([b for r in lr if (b := r["roof_bound_speedup"] or r["roof_bound_isolated"])]),
        }
    by_class: dict[str, list[dict]] = {}
    for r in rows:
        by_class.setdefault(r["class"], []).append(r)
    summary["classes"] = {
        c: {"problems": len(rs), "optimized": sum(r["category"] == "optimized" for r in rs)}
        for c, rs in by_class.items()
    }
    out_json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")

    def f(x, suffix=""):
        return "–" if x is None else f"{x}{suffix}"

    lines = []
    for c, rs in by_class.items():
        lines += [
            f"**{c}** ({summary['classes'][c]['optimized']} of {len(rs)} optimized)",
            "",
            "| problem | category | gate-4 speedup | Inductor % of roof | best candidate % | bound | "
            "what produced it / why it stayed |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rs:
            bound = (
                f(r["roof_bound_speedup"], "x")
                if r["roof_bound_speedup"]
                else f(r["roof_bound_isolated"], "x (isolated)")
            )
            lines.append(
                f"| `{r['problem']}` | {r['category']} | {f(r['speedup'])} | {f(r['inductor_bw_pct'])} | "
                f"{f(r['best_candidate_bw_pct'])} | {bound} | {(r.get('winner') or r['why'])[:200]} |"
            )
        lines.append("")
    for level in ("level1", "level2", "level3"):
        s = summary[level]
        if s["problems"]:
            lines.append(
                f"{level}: {s['finished']} of {s['problems']} finished, {s['optimized']} optimized, "
                f"{s['regressions']} regressions; geomean speedup {f(s['geomean_speedup_finished'])}, "
                f"geomean bound {f(s['geomean_roof_bound'])}."
            )
    out_md.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
