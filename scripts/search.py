"""Rules synthesize, seed_beam, profile, expand, retry, select_iter: one step of a unit's search."""

from kernelopt.core.paths import ProblemPaths
from kernelopt.core.stagelog import remote
from kernelopt.runner.worker import run_job
from kernelopt.search import stage as search

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
w, cfg = smk.wildcards, smk.params.cfg
paths = ProblemPaths(smk.params.workdir, w.problem)
steps = {
    "synthesize": lambda: search.synthesize(paths, w.unit, int(w.k), cfg),
    "seed_beam": lambda: search.seed_beam(paths, w.unit, cfg),
    "profile": lambda: search.profile_member(paths, w.unit, int(w.i), int(w.j), cfg),
    "expand": lambda: search.expand(paths, w.unit, int(w.i), cfg),
    "retry": lambda: search.retry(paths, w.unit, int(w.i), int(w.j), int(w.r), cfg),
    "select_iter": lambda: search.select_iter(paths, w.unit, int(w.i), cfg),
}
# in a warm worker when the executor is on (synthesize, which never touches the GPU, in its own lane)
remotes = {
    "synthesize": lambda: {
        **remote(paths, "kernelopt.search.stage:synthesize", w.unit, int(w.k), cfg),
        "lane": "light",
    },
    "profile": lambda: remote(paths, "kernelopt.search.stage:profile_member", w.unit, int(w.i), int(w.j), cfg),
    "select_iter": lambda: remote(paths, "kernelopt.search.stage:select_iter", w.unit, int(w.i), cfg),
}
call = remotes[smk.rule]() if smk.rule in remotes else None
run_job(smk.rule, smk.log[0], steps[smk.rule], job=smk, remote=call)
