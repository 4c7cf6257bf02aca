rule capture:
    """Compile once with max-autotune; save output code, graphs, kernels, baseline times."""
    input:
        problem=problem_file,
    output:
        capture=f"{WORKDIR}/{{problem}}/capture/capture.json",
        profile=f"{WORKDIR}/{{problem}}/capture/profile.json",
        baseline=f"{WORKDIR}/{{problem}}/capture/baseline.json",
        code=f"{WORKDIR}/{{problem}}/capture/output_code.py",
    log:
        f"{WORKDIR}/logs/capture/{{problem}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/capture/{{problem}}.tsv"
    retries: GPU_RETRIES
    conda:
        "../envs/kernelopt.yaml"
    resources:
        **gpu_resources("capture"),
    params:
        cfg=settings("capture"),
        workdir=run_dir,
    script:
        "../scripts/capture.py"
