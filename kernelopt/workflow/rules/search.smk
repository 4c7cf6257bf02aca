rule synthesize:
    """Synthesis attempt k: an independent implementation from the unit's eager reference."""
    input:
        synthesis_chain,
        contract=str(W.contract("{unit}")),
    output:
        str(W.synth("{unit}", "{k}").slot),
    log:
        f"{WORKDIR}/logs/synthesize/{{problem}}/{{unit}}/a{{k}}.log",
    priority: stage_priority("synthesize")
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
        str(W.cand("{unit}", 0).gate(2)),
        synthesized,
    output:
        beam=str(W.iteration("{unit}", 0).beam),
        memory=str(W.iteration("{unit}", 0).memory),
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter0.log",
    priority: stage_priority("seed_beam")
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
        str(ITER.beam),
    output:
        str(ITER.profile("{j}").summary),
    log:
        f"{WORKDIR}/logs/profile/{{problem}}/{{unit}}/iter{{i}}_m{{j}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/profile/{{problem}}/{{unit}}/iter{{i}}_m{{j}}.tsv"
    priority: stage_priority("profile")
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
        plan=str(ITER.plan),
        slots=[str(ITER.cand(j).slot) for j in BEAM],
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter{{i}}_expand.log",
    priority: stage_priority("expand")
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
        str(ITER.cand(retry_slot("{j}", "{r}")).slot),
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter{{i}}_cand{{j}}_r{{r}}.log",
    priority: stage_priority("retry")
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
        plan=str(ITER.plan),
    output:
        beam=str(ITER.beam),
        memory=str(ITER.memory),
    log:
        f"{WORKDIR}/logs/search/{{problem}}/{{unit}}/iter{{i}}_select.log",
    benchmark:
        f"{WORKDIR}/benchmarks/select_iter/{{problem}}/{{unit}}/iter{{i}}.tsv"
    priority: stage_priority("select_iter")
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
