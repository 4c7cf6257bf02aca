"""Rule capture: compile one problem with max-autotune and save what later stages need."""
from pathlib import Path

from kernelopt import capture
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.output.capture).parents[1])
run_stage("capture", smk.log[0], lambda: capture.run_or_record_failure(Path(smk.input.problem), paths, smk.params.config))
