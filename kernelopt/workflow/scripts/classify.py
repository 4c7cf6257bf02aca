"""Checkpoint classify: dispatch kinds, time shares, units and verdict of one problem."""

from kernelopt.classify import stage as classify
from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths(smk.params.workdir, smk.wildcards.problem)
cfg = smk.params.cfg["classify"]
run_stage(
    "classify",
    smk.log[0],
    lambda: classify.run(
        paths, cfg["min_triton_share"], cfg["fuse_neighbours"], cfg["regions"], cfg["fusible_regions"]
    ),
)
