"""Rules synthesize, seed_beam, profile, expand, retry, select_iter: one step of a unit's search."""
from pathlib import Path

from kernelopt import search, synthesize
from kernelopt.paths import ProblemPaths
from kernelopt.stagelog import run_stage

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
w, cfg = smk.wildcards, smk.params.config
unit_dir = Path(str(smk.output[0]).split("/iter")[0].split("/synth/")[0])
paths = ProblemPaths.of(unit_dir.parents[1])
steps = {
    "synthesize": lambda: synthesize.run(paths, w.unit, int(w.k), cfg),
    "seed_beam": lambda: search.seed_beam(paths, w.unit, cfg),
    "profile": lambda: search.profile_member(paths, w.unit, int(w.i), int(w.j), cfg),
    "expand": lambda: search.expand(paths, w.unit, int(w.i), cfg),
    "retry": lambda: search.retry(paths, w.unit, int(w.i), int(w.j), int(w.r), cfg),
    "select_iter": lambda: search.select_iter(paths, w.unit, int(w.i), cfg),
}
run_stage(smk.rule, smk.log[0], steps[smk.rule])
