"""What a user's mistake reads like (issue 15, "Errors"): each one a clear sentence that says
what is wrong and what to do, never a traceback or a run that fails later job by job."""

from __future__ import annotations

import pytest

from kernelopt.core import config
from kernelopt.core.errors import ConfigError
from kernelopt.core.records import Capture, Contract

FIX = "set workdir= to a directory you can write (it is created if missing)"


def test_a_workdir_that_is_a_file_is_refused_in_one_sentence(tmp_path):
    f = tmp_path / "results.txt"
    f.write_text("not a directory")
    with pytest.raises(ConfigError) as e:
        config.check_run(config.validate({"workdir": str(f)}))
    assert str(e.value) == f"config workdir '{f}' is a file, not a directory; {FIX}"
    with pytest.raises(ConfigError) as e:
        config.check_workdir(f / "run")
    assert str(e.value) == f"config workdir '{f / 'run'}' cannot be created: '{f}' is a file; {FIX}"


def test_a_read_only_workdir_is_refused_in_one_sentence(tmp_path, monkeypatch):
    """A mode-0555 directory; as root (CI) it is writable, so there ``os.access`` answers as it
    does for any other user (and as it does for root on a read-only file system)."""
    import os

    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    if os.geteuid() == 0:
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: real(p, mode) and not (p == ro and mode & os.W_OK))
    try:
        with pytest.raises(ConfigError) as e:
            config.check_workdir(ro)
        assert str(e.value) == f"config workdir '{ro}' is not writable: it is read-only for this user; {FIX}"
        with pytest.raises(ConfigError) as e:
            config.check_workdir(ro / "a" / "b")
        assert str(e.value) == (
            f"config workdir '{ro / 'a' / 'b'}' is not writable: '{ro}', where it would be created, "
            f"is read-only for this user; {FIX}"
        )
    finally:
        ro.chmod(0o755)
        monkeypatch.undo()
    config.check_workdir(ro / "a" / "b")  # writable again: no error, nothing created
    config.check_workdir(ro)
    assert not (ro / "a").exists()


def test_the_workflow_refuses_an_unusable_workdir_before_any_job(tmp_path):
    """Snakemake stops while it reads the config, with the sentence and no traceback (it was
    an OSError from the first file written into the workdir)."""
    from conftest import snakemake

    f = tmp_path / "workdir"
    f.write_text("")
    r = snakemake("-n", "--config", "problems=[problems/demo/level1/8_ReLU.py]", f"workdir={f}", timeout=300)
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert f"kernelopt: config workdir '{f}' is a file, not a directory; {FIX}" in out, out[-3000:]
    assert "Traceback" not in out and "OSError" not in out and "NotADirectoryError" not in out, out[-3000:]


def test_kernelopt_run_refuses_a_workdir_that_is_a_file_in_one_sentence(tmp_path, capsys):
    """Before Snakemake starts and before its log is opened under the workdir (that was a
    NotADirectoryError traceback)."""
    from kernelopt import cli

    f = tmp_path / "workdir"
    f.write_text("")
    assert cli.main(["run", "--problems", "problems/demo/level1/8_ReLU.py", "--workdir", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"kernelopt: config workdir '{f}' is a file, not a directory; {FIX}", err


NO_GPU = (
    "config device=cuda but no CUDA device is visible on this machine; "
    "use device=cpu for CPU mode (Triton's interpreter) or device=auto"
)


def test_device_cuda_without_a_gpu_is_refused_where_the_jobs_run(monkeypatch):
    import torch

    from kernelopt.core import gpumem

    monkeypatch.setattr(gpumem, "devices", dict)  # nvidia-smi lists none
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigError) as e:
        config.check_run(config.validate({"device": "cuda"}))
    assert str(e.value) == NO_GPU
    for device in ("auto", "cpu"):
        config.check_run(config.validate({"device": device}))
    # submitted to a cluster from a login node without a GPU: the jobs' nodes have one
    config.check_run(config.validate({"device": "cuda"}), jobs_here=False)
    monkeypatch.setattr(gpumem, "devices", lambda: {"0": 81920})
    config.check_run(config.validate({"device": "cuda"}))


def test_the_workflow_refuses_device_cuda_without_a_gpu_before_any_job(tmp_path, monkeypatch):
    """It was a failed capture, three times per problem (the GPU retries), each in its log."""
    from conftest import snakemake

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # no GPU, on any machine
    monkeypatch.delenv("KERNELOPT_GPUS", raising=False)
    wd = tmp_path / "wd"
    r = snakemake("-n", "--config", "problems=[problems/demo/level1/8_ReLU.py]", "device=cuda", f"workdir={wd}")
    out = r.stdout + r.stderr
    assert r.returncode != 0 and f"kernelopt: {NO_GPU}" in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]


