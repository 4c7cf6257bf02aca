"""``kernelopt run``: the pipeline from an installed kernelopt, with a console that shows progress.

  kernelopt run [--problems DIR_OR_FILE ...] [--workdir OUT] [--cores N] [--configfile F ...]
                [--config KEY=VALUE ...] [-v] [-- SNAKEMAKE_ARGS ...]

Runs Snakemake (``python -m snakemake``, a child process) on the workflow shipped in the package
(``kernelopt/workflow/``: its Snakefile, its ``profiles/default`` and ``config.yaml``), from the
current directory, exactly as ``snakemake`` does in a checkout: ``--configfile`` and ``--config``
are Snakemake's (``--config device=cpu 'search={iterations: 0}'``), everything after ``--`` is
handed to Snakemake as it is.  Snakemake's own output goes to ``<workdir>/logs/snakemake.log``
(``-v`` shows it as well); the console gets a line when a stage's count of finished problems
grew (counted from the files on disk, so it never goes back; at most one every 10 s, or every
20th of the time so far), then the two tables and the HTML report's path.  A failed run prints
the log's last lines; Ctrl-C stops Snakemake (its jobs end with it) and says how to resume: the
same command again (docs/running.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

WORKFLOW = Path(__file__).resolve().parent / "workflow"
SNAKEFILE = WORKFLOW / "Snakefile"
PROFILE = WORKFLOW / "profiles" / "default"
CONFIG = WORKFLOW / "config.yaml"
# the stages the console counts, in pipeline order (docs/architecture.md)
STAGES = ("capture", "classify", "isolate", "search", "stitch", "gates", "result")
POLL_S = 2.0
QUIET_S = 120.0  # a line at least this often while nothing changes: the run is alive
# a changed count waits until this many seconds (or a 20th of the run so far, if more) passed
# since the last line: a long run of many problems prints ~20 lines per doubling of its time
MIN_GAP_S = 10.0
TAIL_LINES = 30


def add_parser(sub: Any) -> None:
    """The ``run`` subcommand of the ``kernelopt`` console script (``kernelopt/cli.py``)."""
    r = sub.add_parser(
        "run",
        help="run the pipeline (Snakemake, the workflow in the package) with a progress console",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument(
        "--problems", nargs="+", metavar="DIR_OR_FILE", help="problem files or directories (config 'problems')"
    )
    r.add_argument("--workdir", metavar="OUT", help="the run directory (config 'workdir')")
    r.add_argument("--cores", metavar="N", help="Snakemake's --cores (default: profiles/default's, 2)")
    r.add_argument("--configfile", action="append", default=[], metavar="F", help="a config file on top (repeatable)")
    r.add_argument(
        "--config", nargs="+", action="extend", default=[], metavar="KEY=VALUE", help="Snakemake's --config overrides"
    )
    r.add_argument("-v", "--verbose", action="store_true", help="show Snakemake's output as well")
    r.add_argument("snakemake_args", nargs="*", metavar="-- SNAKEMAKE_ARGS", help="handed to Snakemake as they are")


def resolve(args: argparse.Namespace, cwd: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    """The run's config as Snakemake will see it (the workflow's config.yaml, the config files,
    the overrides, --problems and --workdir) and its problems: known before Snakemake starts, for
    the progress count, and a bad setting or path said at once."""
    import yaml
    from snakemake.cli import parse_config

    from .core import config as ko_config
    from .core import problems as ko_problems
    from .core.errors import ConfigError

    data: dict[str, Any] = {}
    for f in [CONFIG, *args.configfile]:
        if not Path(f).is_file():
            raise ConfigError(f"config file {f} does not exist")
        data = ko_config.merge(data, yaml.safe_load(Path(f).read_text()) or {})
    try:
        over = parse_config(args.config)
    except ValueError as e:
        raise ConfigError(f"--config: {e}") from e
    for key in ("problems", "workdir"):
        if getattr(args, key) and key in over:
            raise ConfigError(f"--{key} and --config {key}=... both given; keep one")
    cfg = ko_config.validate(ko_config.merge(ko_config.merge(data, over), own_settings(args)))
    return cfg, ko_problems.discover(cfg["problems"], base=cwd)


def own_settings(args: argparse.Namespace) -> dict[str, Any]:
    """--problems and --workdir as config keys, absolute (Snakemake runs from the same directory,
    but a path in the run's records then says where it is)."""
    out: dict[str, Any] = {}
    if args.problems:
        files = [str(Path(p).resolve()) for p in args.problems]
        out["problems"] = files[0] if len(files) == 1 else files
    if args.workdir:
        out["workdir"] = str(Path(args.workdir).resolve())
    return out


def snakemake_argv(args: argparse.Namespace) -> list[str]:
    """The Snakemake command: the packaged Snakefile and profile, the user's options, then ours."""
    extra = list(args.snakemake_args)
    argv = [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE)]
    if not any(a.split("=")[0] in ("--workflow-profile", "--profile") for a in extra):
        argv += ["--workflow-profile", str(PROFILE)]
    if args.cores:
        argv += ["--cores", str(args.cores)]
    argv += extra
    if args.configfile:
        argv += ["--configfile", *[str(Path(f).resolve()) for f in args.configfile]]
    entries = list(args.config) + [
        f"{k}={json.dumps(v) if isinstance(v, list) else v}" for k, v in own_settings(args).items()
    ]
    if entries:
        argv += ["--config", *entries]
    return argv


