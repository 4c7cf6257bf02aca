"""Rules gate12 (gates 1-2 per candidate slot), gate3, gate4 (per stitch attempt)."""

from kernelopt.core.paths import ProblemPaths, attempt_of
from kernelopt.core.stagelog import run_stage
from kernelopt.gates import stage as gates

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
w, cfg = smk.wildcards, smk.params.cfg
paths = ProblemPaths(smk.params.workdir, w.problem)
if smk.rule == "gate12":
    run_stage(smk.rule, smk.log[0], lambda: gates.run_gate12(paths, w.unit, w.cand, cfg), job=smk)
else:
    fn = gates.run_gate3 if smk.rule == "gate3" else gates.run_gate4
    run_stage(smk.rule, smk.log[0], lambda: fn(paths, attempt_of(w.stage), cfg), job=smk)
