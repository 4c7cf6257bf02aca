"""Rules gate1, gate2 (per candidate slot), gate3, gate4 (per stitch attempt)."""
from pathlib import Path

from kernelopt import judge
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
w, cfg, out = smk.wildcards, smk.params.config, Path(smk.output[0])
if smk.rule in ("gate1", "gate2"):
    cand_dir = out.parent  # units/<unit>/<cands/c<k> | iter<i>/cand<j>>
    paths = ProblemPaths.of(out.parents[len(Path(w.cand).parts) + 2])
    fn = judge.run_gate1 if smk.rule == "gate1" else judge.run_gate2
    run_stage(smk.rule, smk.log[0], lambda: fn(paths, w.unit, cand_dir, cfg))
else:
    paths = ProblemPaths.of(Path(smk.input[0]).parents[len(Path(w.stage).parts)])
    attempt = 0 if w.stage == "stitch" else int(w.stage.rsplit("r", 1)[1])
    fn = judge.run_gate3 if smk.rule == "gate3" else judge.run_gate4
    run_stage(smk.rule, smk.log[0], lambda: fn(paths, attempt, cfg))
