"""Rule select: rank one unit's passing candidates by isolated time."""
from pathlib import Path

from kernelopt import judge
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.output[0]).parents[2])
run_stage("select", smk.log[0], lambda: judge.select(paths, smk.wildcards.unit, smk.params.config))
