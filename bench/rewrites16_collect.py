"""Collect a run of problems/rewrites/ (bench/search_gpu.sh rewrites): per problem the category, gate 4's
speedup over the compiled model with its 95% CI, what the rewrite analysis found and which
graph-level units were stitched (result.json ``graph_level``).

    python3 bench/rewrites16_collect.py RUN_DIR OUT.json      # also writes OUT.md, a table
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kernelopt.core.records import ProblemPaths


def _read(p: Path) -> dict:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


def row(run: Path, problem: str) -> dict:
    paths = ProblemPaths(run, problem)
    res = _read(paths.result)
    gl = res.get("graph_level") or {}
    g4 = _read(paths.attempt(int(res.get("stitched_attempt") or 0)).gate(4)).get("numbers") or {}
    return {
        "problem": problem,
        "category": res.get("category"),
        "reason": res.get("reason"),
        "speedup_vs_compiled": res.get("speedup_vs_compiled"),
        "gate4_speedup": g4.get("speedup"),
        "gate4_ratio_ci": [g4.get("ci_low"), g4.get("ci_high")] if g4 else None,
        "speedup_vs_eager": res.get("speedup_vs_eager"),
        "found": sorted({f["rewrite"] for f in gl.get("findings", [])}),
        "graph_level_units": gl.get("units", []),
        "stitched": gl.get("stitched", []),
        "winners": res.get("winners"),
    }


def main(run: Path, out: Path) -> None:
    rows = [row(run, d.name) for d in sorted(run.iterdir()) if ProblemPaths(run, d.name).result.exists()]
    out.write_text(json.dumps({"run": str(run), "problems": rows}, indent=1) + "\n")
    lines = [
        "| problem | category | gate-4 speedup (95% CI) | found | graph-level units stitched |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        ci = r["gate4_ratio_ci"]
        sp = (
            f"{r['gate4_speedup']:.2f}x ({1 / ci[1]:.2f}-{1 / ci[0]:.2f})"
            if r["gate4_speedup"] and ci and all(ci)
            else "-"
        )
        st = ", ".join(f"{s['unit']} (gate 3 {s['gate3']})" for s in r["stitched"]) or "-"
        lines.append(f"| {r['problem']} | {r['category']} | {sp} | {', '.join(r['found']) or '-'} | {st} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
