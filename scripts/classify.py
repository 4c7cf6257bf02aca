"""Checkpoint classify: dispatch kinds, time shares, units and verdict of one problem."""
from pathlib import Path

from kernelopt import classify
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.output.dispatch).parent)
run_stage("classify", smk.log[0], lambda: classify.run(paths, float(smk.params.min_triton_share), bool(smk.params.fuse_neighbours)))