def same_command(args: argparse.Namespace) -> str:
    """The command line that repeats (and so resumes) this run."""
    words = ["kernelopt", "run"]
    if args.problems:
        words += ["--problems", *args.problems]
    if args.workdir:
        words += ["--workdir", args.workdir]
    if args.cores:
        words += ["--cores", str(args.cores)]
    for f in args.configfile:
        words += ["--configfile", f]
    if args.config:
        words += ["--config", *args.config]
    if args.verbose:
        words.append("-v")
    if args.snakemake_args:
        words += ["--", *args.snakemake_args]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    """``kernelopt run``: Snakemake in a child process, watched; its exit status."""
    from .core.config import check_workdir
    from .core.records import snakemake_log

    cfg, problems = resolve(args, Path.cwd())
    check_workdir(cfg["workdir"])  # one sentence, before the log is opened under it
    workdir = Path(cfg["workdir"])
    log = snakemake_log(workdir)
    log.parent.mkdir(parents=True, exist_ok=True)
    print(
        f"kernelopt run: {len(problems)} problem(s) -> {workdir.resolve()}; Snakemake's output: {log}"
        + ("" if args.verbose else " (-v shows it)"),
        flush=True,
    )
    watch = Progress(workdir, list(problems), 1 + int(cfg["gates"]["retries"]))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(log, "wb") as out:
        # a session of its own: Ctrl-C reaches Snakemake once, from us (its jobs get it from Snakemake)
        proc = subprocess.Popen(
            snakemake_argv(args),
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=_interruptible,
        )
        interrupted = supervise(proc, watch, log if args.verbose else None)
    if interrupted:  # Snakemake's onerror is not run on Ctrl-C: the run's warm workers end now
        from .runner import worker

        worker.stop_all(workdir)
    return finish(proc.returncode, interrupted, args, watch, log)


def supervise(proc: subprocess.Popen, watch: Progress, echo: Path | None) -> bool:
    """Wait for Snakemake, printing progress (and, with ``echo``, the log as it grows).  Ctrl-C
    (or SIGTERM) is handed to Snakemake, which stops its jobs; True if that happened."""
    stopped: list[int] = []

    def forward(signum: int, _frame: Any) -> None:
        stopped.append(signum)
        if len(stopped) == 1:
            print("\nkernelopt run: stopping Snakemake and its jobs ...", flush=True)
        with contextlib.suppress(ProcessLookupError):  # it has just exited
            proc.send_signal(signal.SIGINT if len(stopped) < 3 else signal.SIGKILL)

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    offset = 0
    try:
        while True:
            done = proc.poll() is not None
            if echo is not None:
                offset = _echo(echo, offset)
            watch.report(final=done)
            if done:
                return bool(stopped)
            time.sleep(POLL_S)
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def finish(rc: int, interrupted: bool, args: argparse.Namespace, watch: Progress, log: Path) -> int:
    """The run's last lines: the tables and the report's path, or why it stopped and what next."""
    from .report import console

    if interrupted:
        print(f"kernelopt run: stopped; Snakemake's log: {log}", flush=True)
        print(f"kernelopt run: the same command resumes (finished jobs are kept): {same_command(args)}", flush=True)
        return 130
    if rc != 0:
        tail = log.read_text(errors="replace").splitlines()[-TAIL_LINES:]
        print("\n".join(["--- the last lines of Snakemake's log ---", *tail, "---"]), flush=True)
        print(f"kernelopt run: Snakemake failed (exit {rc}); its whole log: {log}", flush=True)
        print(f"kernelopt run: fix the cause, then the same command resumes: {same_command(args)}", flush=True)
        return rc
    text = console.final(watch.workdir, watch.problems)
    print(text if text else f"kernelopt run: Snakemake ended without a report (see {log})", flush=True)
    return 0


