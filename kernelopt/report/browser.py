"""Render a page in headless Chromium, screenshot it, and return the console's errors.

    python -m kernelopt.report.browser PAGE.html --screenshot OUT.png [--width 1400 --height 1000]
        [--full-page] [--chromium PATH]

Talks to the system ``chromium`` (or ``chromium-browser``, ``google-chrome``; ``--chromium`` or
``$KERNELOPT_CHROMIUM`` to choose) over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: JSON messages on file descriptors 3 and 4, no port, no extra
Python package).  Errors are what DevTools' console shows as errors: ``console.error`` and
``console.assert`` calls, uncaught exceptions, and log entries of level error (a resource that
failed to load, a blocked request).  Exit status: 0 if there were none, 1 if there were (each
printed on a line), 2 if no browser could run.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BrowserError(RuntimeError):
    """No browser, or it did not answer."""


def find_chromium(explicit: str | None = None) -> str | None:
    """The browser to run: ``explicit``, ``$KERNELOPT_CHROMIUM``, else the first on PATH."""
    for name in (explicit, os.environ.get("KERNELOPT_CHROMIUM"), *CANDIDATES):
        if name:
            found = shutil.which(name)
            if found:
                return found
    return None


@dataclass
class Rendered:
    url: str
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    screenshot_bytes: int = 0


class _Pipe:
    """The DevTools connection: NUL-terminated JSON messages, requests with ids, events queued."""

    def __init__(self, write_fd: int, read_fd: int, proc: subprocess.Popen):
        self.w, self.r, self.proc = write_fd, read_fd, proc
        self.buf = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.w, data) :]
        return self.next_id

    def _read_one(self, deadline: float) -> dict[str, Any] | None:
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.r], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise BrowserError(f"the browser closed its DevTools pipe (exit status {self.proc.poll()})")
            self.buf += chunk
        raw, _, self.buf = self.buf.partition(b"\0")
        return json.loads(raw)

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None, timeout=30.0):
        mid = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read_one(deadline)
            if msg is None:
                raise BrowserError(f"no answer to {method} within {timeout:.0f} s")
            if msg.get("id") == mid:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        if any(e["method"] == method for e in self.events):
            return True
        while True:
            msg = self._read_one(deadline)
            if msg is None:
                return False
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method:
                    return True

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            msg = self._read_one(deadline)
            if msg is None:
                return
            if "method" in msg:
                self.events.append(msg)


def _high_fd(fd: int) -> int:
    """A copy of ``fd`` numbered 10 or above (so that putting one end on 3 cannot overwrite the
    other), inheritable; the original is closed."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    os.set_inheritable(new, True)
    return new


def _text(args: list[dict[str, Any]]) -> str:
    parts = []
    for a in args:
        if "value" in a:
            parts.append(str(a["value"]))
        else:
            parts.append(a.get("description") or a.get("unserializableValue") or a.get("type", ""))
    return " ".join(parts)


def _collect(events: list[dict[str, Any]], out: Rendered) -> None:
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled":
            text = f"console.{p.get('type')}: {_text(p.get('args', []))}"
            if p.get("type") in ("error", "assert"):
                out.errors.append(text)
            elif p.get("type") == "warning":
                out.warnings.append(text)
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            exc = (d.get("exception") or {}).get("description") or d.get("text", "exception")
            out.errors.append(f"uncaught: {exc} ({d.get('url', '')}:{d.get('lineNumber', '?')})")
        elif m == "Log.entryAdded":
            entry = p.get("entry", {})
            text = f"{entry.get('source', 'log')}: {entry.get('text', '')} {entry.get('url', '')}".rstrip()
            if entry.get("level") == "error":
                out.errors.append(text)
            elif entry.get("level") == "warning":
                out.warnings.append(text)


