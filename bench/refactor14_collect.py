"""Collect bench/refactor14_gpu.sh's two runs into one JSON (run on the GPU machine).

usage: python bench/refactor14_collect.py WD OUT.json

- gates: each problem's category next to the one the same command gave before the refactoring
  (``trust_run_h200/results.csv`` in bench/results/trust_h200/summaries.json), every gate verdict by value,
  any ``error``;
- search: each problem's category, the profile summaries by source (``ncu`` when Nsight Compute
  ran through the refactored profile path), any infrastructure fault;
- hardware: what the device reports against kernelopt/core/hardware.py.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import evidence  # noqa: E402

from kernelopt.core.records import ProblemPaths, problems_with_result  # noqa: E402


def _csv(path: Path) -> dict[str, dict[str, str]]:
    """A results.csv by problem: a file, or one held in a summaries.json (bench/evidence.py)."""
    try:
        text = evidence.read_text(path)
    except FileNotFoundError:
        return {}
    return {r["problem"]: r for r in csv.DictReader(text.splitlines())}


def _verdicts(run: Path) -> dict[str, object]:
    counts: Counter[str] = Counter()
    errors = []
    for problem in problems_with_result(run):
        p = ProblemPaths(run, problem)
        for f in [*p.gate2_verdicts(), *p.attempt_verdicts()]:
            v = json.loads(f.read_text())
            counts[f"{f.name}:{v.get('verdict')}"] += 1
            if v.get("verdict") == "error":
                errors.append({"file": f.relative_to(run).as_posix(), "reason": str(v.get("reason"))[:300]})
    return {"counts": dict(sorted(counts.items())), "errors": errors}


def _profiles(run: Path) -> dict[str, int]:
    sources: Counter[str] = Counter()
    for problem in problems_with_result(run):
        p = ProblemPaths(run, problem)
        for unit_dir in sorted((p.root / "units").glob("*")):
            for f in p.profile_summaries(unit_dir.name):
                s = json.loads(f.read_text())
                if not s.get("empty"):
                    sources[str(s.get("source"))] += 1
    return dict(sources)


def _hardware() -> dict[str, object]:
    import torch

    from kernelopt.core import hardware

    props = torch.cuda.get_device_properties(0)
    declared = hardware.declared(props.name)
    current = hardware.current("cuda")
    return {
        "device": props.name,
        "reported": {"sm_count": props.multi_processor_count, "l2_bytes": props.L2_cache_size},
        "declared": {"sm_count": declared.sm_count, "l2_bytes": declared.l2_bytes},
        "current": {"sm_count": current.sm_count, "l2_bytes": current.l2_bytes},
    }


def main() -> None:
    wd, out = Path(sys.argv[1]), Path(sys.argv[2])
    before = _csv(ROOT / "bench/results/trust_h200/summaries.json/trust_run_h200/results.csv")
    gates = _csv(wd / "gates/report/results.csv")
    search = _csv(wd / "search/report/results.csv")
    res = {
        "gates": {
            "problems": {
                p: {
                    "category": r["category"],
                    "category_before": before.get(p, {}).get("category"),
                    "speedup_vs_compiled": r["speedup_vs_compiled"],
                    "units_replaced": r["units_replaced"],
                }
                for p, r in gates.items()
            },
            "verdicts": _verdicts(wd / "gates"),
        },
        "search": {
            "problems": {p: {"category": r["category"], "reason": r["fallback_reason"]} for p, r in search.items()},
            "profile_sources": _profiles(wd / "search"),
            "verdicts": _verdicts(wd / "search"),
        },
        "hardware": _hardware(),
    }
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
