"""Rule isolate: contract, standalone Inductor kernel, reference and 3-seed check of one unit."""
from pathlib import Path

from kernelopt import isolate
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
paths = ProblemPaths.of(Path(smk.output.contract).parents[2])
run_stage("isolate", smk.log[0], lambda: isolate.run(paths, smk.wildcards.unit, smk.params.config))