@pytest.mark.parametrize(
    "key, value, allowed",
    [
        ("gates.rtol", "1e9", "0 < gates.rtol <= 1"),
        ("gates.atol", 1e9, "0 < gates.atol <= 1"),
        ("gates.model_rtol", 2, "0 < gates.model_rtol <= 1"),
        ("gates.model_atol", -1, "0 < gates.model_atol <= 1"),
        ("isolate.rtol", 1e9, "0 < isolate.rtol <= 1"),
        ("isolate.atol", 0, "0 < isolate.atol <= 1"),
        ("gates.rel_error_floor", 5, "0 < gates.rel_error_floor <= 1"),
        ("gates.rel_error_ratio", 1e9, "1 <= gates.rel_error_ratio <= 1000"),
        ("gates.fp64_ratio", 1e9, "0 < gates.fp64_ratio <= 1000"),
        ("gates.perf_margin", 1e9, "0 <= gates.perf_margin <= 1"),
    ],
)
def test_a_tolerance_out_of_its_range_is_refused_with_the_range(key, value, allowed):
    section, name = key.split(".")
    with pytest.raises(ConfigError) as e:
        config.validate({section: {name: value}})
    assert str(e.value).startswith(f"bad value for config key '{key}': ")
    assert str(e.value).endswith(f"; allowed: {allowed}")


def test_every_tolerance_of_the_schema_is_bounded_on_both_sides():
    gates, isolate = (config.schema()["properties"][s]["properties"] for s in ("gates", "isolate"))
    tolerances = {f"isolate.{k}": isolate[k] for k in ("rtol", "atol")} | {
        f"gates.{k}": v for k, v in gates.items() if k.endswith(("tol", "_ratio", "_floor", "_ulps", "_margin"))
    }
    assert len(tolerances) == 13, sorted(tolerances)
    for key, node in tolerances.items():
        assert {"minimum", "exclusiveMinimum"} & set(node) and "maximum" in node, key
        assert config.allowed_range(node), key
    d = config.defaults()  # the defaults lie inside
    config.validate({"gates": d["gates"], "isolate": d["isolate"]})


def _help(capsys, *command: str) -> str:
    from kernelopt import cli

    with pytest.raises(SystemExit):
        cli.main([*command, "--help"])
    return capsys.readouterr().out


def test_every_set_example_the_help_shows_is_accepted(capsys):
    """``kernelopt check --help`` showed ``--set gates.seeds=[0,1]``, a key that does not exist;
    every ``section.key=value`` example of the help, given to ``--set`` as shown, sets that key."""
    import re

    import yaml

    from kernelopt import cli

    texts = [_help(capsys), _help(capsys, "check"), _help(capsys, "stitch-check")]
    examples = {m.rstrip(").,") for t in texts for m in re.findall(r"\b[a-z_]+\.[a-z_]+=\S+", t)}
    assert {"gates.fresh_seeds=5", "gates.distributions=[x10,abs]", "gates.perf_margin=0.05"} <= examples
    for example in sorted(examples):
        args = cli.parser().parse_args(["check", "UNIT_DIR", "CANDIDATE.py", "--set", example])
        cfg = cli._config(args, "cpu")
        key, _, value = example.partition("=")
        section, name = key.split(".")
        assert cfg[section][name] == yaml.safe_load(value), example
    args = cli.parser().parse_args(["check", "UNIT_DIR", "CANDIDATE.py", "--set", "gates.seeds=[0,1]"])
    with pytest.raises(ConfigError, match="unknown config key under 'gates'"):
        cli._config(args, "cpu")  # the old example


