"""Collect an LLM run on the GPU into one JSON: per unit, every candidate the LLM wrote (origin,
gate verdicts, rule) and the transcripts' usage; per problem, gates 3-4 and the result.

    python3 bench/collect_llm.py <workdir> <out.json>
"""

import json
import sys
from pathlib import Path


def read(p: Path) -> dict:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


def main(wd: str, out: str) -> None:
    wd = Path(wd)
    problems = {}
    for prob in sorted(p for p in wd.iterdir() if (p / "units").is_dir()):
        units = {}
        for u in sorted((prob / "units").iterdir()):
            cands = {}
            for slot in sorted(u.glob("**/slot.json")):
                d = slot.parent
                s = read(slot)
                if s.get("empty", True):
                    continue
                g1, g2 = read(d / "gate1.json"), read(d / "gate2.json")
                cands[d.relative_to(u).as_posix()] = {
                    "origin": s.get("origin"),
                    "gate1": g1.get("verdict"),
                    "gate2": g2.get("verdict"),
                    "rule": g2.get("rule") or g1.get("rule"),
                    "timing": read(d / "timing.json") or None,
                }
            calls = [read(t) for t in sorted(u.glob("**/llm/*.json"))]
            units[u.name] = {
                "candidates": cands,
                "best": read(u / "best.json").get("ranked"),
                "calls": [
                    {"role": c.get("role"), "place": c.get("place"), "usage": c.get("usage"), "usd": c.get("usd")}
                    for c in calls
                ],
            }
        st = prob / "stitch"
        g3, g4 = read(st / "gate3.json"), read(st / "gate4.json")
        problems[prob.name] = {
            "units": units,
            "stitched": read(st / "plan.json").get("stitch", {}).get("replaced"),
            "gate3": {k: g3.get(k) for k in ("verdict", "rule", "reason")},
            "gate4": {k: g4.get(k) for k in ("verdict", "rule", "reason")} | {"numbers": g4.get("numbers")},
            "result": read(prob / "result.json"),
        }
    Path(out).write_text(json.dumps(problems, indent=1, default=str) + "\n")
    print(f"collected {len(problems)} problem(s) into {out}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
