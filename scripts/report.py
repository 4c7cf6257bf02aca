"""Rule report: results.csv and summary.json over all problems."""

from pathlib import Path

from kernelopt.core.stagelog import run_stage
from kernelopt.report import tables

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
problems = list(smk.params.problems)
out_csv, out_json = Path(smk.output.csv), Path(smk.output.summary)
summary = run_stage("report", smk.log[0], lambda: tables.results(smk.params.workdir, problems, out_csv, out_json))
print(tables.results_console(summary), flush=True)
