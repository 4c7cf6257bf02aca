"""Rule isolated: summary of stages 1-3 for one problem (isolate.json, result.json)."""
from pathlib import Path

from kernelopt import isolate
from kernelopt.classify import units_of
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.output.summary).parent)
run_stage("isolated", smk.log[0], lambda: isolate.summarize(paths, units_of(Path(smk.input.dispatch))))
