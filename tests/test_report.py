"""The report stage's bookkeeping (no pipeline run needed)."""

from kernelopt.core.records import ProblemPaths
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


def test_the_job_account_counts_jobs_gpu_memory_and_disk(tmp_path):
    import json

    from kernelopt.report.stage import job_account

    def log(rel: str, memory: dict | None = None) -> None:
        f = tmp_path / "logs" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("ran\n")
        if memory is not None:
            (f.parent / f"{f.name}.gpu.json").write_text(json.dumps({"exclusive": 1.0, "memory": memory}))

    log("capture/level1_1_A.log", {"declared_mb": 9000, "peak_mb": 7000.5})
    log("gate12/level1_1_A/u0/cands/c0.log", {"declared_mb": 12000, "peak_mb": 8100.0})
    log("classify/level1_1_A.log")
    log("capture/level1_1_AB.log", {"declared_mb": 1, "peak_mb": 99999.0})  # another problem
    paths = ProblemPaths(tmp_path, "level1_1_A")
    paths.root.mkdir(parents=True)
    (paths.root / "big.bin").write_bytes(b"x" * 3 * 2**20)
    acc = job_account(paths)
    assert acc == {
        "jobs": 3,
        "wall_started": None,
        "wall_ended": None,
        "wall_s": None,
        "gpu_busy_pct": None,
        "candidates_judged": 0,
        "gpu_peak_mb": 8100.0,
        "gpu_declared_max_mb": 12000,
        "disk_mb": 3.0,
    }


def test_the_job_account_gives_wall_time_gpu_busy_share_and_candidates_judged(tmp_path):
    """Issue 12's columns: the problem's wall time from its jobs' spans, the share of the warm
    workers' 1-s GPU samples within it that were busy (other problems' spans and samples outside
    it do not count), and the candidates gates 1-2 judged (pass or fail; an infrastructure
    verdict judged nothing)."""
    import json

    from kernelopt.report.stage import job_account

    def span(rel: str, started: float, ended: float) -> None:
        f = tmp_path / "logs" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("ran\n")
        (f.parent / f"{f.name}.span.json").write_text(json.dumps({"started": started, "ended": ended}))

    span("capture/level1_1_A.log", 100.0, 110.0)
    span("gate12/level1_1_A/u0/cands/c0.log", 120.0, 130.5)
    span("capture/level1_1_AB.log", 0.0, 1000.0)  # another problem
    busy = [{"t": t, "util": 50 if t < 115 else 0} for t in range(90, 140)]
    (tmp_path / "logs" / "gpu-busy-0.jsonl").write_text("".join(json.dumps(d) + "\n" for d in busy))
    paths = ProblemPaths(tmp_path, "level1_1_A")
    for i, verdict in enumerate(["pass", "fail", "infrastructure"]):
        g = paths.root / "units" / "u0" / "cands" / f"c{i}" / "gate2.json"
        g.parent.mkdir(parents=True)
        g.write_text(json.dumps({"verdict": verdict}))
    acc = job_account(paths)
    assert (acc["wall_started"], acc["wall_ended"], acc["wall_s"]) == (100.0, 130.5, 30.5)
    # samples at t = 100..130 (31 of them), busy at 100..114 (15)
    assert acc["gpu_busy_pct"] == round(100 * 15 / 31, 1)
    assert acc["candidates_judged"] == 2


def test_synthesis_coverage_counts_units_of_optimizable_problems(tmp_path, capsys):
    """`kernelopt coverage`: per unit of an optimizable problem, checkable or why not, and whether
    a synthesized candidate passed gates 1-2 (issue 8's measure)."""
    import json as _json

    from kernelopt import cli

    def put(path, obj):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_json.dumps(obj))

    wd = tmp_path / "run"
    put(wd / "p1" / "dispatch.json", {"verdict": "optimizable"})
    put(wd / "p1/units/u_ok/isolate_check.json", {"status": "pass"})
    put(wd / "p1/units/u_ok/synth/a0/slot.json", {"empty": True, "reason": "cannot synthesize: x"})
    put(wd / "p1/units/u_ok/synth/a1/slot.json", {"empty": False})
    put(wd / "p1/units/u_ok/synth/a1/gate2.json", {"verdict": "pass"})
    put(wd / "p1/units/u_fail/isolate_check.json", {"status": "pass"})
    put(wd / "p1/units/u_fail/synth/a0/slot.json", {"empty": False})
    put(wd / "p1/units/u_fail/synth/a0/gate2.json", {"verdict": "fail", "reason": "rule mismatch: far off"})
    put(wd / "p1/units/u_nc/isolate_check.json", {"status": "no-reference", "reason": "partial sums"})
    put(wd / "p2" / "dispatch.json", {"verdict": "library-dominated"})
    put(wd / "p2/units/u/isolate_check.json", {"status": "pass"})
    assert cli.main(["coverage", str(wd), "--json"]) == 0
    cov = _json.loads(capsys.readouterr().out)
    assert (cov["units"], cov["with_a_synthesized_candidate_passing_gates_1_2"], cov["not_checkable"]) == (3, 1, 1)
    rows = {r["unit"]: r for r in cov["rows"]}
    assert rows["u_fail"]["why_not"] == ["gate 2 fail: rule mismatch: far off"]
    assert rows["u_nc"]["not_checkable_because"] == "no-reference: partial sums"
    assert cli.main(["coverage", str(wd)]) == 0
    assert "1 of 3 units of optimizable problems (33%)" in capsys.readouterr().out
