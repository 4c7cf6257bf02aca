# Config validation, the problem set, what each rule is handed, and every input function.
import json
import os
import sys
from pathlib import Path

# the directory that holds the kernelopt package (this file is kernelopt/workflow/rules/common.smk):
# the checkout, or site-packages
HERE = workflow.current_basedir.get_path_or_uri(secret_free=True)
PACKAGE_PARENT = Path(HERE).parents[2]
sys.path.insert(0, str(PACKAGE_PARENT))

from kernelopt.classify import stage as ko_classify
from kernelopt.core import config as ko_config
from kernelopt.core import gpumem as ko_gpumem
from kernelopt.core import problems as ko_problems
from kernelopt.core.errors import KerneloptError
from kernelopt.core.records import (
    Dispatch,
    ProblemPaths,
    ReportPaths,
    attempt_of,
    retry_slot,
    unit_job_log,
)
from kernelopt.search import agents as ko_agents

try:
    CONFIG = ko_config.validate(dict(config))
    # a run directory this user cannot write stops here, in one sentence, before anything below
    # writes into it; so does device=cuda without a GPU where the jobs run: on this machine, not
    # when Snakemake submits them to a cluster (--jobs without --cores: nodes set), whose login
    # node need not have one, nor in a job's own process
    jobs_here = workflow.is_main_process and workflow.nodes is None
    ko_config.check_run(CONFIG, jobs_here=jobs_here)
    PROBLEMS = ko_problems.discover(CONFIG["problems"], base=Path.cwd())
    # agent.backend resolved once (auto -> anthropic or heuristic, said in one line); an LLM
    # backend without its key or its transcripts stops here, in one sentence
    CONFIG["agent"]["backend"] = ko_agents.prepare(CONFIG["agent"], CONFIG["workdir"])
except KerneloptError as e:
    raise WorkflowError(f"kernelopt: {e}")

WORKDIR = CONFIG["workdir"].rstrip("/")
# Warm workers (kernelopt/runner/worker.py): the GPU stages' jobs read this to hand their work to
# a worker of their problem; it changes where the work runs, never what it computes, so it is
# not a setting any rule is handed (no job re-runs when it changes).  A run that records the
# settings its jobs read (kernelopt.core.config.RECORD_ENV) keeps their work in their own
# processes, where the reads are seen.
EXECUTOR = dict(
    CONFIG["executor"],
    enabled=CONFIG["executor"]["enabled"] and not ko_config.recording(),
)
os.environ.update(KERNELOPT_EXECUTOR=json.dumps(EXECUTOR))
# The problem set as a file the reports read: rewritten only when the set changes, so adding or
# removing problems re-runs the reports by file time alone (a fresh checkout has no .snakemake
# metadata to notice a changed params list).
PROBLEM_SET = ko_problems.write_problem_set(WORKDIR, PROBLEMS)

# Every pattern comes from the artifact layout (kernelopt/core/records.py), with wildcards for
# names: W for a problem, ITER for a search iteration, CAND for a candidate slot, STAGE for a
# stitch attempt; REPORT for the run's tables.
W = ProblemPaths(WORKDIR, "{problem}")
ITER = W.iteration("{unit}", "{i}")
CAND = W.slot("{unit}", "{cand}")
STAGE = W.attempt_at("{stage}")
REPORT = ReportPaths.of(WORKDIR)


def at(problem):
    """The artifact layout of one problem."""
    return ProblemPaths(WORKDIR, problem)


# GPU memory is a scheduled resource (kernelopt/core/gpumem.py): every GPU job declares
# gpu_mb (its need, from the problem's capture record; before capture, from the problem's
# shapes) and claims it at run time on the GPU with the most room; a failed GPU job is retried
# (gpu.retries) with gpu_alone=1: on a GPU of its own.
ON_GPU = ko_gpumem.on_gpu(CONFIG["device"])
GPU_RETRIES = int(CONFIG["gpu"]["retries"])


def gpu_mb(name):
    """The gpu_mb resource of a job of rule ``name``."""

    def need(wildcards, attempt):
        if not ON_GPU:
            return 0
        unit = getattr(wildcards, "unit", None)
        return ko_gpumem.rule_need_mb(
            name,
            at(wildcards.problem).capture_record,
            PROBLEMS[wildcards.problem],
            CONFIG["gpu"],
            at(wildcards.problem).contract(unit) if unit else None,
            unit_job_log(WORKDIR, "isolate", wildcards.problem, unit) if unit else None,
        )

    return need


def gpu_alone(wildcards, attempt):
    return int(attempt > 1)


def gpu_resources(name):
    """The resources a GPU job of ``name`` declares (``**gpu_resources(name)`` under
    ``resources``), said once for all such rules: one GPU, the job's memory need, and a GPU of
    its own when it is retried."""
    return {"gpu": 1, "gpu_mb": gpu_mb(name), "gpu_alone": gpu_alone}


