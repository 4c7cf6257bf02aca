"""Recompute each problem's result.json and the report of a finished run directory from its
JSON artifacts alone (no GPU, nothing re-measured): for a run made before a fix to how
results are categorised.  The run's own files are kept as ``result.run.json`` and
``report/results.run.csv``.

usage: python bench/refinalize.py RUN_DIR [--config 'gates: {...}']   (the run's config overrides)
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import yaml

from kernelopt.classify.stage import units_of
from kernelopt.core import config
from kernelopt.core.records import ProblemPaths
from kernelopt.report import stage as report
from kernelopt.report import tables


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--config", default="{}", help="YAML mapping of the run's config overrides")
    a = ap.parse_args()
    wd = Path(a.run_dir)
    cfg = config.validate(yaml.safe_load(a.config) or {})
    problems = sorted(p.name for p in wd.iterdir() if (p / "result.json").is_file())
    for name in problems:
        paths = ProblemPaths.of(wd / name)
        keep = wd / name / "result.run.json"
        if not keep.exists():
            shutil.copy2(paths.result, keep)
        report.finalize(paths, units_of(paths.dispatch), cfg)
    rep = wd / "report"
    if (rep / "results.csv").exists() and not (rep / "results.run.csv").exists():
        shutil.copy2(rep / "results.csv", rep / "results.run.csv")
    summary = tables.results(wd, problems, rep / "results.csv", rep / "summary.json")
    print(tables.results_console(summary))


if __name__ == "__main__":
    main()
