rule isolate:
    """Contract, Inductor's kernel standalone, eager reference, 3-seed check of one unit."""
    input:
        dispatch=f"{WORKDIR}/{{problem}}/dispatch.json",
        capture=f"{WORKDIR}/{{problem}}/capture/capture.json",
    output:
        contract=f"{WORKDIR}/{{problem}}/units/{{unit}}/contract.json",
        inductor=f"{WORKDIR}/{{problem}}/units/{{unit}}/inductor.py",
        check=f"{WORKDIR}/{{problem}}/units/{{unit}}/isolate_check.json",
    log:
        f"{WORKDIR}/logs/isolate/{{problem}}/{{unit}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/isolate/{{problem}}/{{unit}}.tsv"
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
        dispatch=f"{WORKDIR}/{{problem}}/dispatch.json",
        checks=isolate_checks,
    output:
        summary=f"{WORKDIR}/{{problem}}/isolate.json",
    log:
        f"{WORKDIR}/logs/isolated/{{problem}}.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        workdir=run_dir,
    script:
        "../scripts/isolated.py"
