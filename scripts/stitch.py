"""Rule stitch: plan and write one stitch attempt (attempt 0 or a directed retry)."""
from pathlib import Path

from kernelopt import judge
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.input.dispatch).parent)
stage = smk.wildcards.stage
attempt = 0 if stage == "stitch" else int(stage.rsplit("r", 1)[1])
units = [Path(b).parent.name for b in smk.input.best]
run_stage("stitch", smk.log[0], lambda: judge.plan_attempt(paths, units, attempt, smk.params.config))
