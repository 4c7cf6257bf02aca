"""Per-problem table of a search run (the Search issue's H200 evidence).

usage: python bench/search_table.py WORKDIR OUT.json OUT.csv [--aa AA.json]

AA.json is aa.py's output: a file, or one held in a summaries.json of bench/results
(``bench/results/gates_h200/summaries.json/aa_h200.json``, bench/evidence.py).

Per problem: baseline and best (stitched) ms, category, GPU seconds by stage (the seconds
the stage's jobs held the GPU lock, from ``logs/**.gpu.json``; and the wall time of each GPU
rule's jobs from Snakemake's benchmark files, which also counts start-up and lock waits), NCU overhead
(seconds spent in ncu vs in the plain timing of the same member), the prompt-summary token
estimates, what the search found per unit (best isolated ratio vs Inductor, its origin), and
whether an accepted speedup lies inside the A/A noise band (it must not).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import evidence  # noqa: E402

# gate1 and gate2 were two rules up to commit 4cd6328 (runs made before it), gate12 since
STAGES = ["capture", "isolate", "gate1", "gate2", "gate12", "profile", "select_iter", "select", "gate3", "gate4"]


def read(p: Path):
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def bench_seconds(wd: Path, stage: str, problem: str) -> float:
    root = wd / "benchmarks" / stage
    files = [root / f"{problem}.tsv"] if stage == "capture" else list((root / problem).rglob("*.tsv"))
    total = 0.0
    for f in files:
        if not f.is_file():
            continue
        rows = list(csv.DictReader(f.open(), delimiter="\t"))
        total += sum(float(r["s"]) for r in rows if r.get("s"))
    return round(total, 2)


def lock_seconds(wd: Path, stage: str, problem: str) -> dict[str, float]:
    """Seconds the stage's jobs held the GPU lock (logs/<stage>/<problem>/...log.gpu.json),
    by mode: exclusive (measurements: the GPU did nothing else) and shared (correctness runs
    and compiles, which overlap one another: their sum over-counts the GPU's time)."""
    root = wd / "logs" / stage
    files = list(root.glob(f"{problem}.log.gpu.json")) + list((root / problem).rglob("*.gpu.json"))
    total = {"exclusive": 0.0, "shared": 0.0}
    for f in files:
        d = read(f) or {}
        for k in total:
            total[k] += float(d.get(k, 0))
    return {k: round(v, 2) for k, v in total.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("out_json")
    ap.add_argument("out_csv")
    ap.add_argument("--aa", help="aa.py's JSON, a file or a path through a summaries.json (bench/evidence.py)")
    a = ap.parse_args()
    wd = Path(a.workdir)
    aa = evidence.load(a.aa) if a.aa else None
    band = None
    if aa:  # the widest A/A p95 spread over the problems measured: the noise band of a ratio
        spreads = [
            p.get("aa_spread_p95")
            for p in (aa.get("problems") or {}).values()
            if isinstance(p, dict) and p.get("aa_spread_p95") is not None
        ]
        band = max(spreads) if spreads else None
    rows = []
    for d in sorted(p for p in wd.iterdir() if (p / "result.json").is_file()):
        res = read(d / "result.json") or {}
        units = {}
        profiles = []
        for u in sorted((d / "units").iterdir()) if (d / "units").is_dir() else []:
            best = read(u / "best.json") or {}
            beams = sorted(u.glob("iter*/beam.json"), key=lambda p: int(p.parent.name[4:]))
            last = read(beams[-1]) if beams else None
            top = (last or {}).get("members", [{}])[0] if last and last.get("members") else {}
            synth = [read(s) or {} for s in sorted(u.glob("synth/a*/gate2.json"))]
            retries = [read(s) or {} for s in sorted(u.glob("iter*/cand*/r*/slot.json"))]
            units[u.name] = {
                "best_member": top.get("id"),
                "best_ratio_vs_inductor": top.get("ratio"),
                "best_ci": top.get("ci"),
                "direction": top.get("direction"),
                "stopped": (last or {}).get("stopped"),
                "iterations_run": len(beams) - 1,
                "synthesised_passing": sum(1 for s in synth if s.get("verdict") == "pass"),
                "synthesis_attempts": len(synth),
                "retries_written": sum(1 for r in retries if not r.get("empty")),
                "selected": best.get("ranked", [None])[0] if best.get("ranked") else None,
            }
            for s in u.glob("iter*/profile/m*/summary.json"):
                p = read(s) or {}
                if not p.get("empty"):
                    profiles.append(p)
        ncu = [p["cost"]["ncu_s"] for p in profiles if (p.get("cost") or {}).get("ncu_s") is not None]
        timing = [p["cost"]["timing_s"] for p in profiles if (p.get("cost") or {}).get("timing_s") is not None]
        gpu = {s: bench_seconds(wd, s, d.name) for s in STAGES}
        held = {s: lock_seconds(wd, s, d.name) for s in STAGES + ["search"]}
        held = {s: v for s, v in held.items() if v["exclusive"] or v["shared"]}
        held_ex = round(sum(v["exclusive"] for v in held.values()), 2)
        held_sh = round(sum(v["shared"] for v in held.values()), 2)
        ncu_locked = [
            p["cost"]["ncu_locked_s"] for p in profiles if (p.get("cost") or {}).get("ncu_locked_s") is not None
        ]
        speed = res.get("speedup_vs_compiled")
        nb = res.get("noise_band") or [None, None]
        row = {
            "problem": d.name,
            "category": res.get("category"),
            "reason": res.get("reason"),
            # gate 4's times (both in one CUDA graph); with nothing stitched, the output code's own
            # time at capture (the same way), else torch's compiled time (runs before 2026-12-01)
            "baseline_ms": res.get("baseline_ms") or res.get("baseline_wrapper_ms") or res.get("baseline_compiled_ms"),
            "best_ms": res.get("final_ms") or res.get("baseline_wrapper_ms") or res.get("baseline_compiled_ms"),
            "baseline_source": "gate4 (CUDA graph replay)"
            if res.get("baseline_ms")
            else "capture (the output code in one CUDA graph; nothing was stitched)"
            if res.get("baseline_wrapper_ms")
            else "capture (torch.compile's own run; nothing was stitched)",
            "speedup_vs_compiled": speed,
            "ratio_ci": nb,
            "gpu_s_by_stage": gpu,
            "gpu_s_total": round(sum(gpu.values()), 2),
            "gpu_lock_s_by_stage": held,
            "gpu_lock_s_exclusive": held_ex,
            "gpu_lock_s_shared": held_sh,
            "gpu_lock_s_total": round(held_ex + held_sh, 2),
            "gpu_lock_min_total": round((held_ex + held_sh) / 60, 2),
            "profiles": len(profiles),
            "profiles_by_ncu": sum(1 for p in profiles if p.get("source") == "ncu" and not p.get("reused_from")),
            "profiles_reused": sum(1 for p in profiles if p.get("reused_from")),
            "ncu_s_total": round(sum(ncu), 2),
            "ncu_s_per_profile": round(sum(ncu) / len(ncu), 2) if ncu else None,
            "timing_s_per_profile": round(sum(timing) / len(timing), 2) if timing else None,
            "ncu_locked_s_per_profile": round(sum(ncu_locked) / len(ncu_locked), 2) if ncu_locked else None,
            "prompt_tokens_max": max((p.get("tokens_estimate", 0) for p in profiles), default=None),
            "prompt_tokens_mean": round(sum(p.get("tokens_estimate", 0) for p in profiles) / len(profiles), 1)
            if profiles
            else None,
            "ncu_notes": sorted({p.get("note", "")[:200] for p in profiles if p.get("note")}),
            "units": units,
        }
        if band is not None and res.get("category") == "optimized" and nb[1] is not None:
            # accepted: the CI's upper bound must sit below 1 - the A/A spread
            row["outside_aa_band"] = nb[1] < 1.0 - band
        rows.append(row)
    out = {"aa_p95_spread": band, "problems": rows}
    Path(a.out_json).write_text(json.dumps(out, indent=1))
    with open(a.out_csv, "w", newline="") as f:
        w = csv.writer(f)
        lock_stages = STAGES + ["search"]
        w.writerow(
            [
                "problem",
                "category",
                "baseline_ms",
                "best_ms",
                "speedup_vs_compiled",
                "units",
                "iterations_run_max",
                "gpu_lock_min_total",
                "gpu_lock_s_exclusive",
                "gpu_lock_s_shared",
            ]
            + [f"lock_s_{s}" for s in lock_stages]
            + ["job_wall_s_total"]
            + [f"job_wall_s_{s}" for s in STAGES]
            + [
                "profiles_by_ncu",
                "ncu_s_per_profile",
                "ncu_locked_s_per_profile",
                "timing_s_per_profile",
                "prompt_tokens_max",
            ]
        )
        for r in rows:
            lk = r["gpu_lock_s_by_stage"]
            w.writerow(
                [
                    r["problem"],
                    r["category"],
                    r["baseline_ms"],
                    r["best_ms"],
                    r["speedup_vs_compiled"],
                    len(r["units"]),
                    max((u["iterations_run"] for u in r["units"].values()), default=0),
                    r["gpu_lock_min_total"],
                    r["gpu_lock_s_exclusive"],
                    r["gpu_lock_s_shared"],
                ]
                + [round(lk[s]["exclusive"] + lk[s]["shared"], 2) if s in lk else 0.0 for s in lock_stages]
                + [r["gpu_s_total"]]
                + [r["gpu_s_by_stage"][s] for s in STAGES]
                + [
                    r["profiles_by_ncu"],
                    r["ncu_s_per_profile"],
                    r["ncu_locked_s_per_profile"],
                    r["timing_s_per_profile"],
                    r["prompt_tokens_max"],
                ]
            )
    for r in rows:
        print(
            f"{r['problem']:34s} {str(r['category']):28s} base {r['baseline_ms']} best {r['best_ms']} "
            f"x{r['speedup_vs_compiled']} GPU lock {r['gpu_lock_min_total']} min "
            f"(exclusive {r['gpu_lock_s_exclusive']} s, shared {r['gpu_lock_s_shared']} s), "
            f"job wall {r['gpu_s_total']} s, ncu/profile {r['ncu_s_per_profile']} s "
            f"(locked {r['ncu_locked_s_per_profile']} s), tokens<= {r['prompt_tokens_max']}"
        )
        for u, v in r["units"].items():
            print(
                f"    {u}: best {v['best_member']} ratio {v['best_ratio_vs_inductor']} ({v['direction']}), "
                f"synth {v['synthesised_passing']}/{v['synthesis_attempts']}, retries {v['retries_written']}, "
                f"stopped: {v['stopped']}"
            )


if __name__ == "__main__":
    main()
