checkpoint classify:
    """Dispatch kind and time share of every launch; units = Triton kernels; verdict."""
    input:
        capture=str(W.capture_record),
        profile=str(W.profile),
    output:
        dispatch=str(W.dispatch),
    log:
        f"{WORKDIR}/logs/classify/{{problem}}.log",
    priority: stage_priority("classify")
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("classify"),
        workdir=run_dir,
    script:
        "../scripts/classify.py"