# what every contract holds besides its unit and arguments
HEAD = {"problem": "p", "graph": 0, "kernel": "k", "device": "cpu"}

SEVERAL_FINDINGS = """import os
import subprocess

import torch


def launch(out_ptr, in_ptr, n):
    os.environ["X"] = "1"
    out_ptr.copy_(torch.softmax(in_ptr, 0))
"""


def test_check_prints_every_gate_1_finding_without_json(tmp_path, capsys):
    """A candidate with several gate-1 findings: the plain printout gives each rule and message
    on a line of its own (it said only the first, and "N more finding(s)", unless --json)."""
    from kernelopt import cli
    from kernelopt.core.jsonio import write_json
    from kernelopt.core.records import ProblemPaths
    from kernelopt.gates.form import static_problems

    paths = ProblemPaths(tmp_path / "wd", "level1_1_Copy")
    contract = Contract.from_dict(
        {**HEAD, "unit": "copy", "args": [{"name": "out_ptr"}, {"name": "in_ptr"}, {"name": "n"}]}
    )
    paths.unit("copy").mkdir(parents=True)
    contract.save(paths.contract("copy"))
    write_json(paths.isolate_check("copy"), {"status": "pass"})
    paths.reference("copy").write_text("def reference(x):\n    return x\n")
    paths.capture.mkdir(parents=True)
    Capture(device="cpu").save(paths.capture_record)
    cand = tmp_path / "cand.py"
    cand.write_text(SEVERAL_FINDINGS)
    found = static_problems(SEVERAL_FINDINGS, contract)
    assert len(found) >= 4 and len({r for r, _, _ in found}) >= 3, found

    assert cli.main(["check", str(paths.unit("copy")), str(cand)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"gate 1: {'FAIL':<15} {len(found)} findings:"
    for (rule, message, line), printed in zip(found, lines[1:], strict=False):
        assert printed == f"  rule {rule}: {message}" + (f" (line {line})" if line else "")
    assert lines[1 + len(found)] == f"gate 2: {'SKIPPED':<15} gate 1 did not pass"
    assert len(lines) == len(found) + 2


class HalfNaN:
    """A tiny problem's model whose forward returns 50 % NaN (log of a negative half)."""

    def __call__(self, x):
        import torch

        return torch.log(torch.cat([x.abs() + 1, -(x.abs() + 1)]))


def _unit_of(tmp_path, record):
    """A problem with one isolated unit whose capture record says ``eager_nonfinite: record``."""
    from kernelopt.core.jsonio import write_json
    from kernelopt.core.records import ProblemPaths

    paths = ProblemPaths(tmp_path / "wd", "level1_1_HalfNaN")
    paths.unit("u").mkdir(parents=True)
    write_json(paths.contract("u"), {**HEAD, "unit": "u", "args": [{"name": "out_ptr"}, {"name": "in_ptr"}]})
    write_json(paths.isolate_check("u"), {"status": "pass"})
    paths.reference("u").write_text("def reference(x):\n    return x\n")
    paths.capture.mkdir(parents=True)
    Capture(device="cpu", eager_nonfinite=record).save(paths.capture_record)
    return paths


def test_an_eager_reference_half_nan_is_warned_of_and_its_units_are_not_checkable(tmp_path, capsys):
    import torch

    from kernelopt.capture import stage as capture
    from kernelopt.core.records import Category, Rule, Verdict
    from kernelopt.gates.stage import judge_candidate, not_checkable
    from kernelopt.report.stage import units_not_checkable

    record = capture._check_eager(HalfNaN()(torch.randn(4, 8)))  # what capture records
    assert record == {"nan": 32, "inf": 0, "elements": 64, "share": 0.5}
    assert capsys.readouterr().out == (
        "[capture] warning: the eager reference (the model's outputs) is 50 % NaN (32 of 64 elements); "
        "past 1 % it cannot check a candidate: the problem's units are unit-not-checkable\n"
    )
    paths = _unit_of(tmp_path, record)
    why = "the eager reference (the model's outputs at capture) is 50 % NaN (32 of 64 elements): "
    why += "past 1 % NaN/Inf it cannot check a candidate"
    assert not_checkable(paths, "u") == why
    cand = tmp_path / "cand.py"
    cand.write_text("def launch(out_ptr, in_ptr):\n    pass\n")
    v1, v2 = judge_candidate(paths, "u", cand, {"device": "cpu"})
    for v in (v1, v2):
        assert (v.verdict, v.rule) == (Verdict.NOT_CHECKABLE, Rule.UNIT_NOT_CHECKABLE)
        assert why in v.reason
        v.save(paths.cand("u", 0).gate(v.gate))
    # what the result reads: every unit not checkable makes the problem's category
    # unit-not-checkable (report/stage.py), with this reason
    assert Category.UNIT_NOT_CHECKABLE == Rule.UNIT_NOT_CHECKABLE
    assert why in units_not_checkable(paths, ["u"])["u"]
    from kernelopt.report.stage import _not_deployed

    res: dict = {}
    _not_deployed(res, paths, ["u"], [], [], units_not_checkable(paths, ["u"]))
    assert res["reason"].startswith(f"unit-not-checkable: {why}")  # the rule named once, not twice
    assert res["reason"].count("unit-not-checkable") == 1


def test_a_little_nan_in_the_eager_reference_is_a_warning_only(tmp_path, capsys):
    import torch

    from kernelopt.capture import stage as capture
    from kernelopt.gates.stage import not_checkable

    out = torch.ones(1000)
    out[0], out[1] = float("nan"), float("inf")
    record = capture._check_eager((out, torch.arange(3)))  # integer outputs are never non-finite
    assert record == {"nan": 1, "inf": 1, "elements": 1000, "share": 0.002}
    assert capsys.readouterr().out.startswith(
        "[capture] warning: the eager reference (the model's outputs) is 0.2 % NaN or Inf (2 of 1000 elements); "
        "candidates are checked where it is finite"
    )
    assert not_checkable(_unit_of(tmp_path, record), "u") is None
    assert capture._check_eager(torch.ones(3)) is None
    assert capsys.readouterr().out == ""


FAKE_SNAKEMAKE = """
import subprocess, sys, time

# the job under a shell that stays (as a conda activation leaves one), as Snakemake starts it
subprocess.Popen(["/bin/sh", "-c", sys.executable + " " + sys.argv[1] + "; true"])
time.sleep(120)
"""

JOB = """
import os, sys, time

sys.path.insert(0, {root!r})
from kernelopt.core import stagelog

log = sys.argv[1]
with open(log + ".pids", "w") as f:
    f.write(f"{{stagelog.scheduler_pid()}} {{os.getpid()}} {{os.getppid()}}")
stagelog.run_stage("probe", log, lambda: time.sleep(120))
"""


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_job_ends_when_snakemake_is_killed_hard(tmp_path):
    """SIGKILL of Snakemake left its jobs running as orphans.  A scheduler named like Snakemake's
    console script starts a job through a shell that stays; killed, the job follows it (its
    watcher looks every second) and says so in its log."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    fake, job, log = tmp_path / "snakemake", tmp_path / "job.py", tmp_path / "probe.log"
    fake.write_text(FAKE_SNAKEMAKE)
    job.write_text(JOB.format(root=str(ROOT)))
    scheduler = subprocess.Popen([sys.executable, str(fake), f"{job} {log}"])
    job_pid = shell = None
    try:
        pids = tmp_path / "probe.log.pids"
        deadline = time.time() + 60
        while not (pids.exists() and pids.read_text()) and time.time() < deadline:
            time.sleep(0.1)
        found, job_pid, shell = (int(x) for x in pids.read_text().split())
        assert found == scheduler.pid  # passed the shell in between
        time.sleep(2.5)
        assert _alive(job_pid), "the job ended while Snakemake ran"
        os.kill(scheduler.pid, signal.SIGKILL)
        scheduler.wait()
        deadline = time.time() + 10
        while _alive(job_pid) and time.time() < deadline:
            time.sleep(0.1)
        assert not _alive(job_pid), "the job ran on after Snakemake was killed"
        assert f"kernelopt probe: Snakemake (pid {scheduler.pid}) is gone; this job ends with it" in log.read_text()
    finally:
        scheduler.kill()
        for pid in (shell, job_pid):
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)
