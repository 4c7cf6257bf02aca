rule result:
    """result.json of a problem: category, reason, speedups, noise band, cost."""
    input:
        isolated=str(W.isolated),
        attempts=all_attempts,
    output:
        str(W.result),
    log:
        f"{WORKDIR}/logs/result/{{problem}}.log",
    priority: stage_priority("result")
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
        json=report(
            str(REPORT.stages_json),
            category="Tables",
            caption="captions/stages.rst",
        ),
        csv=report(
            str(REPORT.stages_csv),
            category="Tables",
            caption="captions/stages.rst",
        ),
    log:
        f"{WORKDIR}/logs/report/stages.log",
    priority: stage_priority("stages_report")
    conda:
        "../envs/kernelopt.yaml"
    params:
        problems=list(PROBLEMS),
        workdir=run_dir,
    script:
        "../scripts/stages_report.py"


rule report:
    """results.csv (one row per problem), summary.json (per level and overall) and the HTML
    report: report/index.html, one page per problem, plots (docs/report.md)."""
    input:
        all_results,
        problem_set=PROBLEM_SET,
        stages=str(REPORT.stages_json),
    output:
        csv=report(
            str(REPORT.results_csv),
            category="Results",
            caption="captions/results.rst",
        ),
        summary=report(
            str(REPORT.summary),
            category="Results",
            caption="captions/summary.rst",
        ),
        html=report(
            str(REPORT.index),
            category="HTML report",
            caption="captions/index.rst",
        ),
        pages=expand(str(REPORT.problem_page("{problem}")), problem=list(PROBLEMS)),
    log:
        f"{WORKDIR}/logs/report/results.log",
    priority: stage_priority("report")
    conda:
        "../envs/kernelopt.yaml"
    params:
        problems=list(PROBLEMS),
        workdir=run_dir,
    script:
        "../scripts/report.py"
