"""Rule report: results.csv and summary.json over all problems."""
from pathlib import Path

from kernelopt import report
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
workdir = Path(smk.output.csv).parents[1]
summary = run_stage("report", smk.log[0], lambda: report.results(workdir, list(smk.params.problems), Path(smk.output.csv), Path(smk.output.summary)))
print(report.results_console(summary), flush=True)
