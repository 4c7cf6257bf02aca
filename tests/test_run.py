"""``kernelopt run`` (kernelopt/runcli.py): Snakemake on the workflow shipped in the package, with a
console of progress lines, the two tables and the report's path; from a checkout and from a wheel
installed elsewhere (issue 15, items 2 and 5)."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, tool

from kernelopt import runcli
from kernelopt.cli import parser
from kernelopt.core import problems
from kernelopt.core.errors import ConfigError
from kernelopt.core.records import Dispatch, DispatchUnit, ProblemPaths

TWO = ["problems/demo/level1/3_GELU_Mul_Add.py", "problems/demo/level1/1_Softmax.py"]
# the quick start's settings (quickstart.yaml) on two of its problems, with a tiny search
TINY = ["device=cpu", "search={iterations: 1, beam_width: 1, synthesis_attempts: 1, retries: 0}", "gates={retries: 0}"]
PROGRESS = re.compile(r"^\[\s*\d+:\d\d\] ((?:\w+ \d+/\d+\s*)+)$")


def _args(*argv: str):
    return parser().parse_args(["run", *argv])


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONUNBUFFERED="1")


def _counts(line: str) -> dict[str, int] | None:
    m = PROGRESS.match(line)
    return {k: int(n) for k, n, _ in re.findall(r"(\w+) (\d+)/(\d+)", m.group(1))} if m else None


def test_the_command_is_snakemakes_on_the_packaged_workflow(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = _args(
        "--problems", *TWO, "--workdir", str(tmp_path / "wd"), "--cores", "3", "--configfile", "quickstart.yaml",
        "--config", "device=cpu", "search={iterations: 0}", "--", "--dry-run", "--quiet", "rules",
    )  # fmt: skip
    argv = runcli.snakemake_argv(args)
    assert argv[:3] == [sys.executable, "-m", "snakemake"]
    assert argv[argv.index("--snakefile") + 1] == str(ROOT / "kernelopt/workflow/Snakefile")
    assert argv[argv.index("--workflow-profile") + 1] == str(ROOT / "kernelopt/workflow/profiles/default")
    assert argv[argv.index("--cores") + 1] == "3"
    assert argv[argv.index("--configfile") + 1] == str(ROOT / "quickstart.yaml")
    entries = argv[argv.index("--config") + 1 :]
    assert entries[:2] == ["device=cpu", "search={iterations: 0}"]  # the user's, as Snakemake takes them
    assert json.loads(entries[2].partition("=")[2]) == [str(ROOT / p) for p in TWO]
    assert entries[3] == f"workdir={tmp_path / 'wd'}"
    assert argv.index("--dry-run") < argv.index("--config")  # after `--`: Snakemake's, as they are
    cfg, found = runcli.resolve(args, ROOT)
    assert cfg["device"] == "cpu" and cfg["search"]["iterations"] == 0 and cfg["gates"]["user_candidates"] == 0
    assert list(found) == ["level1_1_Softmax", "level1_3_GELU_Mul_Add"]
    assert runcli.same_command(args).startswith("kernelopt run --problems " + " ".join(TWO))
    # a profile of the user's own replaces the packaged one
    assert "--workflow-profile" not in runcli.snakemake_argv(_args("--", "--profile", "mine"))
    with pytest.raises(ConfigError, match="both given"):
        runcli.resolve(_args("--problems", TWO[0], "--config", f"problems={TWO[1]}"), ROOT)
    with pytest.raises(ConfigError, match="unknown config key"):
        runcli.resolve(_args("--problems", TWO[0], "--config", "devce=cpu"), ROOT)


def test_a_users_own_module_is_a_problem(tmp_path):
    """Any file name, and no get_init_inputs(): Model() without arguments."""
    src = (
        "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x) * 2\n\n"
        "def get_inputs():\n    return [torch.randn(8, 16)]\n"
    )
    (tmp_path / "my_model.py").write_text(src)
    for selection in (str(tmp_path / "my_model.py"), str(tmp_path)):
        found = problems.discover(selection)
        assert list(found) == [f"{tmp_path.name}_my_model"]
    p = problems.load(tmp_path / "my_model.py")
    model = problems.build_model(p, "cpu", 0)
    (x,) = problems.make_inputs(p, "cpu", 0)
    assert model(x).shape == (8, 16)


def test_progress_counts_come_from_the_files_and_never_go_back(tmp_path, capsys):
    wd = tmp_path / "wd"
    watch = runcli.Progress(wd, ["a", "b"], attempts=2)
    a, b = ProblemPaths(wd, "a"), ProblemPaths(wd, "b")

    def touch(path, text="{}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    assert watch.counts() == (0,) * len(runcli.STAGES)
    touch(a.capture_record)
    Dispatch(problem="a", verdict="optimizable", units=[DispatchUnit(id="u0", kernel="u0")]).save(a.dispatch)
    touch(b.capture_record)
    Dispatch(problem="b", verdict="no-triton").save(b.dispatch)  # nothing to search: done
    assert dict(zip(runcli.STAGES, watch.counts())) == {
        "capture": 2, "classify": 2, "isolate": 0, "search": 1, "stitch": 1, "gates": 1, "result": 0,
    }  # fmt: skip
    touch(a.best("u0"))
    touch(a.attempt(0).plan)
    touch(a.attempt(0).gate(4))
    assert dict(zip(runcli.STAGES, watch.counts()))["gates"] == 1  # attempt 1's gate 4 is still to come
    a.capture_record.unlink()  # a job Snakemake re-runs deletes its outputs first
    touch(b.result)
    assert dict(zip(runcli.STAGES, watch.counts())) == {
        "capture": 2, "classify": 2, "isolate": 1, "search": 2, "stitch": 2, "gates": 1, "result": 1,
    }  # fmt: skip
    watch.report()
    watch.report()  # nothing changed: no second line
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and _counts(lines[0])["result"] == 1


def test_a_failed_snakemake_shows_the_end_of_its_log_and_fails(tmp_path):
    wd = tmp_path / "wd"
    r = subprocess.run(
        [tool("kernelopt"), "run", "--problems", TWO[0], "--workdir", str(wd), "--", "--no-such-option"],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode != 0
    assert "--no-such-option" in r.stdout  # from the log's last lines
    assert f"its whole log: {wd / 'logs' / 'snakemake.log'}" in r.stdout
    assert "the same command resumes: kernelopt run --problems" in r.stdout
    bad = subprocess.run(
        [tool("kernelopt"), "run", "--problems", str(tmp_path / "missing.py")],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bad.returncode == 2 and "neither a directory nor a file" in bad.stderr, bad.stdout + bad.stderr


def _session_of(pattern: str, timeout: float = 120) -> int:
    """The session id of the newest process whose command line contains ``pattern``."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = subprocess.run(["pgrep", "-n", "-f", pattern], capture_output=True, text=True)
        if r.stdout.strip():
            return os.getsid(int(r.stdout.split()[0]))
        time.sleep(0.5)
    raise AssertionError(f"no process matching {pattern}")


