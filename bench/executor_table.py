"""Throughput of a run (issue 12, "A warm executor"): jobs a minute, GPU busy, the overhead per
candidate, the wall time; CPU or GPU runs, the code before the executor or after, alike.

usage: python bench/executor_table.py RUN_DIR OUT.json --snakemake LOG [LOG ...] [--smi CSV]

Read the same way for any code version:

* the jobs' spans from Snakemake's own log (``[time]`` stamp, ``rule X:`` with its ``log:``
  and ``jobid:``, then ``Finished jobid: N``; one-second resolution), several logs for a run
  made in several calls;
* ``wall_s``: the first job's start to the last job's end, summed over the logs;
  ``jobs``, ``jobs_per_min``; ``candidates``: gates-1-2 verdicts (pass or fail) in the run
  directory, ``candidates_per_min``;
* ``overhead_per_candidate_s``: for every gates-1-2 job, its wall time less the time its
  calls took (the ``[time] call K: sent in a s, child b s, judged in c s`` lines of its log):
  the job's start to its candidate's first call plus its teardown; median, p90;
* ``gpu_busy_pct``: the share of one-second utilisation samples over the run's span with
  utilisation > 0 (``--smi``: ``nvidia-smi --query-gpu=timestamp,index,utilization.gpu,...
  --format=csv,noheader,nounits -lms 1000``; without it, the warm workers' samples in
  ``logs/gpu-busy-*.jsonl``).
* ``child_startup_s``: the sandboxed children's start-up in the gates-1-2 jobs (the phase
  ``child: start-up ...`` of each job's ``.log.span.json``): summed, and its median per job;
  ``zygote_refusals``: the ``[sandbox] no zygote`` lines in the run's logs (children then
  start as new interpreters: 0 where every child was forked).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
from pathlib import Path

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
CALL = re.compile(r"^\[time\] call \d+: sent in ([0-9.]+) s, child ([0-9.]+) s, judged in ([0-9.]+) s", re.M)


def _stamp(text: str) -> float:
    return dt.datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y").timestamp()


def jobs(log: Path) -> list[dict]:
    """Every job Snakemake ran and finished: rule, log file, start, end (epoch s)."""
    now, open_, done = None, {}, []
    current = None
    for line in log.read_text(errors="replace").splitlines():
        m = STAMP.match(line.strip())
        if m:
            now = _stamp(m.group(1))
            current = None
            continue
        s = line.strip()
        if re.match(r"^(local)?rule \w+:$", s):
            current = {"rule": s.split()[-1].rstrip(":"), "started": now, "log": None}
        elif current is not None and s.startswith("log: "):
            current["log"] = s[5:].split(",")[0].strip()
        elif current is not None and s.startswith("jobid: "):
            open_[s[7:]] = current
        else:
            f = re.match(r"^Finished jobid: (\d+)", s) or re.match(r"^Finished job (\d+)\.", s)
            if f and f.group(1) in open_ and now is not None:
                job = open_.pop(f.group(1))
                done.append({**job, "ended": now})
    return [j for j in done if j["started"] is not None]


def call_seconds(log: str | None) -> float | None:
    if not log or not Path(log).is_file():
        return None
    calls = CALL.findall(Path(log).read_text(errors="replace"))
    return sum(float(a) + float(b) + float(c) for a, b, c in calls) if calls else None


def busy_smi(csv: Path, start: float, end: float) -> float | None:
    samples = []
    for line in csv.read_text(errors="replace").splitlines():
        parts = [p.strip() for p in line.split(",")]
        try:
            t = dt.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            util = float(parts[2])
        except (ValueError, IndexError):
            continue
        if start <= t <= end:
            samples.append(util > 0)
    return round(100 * sum(samples) / len(samples), 1) if samples else None


def busy_workers(run: Path, start: float, end: float) -> float | None:
    samples = []
    for f in sorted((run / "logs").glob("gpu-busy-*.jsonl")):
        for line in f.read_text().splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if start <= d.get("t", 0) <= end:
                samples.append(d.get("util", 0) > 0)
    return round(100 * sum(samples) / len(samples), 1) if samples else None


def pct(values: list[float], q: float) -> float | None:
    v = sorted(values)
    return round(v[min(len(v) - 1, int(round(q * (len(v) - 1))))], 2) if v else None


def table(run: Path, logs: list[Path], smi: Path | None) -> dict:
    spans, wall = [], 0.0
    for log in logs:
        js = jobs(log)
        if js:
            wall += max(j["ended"] for j in js) - min(j["started"] for j in js)
            spans += js
    if not spans:
        return {"run": str(run), "jobs": 0}
    start, end = min(j["started"] for j in spans), max(j["ended"] for j in spans)
    judged = 0
    for g in run.glob("*/units/*/**/gate2.json"):
        try:
            judged += json.loads(g.read_text()).get("verdict") in ("pass", "fail")
        except (OSError, ValueError):
            continue
    overheads = []
    for j in spans:
        if j["rule"] == "gate12":
            calls = call_seconds(j["log"])
            if calls is not None:
                overheads.append(max(j["ended"] - j["started"] - calls, 0.0))
    by_rule: dict[str, list[float]] = {}
    for j in spans:
        by_rule.setdefault(j["rule"], []).append(j["ended"] - j["started"])
    minutes = wall / 60 if wall else float("nan")
    return {
        "run": str(run),
        "wall_s": round(wall, 1),
        "jobs": len(spans),
        "jobs_per_min": round(len(spans) / minutes, 2),
        "candidates": judged,
        "candidates_per_min": round(judged / minutes, 2),
        "gate12_jobs_with_calls": len(overheads),
        "overhead_per_candidate_s": {"median": pct(overheads, 0.5), "p90": pct(overheads, 0.9)},
        "job_s_by_rule": {
            r: {"jobs": len(v), "sum": round(sum(v), 1), "median": round(statistics.median(v), 1)}
            for r, v in sorted(by_rule.items())
        },
        "gpu_busy_pct": busy_smi(smi, start, end) if smi and smi.is_file() else busy_workers(run, start, end),
    }


def children(run: Path) -> dict:
    """The children's start-up in gates-1-2 jobs, and how often a zygote refused to fork."""
    starts = []
    for f in run.glob("logs/gate12/**/*.log.span.json"):
        try:
            phases = json.loads(f.read_text()).get("phases", {})
        except (OSError, ValueError):
            continue
        starts += [v for k, v in phases.items() if k.startswith("child: start-up")]
    refusals = 0
    for f in run.glob("logs/**/*.log"):
        try:
            refusals += f.read_text(errors="replace").count("[sandbox] no zygote")
        except OSError:
            continue
    return {
        "child_startup_s": {
            "sum": round(sum(starts), 1),
            "median": round(statistics.median(starts), 2) if starts else None,
            "jobs": len(starts),
        },
        "zygote_refusals": refusals,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("out")
    ap.add_argument("--snakemake", nargs="+", required=True, type=Path, help="Snakemake's log(s) of the run")
    ap.add_argument("--smi", type=Path, default=None)
    a = ap.parse_args()
    row = table(Path(a.run), a.snakemake, a.smi)
    if row.get("jobs"):
        row.update(children(Path(a.run)))
    print(json.dumps(row))
    Path(a.out).write_text(json.dumps(row, indent=2) + "\n")


if __name__ == "__main__":
    main()