def _start(exe: str, width: int, height: int, profile: str) -> tuple[subprocess.Popen, _Pipe]:
    """The headless browser, in a session of its own, and its DevTools pipe."""
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    child_in, child_out = _high_fd(to_browser_r), _high_fd(from_browser_w)
    flags = [
        "--headless",
        "--no-sandbox",  # root in a container has no user namespace for Chromium's sandbox
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--mute-audio",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        "--remote-debugging-pipe",
        "about:blank",
    ]
    # a Python trampoline puts the pipe's ends on the descriptors 3 and 4 the browser expects
    trampoline = f"import os, sys; os.dup2({child_in}, 3); os.dup2({child_out}, 4); os.execv(sys.argv[1], sys.argv[1:])"
    proc = subprocess.Popen(
        [sys.executable, "-c", trampoline, exe, *flags],
        pass_fds=(child_in, child_out),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(child_in)
    os.close(child_out)
    return proc, _Pipe(to_browser_w, from_browser_r, proc)


def _visit(cdp: _Pipe, out: Rendered, width: int, height: int, timeout: float) -> str:
    """Open a page of ``width`` x ``height`` and load ``out.url`` in it (its failures noted in
    ``out``); returns the DevTools session."""
    target = cdp.call("Target.createTarget", {"url": "about:blank"}, timeout=timeout)["targetId"]
    session = cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Page"):
        cdp.call(f"{domain}.enable", session=session)
    cdp.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    cdp.events.clear()  # only what the page itself causes
    nav = cdp.call("Page.navigate", {"url": out.url}, session=session, timeout=timeout)
    if nav.get("errorText"):
        out.errors.append(f"navigation: {nav['errorText']} {out.url}")
    if not cdp.wait_event("Page.loadEventFired", timeout):
        out.errors.append(f"the page did not finish loading within {timeout:.0f} s")
    cdp.drain(0.3)  # late console messages and failed loads
    return session


def _screenshot(
    cdp: _Pipe, session: str, shot: Path, out: Rendered, width: int, height: int, full_page: bool, timeout: float
) -> None:
    params: dict[str, Any] = {"format": "png"}
    if full_page:
        size = cdp.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
        params["clip"] = {"x": 0, "y": 0, "width": width, "height": max(height, size["height"]), "scale": 1}
        params["captureBeyondViewport"] = True
    data = base64.b64decode(cdp.call("Page.captureScreenshot", params, session=session, timeout=timeout)["data"])
    shot.parent.mkdir(parents=True, exist_ok=True)
    shot.write_bytes(data)
    out.screenshot, out.screenshot_bytes = shot, len(data)


def _stop(proc: subprocess.Popen, cdp: _Pipe, profile: str) -> None:
    """The browser's renderer and GPU processes too (it runs in a session of its own), the pipe's
    ends and the profile."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()
    for fd in (cdp.w, cdp.r):
        try:
            os.close(fd)
        except OSError:
            pass
    shutil.rmtree(profile, ignore_errors=True)


def render(
    page: str | Path,
    screenshot: str | Path | None = None,
    width: int = 1400,
    height: int = 1000,
    full_page: bool = False,
    chromium: str | None = None,
    timeout: float = 60.0,
) -> Rendered:
    """Load ``page`` (a file or a URL) in headless Chromium; returns the console's errors and
    warnings, and writes a PNG screenshot of the viewport (or the whole page)."""
    exe = find_chromium(chromium)
    if exe is None:
        raise BrowserError(f"no Chromium found (tried {', '.join(CANDIDATES)}; set KERNELOPT_CHROMIUM)")
    url = str(page) if "://" in str(page) else Path(page).resolve().as_uri()
    profile = tempfile.mkdtemp(prefix="kernelopt-chromium-")
    proc, cdp = _start(exe, width, height, profile)
    out = Rendered(url=url)
    try:
        session = _visit(cdp, out, width, height, timeout)
        if screenshot is not None:
            _screenshot(cdp, session, Path(screenshot), out, width, height, full_page, timeout)
        _collect(cdp.events, out)
        try:
            cdp.send("Browser.close")
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
    finally:
        _stop(proc, cdp, profile)
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m kernelopt.report.browser", description="screenshot a page in headless Chromium"
    )
    ap.add_argument("page", help="an HTML file or a URL")
    ap.add_argument("--screenshot", help="write a PNG here")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=1000)
    ap.add_argument("--full-page", action="store_true", help="the whole page, not just the viewport")
    ap.add_argument("--chromium", help="the browser's executable (default: chromium on PATH)")
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args(argv)
    try:
        r = render(args.page, args.screenshot, args.width, args.height, args.full_page, args.chromium, args.timeout)
    except BrowserError as e:
        print(f"browser: {e}")
        return 2
    if r.screenshot:
        print(f"screenshot: {r.screenshot} ({r.screenshot_bytes} bytes)")
    for w in r.warnings:
        print(f"console warning: {w}")
    for e in r.errors:
        print(f"console error: {e}")
    print(f"{len(r.errors)} console errors")
    return 1 if r.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
