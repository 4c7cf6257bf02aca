"""Collect a run of problems/large (bench/large_gpu.sh): per problem its jobs, GPU memory (peak
used, largest declared), disk, wall seconds of its GPU jobs, category; per job the memory it
declared and used; per capture its memory record (the peak after each phase included);
failures and out-of-memory errors in every log (failed attempts included).

    python bench/collect_large.py WORKDIR SNAKEMAKE_LOG OUT.json [OUT_jobs.csv [GPU_UTIL.csv]]

GPU_UTIL.csv: ``nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used -lms 1000``
(bench/large_gpu.sh); from it the fraction of seconds each GPU was busy (utilisation > 0).
Per problem also the wall time from its first GPU job's process start to its last one's end.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

# a CUDA allocation that failed (not Triton's "OutOfMemoryError: out of resource" for shared memory,
# which max-autotune meets and skips)
OOM = re.compile(r"CUDA out of memory|CUDA_ERROR_OUT_OF_MEMORY")


def capture_memory(wd: Path) -> dict[str, dict]:
    """What each capture used: the ``memory`` record of every ``capture.json`` (inputs,
    parameters, outputs, the job's peak and the peak after each phase), with the peak as a
    multiple of the problem's own tensors (bench/README.md, "The capture's footprint")."""
    rows = {}
    for f in sorted(wd.glob("*/capture/capture.json")):
        mem = (json.loads(f.read_text()) or {}).get("memory") or {}
        own = sum(float(mem.get(k) or 0) for k in ("inputs_mb", "params_mb", "outputs_mb"))
        peak = mem.get("job_peak_mb")
        rows[f.parent.parent.name] = {**mem, "peak_per_problem_mb": round(peak / own, 2) if peak and own else None}
    return rows


def main() -> None:
    wd, smk_log, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    jobs_csv = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    util_csv = Path(sys.argv[5]) if len(sys.argv) > 5 else None
    logs = wd / "logs"
    jobs = []
    for f in sorted(logs.rglob("*.log.gpu.json")):
        rel = f.relative_to(logs).as_posix()
        rule, rest = rel.split("/", 1)
        rec = json.loads(f.read_text())
        mem = rec.get("memory") or {}
        jobs.append(
            {
                "rule": rule,
                "job": rest.removesuffix(".log.gpu.json"),
                "problem": rest.split("/")[0].removesuffix(".log.gpu.json"),
                "gpu": mem.get("gpu"),
                "declared_mb": mem.get("declared_mb"),
                "claimed_mb": mem.get("claimed_mb"),
                "peak_mb": mem.get("peak_mb"),
                "job_peak_mb": mem.get("job_peak_mb"),
                "child_peak_mb": mem.get("child_peak_mb"),
                "alone": mem.get("alone"),
                "waited_mem_s": mem.get("waited_s"),
                "lock_exclusive_s": rec.get("exclusive"),
                "lock_shared_s": rec.get("shared"),
                "process_started": rec.get("process_started"),
                "ended": rec.get("ended"),
                "phases": json.dumps(rec.get("phases") or {}, sort_keys=True),
            }
        )
    failed_logs = sorted(p.relative_to(logs).as_posix() for p in logs.rglob("*.log.failed-*"))
    oom_logs = sorted(
        p.relative_to(logs).as_posix()
        for p in logs.rglob("*")
        if p.is_file() and ".gpu.json" not in p.name and OOM.search(p.read_text(errors="replace"))
    )
    over = [j for j in jobs if j["peak_mb"] and j["declared_mb"] and j["peak_mb"] > j["declared_mb"]]
    problems = {}
    for r in sorted(wd.glob("*/result.json")):
        res = json.loads(r.read_text())
        problems[r.parent.name] = {
            k: res.get(k)
            for k in (
                "category",
                "reason",
                "speedup_vs_compiled",
                "jobs",
                "gpu_peak_mb",
                "gpu_declared_max_mb",
                "disk_mb",
                "gpu_seconds",
                "infrastructure_faults",
            )
        }
        cap = r.parent / "capture/capture.json"
        if cap.exists():
            problems[r.parent.name]["capture_memory"] = json.loads(cap.read_text()).get("memory")
    for name, v in problems.items():
        mine = [j for j in jobs if j["problem"] == name and j["process_started"] and j["ended"]]
        if mine:
            v["wall_s"] = round(max(j["ended"] for j in mine) - min(j["process_started"] for j in mine), 1)
            v["gpu_job_s"] = round(sum(j["ended"] - j["process_started"] for j in mine), 1)
    spans = [(j["process_started"], j["ended"]) for j in jobs if j["process_started"] and j["ended"]]
    timing = {}
    if spans:
        t0, t1 = min(a for a, _ in spans), max(b for _, b in spans)
        timing = {
            "first_gpu_job_start_to_last_end_s": round(t1 - t0, 1),
            "gpu_jobs_per_minute": round(len(spans) / ((t1 - t0) / 60), 2) if t1 > t0 else None,
            "gpu_job_seconds": round(sum(b - a for a, b in spans), 1),
        }
    text = smk_log.read_text(errors="replace") if smk_log.exists() else ""
    summary = {
        "problems": problems,
        "problems_in_report": len(problems),
        "gpu_jobs": len(jobs),
        "jobs_over_their_declared_memory": [(j["rule"], j["job"], j["declared_mb"], j["peak_mb"]) for j in over],
        "failed_attempts": failed_logs,
        "logs_with_out_of_memory": oom_logs,
        "snakemake_errors": len(re.findall(r"^Error in rule", text, re.M)),
        "snakemake_done": re.findall(r"^\d+ of \d+ steps \(\d+%\) done", text, re.M)[-1:],
        "gpus_used": sorted({j["gpu"] for j in jobs if j["gpu"] is not None}),
        "timing": timing,
        "gpu_busy": gpu_busy(util_csv) if util_csv and util_csv.exists() else None,
        "phases_by_rule": phases_by_rule(jobs),
        "captures": capture_memory(wd),
    }
    out.write_text(json.dumps(summary, indent=1) + "\n")
    if jobs_csv:
        with open(jobs_csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(jobs[0]) if jobs else ["rule"])
            w.writeheader()
            w.writerows(jobs)
    print(json.dumps({k: v for k, v in summary.items() if k not in ("problems", "captures")}, indent=1))
    for p, v in problems.items():
        print(
            f"{p:40s} {str(v['category']):28s} jobs {v['jobs']!s:>4} peak {v['gpu_peak_mb']!s:>9} MiB "
            f"declared<= {v['gpu_declared_max_mb']!s:>7} disk {v['disk_mb']!s:>8} MiB gpu_s {v['gpu_seconds']}"
        )


def phases_by_rule(jobs: list[dict]) -> dict[str, dict[str, float]]:
    """Seconds per phase (``kernelopt/core/phases.py``), summed over each rule's jobs, with the
    number of jobs and their wall seconds: where a GPU job's time goes."""
    out: dict[str, dict[str, float]] = {}
    for j in jobs:
        r = out.setdefault(j["rule"], {"jobs": 0, "wall_s": 0.0})
        r["jobs"] += 1
        if j["process_started"] and j["ended"]:
            r["wall_s"] += j["ended"] - j["process_started"]
        for k, v in json.loads(j["phases"]).items():
            r[k] = r.get(k, 0.0) + v
    return {rule: {k: round(v, 1) for k, v in r.items()} for rule, r in out.items()}


def gpu_busy(path: Path) -> dict[str, dict[str, float]]:
    """Per GPU: seconds sampled, fraction of them with utilisation > 0, mean utilisation, and
    the most memory used (MiB)."""
    per: dict[str, list[tuple[float, float]]] = {}
    for row in csv.reader(path.read_text(errors="replace").splitlines()):
        try:
            per.setdefault(row[1].strip(), []).append((float(row[2]), float(row[3])))
        except (IndexError, ValueError):
            continue
    return {
        gpu: {
            "samples": len(v),
            "busy_fraction": round(sum(u > 0 for u, _ in v) / len(v), 3),
            "mean_utilization_pct": round(sum(u for u, _ in v) / len(v), 1),
            "max_memory_used_mb": max(m for _, m in v),
        }
        for gpu, v in sorted(per.items())
    }


if __name__ == "__main__":
    main()
