rule result:
    """result.json of a problem: category, reason, speedups, noise band, cost."""
    input:
        isolated=f"{WORKDIR}/{{problem}}/isolate.json",
        attempts=all_attempts,
    output:
        f"{WORKDIR}/{{problem}}/result.json",
    log:
        f"{WORKDIR}/logs/result/{{problem}}.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("result"),
        workdir=run_dir,
    script:
        "../scripts/result.py"


rule stages_report:
    """Table of stages 1-3 over all problems: compile s, times, kinds, shares, checks."""
    input:
        all_isolated,
        problem_set=PROBLEM_SET,
    output:
        json=f"{WORKDIR}/report/stages.json",
        csv=f"{WORKDIR}/report/stages.csv",
    log:
        f"{WORKDIR}/logs/report/stages.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        problems=list(PROBLEMS),
        workdir=run_dir,
    script:
        "../scripts/stages_report.py"


rule report:
    """results.csv (one row per problem) and summary.json (per level and overall)."""
    input:
        all_results,
        problem_set=PROBLEM_SET,
    output:
        csv=f"{WORKDIR}/report/results.csv",
        summary=f"{WORKDIR}/report/summary.json",
    log:
        f"{WORKDIR}/logs/report/results.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        problems=list(PROBLEMS),
        workdir=run_dir,
    script:
        "../scripts/report.py"
