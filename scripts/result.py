"""Rule result: the problem's result.json."""
from pathlib import Path

from kernelopt import judge
from kernelopt.classify import units_of
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.output[0]).parent)
run_stage("result", smk.log[0], lambda: judge.finalize(paths, units_of(paths.dispatch), smk.params.config))
