"""Rule capture: compile one problem with max-autotune and save what later stages need."""

from pathlib import Path

from kernelopt.capture import stage as capture
from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
run_stage(
    "capture",
    smk.log[0],
    lambda: capture.run_or_record_failure(Path(smk.input.problem), paths, smk.params.cfg),
    job=smk,
)
