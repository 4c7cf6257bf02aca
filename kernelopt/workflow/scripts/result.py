"""Rule result: the problem's result.json."""

from kernelopt.classify.stage import units_of
from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import run_stage
from kernelopt.report import stage as report

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
run_stage("result", smk.log[0], lambda: report.finalize(paths, units_of(paths.dispatch), smk.params.cfg))
