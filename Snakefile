# kernelopt: dispatch-aware optimisation of the Triton kernels torch.compile generates.
# Stages (docs/architecture.md): capture -> classify (checkpoint) -> isolate (per unit)
# -> candidates -> gate1 -> gate2 -> search: synthesize -> gate1/2, seed_beam,
# iter<i> = profile -> expand -> gate1/2 -> retry r1, r2 (directed, pass-through) -> gate1/2
# -> select_iter (per unit, chained) -> select (per unit) -> stitch -> gate3 -> gate4
# (per attempt: stitch/, stitch/retries/r1, r2) -> result -> report.
# One rule file per stage (rules/<stage>.smk), one package per stage (kernelopt/<stage>/).
from snakemake.utils import min_version

min_version("9.17")


configfile: "config.yaml"


include: "rules/common.smk"


wildcard_constraints:
    problem=r"[A-Za-z0-9_]+",
    unit=r"[A-Za-z0-9_]+",
    slot=r"[0-9]+",
    cand=r"cands/c[0-9]+|iter[0-9]+/cand[0-9]+(/r[0-9]+)?|synth/a[0-9]+",
    r=r"[0-9]+",
    k=r"[0-9]+",
    i=r"[0-9]+",
    j=r"[0-9]+",
    stage=r"stitch(/retries/r[0-9]+)?",


localrules:
    all,
    isolated,
    stages_report,
    candidates,
    seed_beam,
    synthesize,
    expand,
    retry,
    stitch,
    result,
    report,


ruleorder: seed_beam > select_iter


# the run's warm workers end with it (kernelopt/runner/worker.py); a killed run's end on their own
# after executor.idle_s
onsuccess:
    from kernelopt.runner import worker as ko_worker

    ko_worker.stop_all(WORKDIR)


onerror:
    from kernelopt.runner import worker as ko_worker

    ko_worker.stop_all(WORKDIR)


rule all:
    input:
        str(REPORT.stages_json),
        str(REPORT.results_csv),
        # every problem's result as a target of its own: a result deleted to redo its problem
        # is not seen through the report (Snakemake misses it behind the classify checkpoint)
        all_results,


include: "rules/capture.smk"
include: "rules/classify.smk"
include: "rules/isolate.smk"
include: "rules/select.smk"
include: "rules/gates.smk"
include: "rules/search.smk"
include: "rules/stitch.smk"
include: "rules/report.smk"
