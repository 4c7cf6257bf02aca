"""Collect a run's per-problem records into one JSON (and a tarball of artifacts).

usage: python bench/collect.py WORKDIR OUT.json [ARTIFACTS.tar.gz]
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path


def read(p: Path):
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def main() -> None:
    wd, out = Path(sys.argv[1]), Path(sys.argv[2])
    problems = sorted(p.name for p in wd.iterdir() if (p / "capture" / "capture.json").is_file())
    rows = {}
    for name in problems:
        d = wd / name
        base = read(d / "capture" / "baseline.json") or {}
        disp = read(d / "dispatch.json") or {}
        units = {}
        for u in sorted((d / "units").glob("*/isolate_check.json")) if (d / "units").exists() else []:
            c = read(u) or {}
            units[u.parent.name] = {
                "status": c.get("status"),
                "reason": c.get("reason"),
                "seeds": [
                    {
                        "seed": s["seed"],
                        "ok": s["ok"],
                        "max_abs": max((o["max_abs"] for o in s["outputs"]), default=None),
                    }
                    for s in c.get("seeds", [])
                ],
            }
        rows[name] = {
            "failed": base.get("failed", False),
            "error": base.get("error"),
            "compile_s": base.get("compile_s"),
            "eager_ms": (base.get("eager") or {}).get("median_ms"),
            "compiled_ms": (base.get("compiled") or {}).get("median_ms"),
            "speedup_compiled_vs_eager": base.get("speedup_compiled_vs_eager"),
            "compiled_vs_eager_max_abs": base.get("compiled_vs_eager_max_abs"),
            "timing_method": (base.get("compiled") or {}).get("method"),
            "verdict": disp.get("verdict"),
            "triton_share": disp.get("triton_share"),
            "time_by_kind_ms": disp.get("time_by_kind_ms"),
            "launches": [
                {k: l.get(k) for k in ("kind", "target", "heuristic", "template", "time_ms", "share")}
                for l in disp.get("launches", [])
            ],
            "units": units,
            "result": read(d / "result.json"),
            "gates": {
                a.relative_to(d).parent.as_posix(): {
                    g: (read(a.parent / f"{g}.json") or {}).get("verdict") for g in ("gate3", "gate4")
                }
                for a in sorted(d.glob("stitch/**/plan.json"))
            },
        }
    env = next((read(wd / p / "capture" / "baseline.json") or {} for p in problems), {}).get("environment")
    summary = {
        "environment": env,
        "problems": len(rows),
        "units": sum(len(r["units"]) for r in rows.values()),
        "units_pass": sum(1 for r in rows.values() for u in r["units"].values() if u["status"] == "pass"),
        "rows": rows,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"collected {len(rows)} problems, {summary['units_pass']}/{summary['units']} units pass -> {out}")
    if len(sys.argv) > 3:
        with tarfile.open(sys.argv[3], "w:gz") as tar:
            for name in problems:
                d = wd / name
                for f in [
                    *(d / "capture").glob("*.json"),
                    *(d / "capture").glob("*.py"),
                    d / "dispatch.json",
                    d / "result.json",
                    *(d / "units").glob("*/*.json"),
                    *(d / "units").glob("*/*.py"),
                    *(d / "units").glob("*/cands/*/*"),
                    *(d / "stitch").rglob("*.json"),
                    *(d / "stitch").rglob("*.py"),
                ]:
                    if f.exists():
                        tar.add(f, arcname=str(f.relative_to(wd)))
            for f in [*(wd / "logs").rglob("*.log"), *(wd / "report").glob("*")]:
                tar.add(f, arcname=str(f.relative_to(wd)))


if __name__ == "__main__":
    main()
