"""Rules gate12 (gates 1-2 per candidate slot), gate3, gate4 (per stitch attempt)."""

from kernelopt.core.records import ProblemPaths, attempt_of
from kernelopt.core.stagelog import remote
from kernelopt.runner.worker import run_job

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
w, cfg = smk.wildcards, smk.params.cfg
paths = ProblemPaths(smk.params.workdir, w.problem)
if smk.rule == "gate12":
    call = remote(paths, "kernelopt.gates.stage:run_gate12", w.unit, w.cand, cfg)
else:
    call = remote(paths, f"kernelopt.gates.stage:run_{smk.rule}", attempt_of(w.stage), cfg)
run_job(smk.rule, smk.log[0], job=smk, remote=call)
