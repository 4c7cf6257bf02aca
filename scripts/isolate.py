"""Rule isolate: contract, standalone Inductor kernel, reference and 3-seed check of one unit."""

from kernelopt.core.paths import ProblemPaths
from kernelopt.core.stagelog import run_stage
from kernelopt.isolate import stage as isolate

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
run_stage("isolate", smk.log[0], lambda: isolate.run(paths, smk.wildcards.unit, smk.params.cfg), job=smk)
