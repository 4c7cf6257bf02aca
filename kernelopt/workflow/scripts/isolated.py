"""Rule isolated: summary of stages 1-3 for one problem (isolate.json)."""

from kernelopt.classify.stage import units_of
from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import run_stage
from kernelopt.isolate import stage as isolate

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
run_stage("isolated", smk.log[0], lambda: isolate.summarize(paths, units_of(paths.dispatch)))
