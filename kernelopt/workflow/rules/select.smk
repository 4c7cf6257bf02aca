rule candidates:
    """Fixed candidate slots of a unit: c0 = Inductor's kernel, c1.. = hand-written files."""
    input:
        inductor=str(W.inductor_kernel("{unit}")),
        contract=str(W.contract("{unit}")),
    output:
        [str(W.cand("{unit}", k).slot) for k in SLOTS],
    log:
        f"{WORKDIR}/logs/candidates/{{problem}}/{{unit}}.log",
    priority: stage_priority("candidates")
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("candidates"),
        workdir=run_dir,
    script:
        "../scripts/candidates.py"


rule select:
    """Rank a unit's candidates that passed gates 1-2 (hand-written slots and the search's
    final beam) by isolated time, interleaved against Inductor's kernel."""
    input:
        unit_gate2s,
        final_beam,
    output:
        str(W.best("{unit}")),
    log:
        f"{WORKDIR}/logs/select/{{problem}}/{{unit}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/select/{{problem}}/{{unit}}.tsv"
    priority: stage_priority("select")
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("select"),
    params:
        cfg=settings("select"),
        workdir=run_dir,
    script:
        "../scripts/select.py"
