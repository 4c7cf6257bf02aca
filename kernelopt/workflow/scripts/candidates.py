"""Rule candidates: fill the fixed candidate slots of one unit."""

from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import run_stage
from kernelopt.select import stage as select

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
run_stage("candidates", smk.log[0], lambda: select.prepare_slots(paths, smk.wildcards.unit, smk.params.cfg))