def stage_priority(rule):
    """A rule's priority: later stages first (kernelopt.core.config.PIPELINE_ORDER)."""
    return ko_config.stage_priority(rule)


def settings(rule):
    """Only the settings ``rule`` reads (kernelopt.core.config.RULE_SETTINGS): a job re-runs
    when one of those changes, never for an unrelated edit."""
    return ko_config.handed_settings(CONFIG, rule)


def run_dir(wildcards, output):
    """The run directory as this job sees it: its first output's path up to the problem's
    directory (or ``report``), so that a storage prefix on a cluster is kept."""
    parts = Path(output[0]).parts
    name = wildcards.problem if "problem" in wildcards.keys() else "report"
    return str(Path(*parts[: parts.index(name)])) if name in parts[1:] else WORKDIR


def problem_file(wildcards):
    return str(PROBLEMS[wildcards.problem])


def dispatch_file(problem):
    """The output of a problem's classify checkpoint (the fan-out point)."""
    return checkpoints.classify.get(problem=problem).output[0]


def units_of(problem):
    """Units of a problem, from its classify checkpoint (as every stage reads them)."""
    return ko_classify.units_of(dispatch_file(problem))


def judged_units(problem):
    """Units that go through candidates and gates: those of optimizable problems only."""
    return Dispatch.load(dispatch_file(problem)).judged_unit_ids


def isolate_checks(wildcards):
    p = at(wildcards.problem)
    return [str(p.isolate_check(u)) for u in units_of(wildcards.problem)]


def all_isolated(wildcards):
    return [str(at(p).isolated) for p in PROBLEMS]


SLOTS = list(range(1 + int(CONFIG["gates"]["user_candidates"])))
ITERATIONS = int(CONFIG["search"]["iterations"])
BEAM = list(range(int(CONFIG["search"]["beam_width"])))
ATTEMPTS = list(range(1 + int(CONFIG["gates"]["retries"])))
RETRIES = list(range(1, 1 + int(CONFIG["search"]["retries"])))


def unit_gate2s(wildcards):
    p = at(wildcards.problem)
    return [str(p.cand(wildcards.unit, k).gate(2)) for k in SLOTS]


def synthesis_chain(wildcards):
    """With an LLM backend, synthesis attempt k is shown why attempts 0..k-1 failed: it
    reads their verdicts.  The heuristic's attempts are independent variants."""
    if CONFIG["agent"]["backend"] == "heuristic":
        return []
    p = at(wildcards.problem)
    return [str(p.synth(wildcards.unit, k).gate(2)) for k in range(int(wildcards.k))]


def synthesized(wildcards):
    p = at(wildcards.problem)
    return [
        str(p.synth(wildcards.unit, k).gate(2))
        for k in range(int(CONFIG["search"]["synthesis_attempts"]))
    ]


def final_beam(wildcards):
    """The search's last beam (nothing when search.iterations is 0)."""
    if ITERATIONS == 0:
        return []
    return str(at(wildcards.problem).iteration(wildcards.unit, ITERATIONS).beam)


def iteration_inputs(wildcards):
    """expand iter<i> reads iter<i-1>: its beam, memory and the profile of each member."""
    prev = at(wildcards.problem).iteration(wildcards.unit, int(wildcards.i) - 1)
    return [str(prev.beam), str(prev.memory)] + [
        str(prev.profile(j).summary) for j in BEAM
    ]


def iteration_gates(wildcards):
    """Every slot of iteration i: the planned candidates and their directed retries."""
    it = at(wildcards.problem).iteration(wildcards.unit, wildcards.i)
    return [str(it.cand(retry_slot(j, 0)).gate(2)) for j in BEAM] + [
        str(it.cand(retry_slot(j, r)).gate(2)) for j in BEAM for r in RETRIES
    ]


def retry_inputs(wildcards):
    """Retry r of candidate j reads the verdict of the attempt before it (the candidate itself
    for r1) and the candidate's slot."""
    it = at(wildcards.problem).iteration(wildcards.unit, wildcards.i)
    before, first = it.retry_reads(int(wildcards.j), int(wildcards.r))
    return [str(before.gate(2)), str(first.slot)]


def best_of_units(wildcards):
    p = at(wildcards.problem)
    return [str(p.best(u)) for u in judged_units(wildcards.problem)]


def previous_attempt(wildcards):
    """Attempt k reads attempt k-1's verdicts (attempt 0 reads nothing)."""
    prev = at(wildcards.problem).previous_attempt(attempt_of(wildcards.stage))
    return (
        [] if prev is None else [str(prev.plan), str(prev.gate(3)), str(prev.gate(4))]
    )


def all_attempts(wildcards):
    if not judged_units(wildcards.problem):
        return []  # library-dominated, no-triton or failed: nothing to stitch
    p = at(wildcards.problem)
    return [str(p.attempt(a).gate(4)) for a in ATTEMPTS]


def all_results(wildcards):
    return [str(at(p).result) for p in PROBLEMS]
