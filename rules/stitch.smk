rule stitch:
    """Attempt k: splice each unit's rank-k candidate into the baseline wrapper (or pass
    through when attempt k-1 passed: fixed retry slots, no recursive checkpoints)."""
    input:
        best=best_of_units,
        previous=previous_attempt,
        dispatch=f"{WORKDIR}/{{problem}}/dispatch.json",
    output:
        plan=f"{WORKDIR}/{{problem}}/{{stage}}/plan.json",
        code=f"{WORKDIR}/{{problem}}/{{stage}}/output_code.py",
    log:
        f"{WORKDIR}/logs/stitch/{{problem}}/{{stage}}.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("stitch"),
        workdir=run_dir,
    script:
        "../scripts/stitch.py"
