rule gate12:
    """Gates 1 (static + one watched run) and 2 (isolated correctness) of one candidate slot
    (cands/c<k>, synth/a<k>, iter<i>/cand<j>[/r<r>]), from one sandboxed run."""
    input:
        slot=f"{WORKDIR}/{{problem}}/units/{{unit}}/{{cand}}/slot.json",
    output:
        gate1=f"{WORKDIR}/{{problem}}/units/{{unit}}/{{cand}}/gate1.json",
        gate2=f"{WORKDIR}/{{problem}}/units/{{unit}}/{{cand}}/gate2.json",
    log:
        f"{WORKDIR}/logs/gate12/{{problem}}/{{unit}}/{{cand}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate12/{{problem}}/{{unit}}/{{cand}}.tsv"
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
        plan=f"{WORKDIR}/{{problem}}/{{stage}}/plan.json",
        code=f"{WORKDIR}/{{problem}}/{{stage}}/output_code.py",
    output:
        f"{WORKDIR}/{{problem}}/{{stage}}/gate3.json",
    log:
        f"{WORKDIR}/logs/gate3/{{problem}}/{{stage}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate3/{{problem}}/{{stage}}.tsv"
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
        gate3=f"{WORKDIR}/{{problem}}/{{stage}}/gate3.json",
    output:
        f"{WORKDIR}/{{problem}}/{{stage}}/gate4.json",
    log:
        f"{WORKDIR}/logs/gate4/{{problem}}/{{stage}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate4/{{problem}}/{{stage}}.tsv"
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
