"""Rule stages_report: one table of stages 1-3 over all problems (report/stages.json, .csv)."""

from pathlib import Path

from kernelopt.core.stagelog import run_stage
from kernelopt.report import tables

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
problems = list(smk.params.problems)
out_json, out_csv = Path(smk.output.json), Path(smk.output.csv)
# the table is printed at the run's end (kernelopt/report/console.py), not among its jobs
run_stage("stages_report", smk.log[0], lambda: tables.stages(smk.params.workdir, problems, out_json, out_csv))
