"""What a finished run prints last: the two tables (stages 1-3 per problem, then the results per
problem) and the HTML report's path, read from what the report stage wrote.  The Snakefile's
``onsuccess`` prints it at the end of a ``snakemake`` run, ``kernelopt run`` after Snakemake
exits (``kernelopt/runcli.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from ..core.records import ReportPaths, gpu_busy_logs
from . import tables


def final(workdir: str | Path, problems: list[str]) -> str | None:
    """The tables and the report's path; None while the run has no report (a run stopped short
    of it, a dry run)."""
    rep = ReportPaths.of(workdir)
    if not (rep.stages_json.exists() and rep.results_csv.exists()):
        return None
    try:
        stages = json.loads(rep.stages_json.read_text())
    except (OSError, ValueError):
        return None
    rows = [tables.result_row(Path(workdir), p) for p in problems]
    gpus = len(gpu_busy_logs(workdir)) or 1
    results = tables.summary_of(rows, gpus)
    results["rows"] = rows
    lines = [tables.console_summary(stages, rep.stages_csv), tables.results_console(results)]
    lines.append(f"[report] results: {rep.results_csv}")
    lines.append(f"[report] HTML report: {rep.index}" if rep.index.exists() else "[report] no HTML report yet")
    return "\n".join(lines)
