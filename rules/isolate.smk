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
    conda:
        "../envs/kernelopt.yaml"
    resources:
        gpu=1,
    params:
        config=CONFIG,
    script:
        "../scripts/isolate.py"


rule isolated:
    """All units of a problem isolated: per-problem summary and result.json."""
    input:
        dispatch=f"{WORKDIR}/{{problem}}/dispatch.json",
        checks=isolate_checks,
    output:
        summary=f"{WORKDIR}/{{problem}}/isolate.json",
    log:
        f"{WORKDIR}/logs/isolated/{{problem}}.log",
    conda:
        "../envs/kernelopt.yaml"
    script:
        "../scripts/isolated.py"
