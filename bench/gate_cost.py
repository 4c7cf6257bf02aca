"""Wall seconds per candidate of the gates before and after the hardening, from the Snakemake
benchmark files (``<workdir>/benchmarks/<rule>/...tsv``, column ``s``) of two runs of the same
problems: before, gate 1 and gate 2 were two jobs per candidate (``gate1``, ``gate2``); after,
one sandboxed child runs both (``gate12``).  Gate 3 and 4 are one job per stitch attempt (the
first attempt, ``stitch``, is compared: its retries pass through when it passed).

usage: python bench/gate_cost.py BEFORE AFTER OUT.json [--csv OUT.csv]
       (BEFORE/AFTER: a run directory, or a .tar.gz holding ``benchmarks/``)
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import tarfile
import tempfile
from pathlib import Path

EMPTY_SLOT_S = 2.0


def benchmarks(src: str) -> Path:
    p = Path(src)
    if p.is_file():
        tmp = Path(tempfile.mkdtemp(prefix="kernelopt-cost-"))
        with tarfile.open(p) as t:
            t.extractall(tmp, filter="data")
        p = tmp
    return p / "benchmarks"


def seconds(tsv: Path) -> float:
    rows = list(csv.DictReader(tsv.open(), delimiter="\t"))
    return float(rows[0]["s"])


def per_job(root: Path, rule: str) -> dict[str, float]:
    base = root / rule
    return {str(f.relative_to(base).with_suffix("")): seconds(f) for f in sorted(base.rglob("*.tsv"))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("out")
    ap.add_argument("--csv")
    a = ap.parse_args()
    b, f = benchmarks(a.before), benchmarks(a.after)
    g1, g2, g12 = per_job(b, "gate1"), per_job(b, "gate2"), per_job(f, "gate12")
    rows = []
    empty = 0
    for key in sorted(set(g1) & set(g12)):
        if max(g1[key] + g2.get(key, 0.0), g12[key]) < EMPTY_SLOT_S:
            empty += 1  # an empty slot (no candidate): the job only writes "skipped"
            continue
        problem, unit, cand = key.split("/", 2)
        rows.append(
            {
                "gates": "1-2",
                "problem": problem,
                "unit": unit,
                "what": cand,
                "before_s": round(g1[key] + g2.get(key, 0.0), 2),
                "after_s": round(g12[key], 2),
            }
        )
    for gate in ("gate3", "gate4"):
        before, after = per_job(b, gate), per_job(f, gate)
        for key in sorted(k for k in set(before) & set(after) if k.endswith("/stitch")):
            rows.append(
                {
                    "gates": gate[-1],
                    "problem": key.split("/")[0],
                    "unit": "",
                    "what": "stitched model",
                    "before_s": before[key],
                    "after_s": after[key],
                }
            )
    summary = {}
    for gates in ("1-2", "3", "4"):
        sel = [r for r in rows if r["gates"] == gates]
        if sel:
            summary[gates] = {
                "jobs": len(sel),
                "before_median_s": round(statistics.median(r["before_s"] for r in sel), 2),
                "after_median_s": round(statistics.median(r["after_s"] for r in sel), 2),
            }
    note = (
        "wall seconds of each Snakemake job (benchmark files), both runs on one H200 with --cores 16 "
        "--resources gpu=8, so concurrent jobs share the CPU; each job includes its process start and imports"
    )
    out = {"note": note, "summary": summary, "empty_slots_left_out": empty, "rows": rows}
    Path(a.out).write_text(json.dumps(out, indent=2) + "\n")
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    for gates, s in summary.items():
        print(
            f"gates {gates:<4} {s['jobs']:>3} jobs  median before {s['before_median_s']:6.1f} s  "
            f"after {s['after_median_s']:6.1f} s"
        )


if __name__ == "__main__":
    main()
