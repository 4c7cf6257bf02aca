"""Rule select: rank one unit's passing candidates by isolated time."""

from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import remote
from kernelopt.runner.worker import run_job

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
call = remote(paths, "kernelopt.select.stage:select", smk.wildcards.unit, smk.params.cfg)
run_job("select", smk.log[0], job=smk, remote=call)
