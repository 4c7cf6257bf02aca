"""Rule stitch: plan and write one stitch attempt (attempt 0 or a directed retry)."""

from pathlib import Path

from kernelopt.core.records import ProblemPaths, attempt_of
from kernelopt.core.stagelog import run_stage
from kernelopt.stitch import stage as stitch

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
units = [Path(b).parent.name for b in smk.input.best]  # units/<unit>/best.json
attempt = attempt_of(smk.wildcards.stage)
run_stage("stitch", smk.log[0], lambda: stitch.plan_attempt(paths, units, attempt, smk.params.cfg))
