"""The ``kernelopt`` console script.

  kernelopt check UNIT_DIR CANDIDATE.py [--json]
      gates 1-2 for one candidate of one unit (UNIT_DIR = <workdir>/<problem>/units/<unit>);
      exit 0 only if both pass.
  kernelopt stitch-check PROBLEM_DIR UNIT=CANDIDATE.py [...] [--json]
      splice the candidates into the problem's compiled model and run gates 3-4;
      exit 0 only if both pass (gate 4 is skipped-by-mode in CPU mode: exit 1).
  kernelopt problems DIR_OR_FILE [--json]
      the problems (id -> file) a config's 'problems' value selects.
  kernelopt html WORKDIR
      (re)write the run's HTML report, WORKDIR/report/index.html and one page per problem,
      from what is on disk (no Snakemake needed; docs/report.md).
  kernelopt run [--problems DIR_OR_FILE ...] [--workdir OUT] [--cores N] [--configfile F]
                [--config KEY=VALUE ...] [-v] [-- SNAKEMAKE_ARGS]
      the pipeline (the workflow in the package) with a progress console (kernelopt run -h).

Settings (seeds, tolerances, margin) are config.yaml's defaults; --config FILE reads
another file, and --set key=value overrides (e.g. --set gates.perf_margin=0.05).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import __version__, runcli


def _config(args: argparse.Namespace, device: str) -> dict[str, Any]:
    from .core import config

    over: dict[str, Any] = {"device": device}
    for item in args.set or []:
        key, _, value = item.partition("=")
        node = over
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    if args.config:
        return config.load(args.config, over)
    return config.validate(over)


def _print(verdicts: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(
            json.dumps(
                {"verdicts": verdicts, "pass": all(v["verdict"] == "pass" for v in verdicts)}, indent=2, default=str
            )
        )
        return
    for v in verdicts:
        findings = (v.get("numbers") or {}).get("findings") or []
        if len(findings) > 1:  # gate 1's reason names the first; every one is a line of its own
            print(f"gate {v['gate']}: {v['verdict'].upper():<15} {len(findings)} findings:")
            for f in findings:
                print(f"  rule {f['rule']}: {f['message']}" + (f" (line {f['line']})" if f.get("line") else ""))
        else:
            print(f"gate {v['gate']}: {v['verdict'].upper():<15} {v['reason']}")


def cmd_check(args: argparse.Namespace) -> int:
    from .core.records import Capture, ProblemPaths
    from .gates.stage import judge_candidate

    unit_dir = Path(args.unit_dir).resolve()
    try:
        paths, unit = ProblemPaths.of_unit(unit_dir)
    except ValueError:
        paths, unit = None, unit_dir.name
    if paths is None or not paths.contract(unit).exists():
        print(
            f"kernelopt check: {unit_dir} is not an isolated unit (no contract.json); "
            "run the pipeline through the isolate stage first",
            file=sys.stderr,
        )
        return 2
    cand = Path(args.candidate).resolve()
    if not cand.is_file():
        print(f"kernelopt check: candidate {cand} does not exist", file=sys.stderr)
        return 2
    device = Capture.load(paths.capture_record).device
    cfg = _config(args, device)
    import contextlib

    with contextlib.redirect_stdout(sys.stderr):  # the checking processes' output; stdout stays for the verdicts
        v1, v2 = judge_candidate(paths, unit, cand, cfg)
    verdicts = [v1.to_dict(), v2.to_dict()]
    _print(verdicts, args.json)
    return 0 if all(v["verdict"] == "pass" for v in verdicts) else 1


def cmd_stitch_check(args: argparse.Namespace) -> int:
    from .core.records import Capture, ProblemPaths
    from .gates.stage import run_gate3, run_gate4
    from .stitch.stage import stitch_directly

    paths = ProblemPaths.of(Path(args.problem_dir).resolve())
    if not paths.capture_record.exists():
        print(
            f"kernelopt stitch-check: {args.problem_dir} has no capture/capture.json; "
            "run the pipeline's capture stage first",
            file=sys.stderr,
        )
        return 2
    repl: dict[str, Path] = {}
    for item in args.replacements:
        unit, sep, file = item.partition("=")
        if not sep or not Path(file).is_file() or not paths.contract(unit).exists():
            print(
                f"kernelopt stitch-check: '{item}' must be UNIT=CANDIDATE.py with an isolated unit of {paths.problem} "
                "and an existing file",
                file=sys.stderr,
            )
            return 2
        repl[unit] = Path(file).resolve()
    device = Capture.load(paths.capture_record).device
    cfg = _config(args, device)
    out = (
        Path(args.out)
        if args.out
        else Path(
            tempfile.mkdtemp(
                prefix="stitch-check-", dir=paths.root / "stitch" if (paths.root / "stitch").exists() else paths.root
            )
        )
    )
    import contextlib

    # progress lines go to stderr so that --json prints nothing but JSON on stdout
    with contextlib.redirect_stdout(sys.stderr):
        stitch_directly(paths, repl, out)
        v3 = run_gate3(paths, 0, cfg, directory=out)
        v4 = run_gate4(paths, 0, cfg, directory=out)
    _print([v3, v4], args.json)
    if not args.json:
        print(f"stitched module and verdicts: {out}")
    return 0 if v3["verdict"] == "pass" and v4["verdict"] == "pass" else 1


def cmd_html(args: argparse.Namespace) -> int:
    from .report import html

    workdir = Path(args.workdir)
    problems = html.run_problems(workdir) if workdir.is_dir() else []
    if not problems:
        print(
            f"kernelopt html: {workdir} is not a run directory (no problem_set.json, report/results.csv "
            "or <problem>/result.json)",
            file=sys.stderr,
        )
        return 2
    from .core.records import ReportPaths
    from .report import tables

    rep = ReportPaths.of(workdir)  # the tables first, so that the pages and the files they link agree
    tables.results(workdir, problems, rep.results_csv, rep.summary)
    print(html.build(workdir, problems))
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line: every subcommand and its arguments."""
    parser = argparse.ArgumentParser(
        prog="kernelopt", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"kernelopt {__version__}")
    sub = parser.add_subparsers(dest="cmd")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    common.add_argument("--config", help="config file (default: built-in defaults = config.yaml's)")
    common.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override a config key, e.g. gates.fresh_seeds=5 or gates.distributions=[x10,abs]",
    )
    c = sub.add_parser("check", parents=[common], help="gates 1-2 for one candidate of one unit")
    c.add_argument("unit_dir")
    c.add_argument("candidate")
    s = sub.add_parser("stitch-check", parents=[common], help="gates 3-4 on the model with candidates stitched in")
    s.add_argument("problem_dir")
    s.add_argument("replacements", nargs="+", metavar="UNIT=CANDIDATE.py")
    s.add_argument(
        "--out", help="directory for the stitched module and verdicts (default: a new one under PROBLEM_DIR/stitch/)"
    )
    p = sub.add_parser("problems", help="list the problems a 'problems' value selects")
    p.add_argument("problems")
    p.add_argument("--json", action="store_true")
    h = sub.add_parser("html", help="(re)write the HTML report of a run directory")
    h.add_argument("workdir", help="the run directory (the config's workdir)")
    cv = sub.add_parser("coverage", help="synthesis coverage: which units got a synthesized kernel through gates 1-2")
    cv.add_argument("workdir", help="the run directory (the config's workdir)")
    cv.add_argument("--json", action="store_true")
    ex = sub.add_parser("export", help="write a problem's deployed model to a directory that loads without the run")
    ex.add_argument("problem_dir", help="<workdir>/<problem> of a finished run")
    ex.add_argument("out", help="a new (or empty) directory")
    runcli.add_parser(sub)
    return parser


