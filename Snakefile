# kernelopt: dispatch-aware optimisation of the Triton kernels torch.compile generates.
# Stages (DESIGN.md §3): capture -> classify (checkpoint) -> isolate (per unit).
from snakemake.utils import min_version

min_version("9.17")


configfile: "config.yaml"


include: "rules/common.smk"


wildcard_constraints:
    problem=r"[A-Za-z0-9_]+",
    unit=r"[A-Za-z0-9_]+",


localrules:
    all,
    isolated,
    stages_report,


rule all:
    input:
        f"{WORKDIR}/report/stages.json",


include: "rules/capture.smk"
include: "rules/classify.smk"
include: "rules/isolate.smk"
include: "rules/report.smk"
