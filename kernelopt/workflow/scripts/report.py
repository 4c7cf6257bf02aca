"""Rule report: results.csv and summary.json over all problems, then the HTML report."""

from pathlib import Path

from kernelopt.core.stagelog import run_stage
from kernelopt.report import html, tables

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
problems = list(smk.params.problems)
out_csv, out_json = Path(smk.output.csv), Path(smk.output.summary)


def write():
    summary = tables.results(smk.params.workdir, problems, out_csv, out_json)
    index = html.build(smk.params.workdir, problems)
    return summary, index


# the tables are printed at the run's end (kernelopt/report/console.py), not among its jobs
run_stage("report", smk.log[0], write)
