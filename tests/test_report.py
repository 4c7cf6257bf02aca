"""The report stage's bookkeeping (no pipeline run needed)."""

from kernelopt.core.paths import ProblemPaths
from kernelopt.report.stage import gpu_seconds


def test_gpu_seconds_count_every_job_of_the_problem(tmp_path):
    """Snakemake writes per-unit benchmarks under benchmarks/<rule>/<problem>/...; all of them count."""

    def tsv(rel: str, seconds: float) -> None:
        f = tmp_path / "benchmarks" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"s\th:m:s\n{seconds}\t0:00:01\n")

    tsv("capture/level1_1_A.tsv", 10.0)
    tsv("gate12/level1_1_A/unit0/cands/c0.tsv", 2.0)
    tsv("gate4/level1_1_A/stitch.tsv", 3.0)
    tsv("gate4/level1_1_A/stitch/retries/r1.tsv", 0.5)
    tsv("capture/level1_1_AB.tsv", 100.0)  # another problem whose name starts the same
    tsv("gate12/level1_1_AB/unit0/cands/c0.tsv", 100.0)
    assert gpu_seconds(ProblemPaths(tmp_path, "level1_1_A")) == 15.5
    assert gpu_seconds(ProblemPaths(tmp_path, "level1_2_none")) is None
