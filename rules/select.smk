rule candidates:
    """Fixed candidate slots of a unit: c0 = Inductor's kernel, c1.. = hand-written files."""
    input:
        inductor=f"{WORKDIR}/{{problem}}/units/{{unit}}/inductor.py",
        contract=f"{WORKDIR}/{{problem}}/units/{{unit}}/contract.json",
    output:
        [f"{WORKDIR}/{{problem}}/units/{{unit}}/cands/c{k}/slot.json" for k in SLOTS],
    log:
        f"{WORKDIR}/logs/candidates/{{problem}}/{{unit}}.log",
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
        f"{WORKDIR}/{{problem}}/units/{{unit}}/best.json",
    log:
        f"{WORKDIR}/logs/select/{{problem}}/{{unit}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/select/{{problem}}/{{unit}}.tsv"
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
