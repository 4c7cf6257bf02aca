"""Rule select: rank one unit's passing candidates by isolated time."""

from kernelopt.core.paths import ProblemPaths
from kernelopt.core.stagelog import run_stage
from kernelopt.select import stage as select

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
run_stage("select", smk.log[0], lambda: select.select(paths, smk.wildcards.unit, smk.params.cfg), job=smk)
