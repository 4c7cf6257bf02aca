"""The ``kernelopt`` console script.  Subcommands grow with the pipeline; the Gates issue adds
``check`` and ``stitch-check``."""
from __future__ import annotations

import argparse
import json
import sys

from . import __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kernelopt", description=__doc__)
    parser.add_argument("--version", action="version", version=f"kernelopt {__version__}")
    sub = parser.add_subparsers(dest="cmd")
    p = sub.add_parser("problems", help="list the problems (id -> file) a config's 'problems' value selects")
    p.add_argument("problems", help="directory or file")
    p.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.cmd == "problems":
        from .errors import KerneloptError
        from .problems import discover

        try:
            found = discover(args.problems)
        except KerneloptError as e:
            print(f"kernelopt: {e}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps({k: str(v) for k, v in found.items()}, indent=2))
        else:
            for k, v in found.items():
                print(f"{k}\t{v}")
        return 0
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
