"""Per unit of a run directory (finished or not): what the search reached.  For each unit: its
synthesized slots and their gates 1-2 verdicts (and the source of each), the last beam written
(members and dropped ones with their time ratio vs Inductor's kernel), the last plan's stop
reason, and the problem's category and roofline when its result.json exists.

    python3 bench/search_units.py RUN_DIR OUT.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def _read(p: Path):
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def _ratio(m):
    r = m.get("ratio")
    return round(r, 4) if isinstance(r, (int, float)) else None


def unit_row(problem: Path, u: Path) -> dict:
    iters = sorted((d for d in u.glob("iter*") if d.is_dir()), key=lambda d: int(re.sub(r"\D", "", d.name) or 0))
    beams = [d / "beam.json" for d in iters if (d / "beam.json").exists()]
    beam = _read(beams[-1]) if beams else None
    plans = [d / "plan.json" for d in iters if (d / "plan.json").exists()]
    plan = _read(plans[-1]) if plans else None
    synth = []
    for s in sorted(u.glob("synth/a*")):
        slot, g2 = _read(s / "slot.json") or {}, _read(s / "gate2.json") or {}
        synth.append(
            {
                "slot": s.name,
                "source": slot.get("source"),
                "written": not slot.get("empty", True),
                "gate2": g2.get("verdict"),
                "why": (slot.get("reason") or "")[:160] or None,
            }
        )
    return {
        "problem": problem.name,
        "unit": u.name,
        "iterations_dir": len(iters),
        "last_beam": beams[-1].parent.name if beams else None,
        "beam": [{"id": m.get("id"), "ratio": _ratio(m)} for m in (beam or {}).get("members", [])],
        "dropped": [{"id": m.get("id"), "ratio": _ratio(m)} for m in (beam or {}).get("dropped", [])],
        "stop": (plan or {}).get("stop"),
        "synthesized": synth,
    }


def main() -> None:
    run, out = Path(sys.argv[1]), Path(sys.argv[2])
    problems = []
    for p in sorted(d for d in run.iterdir() if (d / "units").is_dir()):
        res = _read(p / "result.json")
        problems.append(
            {
                "problem": p.name,
                "finished": res is not None,
                "category": (res or {}).get("category"),
                "reason": (res or {}).get("reason"),
                "roofline": (res or {}).get("roofline"),
                "units": [unit_row(p, u) for u in sorted(p.glob("units/*")) if u.is_dir()],
            }
        )
    out.write_text(json.dumps({"run": str(run), "problems": problems}, indent=1) + "\n")
    for p in problems:
        for u in p["units"]:
            beam = ", ".join(f"{m['id']} {m['ratio']}" for m in u["beam"] + u["dropped"])
            print(f"{p['problem']:<24} {u['unit'][:44]:<44} {u['last_beam'] or '-':<6} {beam}")


if __name__ == "__main__":
    main()
