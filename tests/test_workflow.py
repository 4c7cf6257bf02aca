"""The real Snakemake workflow, in subprocesses: lint, format, dry-run DAG, CPU runs."""

import csv
import json
from pathlib import Path

import pytest
from conftest import ROOT, snakemake


def test_lint_is_clean(root):
    r = snakemake("--lint", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Congratulations" in r.stdout + r.stderr


def test_snakefmt_check(root):
    import subprocess

    from conftest import tool

    r = subprocess.run(
        [tool("snakefmt"), "--check", "Snakefile", "kernelopt/workflow/"], cwd=root, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_dry_run_of_whole_dag(root, tmp_path):
    r = snakemake(
        "-n", "--cores", "2", "--config", "problems=problems/demo", "device=cpu", f"workdir={tmp_path}", cwd=root
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    for rule in ("capture", "classify", "stages_report", "all"):
        assert rule in out
    # one capture per demo problem before the checkpoint fans out
    n = len(list((root / "problems/demo").rglob("*.py")))
    assert f"capture          {n}" in out or f"capture {n}" in " ".join(out.split()), out[-3000:]


def test_bad_config_key_fails_clearly(root, tmp_path):
    r = snakemake("-n", "--config", "devce=cpu", cwd=root)
    assert r.returncode != 0
    assert "unknown config key" in r.stdout + r.stderr


def test_bad_problems_dir_fails_clearly(root, tmp_path):
    r = snakemake("-n", "--config", f"problems={tmp_path}/missing", cwd=root)
    assert r.returncode != 0
    assert "neither a directory nor a file" in r.stdout + r.stderr


@pytest.mark.slow
def test_cpu_run_stages_1_to_3(root, tmp_path):
    """Stages 1-3 for real on three demo problems in CPU mode (Triton interpreter)."""
    probs = (
        "[problems/demo/level1/1_Softmax.py, problems/demo/level2/2_Conv2d_BatchNorm_ReLU.py, "
        "problems/demo/level1/5_Matmul.py]"
    )
    r = snakemake(
        "--cores",
        "2",
        "--config",
        f"problems={probs}",
        "device=cpu",
        f"workdir={tmp_path}",
        "search={iterations: 0}",
        "gates={retries: 0}",
        cwd=root,
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-5000:]
    rows = {row["problem"]: row for row in csv.DictReader(open(tmp_path / "report/stages.csv"))}
    assert rows["level1_1_Softmax"]["verdict"] == "optimizable"
    assert rows["level1_5_Matmul"]["verdict"] == "no-triton"  # a plain matmul is library-only
    conv = rows["level2_2_Conv2d_BatchNorm_ReLU"]
    assert int(conv["units"]) >= 1 and conv["units_pass"] == conv["units"]
    # every artifact of DESIGN.md §3 for stages 1-3 is on disk
    p = tmp_path / "level1_1_Softmax"
    for f in (
        "capture/output_code.py",
        "capture/baseline.json",
        "capture/capture.json",
        "capture/fx_graph_post_grad.py",
        "dispatch.json",
        "result.json",
    ):
        assert (p / f).exists(), f
    dispatch = json.loads((p / "dispatch.json").read_text())
    (unit,) = [u["id"] for u in dispatch["units"]]
    for f in ("contract.json", "inductor.py", "reference.py", "isolate_check.json"):
        assert (p / "units" / unit / f).exists(), f
    check = json.loads((p / "units" / unit / "isolate_check.json").read_text())
    assert check["status"] == "pass" and [s["seed"] for s in check["seeds"]] == [0, 1, 2]
    baseline = json.loads((p / "capture/baseline.json").read_text())
    assert baseline["compiled"]["meaningful"] is False  # CPU timings are never presented as real
    # the output code's own time (gate 4's way: no CUDA-graph input copies) is recorded, and the
    # result derives its times from it rather than from torch.compile's call
    assert baseline["wrapper"]["median_ms"] > 0 and baseline["wrapper"]["meaningful"] is False
    res = json.loads((p / "result.json").read_text())
    assert res["baseline_wrapper_ms"] == baseline["wrapper"]["median_ms"]
    # a second run has nothing to do (everything cached on disk)
    r2 = snakemake(
        "-n",
        "--cores",
        "2",
        "--config",
        f"problems={probs}",
        "device=cpu",
        f"workdir={tmp_path}",
        "search={iterations: 0}",
        "gates={retries: 0}",
        cwd=root,
    )
    assert "Nothing to be done" in r2.stdout + r2.stderr


@pytest.mark.slow
def test_broken_problems_are_reported_and_others_finish(root, tmp_path):
    r = snakemake(
        "--cores",
        "2",
        "--config",
        "problems=tests/fixtures/bad_problems",
        "device=cpu",
        f"workdir={tmp_path}",
        "search={iterations: 0}",
        cwd=root,
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-5000:]
    expect = {
        "level1_1_ImportError": ("import", "No module named 'does_not_exist'"),
        "level1_2_NoModel": ("import", "missing Model"),
        "level1_3_ForwardCrash": ("forward", "mat1 and mat2 shapes cannot be multiplied"),
    }
    for pid, (stage, words) in expect.items():
        res = json.loads((tmp_path / pid / "result.json").read_text())
        assert res["status"] == "error" and res["stage"] == stage and words in res["reason"]
        log = (tmp_path / "logs/capture" / f"{pid}.log").read_text()
        assert words in log
    good = json.loads((tmp_path / "level1_4_Good/result.json").read_text())
    assert good["status"] == "ok" and good["units"] == 1 and good["category"] != "error"
    isolated = json.loads((tmp_path / "level1_4_Good/isolate.json").read_text())
    assert isolated["units_pass"] == isolated["units"] == 1
    summary = json.loads((tmp_path / "report/stages.json").read_text())
    assert sorted(summary["errors"]) == sorted(expect)


def make_synthetic_problems(root: Path, n: int = 250) -> Path:
    """n KernelBench-format files over three levels (a fixture directory, generated)."""
    template = (
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
        "        return torch.relu(x) * {k}.0\n\n\ndef get_inputs():\n    return [torch.randn(4, 8)]\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )
    for i in range(n):
        level = root / f"level{1 + i % 3}"
        level.mkdir(parents=True, exist_ok=True)
        (level / f"{i}_Synthetic_{i}.py").write_text(template.format(k=i))
    return root


def test_dry_run_scales_to_250_problems(root, tmp_path):
    import time

    probs = make_synthetic_problems(tmp_path / "problems")
    t0 = time.perf_counter()
    r = snakemake(
        "-n", "--cores", "2", "--config", f"problems={probs}", "device=cpu", f"workdir={tmp_path / 'wd'}", cwd=root
    )
    took = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr[-3000:]
    assert "capture" in r.stdout and " 250" in r.stdout.replace("\t", " ")
    print(f"snakemake -n over 250 problems: {took:.1f} s")
    assert took < 60, f"dry run took {took:.1f} s"


@pytest.mark.slow
def test_a_changed_gate_setting_reruns_no_capture_classify_or_isolate(root, demo_run):
    """Each rule is handed only the settings it reads: after a finished run, changing
    gates.perf_margin plans gate 4 (and what follows it) again, but never a compile."""
    from conftest import demo_run_config, job_counts

    same = snakemake("-n", "--cores", "2", "--config", *demo_run_config(demo_run), cwd=root)
    assert "Nothing to be done" in same.stdout + same.stderr, (same.stdout + same.stderr)[-3000:]
    changed = snakemake(
        "-n",
        "--cores",
        "2",
        "--config",
        *demo_run_config(demo_run, "replace_with_inductor: true, perf_margin: 0.05"),
        cwd=root,
    )
    assert changed.returncode == 0, changed.stderr[-3000:]
    jobs = job_counts(changed.stdout + changed.stderr)
    assert jobs.get("gate4", 0) >= 1, jobs  # the change is seen ...
    # ... and nothing before gate 4 re-runs (gate 3 of the stitch retries does: each retry reads
    # the gate-4 verdict of the attempt before it)
    assert not {"capture", "classify", "isolate", "gate12", "candidates", "select"} & set(jobs), jobs
    assert jobs.get("gate3", 0) <= jobs["gate4"] - jobs.get("result", 0), jobs  # never an attempt's first gate 3


def _fresh_checkout(dest):
    """The tracked files of this working tree, copied: a checkout with no .snakemake metadata
    (its links, profiles/ and config.yaml into kernelopt/workflow/, kept as links)."""
    import os
    import shutil
    import subprocess

    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True).stdout
    for rel in filter(None, files.split("\0")):
        if (ROOT / rel).is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(ROOT / rel), dest / rel)
        elif (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    return dest


@pytest.mark.slow
def test_the_problem_set_is_the_current_config_even_from_a_fresh_checkout(tmp_path):
    """A run directory reused from a new checkout (no .snakemake metadata, as on a cluster or a
    re-clone): adding a problem schedules exactly its jobs, removing one leaves it out of the
    report.  Before problem_set.json the second run printed "Nothing to be done"."""
    wd = tmp_path / "wd"
    args = ("--cores", "2", "--config", f"workdir={wd}", "device=cpu", "search={iterations: 0}", "gates={retries: 0}")
    relu, rowsum = "problems/demo/level1/8_ReLU.py", "problems/demo/level1/4_RowSum.py"

    def run(checkout, problems):
        r = snakemake(*args, f"problems=[{','.join(problems)}]", cwd=_fresh_checkout(tmp_path / checkout))
        assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
        listed = [row["problem"] for row in csv.DictReader(open(wd / "report/results.csv"))]
        return r.stdout + r.stderr, listed

    _, listed = run("a", [relu])
    assert listed == ["level1_8_ReLU"]
    out, listed = run("b", [relu, rowsum])
    assert "Nothing to be done" not in out and listed == ["level1_4_RowSum", "level1_8_ReLU"]
    ran = {line.split("problem=")[1].split(",")[0] for line in out.splitlines() if "wildcards: problem=" in line}
    assert ran == {"level1_4_RowSum"}  # only the new problem's jobs (then the reports)
    out, listed = run("c", [rowsum])
    assert listed == ["level1_4_RowSum"]
    assert json.loads((wd / "problem_set.json").read_text())["problems"] == ["level1_4_RowSum"]
    # a problem's directory deleted to redo it: the same set again redoes exactly it (before,
    # Snakemake missed the missing result behind the classify checkpoint: "Nothing to be done")
    import shutil

    shutil.rmtree(wd / "level1_4_RowSum")
    out, listed = run("d", [rowsum])  # another fresh checkout (copying onto "c" trips on its links)
    assert "Nothing to be done" not in out and listed == ["level1_4_RowSum"]
    assert (wd / "level1_4_RowSum" / "result.json").exists()


@pytest.mark.slow
def test_the_default_relative_workdir_works_through_the_sandbox(tmp_path):
    """README command 1 runs with the default ``workdir`` (a relative path) from the checkout:
    the sandboxed child works in its scratch directory, and once read every candidate from a
    relative path that did not exist there, so every unit ended as an infrastructure error."""
    checkout = _fresh_checkout(tmp_path / "checkout")
    r = snakemake(
        "--cores", "2", "--config", "device=cpu", "search={iterations: 0}", "gates={retries: 0}",
        "problems=[problems/demo/level1/8_ReLU.py]", cwd=checkout,
    )  # fmt: skip
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    (row,) = csv.DictReader(open(checkout / "workdir/report/results.csv"))
    assert row["category"] != "error", row["fallback_reason"]
    (c0,) = (checkout / "workdir/level1_8_ReLU/units").glob("*/cands/c0")
    assert json.loads((c0 / "gate2.json").read_text())["verdict"] == "pass"


def test_later_stages_are_scheduled_first(root, tmp_path):
    """Every rule's priority is its place in the pipeline (kernelopt.core.config.PIPELINE_ORDER),
    so of the jobs ready at once Snakemake starts the ones nearest a problem's result: on the
    H200 24 problems ready at once had 66 % of their steps done and 2 problems finished."""
    import re

    from kernelopt.core.config import PIPELINE_ORDER

    rules = set()
    for smk in (root / "kernelopt/workflow/rules").glob("*.smk"):
        text = smk.read_text()
        for name, body in re.findall(r"^(?:rule|checkpoint) (\w+):\n(.*?)(?=^\S|\Z)", text, re.M | re.S):
            rules.add(name)
            assert f'priority: stage_priority("{name}")' in body, name
    assert rules == set(PIPELINE_ORDER)
    r = snakemake(
        "-n", "--cores", "1", "--config", "problems=[problems/demo/level1/1_Softmax.py]", "device=cpu",
        f"workdir={tmp_path}", cwd=root,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    jobs = re.findall(r"^(?:rule|checkpoint) (\w+):\n(?:    .*\n)*?    priority: (\d+)", r.stdout + r.stderr, re.M)
    seen = {name: int(p) for name, p in jobs}
    # (a dry run stops at the classify checkpoint, and prints no priority of 0: the capture's)
    assert {"classify", "isolated", "result", "stages_report"} <= set(seen), seen
    assert all(p == PIPELINE_ORDER.index(name) for name, p in seen.items()), seen
    assert PIPELINE_ORDER[0] == "capture" and seen["classify"] < seen["isolated"] < seen["result"]