def _alive_in_session(sid: int) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "sid=,pid=,args="], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if line.split(None, 1)[0] == str(sid)]


@pytest.mark.slow
def test_ctrl_c_stops_snakemake_and_its_jobs_and_says_how_to_resume(tmp_path):
    wd = tmp_path / "wd"
    cmd = [tool("kernelopt"), "run", "--problems", *TWO, "--workdir", str(wd), "--config", *TINY]
    # started with SIGINT ignored, as a shell's background job is: Snakemake must get it anyway
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    try:
        sid = _session_of(f"workdir={wd}")
        log = wd / "logs" / "snakemake.log"
        deadline = time.time() + 300
        while "rule capture" not in (log.read_text() if log.exists() else "") and time.time() < deadline:
            time.sleep(0.5)  # a job is running
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 130, out
    assert "the same command resumes (finished jobs are kept): kernelopt run --problems" in out, out
    deadline = time.time() + 30
    while _alive_in_session(sid) and time.time() < deadline:
        time.sleep(0.5)
    assert not _alive_in_session(sid), _alive_in_session(sid)
    workers = subprocess.run(["pgrep", "-f", f"kernelopt.runner.worker {wd} "], capture_output=True, text=True)
    assert not workers.stdout.strip(), "the run's warm workers outlived it"
    assert "Terminating processes on user request" in (wd / "logs" / "snakemake.log").read_text()


