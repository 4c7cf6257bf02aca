"""kernelopt on a cluster: profiles/slurm on a real single-node SLURM cluster started here
(tests/slurm_cluster.py: munged, MariaDB, slurmdbd, slurmctld, slurmd), the Kubernetes
profile's shape, and where the GPU locks live inside a SLURM job.

The end-to-end test submits the CPU-mode pipeline on two demo problems through
snakemake-executor-plugin-slurm with profiles/slurm as it is (the test node claims enough CPUs
and memory for the profile's requests, and has two fake GPUs), then checks with ``sacct`` that
every job of a non-local rule ran as a SLURM job on the partition the profile gives it (GPU
rules with ``gres/gpu=1``), and that the results equal a local run's.  Without SLURM installed
it is skipped, except in CI (``KERNELOPT_CI=1``), where .ci/run installs it and it must run.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import slurm_cluster
import yaml
from conftest import ROOT

PROBLEMS = ["problems/demo/level1/8_ReLU.py", "problems/demo/level1/5_Matmul.py"]
# results.csv columns that do not depend on timing (CPU-mode times mean nothing)
DETERMINISTIC = ["level", "problem", "verdict", "category", "fallback_reason", "units", "units_replaced", "meaningful"]
WORKFLOW = ROOT / "kernelopt" / "workflow"  # the workflow, package data; profiles/ links into it
SLURM_PROFILE = ROOT / "profiles" / "slurm"
K8S_PROFILE = ROOT / "profiles" / "kubernetes"


def _config(wd: Path) -> list[str]:
    """The demo_run settings (conftest.demo_run_config) on two quick problems (a pointwise
    one, and a plain matmul: no Triton kernel), without gate 3-4 retry slots (two SLURM jobs
    fewer per slot on the critical path)."""
    return [
        f"problems=[{','.join(PROBLEMS)}]",
        "device=cpu",
        f"workdir={wd}",
        "candidates=tests/fixtures/candidates_demo",
        "gates={replace_with_inductor: true, retries: 0}",
        "search={iterations: 0}",
    ]


def _rules() -> dict[str, str]:
    """rule name -> its block of text, for every rule and checkpoint in rules/*.smk."""
    out = {}
    for f in sorted((WORKFLOW / "rules").glob("*.smk")):
        parts = re.split(r"^(?:rule|checkpoint) (\w+):\n", f.read_text(), flags=re.M)
        out.update(dict(zip(parts[1::2], parts[2::2])))
    return out


def _local_rules() -> set[str]:
    block = re.search(r"^localrules:\n((?:    \w+,?\n)+)", (WORKFLOW / "Snakefile").read_text(), flags=re.M)
    assert block, "no localrules block in the Snakefile"
    return {w.strip(" ,") for w in block.group(1).split()}


def _gpu_rules() -> set[str]:
    """The rules that declare the GPU resources (``**gpu_resources(...)``: rules/common.smk)."""
    return {name for name, body in _rules().items() if re.search(r"^\s+\*\*gpu_resources\(", body, flags=re.M)}


def _profile(path: Path) -> dict:
    return yaml.safe_load((path / "config.yaml").read_text())


def _resource(profile: dict, rule: str, key: str):
    """A rule's resource as the profile sets it: its set-resources entry, else the default."""
    default = (profile.get("default-resources") or {}).get(key)
    return (profile.get("set-resources") or {}).get(rule, {}).get(key, default)


# --------------------------------------------------------------------------------------- profiles
def test_slurm_profile_puts_gpu_rules_on_the_gpu_partition():
    """Every non-local rule has a partition, runtime, memory and CPUs; the GPU partition exactly
    for the rules that declare ``gpu=1``; no entry for a rule that does not exist."""
    profile, rules, local, gpu = _profile(SLURM_PROFILE), _rules(), _local_rules(), _gpu_rules()
    assert profile["executor"] == "slurm"
    assert gpu >= {"capture", "isolate", "gate12", "gate3", "gate4", "select", "profile", "select_iter"}
    assert not set(profile.get("set-resources", {})) - set(rules), "profile names a rule that does not exist"
    for rule in set(rules) - local - {"all"}:
        for key in ("slurm_partition", "runtime", "mem_mb", "cpus_per_task"):
            assert _resource(profile, rule, key) is not None, f"{rule}: no {key}"
        want = "gpu" if rule in gpu else "cpu"
        assert _resource(profile, rule, "slurm_partition") == want, f"{rule} belongs on the {want} partition"


def test_kubernetes_profile_asks_for_nvidia_gpus():
    """The Kubernetes plugin refuses a job with a ``gpu`` resource but no ``gpu_manufacturer``:
    every GPU rule names it, and nothing else asks for a GPU."""
    profile, gpu = _profile(K8S_PROFILE), _gpu_rules()
    assert profile["executor"] == "kubernetes"
    for rule in gpu:
        assert _resource(profile, rule, "gpu_manufacturer") == "nvidia", rule
    assert not {r for r, v in profile.get("set-resources", {}).items() if "gpu_manufacturer" in v} - gpu
    assert "gpu_manufacturer" not in (profile.get("default-resources") or {})


def test_gpu_locks_are_per_slurm_job(monkeypatch):
    """Inside a SLURM job the GPU locks and the memory ledger live in a directory of the job's
    own: SLURM numbers the job's GPUs for the job (CUDA_VISIBLE_DEVICES=0 in every job of a
    confined node), so /tmp/kernelopt-gpu-0.lock would be shared by jobs on different GPUs."""
    from kernelopt.core import gpulock, gpumem

    monkeypatch.delenv("KERNELOPT_LOCK_DIR", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    assert gpulock.lock_path() == Path("/tmp/kernelopt-gpu-0.lock")
    job = f"9{os.getpid()}"
    monkeypatch.setenv("SLURM_JOB_ID", job)
    d = Path(f"/tmp/kernelopt-slurm-{job}")
    try:
        assert gpulock.lock_path() == d / "kernelopt-gpu-0.lock"
        ledger, lock = gpumem._ledger()
        assert ledger.parent == d and lock.parent == d
        with gpulock.exclusive("cuda", "test"):
            assert (d / "kernelopt-gpu-0.lock").exists()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    monkeypatch.setenv("KERNELOPT_LOCK_DIR", "/tmp/elsewhere")  # an explicit directory wins
    assert gpulock.lock_path() == Path("/tmp/elsewhere/kernelopt-gpu-0.lock")


# --------------------------------------------------------------------------------- the cluster
def _need_slurm() -> None:
    why = None
    if slurm_cluster.missing():
        why = f"SLURM is not installed ({' '.join(slurm_cluster.missing())}; apt-get install {slurm_cluster.PACKAGES})"
    elif os.geteuid() != 0:
        why = "the test SLURM cluster runs its daemons as root"
    else:
        try:
            import snakemake_executor_plugin_slurm  # noqa: F401
        except ImportError:
            why = "snakemake-executor-plugin-slurm is not installed (pip install -e '.[slurm]')"
    if why:
        if os.environ.get("KERNELOPT_CI") == "1":
            pytest.fail(f"{why}: CI must run the SLURM test")
        pytest.skip(why)


def _rows(csv_path: Path) -> dict[str, dict[str, str]]:
    with open(csv_path) as f:
        return {r["problem"]: {k: r[k] for k in DETERMINISTIC} for r in csv.DictReader(f)}


@pytest.mark.slow
def test_pipeline_on_slurm_equals_local_run(tmp_path):
    _need_slurm()
    profile = _profile(SLURM_PROFILE)
    asks = [profile.get("default-resources", {})] + list(profile.get("set-resources", {}).values())
    cpus = max(int(r.get("cpus_per_task", 1)) for r in asks)
    mem = max(int(r.get("mem_mb", 1000)) for r in asks)
    wd, logs = tmp_path / "slurm", tmp_path / "slurm_logs"
    # the same run, locally, meanwhile (the SLURM run mostly waits for its polls)
    local_wd, local_log = tmp_path / "local", tmp_path / "local.log"
    t0 = time.time()
    with open(local_log, "w") as f:
        local = subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--cores", "2", "--config", *_config(local_wd)],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=f,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        with slurm_cluster.SlurmCluster(tmp_path / "cluster", cpus=2 * cpus, mem_mb=2 * mem, gpus=2) as cluster:
            t_up = time.time() - t0
            env = {**cluster.env, "PYTHONUNBUFFERED": "1", "SBATCH_ACCOUNT": cluster.account}
            args = [
                "--workflow-profile",
                str(SLURM_PROFILE),
                "--slurm-logdir",
                str(logs),
                "--slurm-keep-successful-logs",
                # poll every few seconds, not the plugin's 40 s: jobs here take seconds
                "--slurm-init-seconds-before-status-checks",
                "2",
                "--seconds-between-status-checks",
                "2",
                "--config",
                *_config(wd),
            ]
            r = subprocess.run(
                [sys.executable, "-m", "snakemake", *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
            )
            out = r.stdout + r.stderr
            assert r.returncode == 0, out[-6000:] + "\n" + cluster.logs()
            t_run = time.time() - t0 - t_up

            # every Snakemake job of a non-local rule was a SLURM job, on the profile's partition
            submitted = dict(re.findall(r"Job (\d+) has been submitted with SLURM jobid (\d+)", out))
            jobs = {j["JobIDRaw"]: j for j in cluster.sacct()}
            assert submitted and set(submitted.values()) <= set(jobs), (submitted, jobs)
            by_rule: dict[str, list[dict]] = {}
            for sid in submitted.values():
                j = jobs[sid]
                m = re.match(r"rule_(\w+?)(_wildcards_.*)?$", j["Comment"])
                assert m, j
                by_rule.setdefault(m.group(1), []).append(j)
            gpu, local_rules = _gpu_rules(), _local_rules()
            assert set(by_rule) == {"capture", "classify", "isolate", "gate12", "select", "gate3", "gate4"}, (
                by_rule.keys()
            )
            assert not set(by_rule) & local_rules
            for rule, js in by_rule.items():
                for j in js:
                    assert j["State"] == "COMPLETED" and j["ExitCode"] == "0:0", j
                    assert j["Account"] == cluster.account, j
                    assert j["Partition"] == ("gpu" if rule in gpu else "cpu"), j
                    assert ("gres/gpu=1" in j["AllocTRES"]) == (rule in gpu), j
            assert len({j["JobName"] for j in jobs.values()}) == 1, "one run, one SLURM job name"
            assert len(by_rule["capture"]) == len(PROBLEMS)
            # ... and the local rules ran where Snakemake runs
            assert re.search(r"^localrule stitch:", out, flags=re.M) and re.search(
                r"^localrule report:", out, flags=re.M
            )

            # resuming: the same command has nothing left to do
            r2 = subprocess.run(
                [sys.executable, "-m", "snakemake", *args, "--dry-run"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert r2.returncode == 0 and "Nothing to be done" in r2.stdout + r2.stderr, (r2.stdout + r2.stderr)[-3000:]

        local.wait(timeout=900)
        t_local = local_log.stat().st_mtime - t0  # its last line, at its end
        assert local.returncode == 0, local_log.read_text()[-6000:]
    finally:
        if local.poll() is None:  # the SLURM part failed: stop the local run and its jobs
            os.killpg(local.pid, signal.SIGTERM)
            try:
                local.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(local.pid, signal.SIGKILL)
                local.wait()
    on_slurm, here = _rows(wd / "report" / "results.csv"), _rows(local_wd / "report" / "results.csv")
    assert set(on_slurm) == {"level1_8_ReLU", "level1_5_Matmul"}
    assert on_slurm == here
    assert on_slurm["level1_5_Matmul"]["verdict"] == "no-triton" and on_slurm["level1_8_ReLU"]["units"] == "1"
    print(
        f"SLURM cluster up in {t_up:.0f} s; pipeline on SLURM {t_run:.0f} s "
        f"({len(submitted)} SLURM jobs); the same run locally, meanwhile, {t_local:.0f} s"
    )
