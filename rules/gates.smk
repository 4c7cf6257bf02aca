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
        config=CONFIG,
    script:
        "../scripts/candidates.py"


rule gate1:
    """Gate 1 (static + runs once) for one candidate slot (cands/c<k>, iter<i>/cand<j>)."""
    input:
        slot=f"{WORKDIR}/{{problem}}/units/{{unit}}/{{cand}}/slot.json",
    output:
        f"{WORKDIR}/{{problem}}/units/{{unit}}/{{cand}}/gate1.json",
    log:
        f"{WORKDIR}/logs/gate1/{{problem}}/{{unit}}/{{cand}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate1/{{problem}}/{{unit}}/{{cand}}.tsv"
    conda:
        "../envs/kernelopt.yaml"
    resources:
        gpu=1,
    params:
        config=CONFIG,
    script:
        "../scripts/gate.py"


rule gate2:
    """Gate 2 (isolated correctness on the configured seeds) for one candidate slot."""
    input:
        gate1=f"{WORKDIR}/{{problem}}/units/{{unit}}/{{cand}}/gate1.json",
    output:
        f"{WORKDIR}/{{problem}}/units/{{unit}}/{{cand}}/gate2.json",
    log:
        f"{WORKDIR}/logs/gate2/{{problem}}/{{unit}}/{{cand}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/gate2/{{problem}}/{{unit}}/{{cand}}.tsv"
    conda:
        "../envs/kernelopt.yaml"
    resources:
        gpu=1,
    params:
        config=CONFIG,
    script:
        "../scripts/gate.py"


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
    conda:
        "../envs/kernelopt.yaml"
    resources:
        gpu=1,
    params:
        config=CONFIG,
    script:
        "../scripts/select.py"
