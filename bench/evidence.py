"""One file of the committed evidence, read back out of the ``summaries.json`` that holds it.

``bench/results/`` keeps a run's small files as one ``summaries.json`` per directory: a dict
with ``what``, ``cut_from``, ``format`` and ``files``, the original files by name, a JSON
file's content as it was, any other file (CSV, Markdown, text, Python) as the list of its
lines.  A file in there is named by a path that goes through the ``summaries.json``, as if it
were a directory: ``bench/results/gates_h200/summaries.json/aa_h200.json``.  A path that is an
ordinary file is read as such, so a script's argument may be either.

    python3 bench/evidence.py bench/results/gates_h200/summaries.json              # the names it holds
    python3 bench/evidence.py bench/results/gates_h200/summaries.json/aa_h200.json  # the file, on stdout
    python3 bench/evidence.py bench/results/gates_h200/summaries.json/aa_h200.json -o aa_h200.json

In Python (bench/ on ``sys.path``): ``evidence.load(path)`` (a JSON file's content),
``evidence.read_text(path)``, ``evidence.extract(path, dest)``.  A CSV or Markdown file comes
back byte for byte; a JSON file comes back with the same content, indented by two spaces."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

NAME = "summaries.json"


def split(path: str | Path) -> tuple[Path, str] | None:
    """``(the summaries.json, the name in it)`` for a path through one, else None."""
    parts = Path(path).parts
    for i, part in enumerate(parts[:-1]):
        if part == NAME:
            return Path(*parts[: i + 1]), "/".join(parts[i + 1 :])
    return None


def files(summaries: str | Path) -> dict[str, Any]:
    """The ``files`` dict of one summaries.json."""
    return json.loads(Path(summaries).read_text(encoding="utf-8"))["files"]


def _entry(path: str | Path) -> tuple[str, Any]:
    where = split(path)
    if where is None:
        raise FileNotFoundError(path)
    summaries, name = where
    held = files(summaries)
    if name not in held:
        raise FileNotFoundError(f"{path}: {summaries} holds no {name!r} (it holds {', '.join(sorted(held))})")
    return name, held[name]


def load(path: str | Path) -> Any:
    """A JSON file's content (a file, or one held in a summaries.json)."""
    p = Path(path)
    if p.is_file():
        return json.loads(p.read_text(encoding="utf-8"))
    name, value = _entry(p)
    if not name.endswith(".json"):
        raise ValueError(f"{path}: not a JSON file")
    return value


def read_text(path: str | Path) -> str:
    """A file's text (a file, or one held in a summaries.json)."""
    p = Path(path)
    if p.is_file():
        return p.read_text(encoding="utf-8")
    name, value = _entry(p)
    if name.endswith(".json"):
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    return "".join(line + "\n" for line in value)


def extract(path: str | Path, dest: str | Path) -> Path:
    """Writes the file to ``dest`` (a file, or a directory to write it in by its own name)."""
    dest = Path(dest)
    if dest.is_dir():
        dest = dest / Path(path).name
    dest.write_text(read_text(path), encoding="utf-8")
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", help="a summaries.json (lists its names), or a path through one to a file in it")
    ap.add_argument("-o", "--out", help="write the file here instead of to stdout")
    a = ap.parse_args(argv)
    try:
        if Path(a.path).name == NAME and Path(a.path).is_file():
            print("\n".join(files(a.path)))
        elif a.out:
            extract(a.path, a.out)
        else:
            sys.stdout.write(read_text(a.path))
    except FileNotFoundError as e:
        sys.exit(f"evidence.py: no such file: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
