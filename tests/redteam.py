"""The red-team corpus's files and headers and the checks around a cheat's run (tests/test_trust.py
and bench/trust_gpu.py share them).

A corpus is one file, ``tests/fixtures/<name>.corpus``: its candidate files one after another,
each from a line ``#### <file>.py`` to the next; ``corpus(name)`` writes each to a file of its
own, so that every cheat is checked as a candidate file of its own.

Every file of ``cheats/softmax`` and ``cheats/classes`` starts with a docstring whose first line
is what the whole pipeline must do with it (``EXPECT gate N rule`` or ``EXPECT pass``).  Files
of ``cheats/classes`` say more, one field per line:

  CLASS n        the class of the issue it belongs to (1-7)
  LAYER name     the layer meant to stop it: os (the jail), form (gate 1's allowlist), judge
                 (what the judge believes), profile (the error profile)
  BENEATH v      what must happen with the layers above LAYER taken away (the form not
                 checked): ``gate N rule`` or ``pass`` (an honest kernel whose attempt the
                 boundary must make harmless)
  MARKER path    a host file it tries to create: must not exist afterwards
  PORT n         a host TCP port it tries to reach: must see no connection
  PROCESS tag    a process it starts: none whose command line holds tag may be alive afterwards
"""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MARK = "#### "


def split(bundle: Path) -> dict[str, str]:
    """The files of a corpus: {file name: its text}, in the corpus's order."""
    files: dict[str, str] = {}
    name = None
    for line in bundle.read_text().splitlines(keepends=True):
        if line.startswith(MARK):
            name = line[len(MARK) :].strip()
            assert name not in files, f"{bundle.name}: {name} twice"
            files[name] = ""
        elif name is not None:
            files[name] += line
    assert files, f"{bundle}: no {MARK!r} lines"
    return files


@functools.cache
def corpus(name: str) -> Path:
    """``tests/fixtures/<name>.corpus`` written out, once per process, as a directory of its own
    named after the corpus (``corpus("cheats/softmax")`` -> ``.../softmax/<file>.py``), one
    file per candidate; removed when the process exits."""
    top = Path(tempfile.mkdtemp(prefix="kernelopt-corpus-"))
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    top.chmod(0o755)  # readable as the checked-out files were (mkdtemp makes it 0700)
    d = top / Path(name).name
    d.mkdir()
    for file, text in split(FIXTURES / f"{name}.corpus").items():
        (d / file).write_text(text)
    return d


@dataclass
class Header:
    gate: int | None
    rule: str
    cls: int | None = None
    layer: str | None = None
    beneath: tuple[int | None, str] | None = None
    markers: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    processes: list[str] = field(default_factory=list)


def _verdict(text: str) -> tuple[int | None, str]:
    m = re.fullmatch(r"gate (\d) ([\w-]+)|(pass)", text.strip())
    assert m, f"not a verdict: {text!r}"
    return (None, "pass") if m.group(3) else (int(m.group(1)), m.group(2))


def header(path: Path) -> Header:
    text = path.read_text()
    m = re.match(r'"""EXPECT ([^\n:]+)', text)
    assert m, f"{path.name}: its docstring must start with EXPECT gate N rule / EXPECT pass"
    gate, rule = _verdict(m.group(1).split(":")[0])
    h = Header(gate, rule)
    doc = text.split('"""')[1]
    for line in doc.splitlines()[1:]:
        key, _, value = line.partition(" ")
        if key == "CLASS":
            h.cls = int(value)
        elif key == "LAYER":
            h.layer = value.strip()
        elif key == "BENEATH":
            h.beneath = _verdict(value)
        elif key == "MARKER":
            h.markers.append(value.strip())
        elif key == "PORT":
            h.ports.append(int(value))
        elif key == "PROCESS":
            h.processes.append(value.strip())
    return h


class Listener:
    """TCP servers on the host's loopback that count the connections they get."""

    def __init__(self, ports: list[int], seconds: float = 300.0):
        self.hits: list[int] = []
        self._socks = []
        for port in ports:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            s.listen(8)
            s.settimeout(0.2)
            self._socks.append(s)
            threading.Thread(target=self._serve, args=(s, port, time.time() + seconds), daemon=True).start()

    def _serve(self, s: socket.socket, port: int, end: float) -> None:
        while time.time() < end:
            try:
                c, _ = s.accept()
                self.hits.append(port)
                c.close()
            except OSError:
                pass

    def close(self) -> None:
        for s in self._socks:
            s.close()


def clear(h: Header) -> None:
    for m in h.markers:
        Path(m).unlink(missing_ok=True)


def escaped(h: Header, run_dir: Path | None, listener: Listener | None, wait_s: float = 4.0) -> list[str]:
    """What of the cheat's attempts reached the host: markers written, connections made,
    processes alive, files planted in the run directory."""
    time.sleep(wait_s)  # a survivor would have acted by now
    out = [f"marker {m}" for m in h.markers if Path(m).exists()]
    if listener is not None:
        out += [f"connection to port {p}" for p in listener.hits]
    for tag in h.processes:
        alive = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True).stdout.split()
        out += [f"process {tag} ({pid}) alive" for pid in alive]
    if run_dir is not None:
        out += [f"planted {p}" for p in run_dir.rglob("kernelopt-marker-*")]
    return out