def cmd_export(args: argparse.Namespace) -> int:
    from .deploy.export import export

    out = export(args.problem_dir, args.out)
    print(
        f"kernelopt export: {out} (load it with: import sys; sys.path.insert(0, {str(out)!r}); "
        f"import loader; loader.load({str(out)!r}); see {out / 'README.md'})"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from .core.errors import KerneloptError

    try:
        if args.cmd == "run":
            return runcli.run(args)
        if args.cmd == "check":
            return cmd_check(args)
        if args.cmd == "stitch-check":
            return cmd_stitch_check(args)
        if args.cmd == "html":
            return cmd_html(args)
        if args.cmd == "export":
            return cmd_export(args)
        if args.cmd == "coverage":
            from .report.coverage import coverage, text

            cov = coverage(args.workdir)
            print(json.dumps(cov, indent=1) if args.json else text(cov))
            return 0
        if args.cmd == "problems":
            from .core.problems import discover

            found = discover(args.problems)
            print(
                json.dumps({k: str(v) for k, v in found.items()}, indent=2)
                if args.json
                else "\n".join(f"{k}\t{v}" for k, v in found.items())
            )
            return 0
    except KerneloptError as e:
        print(f"kernelopt: {e}", file=sys.stderr)
        return 2
    parser().print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
