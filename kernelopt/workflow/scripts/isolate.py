"""Rule isolate: contract, standalone Inductor kernel, reference and 3-seed check of one unit."""

from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import remote
from kernelopt.runner.worker import run_job

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
call = remote(paths, "kernelopt.isolate.stage:run", smk.wildcards.unit, smk.params.cfg)
run_job("isolate", smk.log[0], job=smk, remote=call)
