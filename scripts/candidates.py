"""Rule candidates: fill the fixed candidate slots of one unit."""
from pathlib import Path

from kernelopt import judge
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.input.contract).parents[2])
run_stage("candidates", smk.log[0], lambda: judge.prepare_slots(paths, smk.wildcards.unit, smk.params.config))
