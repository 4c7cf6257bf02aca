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
        config=CONFIG,
    script:
        "../scripts/stitch.py"


rule gate3:
    """Gate 3: stitched model vs eager (1e-4), FP64 fallback, proof of what ran."""
    input:
        plan=f"{WORKDIR}/{{problem}}/{{stage}}/plan.json",
        code=f"{WORKDIR}/{{problem}}/{{stage}}/output_code.py",
    output:
        f"{WORKDIR}/{{problem}}/{{stage}}/gate3.json",
    log:
        f"{WORKDIR}/logs/gate3/{{problem}}/{{stage}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate3/{{problem}}/{{stage}}.tsv"
    conda:
        "../envs/kernelopt.yaml"
    resources:
        gpu=1,
    params:
        config=CONFIG,
    script:
        "../scripts/gate.py"


rule gate4:
    """Gate 4: stitched vs baseline time, interleaved, with a confidence interval."""
    input:
        gate3=f"{WORKDIR}/{{problem}}/{{stage}}/gate3.json",
    output:
        f"{WORKDIR}/{{problem}}/{{stage}}/gate4.json",
    log:
        f"{WORKDIR}/logs/gate4/{{problem}}/{{stage}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate4/{{problem}}/{{stage}}.tsv"
    conda:
        "../envs/kernelopt.yaml"
    resources:
        gpu=1,
    params:
        config=CONFIG,
    script:
        "../scripts/gate.py"


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
        config=CONFIG,
    script:
        "../scripts/result.py"
