"""A fake Anthropic Messages API on 127.0.0.1, for the real ``anthropic`` SDK (ANTHROPIC_BASE_URL).

It answers ``POST /v1/messages`` (plain JSON, no streaming) like the API does: a message with
text content, a stop reason and usage, including prompt caching (a ``cache_control`` block's
prefix is written to the cache on first sight and read from it afterwards).  Faults are queued
per request: ``status`` (429 with retry-after, 500, 529 ...), ``delay`` (a reply slower than the
client's timeout), ``max_tokens`` (the reply cut, stop reason ``max_tokens``), ``text`` (a fixed
reply, e.g. one that does not parse).

``KernelSmith`` plays every kernelopt role from the prompts alone, the way a model would:
it resubmits Inductor's kernel as its synthesis, changes NUM_WARPS as the executor, answers
the analyst, planner and summarizer in JSON, and (``wrong_first=True``) writes a kernel that
adds 1.0 to every stored value on a unit's first synthesis attempt and on every executor call
with an odd direction, which the gates must reject; the fixer then removes the bug.  With
``kernels_dir``, a file ``<unit>.py`` there is the synthesizer's and executor's answer for that
unit (hand-written faster kernels, for the GPU run); several directories are searched in order
(e.g. a graph-level unit's rewritten kernel, tests/fixtures/llm_rewrites/kernels/).

Run standalone: ``python tests/fake_messages_api.py --port 8765 [--kernels DIR] [--wrong-first]``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _blocks(req: dict[str, Any]) -> list[tuple[str, bool]]:
    """(text, has cache_control) of every block in prompt order: system, then messages."""
    out = []
    system = req.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    for b in system:
        out.append((b.get("text", ""), bool(b.get("cache_control"))))
    for m in req.get("messages", []):
        content = m["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for b in content:
            out.append((f"{m['role']}:" + b.get("text", ""), bool(b.get("cache_control"))))
    return out


class FakeMessagesAPI:
    def __init__(self, responder: Any = None, port: int = 0):
        self.responder = responder or KernelSmith()
        self.faults: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []  # every request: headers (as received) and body
        self.cached: set[str] = set()
        self.lock = threading.Lock()
        self.n = 0
        self.inflight = self.max_inflight = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                with fake.lock:
                    fake.inflight += 1
                    fake.max_inflight = max(fake.max_inflight, fake.inflight)
                try:
                    self._post()
                finally:
                    with fake.lock:
                        fake.inflight -= 1

            def _post(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                with fake.lock:
                    fake.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    fault = fake.faults.pop(0) if fake.faults else None
                    fake.n += 1
                    n = fake.n
                if not self.path.rstrip("/").endswith("/v1/messages"):
                    err = {"type": "error", "error": {"type": "not_found_error", "message": self.path}}
                    return self._send(404, err)
                if fault and fault["kind"] == "delay":
                    time.sleep(fault["seconds"])
                if fault and fault["kind"] == "status":
                    kinds = {429: "rate_limit_error", 529: "overloaded_error", 400: "invalid_request_error"}
                    err = {"type": "error", "error": {"type": kinds.get(fault["code"], "api_error"), "message": "fake"}}
                    return self._send(fault["code"], err, fault.get("headers", {}))
                text = fault["text"] if fault and fault["kind"] == "text" else fake.responder(body)
                stop = "end_turn"
                if fault and fault["kind"] == "max_tokens":
                    text, stop = text[: max(1, len(text) // 2)], "max_tokens"
                self._send(200, fake.message(body, text, stop, n))

            def _send(self, code: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(obj).encode()
                try:
                    self.send_response(code)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.send_header("request-id", f"req_fake_{fake.n}")
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeMessagesAPI:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def message(self, req: dict[str, Any], text: str, stop: str, n: int) -> dict[str, Any]:
        blocks = _blocks(req)
        total = sum(tokens(t) for t, _ in blocks)
        read = write = 0
        prefix, upto = hashlib.sha256(), 0
        with self.lock:
            for t, cc in blocks:
                prefix.update(t.encode())
                upto += tokens(t)
                if cc:
                    key = prefix.hexdigest()
                    if key in self.cached:
                        read = upto
                    else:
                        self.cached.add(key)
                        write = upto
        write = max(0, write - read)
        return {
            "id": f"msg_fake_{n:05d}",
            "type": "message",
            "role": "assistant",
            "model": req.get("model", "?"),
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": max(0, total - read - write),
                "output_tokens": tokens(text),
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
            },
        }


# -- the roles, played from the prompts ------------------------------------------------------------
def _section(text: str, title: str) -> str | None:
    """The ```python block that follows the heading that starts with ``title``."""
    i = text.find(f"## {title}")
    if i < 0:
        return None
    m = FENCE.search(text, i)
    return m.group(1) if m else None


def _with_bug(src: str) -> str:
    """Every tl.store(ptr, value, ...) stores value + 1.0 (a wrong kernel the gates must reject)."""
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "store":
            if len(node.args) >= 2:
                node.args[1] = ast.BinOp(node.args[1], ast.Add(), ast.Constant(1.0))
    return "# fake LLM: a wrong kernel (every stored value + 1.0)\n" + ast.unparse(tree) + "\n"


def _without_bug(src: str) -> str:
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "store":
            v = node.args[1] if len(node.args) >= 2 else None
            if isinstance(v, ast.BinOp) and isinstance(v.right, ast.Constant) and v.right.value == 1.0:
                node.args[1] = v.left
    return "# fake LLM fixer: removed the + 1.0 from the stores\n" + ast.unparse(tree) + "\n"


def _warps(src: str, k: int) -> str:
    m = re.search(r"^NUM_WARPS = (\d+)", src, re.M)
    if not m:
        return src.rstrip() + f"\n# fake LLM executor: direction {k}\n"
    n = int(m.group(1))
    new = [w for w in (1, 2, 4, 8, 16) if w != n][k % 4]
    return src[: m.start()] + f"NUM_WARPS = {new}" + src[m.end() :]


def _user_text(req: dict[str, Any]) -> str:
    parts = []
    for m in req.get("messages", []):
        if m["role"] != "user":
            continue
        content = m["content"]
        parts += [content] if isinstance(content, str) else [b.get("text", "") for b in content]
    return "\n\n".join(parts)


class KernelSmith:
    def __init__(self, wrong_first: bool = False, kernels_dir: str | Path | list[str | Path] | None = None):
        self.wrong_first = wrong_first
        dirs = kernels_dir if isinstance(kernels_dir, (list, tuple)) else [kernels_dir] if kernels_dir else []
        self.kernels_dirs = [Path(d) for d in dirs]

    def _own(self, text: str) -> str | None:
        m = re.search(r"## Unit `([^`]+)`", text)
        for d in self.kernels_dirs if m else []:
            if (d / f"{m.group(1)}.py").exists():
                return (d / f"{m.group(1)}.py").read_text()
        return None

    def __call__(self, req: dict[str, Any]) -> str:
        system = "".join(b.get("text", "") for b in (req.get("system") or []))
        text = _user_text(req)
        role = re.search(r"You are the (?:strategy )?(\w+)", system)
        role = role.group(1) if role else "?"
        if role == "synthesizer":
            own = self._own(text)
            if own:
                return f"A hand-written kernel for this unit.\n```python\n{own}```\n"
            src = _section(text, "Inductor's kernel for this unit") or ""
            first = "Write synthesis attempt 1 " in text
            if self.wrong_first and first:
                return f"Plan: resubmit the reference kernel.\n```python\n{_with_bug(src)}```\n"
            return f"Plan: Inductor's kernel is already a good start.\n```python\n{src}```\n"
        if role == "analyst":
            t = re.search(r"time_ms: ([0-9.e+-]+)", text)
            ev = [f"time_ms: {t.group(1)}, the measured time" if t else "no time in the profile"]
            return "The kernel streams its inputs once.\n```json\n" + json.dumps(
                {"bottleneck": "memory-bound", "evidence": ev}
            ) + "\n```\n"  # fmt: skip
        if role == "planner":
            m = re.search(r"at most (\d+) directions \(member ids: ([^)]*)\)", text)
            width, ids = (int(m.group(1)), [s.strip() for s in m.group(2).split(",")]) if m else (1, [])
            dirs = [
                {
                    "member": ids[k % len(ids)],
                    "name": f"warps-variant-{k}",
                    "rationale": "memory-bound: try another number of warps",
                    "prediction": "a few percent either way",
                    "instructions": f"change NUM_WARPS (variant {k})",
                }
                for k in range(width if ids else 0)
            ]
            return "```json\n" + json.dumps({"directions": dirs}) + "\n```\n"
        if role == "executor":
            k = re.search(r"variant (\d+)", text)
            k = int(k.group(1)) if k else 0
            own = self._own(text)
            out = own if own else _warps(_section(text, "Beam member") or "", k)
            if self.wrong_first and k % 2 == 1:
                out = _with_bug(out)
            return f"Applied.\n```python\n{out}```\n"
        if role == "fixer":
            src = _section(text, "The failed candidate") or ""
            return f"Cause: every stored value had 1.0 added.\n```python\n{_without_bug(src)}```\n"
        if role == "summarizer":
            it = re.search(r"Iteration (\d+) is done", text)
            note = f"iteration {it.group(1) if it else '?'}: warps variants tried"
            return "```json\n" + json.dumps({"notes": [note]}) + "\n```\n"
        return "I do not know this role."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--kernels", default=None, action="append", help="directory of <unit>.py answers (repeatable)")
    ap.add_argument("--wrong-first", action="store_true")
    ap.add_argument("--log", default=None, help="write every request body here (JSON lines) at exit")
    a = ap.parse_args()
    fake = FakeMessagesAPI(KernelSmith(a.wrong_first, a.kernels), a.port)
    print(f"fake Messages API on {fake.base_url}", flush=True)
    try:
        fake.server.serve_forever()
    finally:
        if a.log:
            Path(a.log).write_text("".join(json.dumps(r["body"]) + "\n" for r in fake.requests))


if __name__ == "__main__":
    main()
