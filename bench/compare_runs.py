"""Compare two run directories decision by decision (no GPU): the same problems, units, verdicts,
synthesis outcomes, beams, rankings, stitch plans and categories?  Times are not compared
(they differ run to run); everything that was decided from them is.

usage: python bench/compare_runs.py RUN_A RUN_B [--out DIFF.json]

Exit status 0 when every decision matches, 1 otherwise.  Used to check that a refactoring left
the pipeline's behaviour unchanged (README of bench/: "Behaviour unchanged").
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

# results.csv columns that are decisions (the rest are times)
RESULT_COLUMNS = ["level", "problem", "verdict", "category", "fallback_reason", "units", "units_replaced", "meaningful"]


def _json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def decisions(run: Path) -> dict[str, Any]:
    """Every decision of a run, keyed by where it was made."""
    out: dict[str, Any] = {}
    rows = list(csv.DictReader(open(run / "report" / "results.csv")))
    for r in rows:
        out[f"results.csv/{r['problem']}"] = {k: r.get(k) for k in RESULT_COLUMNS}
    for problem in sorted(r["problem"] for r in rows):
        p = run / problem
        disp = _json(p / "dispatch.json") or {}
        out[f"{problem}/dispatch"] = {
            "verdict": disp.get("verdict"),
            "units": sorted(u["id"] for u in disp.get("units", [])),
            "kinds": sorted({launch["kind"] for launch in disp.get("launches", [])}),
        }
        for f in sorted(p.glob("units/*/isolate_check.json")):
            out[f"{problem}/{f.parent.name}/isolate"] = (_json(f) or {}).get("status")
        for f in sorted(p.glob("units/*/**/slot.json")):
            slot = _json(f) or {}
            key = f"{problem}/{f.parent.relative_to(p / 'units').as_posix()}"
            out[f"{key}/slot"] = {
                "empty": slot.get("empty"),
                "origin": slot.get("origin"),
                "signature": slot.get("signature"),
            }
            for g in ("gate1", "gate2"):
                v = _json(f.parent / f"{g}.json")
                if v is not None:
                    out[f"{key}/{g}"] = (v.get("verdict"), v.get("rule"))
        for f in sorted(p.glob("units/*/iter*/beam.json")):
            beam = _json(f) or {}
            key = f"{problem}/{f.parent.relative_to(p / 'units').as_posix()}/beam"
            out[key] = {"members": [m["id"] for m in beam.get("members", [])], "stopped": beam.get("stopped")}
        for f in sorted(p.glob("units/*/best.json")):
            out[f"{problem}/{f.parent.name}/best"] = (_json(f) or {}).get("ranked")
        for f in sorted(p.glob("stitch/**/plan.json")):
            plan = _json(f) or {}
            key = f"{problem}/{f.parent.relative_to(p).as_posix()}"
            # candidate files are recorded with the run's own workdir prefix: keep the part below units/<unit>/
            replaced = {u: c.split(f"/units/{u}/", 1)[-1] for u, c in plan.get("replacements", {}).items()}
            out[f"{key}/plan"] = {"status": plan.get("status"), "replacements": replaced}
            for g in ("gate3", "gate4"):
                v = _json(f.parent / f"{g}.json")
                if v is not None:
                    out[f"{key}/{g}"] = (v.get("verdict"), v.get("rule"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--out")
    a = ap.parse_args()
    da, db = decisions(Path(a.run_a)), decisions(Path(a.run_b))
    diff = {k: {"a": da.get(k), "b": db.get(k)} for k in sorted(set(da) | set(db)) if da.get(k) != db.get(k)}
    summary = {"decisions_a": len(da), "decisions_b": len(db), "differences": len(diff), "diff": diff}
    if a.out:
        Path(a.out).write_text(json.dumps(summary, indent=2, default=str) + "\n")
    print(f"{len(da)} decisions in A, {len(db)} in B, {len(diff)} differ")
    for k, v in list(diff.items())[:40]:
        print(f"  {k}: {v['a']!r} -> {v['b']!r}")
    return 0 if not diff else 1


if __name__ == "__main__":
    sys.exit(main())
