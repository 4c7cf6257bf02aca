"""Rule isolate: contract, standalone Inductor kernel, reference and 3-seed check of one unit."""

from kernelopt.core.paths import ProblemPaths
from kernelopt.core.stagelog import remote
from kernelopt.isolate import stage as isolate
from kernelopt.runner.worker import run_job

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
unit, cfg = smk.wildcards.unit, smk.params.cfg
call = remote(paths, "kernelopt.isolate.stage:run", unit, cfg)
run_job("isolate", smk.log[0], lambda: isolate.run(paths, unit, cfg), job=smk, remote=call)
