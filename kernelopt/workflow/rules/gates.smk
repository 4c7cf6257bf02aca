rule gate12:
    """Gates 1 (static + one watched run) and 2 (isolated correctness) of one candidate slot
    (cands/c<k>, synth/a<k>, iter<i>/cand<j>[/r<r>]), from one sandboxed run."""
    input:
        slot=str(CAND.slot),
    output:
        gate1=str(CAND.gate(1)),
        gate2=str(CAND.gate(2)),
    log:
        f"{WORKDIR}/logs/gate12/{{problem}}/{{unit}}/{{cand}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate12/{{problem}}/{{unit}}/{{cand}}.tsv"
    priority: stage_priority("gate12")
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("gate12"),
    params:
        cfg=settings("gate12"),
        workdir=run_dir,
    script:
        "../scripts/gate.py"


rule gate3:
    """Gate 3: stitched model vs eager (1e-4), FP64 fallback, proof of what ran."""
    input:
        plan=str(STAGE.plan),
        code=str(STAGE.output_code),
    output:
        str(STAGE.gate(3)),
    log:
        f"{WORKDIR}/logs/gate3/{{problem}}/{{stage}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate3/{{problem}}/{{stage}}.tsv"
    priority: stage_priority("gate3")
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("gate3"),
    params:
        cfg=settings("gate3"),
        workdir=run_dir,
    script:
        "../scripts/gate.py"


rule gate4:
    """Gate 4: stitched vs baseline time, interleaved, with a confidence interval."""
    input:
        gate3=str(STAGE.gate(3)),
    output:
        str(STAGE.gate(4)),
    log:
        f"{WORKDIR}/logs/gate4/{{problem}}/{{stage}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate4/{{problem}}/{{stage}}.tsv"
    priority: stage_priority("gate4")
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("gate4"),
    params:
        cfg=settings("gate4"),
        workdir=run_dir,
    script:
        "../scripts/gate.py"
