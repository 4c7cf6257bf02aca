rule stitch:
    """Attempt k: splice each unit's rank-k candidate into the baseline wrapper (or pass
    through when attempt k-1 passed: fixed retry slots, no recursive checkpoints)."""
    input:
        best=best_of_units,
        previous=previous_attempt,
        dispatch=str(W.dispatch),
    output:
        plan=str(STAGE.plan),
        code=str(STAGE.output_code),
    log:
        f"{WORKDIR}/logs/stitch/{{problem}}/{{stage}}.log",
    priority: stage_priority("stitch")
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("stitch"),
        workdir=run_dir,
    script:
        "../scripts/stitch.py"
