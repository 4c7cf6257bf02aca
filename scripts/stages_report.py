"""Rule stages_report: one table of stages 1-3 over all problems (report/stages.json, .csv)."""
from pathlib import Path

from kernelopt import report
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
summary = run_stage("stages_report", smk.log[0], lambda: report.stages(Path(smk.output.json).parents[1], list(smk.params.problems), Path(smk.output.json), Path(smk.output.csv)))
print(report.console_summary(summary, Path(smk.output.csv)), flush=True)