def _interruptible() -> None:
    """In the child before Snakemake starts: SIGINT at its default, which Python turns into
    KeyboardInterrupt (Snakemake's "terminating on user request"), even when we were started
    with SIGINT ignored (a background job of a shell, some CI runners)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _echo(path: Path, offset: int) -> int:
    """Print what ``path`` gained since ``offset``; the new offset."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            chunk = f.read()
    except OSError:
        return offset
    if chunk:
        sys.stdout.write(chunk.decode(errors="replace"))
        sys.stdout.flush()
    return offset + len(chunk)


class Progress:
    """How many problems finished each stage, from the files on disk (``ProblemPaths``).  A
    problem counted for a stage stays counted (a job Snakemake re-runs deletes its outputs
    first), so the counts never go back; a problem with nothing to search (not optimizable, or
    failed) counts as done for the search, stitch and gates once it is classified."""

    def __init__(self, workdir: Path, problems: list[str], attempts: int) -> None:
        self.workdir, self.problems, self.attempts = workdir, problems, attempts
        self.done: dict[str, set[str]] = {s: set() for s in STAGES}
        self.started = time.monotonic()
        self.last: tuple[int, ...] | None = None
        self.printed = 0.0

    def counts(self) -> tuple[int, ...]:
        from .core.records import ProblemPaths

        for p in self.problems:
            for stage in self.finished(ProblemPaths(self.workdir, p)):
                self.done[stage].add(p)
        return tuple(len(self.done[s]) for s in STAGES)

    def finished(self, paths: Any) -> list[str]:
        """The stages ``paths``' problem has finished, judged from its files."""
        if paths.result.exists():
            return list(STAGES)
        done = [s for s, f in (("capture", paths.capture_record), ("classify", paths.dispatch)) if f.exists()]
        done += ["isolate"] if paths.isolated.exists() else []
        if "classify" not in done:
            return done
        units = judged_units(paths.dispatch)
        if units is None:
            return done
        if all(paths.best(u).exists() for u in units):
            done.append("search")
        if not units or paths.attempt(0).plan.exists():
            done.append("stitch")
        if not units or all(paths.attempt(a).gate(4).exists() for a in range(self.attempts)):
            done.append("gates")
        return done

    def report(self, final: bool = False) -> None:
        """One line when a count grew (at most one per ``MIN_GAP_S``, or a 20th of the time so
        far, but always the last one), or when nothing was printed for ``QUIET_S``."""
        now, clock = self.counts(), time.monotonic()
        since, elapsed = clock - self.printed, clock - self.started
        grew = now != self.last and (final or since >= max(MIN_GAP_S, elapsed / 20))
        if not grew and since < QUIET_S:
            return
        self.last, self.printed = now, clock
        m, s = divmod(int(elapsed), 60)
        total = len(self.problems)
        cells = "  ".join(f"{name} {n}/{total}" for name, n in zip(STAGES, now))
        print(f"[{m:3d}:{s:02d}] {cells}", flush=True)


def judged_units(dispatch: Path) -> list[str] | None:
    """The units a problem's search, stitch and gates judge (none unless it is optimizable), or
    None while its dispatch record cannot be read."""
    from .core.records import Dispatch

    try:
        disp = Dispatch.load(dispatch)
    except (OSError, ValueError):  # RecordError too
        return None
    return disp.judged_unit_ids