@pytest.mark.slow
def test_the_quick_start_console_is_short_and_ends_with_the_tables_and_the_report(tmp_path):
    """The README's command (quickstart.yaml, without -v) on two of its problems with a tiny search."""
    wd = tmp_path / "wd"
    cmd = [tool("kernelopt"), "run", "--cores", "2", "--configfile", "quickstart.yaml", "--problems", *TWO]
    started = time.time()
    r = subprocess.run(
        [*cmd, "--workdir", str(wd), "--config", *TINY],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    lines = r.stdout.splitlines()
    print(f"{time.time() - started:.0f} s, {len(lines)} lines:\n{r.stdout}")
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert len(lines) <= 60
    counts = [c for c in map(_counts, lines) if c]
    assert counts and list(counts[0]) == list(runcli.STAGES)
    for before, after in zip(counts, counts[1:]):
        assert all(after[s] >= before[s] for s in runcli.STAGES), (before, after)
    assert set(counts[-1].values()) == {2}  # every stage of both problems
    assert "rule capture" not in r.stdout  # Snakemake's per-job lines stay in its log
    assert "localrule capture" in (wd / "logs" / "snakemake.log").read_text()
    end = lines[max(i for i, ln in enumerate(lines) if _counts(ln)) + 1 :]  # after the last progress line
    assert re.match(r"\[report\] 2 problems; .* units match", end[0]), end  # stages 1-3 per problem
    assert sum(1 for ln in end if ln.startswith("  level1_")) == 4  # two rows in each table
    assert any(re.match(r"\[report\] 2 problems: ", ln) for ln in end), end  # the results per problem
    assert end[-1] == f"[report] HTML report: {wd / 'report' / 'index.html'}"
    assert (wd / "report" / "index.html").exists()


def _setuptools_major() -> int:
    try:
        import setuptools
    except ImportError:
        return 0
    return int(setuptools.__version__.split(".")[0])


def _wheel(dest: Path) -> Path:
    """A wheel of this working tree's package, built from a copy of it (no stale build/ here)."""
    src = dest / "src"
    src.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "kernelopt", src / "kernelopt", ignore=shutil.ignore_patterns("__pycache__"))
    # this environment's setuptools when it is recent enough (no index needed), else pip fetches one
    no_isolation = ["--no-build-isolation"] if _setuptools_major() >= 68 else []
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", *no_isolation, "-w", str(dest), "-q"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = dest.glob("kernelopt-*.whl")
    return wheel


def _venv_with(wheel: Path, dest: Path) -> tuple[Path, dict[str, str]]:
    """A fresh virtual environment with ``wheel`` installed (no index, no dependencies), and the
    environment to run it in: torch, Snakemake and the rest are this environment's, through
    ``PYTHONPATH`` (which the sandboxed children's file system takes in too; the .pth files there,
    the editable install's, are not read, so this checkout's package stays out of it)."""
    import site
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", str(dest)], check=True, timeout=300)
    r = subprocess.run(
        [dest / "bin" / "python", "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], *site.getsitepackages()])
    env = {k: v for k, v in _env().items() if k != "VIRTUAL_ENV"}
    env["PYTHONPATH"] = os.pathsep.join(ours)
    env["PATH"] = f"{dest / 'bin'}{os.pathsep}{env['PATH']}"
    return dest, env


@pytest.mark.slow
def test_kernelopt_run_from_a_wheel_installed_outside_the_checkout(tmp_path):
    venv, env = _venv_with(_wheel(tmp_path / "dist"), tmp_path / "venv")
    here = tmp_path / "elsewhere"
    (here / "level1").mkdir(parents=True)
    for f in TWO:
        shutil.copy2(ROOT / f, here / "level1" / Path(f).name)
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import kernelopt; print(kernelopt.__file__)"],
        cwd=here, env=env, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(venv)), where  # the wheel's package, not the checkout's
    r = subprocess.run(
        [venv / "bin" / "kernelopt", "run", "--problems", "level1", "--workdir", "out",
         "--config", "device=cpu", "search={iterations: 0}", "gates={retries: 0}"],
        cwd=here, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:] + (here / "out/logs/snakemake.log").read_text()[-4000:]
    for pid in ("level1_1_Softmax", "level1_3_GELU_Mul_Add"):
        assert json.loads(ProblemPaths(here / "out", pid).result.read_text())["category"] != "error"
    assert (here / "out" / "report" / "results.csv").exists() and (here / ".snakemake").is_dir()
    assert f"Snakefile: {venv}" in (here / "out/logs/snakemake.log").read_text()  # the wheel's workflow
    assert r.stdout.splitlines()[-1] == f"[report] HTML report: {here / 'out' / 'report' / 'index.html'}"
