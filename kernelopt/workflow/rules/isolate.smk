rule isolate:
    """Contract, Inductor's kernel standalone, eager reference, 3-seed check of one unit."""
    input:
        dispatch=str(W.dispatch),
        capture=str(W.capture_record),
    output:
        contract=str(W.contract("{unit}")),
        inductor=str(W.inductor_kernel("{unit}")),
        check=str(W.isolate_check("{unit}")),
    log:
        str(unit_job_log(WORKDIR, "isolate", "{problem}", "{unit}")),
    benchmark:
        f"{WORKDIR}/benchmarks/isolate/{{problem}}/{{unit}}.tsv"
    priority: stage_priority("isolate")
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("isolate"),
    params:
        cfg=settings("isolate"),
        workdir=run_dir,
    script:
        "../scripts/isolate.py"


rule isolated:
    """All units of a problem isolated: the per-problem summary of stages 1-3."""
    input:
        dispatch=str(W.dispatch),
        checks=isolate_checks,
    output:
        summary=str(W.isolated),
    log:
        f"{WORKDIR}/logs/isolated/{{problem}}.log",
    priority: stage_priority("isolated")
    conda:
        "../envs/kernelopt.yaml"
    params:
        workdir=run_dir,
    script:
        "../scripts/isolated.py"
