"""Rule select: rank one unit's passing candidates by isolated time."""

from kernelopt.core.paths import ProblemPaths
from kernelopt.core.stagelog import remote
from kernelopt.runner.worker import run_job
from kernelopt.select import stage as select

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
unit, cfg = smk.wildcards.unit, smk.params.cfg
call = remote(paths, "kernelopt.select.stage:select", unit, cfg)
run_job("select", smk.log[0], lambda: select.select(paths, unit, cfg), job=smk, remote=call)
