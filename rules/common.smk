# Config validation, the problem set, and every input function of the workflow.
import sys
from pathlib import Path

sys.path.insert(
    0, workflow.basedir
)  # the kernelopt package lives next to the Snakefile

from kernelopt import config as ko_config
from kernelopt import problems as ko_problems
from kernelopt.errors import KerneloptError

try:
    CONFIG = ko_config.validate(dict(config))
    PROBLEMS = ko_problems.discover(CONFIG["problems"], base=Path.cwd())
except KerneloptError as e:
    raise WorkflowError(f"kernelopt: {e}")

WORKDIR = CONFIG["workdir"].rstrip("/")


def problem_file(wildcards):
    return str(PROBLEMS[wildcards.problem])


def units_of(problem):
    """Units of a problem, read from its classify checkpoint (the fan-out point)."""
    from kernelopt.classify import units_of as _units_of

    return _units_of(checkpoints.classify.get(problem=problem).output[0])


def isolate_checks(wildcards):
    return [
        f"{WORKDIR}/{wildcards.problem}/units/{u}/isolate_check.json"
        for u in units_of(wildcards.problem)
    ]


def all_isolated(wildcards):
    return [f"{WORKDIR}/{p}/isolate.json" for p in PROBLEMS]
