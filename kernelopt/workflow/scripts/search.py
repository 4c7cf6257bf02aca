"""Rules synthesize, seed_beam, profile, expand, retry, select_iter: one step of a unit's search."""

from kernelopt.core.records import ProblemPaths
from kernelopt.core.stagelog import remote, resolve
from kernelopt.runner.worker import run_job

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive
w, cfg = smk.wildcards, smk.params.cfg
paths = ProblemPaths(smk.params.workdir, w.problem)
S = "kernelopt.search.stage"
calls = {
    "synthesize": lambda: remote(paths, f"{S}:synthesize", w.unit, int(w.k), cfg),
    "seed_beam": lambda: remote(paths, f"{S}:seed_beam", w.unit, cfg),
    "profile": lambda: remote(paths, f"{S}:profile_member", w.unit, int(w.i), int(w.j), cfg),
    "expand": lambda: remote(paths, f"{S}:expand", w.unit, int(w.i), cfg),
    "retry": lambda: remote(paths, f"{S}:retry", w.unit, int(w.i), int(w.j), int(w.r), cfg),
    "select_iter": lambda: remote(paths, f"{S}:select_iter", w.unit, int(w.i), cfg),
}
call = calls[smk.rule]()
if smk.rule == "synthesize":  # never touches the GPU: a warm worker's light lane
    call["lane"] = "light"
if smk.rule in ("synthesize", "profile", "select_iter"):  # in a warm worker when the executor is on
    run_job(smk.rule, smk.log[0], job=smk, remote=call)
else:  # seed_beam, expand, retry: local rules, in this process
    run_job(smk.rule, smk.log[0], resolve(call), job=smk)
