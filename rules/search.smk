rule synthesize:
    """Synthesis attempt k: an independent implementation from the unit's eager reference."""
    input:
        synthesis_chain,
        contract=f"{WORKDIR}/{{problem}}/units/{{unit}}/contract.json",
    output:
        f"{WORKDIR}/{{problem}}/units/{{unit}}/synth/a{{k}}/slot.json",
    log:
        f"{WORKDIR}/logs/synthesize/{{problem}}/{{unit}}/a{{k}}.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("synthesize"),
        workdir=run_dir,
    script:
        "../scripts/search.py"


rule seed_beam:
    """Iteration 0 of the search: Inductor's kernel and the synthesised kernels that passed
    gates 1-2 seed the beam."""
    input:
        f"{WORKDIR}/{{problem}}/units/{{unit}}/cands/c0/gate2.json",
        synthesized,
    output:
        beam=f"{WORKDIR}/{{problem}}/units/{{unit}}/iter0/beam.json",
        memory=f"{WORKDIR}/{{problem}}/units/{{unit}}/iter0/memory.json",
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter0.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("seed_beam"),
        workdir=run_dir,
    script:
        "../scripts/search.py"


rule profile:
    """Profile beam member j of iteration i (NCU on the GPU when it works, else roofline)."""
    input:
        f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/beam.json",
    output:
        f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/profile/m{{j}}/summary.json",
    log:
        f"{WORKDIR}/logs/profile/{{problem}}/{{unit}}/iter{{i}}_m{{j}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/profile/{{problem}}/{{unit}}/iter{{i}}_m{{j}}.tsv"
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("profile"),
    params:
        cfg=settings("profile"),
        workdir=run_dir,
    script:
        "../scripts/search.py"


rule expand:
    """Iteration i: analyst -> planner -> executor on iteration i-1's beam: candidate slots."""
    input:
        iteration_inputs,
    output:
        plan=f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/plan.json",
        slots=[
            f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/cand{j}/slot.json"
            for j in BEAM
        ],
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter{{i}}_expand.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("expand"),
        workdir=run_dir,
    script:
        "../scripts/search.py"


rule retry:
    """Directed retry r of candidate j of iteration i: when the previous attempt failed
    gate 1 or 2, the agent's fix for that failure; otherwise an empty pass-through slot.
    """
    input:
        retry_inputs,
    output:
        f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/cand{{j}}/r{{r}}/slot.json",
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter{{i}}_cand{{j}}_r{{r}}.log",
    conda:
        "../envs/kernelopt.yaml"
    params:
        cfg=settings("retry"),
        workdir=run_dir,
    script:
        "../scripts/search.py"


rule select_iter:
    """Iteration i: time the candidates that passed gates 1-2, keep the best distinct ones,
    write the summarizer's memory; early stop passes later iterations through."""
    input:
        iteration_gates,
        plan=f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/plan.json",
    output:
        beam=f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/beam.json",
        memory=f"{WORKDIR}/{{problem}}/units/{{unit}}/iter{{i}}/memory.json",
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter{{i}}_select.log",
    benchmark:
        f"{WORKDIR}/benchmarks/select_iter/{{problem}}/{{unit}}/iter{{i}}.tsv"
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("select_iter"),
    params:
        cfg=settings("select_iter"),
        workdir=run_dir,
    script:
        "../scripts/search.py"
