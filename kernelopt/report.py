"""Reports.  ``stages``: one row per problem over stages 1-3 (capture, classify, isolate)."""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from .paths import ProblemPaths

STAGE_COLUMNS = [
    "problem", "status", "verdict", "device", "compile_s", "eager_ms", "compiled_ms", "speedup_compiled_vs_eager",
    "meaningful", "triton_share", "kinds", "units", "units_pass", "unit_failures", "reason",
]


def _read(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def stage_row(workdir: Path, problem: str) -> dict[str, Any]:
    p = ProblemPaths(workdir, problem)
    base, disp, iso = _read(p.baseline), _read(p.dispatch), _read(p.isolated)
    kinds = disp.get("time_by_kind_ms") or {}
    failures = {u: c for u, c in (iso.get("checks") or {}).items() if c.get("status") != "pass"}
    return {
        "problem": problem,
        "status": "error" if base.get("failed") else iso.get("status", "missing"),
        "verdict": disp.get("verdict"),
        "device": base.get("device"),
        "compile_s": base.get("compile_s"),
        "eager_ms": (base.get("eager") or {}).get("median_ms"),
        "compiled_ms": (base.get("compiled") or {}).get("median_ms"),
        "speedup_compiled_vs_eager": base.get("speedup_compiled_vs_eager"),
        "meaningful": (base.get("compiled") or {}).get("meaningful"),
        "triton_share": disp.get("triton_share"),
        "kinds": ";".join(f"{k}={v:.4g}ms" for k, v in sorted(kinds.items())),
        "units": iso.get("units"),
        "units_pass": iso.get("units_pass"),
        "unit_failures": "; ".join(f"{u}: {c.get('status')} ({c.get('reason')})" for u, c in failures.items()),
        "reason": disp.get("reason") if not base.get("failed") else base.get("error", "").splitlines()[0],
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
    lines = [f"[report] {summary['problems']} problems; {summary['units_pass']}/{summary['units']} units match their eager reference on all seeds; errors: {', '.join(summary['errors']) or 'none'}"]
    for r in summary["rows"]:
        share = f"{r['triton_share']:.0%}" if isinstance(r["triton_share"], float) else "-"
        lines.append(f"  {r['problem']:<45} {r['status']:<6} {str(r['verdict']):<18} triton {share:>5}  units {r['units_pass']}/{r['units']}")
        if r["status"] == "error":
            lines.append(f"      {r['reason']}")
    lines.append(f"[report] table: {csv_path}")
    return "\n".join(lines)
