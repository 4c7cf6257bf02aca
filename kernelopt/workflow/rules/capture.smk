rule capture:
    """Compile once with max-autotune; save output code, graphs, kernels, baseline times."""
    input:
        problem=problem_file,
    output:
        capture=str(W.capture_record),
        profile=str(W.profile),
        baseline=str(W.baseline),
        code=str(W.output_code),
    log:
        f"{WORKDIR}/logs/capture/{{problem}}.log",
    benchmark:
        f"{WORKDIR}/benchmarks/capture/{{problem}}.tsv"
    priority: stage_priority("capture")
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
