checkpoint classify:
    """Dispatch kind and time share of every launch; units = Triton kernels; verdict."""
    input:
        capture=f"{WORKDIR}/{{problem}}/capture/capture.json",
        profile=f"{WORKDIR}/{{problem}}/capture/profile.json",
    output:
        dispatch=f"{WORKDIR}/{{problem}}/dispatch.json",
    log:
        f"{WORKDIR}/logs/classify/{{problem}}.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("classify"),
        workdir=run_dir,
    script:
        "../scripts/classify.py"
