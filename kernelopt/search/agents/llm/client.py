"""One Messages-API call as an artifact: cache, replay, budgets, a cross-job semaphore, costs.

Every call of every role goes through ``Caller.call`` and leaves
``<slot dir>/llm/<role>-<k>.json``: the request (model, system, messages, parameters — never a
header, so never the key), the response (id, text, stop reason), usage (input, output,
cache-creation, cache-read tokens), latency, cost and the HTTP attempts the SDK made (its own
retries with backoff: 429 honouring retry-after, 5xx, 529, timeouts).

Run-directory state lives in ``<workdir>/llm/``:

* ``cache/<hash>.json``: every reply by the hash of its request (which includes the call's
  place in the run), so a re-run or a killed run never pays twice;
* ``ledger.jsonl``: one line per paid call (problem, unit, USD), appended under a lock; the
  budgets (``max_usd_per_problem``, ``max_usd_total``, ``max_calls_per_unit``) are sums over it;
* ``slots/<k>.lock``: the semaphore that keeps at most ``max_concurrency`` calls in flight
  across every Snakemake job (jobs are processes);
* ``settings.json``: the operational settings of the current invocation (written by the
  workflow at start), so that changing a budget or a price never re-runs a job.

``replay`` answers every call from the transcript of the call at the same place in a finished
run (``replay_from``, another run directory) and never opens a connection.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....core.errors import KerneloptError
from ....core.jsonio import read_json, write_json
from ....core.records import (
    llm_ledger,
    llm_settings,
    llm_state_dir,
    llm_transcript,
    llm_transcripts,
    llm_transcripts_at,
)

KEY_ENV = "ANTHROPIC_API_KEY"
OPERATIONAL = (
    "timeout_s",
    "max_retries",
    "max_concurrency",
    "max_usd_per_problem",
    "max_usd_total",
    "max_calls_per_unit",
    "replay_from",
    "prices",
)


class LLMError(KerneloptError):
    """A call could not be answered."""


class BudgetExhausted(LLMError):
    """A budget is spent: the unit's search stops, with this as the recorded reason."""


class APIUnavailable(LLMError):
    """The API failed after the SDK's retries (an infrastructure fault, never a verdict)."""


class ReplayMissing(LLMError):
    """replay: the finished run has no transcript for this request."""


INFRASTRUCTURE = (APIUnavailable, ReplayMissing)  # faults of the job, never a candidate's verdict


def state_dir(workdir: Path) -> Path:
    return llm_state_dir(workdir)


def write_settings(workdir: str | Path, agent: dict[str, Any]) -> None:
    """The operational settings of this invocation (the workflow calls this at start)."""
    write_json(llm_settings(state_dir(Path(workdir))), {k: agent.get(k) for k in OPERATIONAL})


@dataclass
class Reply:
    text: str
    stop_reason: str | None
    usage: dict[str, int]
    usd: float
    transcript: Path
    cached: bool = False
    record: dict[str, Any] = field(default_factory=dict)


def cost_usd(usage: dict[str, int], prices: dict[str, float] | None) -> float:
    if not prices:
        return 0.0
    return round(
        (
            usage.get("input_tokens", 0) * prices["input"]
            + usage.get("output_tokens", 0) * prices["output"]
            + usage.get("cache_creation_input_tokens", 0) * prices["cache_write"]
            + usage.get("cache_read_input_tokens", 0) * prices["cache_read"]
        )
        / 1e6,
        6,
    )


def request_hash(request: dict[str, Any], place: str) -> str:
    blob = json.dumps({"request": request, "place": place}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextmanager
def semaphore(workdir: Path, n: int, poll_s: float = 0.2) -> Iterator[int]:
    """One of ``n`` slots, across processes (flock on ``llm/slots/<k>.lock``)."""
    d = state_dir(workdir) / "slots"
    d.mkdir(parents=True, exist_ok=True)
    while True:
        for k in range(n):
            f = open(d / f"{k}.lock", "a+")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                continue
            try:
                yield k
                return
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
                f.close()
        time.sleep(poll_s)


def ledger(workdir: Path) -> list[dict[str, Any]]:
    """Every paid call of the run directory (a torn or foreign line is skipped)."""
    path = llm_ledger(state_dir(workdir))
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("usd"), (int, float)):
            rows.append(row)
    return rows


def clear(where: Path, roles: list[str]) -> None:
    """A job's own transcripts from an earlier run of it (a re-run, or a switch of backend),
    removed when the job starts, so that accounting and replay see only what made the outputs."""
    for role in roles:
        for t in llm_transcripts_at(where, role):
            t.unlink(missing_ok=True)


def replay_index(run_dir: Path) -> dict[str, Path]:
    """The call's place in the run (``<slot dir>/<role>-<k>``) -> its transcript, over every
    transcript of a finished run.  Replay matches by place, not by the request's hash: a
    request quotes measured times and fresh seeds, which differ from run to run."""
    index = {}
    for t in llm_transcripts(run_dir):  # <run>/llm/ holds run state, not transcripts
        try:
            rec = read_json(t)
        except (OSError, ValueError):
            continue
        if rec.get("place") and (rec.get("response") or rec.get("budget")):
            index[rec["place"]] = t
    return index


class Caller:
    """Makes the calls of one job: everything it writes is under ``where/llm/`` and ``<workdir>/llm/``."""

    def __init__(self, agent: dict[str, Any], workdir: Path, problem: str, unit: str, where: Path):
        self.workdir, self.problem, self.unit, self.where = Path(workdir), problem, unit, Path(where)
        ops = {}
        sfile = llm_settings(state_dir(self.workdir))
        if sfile.exists():
            ops = read_json(sfile)
        from ....core.config import schema

        defaults = schema()["properties"]["agent"]["properties"]
        self.s = {k: v.get("default") for k, v in defaults.items()}
        self.s.update({k: v for k, v in agent.items() if v is not None})
        self.s.update({k: v for k, v in ops.items() if v is not None})
        self.s["prices"] = {**defaults["prices"]["default"], **(self.s.get("prices") or {})}
        self.backend = agent["backend"]
        self.counts: dict[str, int] = {}
        self._index: dict[str, Path] | None = None

    # -- where things go -----------------------------------------------------------------
    def place(self, role: str, k: int) -> str:
        """The call's place in the run, relative to the run directory (part of the cache key)."""
        rel = self.where.resolve().relative_to(self.workdir.resolve()).as_posix()
        return f"{rel}/{role}-{k}"

    def transcript_path(self, role: str, k: int) -> Path:
        return llm_transcript(self.where, role, k)

    # -- budgets ----------------------------------------------------------------------------
    def check_budget(self) -> None:
        with _locked(state_dir(self.workdir) / "ledger.lock"):
            rows = ledger(self.workdir)
        total = sum(r["usd"] for r in rows)
        mine = sum(r["usd"] for r in rows if r["problem"] == self.problem)
        calls = sum(1 for r in rows if r["problem"] == self.problem and r["unit"] == self.unit)
        if total >= float(self.s["max_usd_total"]):
            raise BudgetExhausted(f"budget: the run spent ${total:.4f} of max_usd_total ${self.s['max_usd_total']}")
        if mine >= float(self.s["max_usd_per_problem"]):
            raise BudgetExhausted(
                f"budget: {self.problem} spent ${mine:.4f} of max_usd_per_problem ${self.s['max_usd_per_problem']}"
            )
        if calls >= int(self.s["max_calls_per_unit"]):
            raise BudgetExhausted(
                f"budget: {calls} paid calls for this unit, max_calls_per_unit {self.s['max_calls_per_unit']}"
            )

    # -- the call ------------------------------------------------------------------------------
    def request(self, system: list[dict[str, Any]], messages: list[dict[str, Any]]) -> dict[str, Any]:
        req = {
            "model": self.s["model"],
            "max_tokens": int(self.s["max_tokens"]),
            "system": system,
            "messages": messages,
        }
        if self.s.get("temperature") is not None:
            req["temperature"] = float(self.s["temperature"])
        return req

    def call(self, role: str, system: list[dict[str, Any]], messages: list[dict[str, Any]]) -> Reply:
        k = self.counts.get(role, 0)
        self.counts[role] = k + 1
        req = self.request(system, messages)
        place = self.place(role, k)
        h = request_hash(req, place)
        path = self.transcript_path(role, k)
        rec: dict[str, Any] = {
            "role": role,
            "place": place,
            "request_hash": h,
            "backend": self.backend,
            "request": req,
        }
        cache = state_dir(self.workdir) / "cache" / f"{h}.json"
        if self.backend == "replay":
            if self._index is None:
                self._index = replay_index(Path(self.s["replay_from"]))
            src = self._index.get(place)
            if src is None:
                rec["error"] = "replay: the finished run made no call at this place"
                write_json(path, rec)
                raise ReplayMissing(f"{rec['error']} ({place})")
            old = read_json(src)
            if old.get("budget"):  # the finished run's budget ran out here: so does the replay
                write_json(path, {**rec, "budget": old["budget"]})
                raise BudgetExhausted(old["budget"])
            rec["request_matches"] = old.get("request_hash") == h  # False where measured inputs differ
            rec.update(
                response=old["response"], usage=old["usage"], usd=old["usd"], paid_usd=0.0, latency_s=0.0,
                attempts=[], cached=True, replayed_from=str(src),
            )  # fmt: skip
        elif cache.exists():
            old = read_json(cache)
            rec.update(
                response=old["response"], usage=old["usage"], usd=old["usd"], paid_usd=0.0, latency_s=0.0,
                attempts=[], cached=True,
            )  # fmt: skip
        else:
            rec.update(self._send(req, path, rec))
            with _locked(state_dir(self.workdir) / "ledger.lock"):  # paid: in the ledger first
                with open(llm_ledger(state_dir(self.workdir)), "a") as f:
                    row = {"problem": self.problem, "unit": self.unit, "place": place, "usd": rec["usd"]}
                    f.write(json.dumps(row) + "\n")
            write_json(cache, {k: rec[k] for k in ("response", "usage", "usd")})
        write_json(path, rec)
        return Reply(
            text=rec["response"]["text"],
            stop_reason=rec["response"].get("stop_reason"),
            usage=rec["usage"],
            usd=rec["usd"],
            transcript=path,
            cached=rec["cached"],
            record=rec,
        )

    def _send(self, req: dict[str, Any], path: Path, rec: dict[str, Any]) -> dict[str, Any]:
        import anthropic

        if not os.environ.get(KEY_ENV):
            raise APIUnavailable(f"agent.backend=anthropic needs {KEY_ENV} in the environment")
        attempts: list[dict[str, Any]] = []

        def on_request(request: Any) -> None:
            attempts.append({"t": round(time.time(), 3), "status": None})

        def on_response(response: Any) -> None:
            if attempts:
                attempts[-1]["status"] = response.status_code
                ra = response.headers.get("retry-after")
                if ra:
                    attempts[-1]["retry_after"] = ra

        http = anthropic.DefaultHttpxClient(event_hooks={"request": [on_request], "response": [on_response]})
        client = anthropic.Anthropic(
            timeout=float(self.s["timeout_s"]), max_retries=int(self.s["max_retries"]), http_client=http
        )  # the key and ANTHROPIC_BASE_URL come from the environment, nowhere else
        t0 = time.perf_counter()
        try:
            with semaphore(self.workdir, int(self.s["max_concurrency"])):
                # the budgets are checked holding a slot: at most max_concurrency calls in flight
                # can overshoot them
                try:
                    self.check_budget()
                except BudgetExhausted as e:
                    write_json(path, {**rec, "budget": str(e)})  # replay stops at the same place
                    raise
                t0 = time.perf_counter()  # latency counts from the slot, not the wait for it
                body = {k: v for k, v in req.items() if k != "temperature"}
                extra = {"temperature": req["temperature"]} if "temperature" in req else None
                msg = client.messages.create(**body, extra_body=extra)
        except anthropic.APIError as e:
            for a in attempts:
                if a["status"] is None:
                    a["status"] = "no response (timeout or connection error)"
            rec.update(
                error=f"{type(e).__name__}: {str(e)[:500]}",
                attempts=attempts,
                latency_s=round(time.perf_counter() - t0, 3),
            )
            write_json(path, rec)
            raise APIUnavailable(
                f"the Messages API failed after {len(attempts)} attempt(s): {type(e).__name__}: {str(e)[:200]}"
            ) from None
        finally:
            client.close()
        for a in attempts:
            if a["status"] is None:
                a["status"] = "no response (timeout or connection error)"
        text = "".join(b.text for b in msg.content if getattr(b, "type", "") == "text")
        u = msg.usage
        usage = {
            "input_tokens": int(u.input_tokens or 0),
            "output_tokens": int(u.output_tokens or 0),
            "cache_creation_input_tokens": int(getattr(u, "cache_creation_input_tokens", 0) or 0),
            "cache_read_input_tokens": int(getattr(u, "cache_read_input_tokens", 0) or 0),
        }
        usd = cost_usd(usage, self.s["prices"].get(req["model"]))
        return {
            "response": {"id": msg.id, "model": msg.model, "text": text, "stop_reason": msg.stop_reason},
            "usage": usage,
            "usd": usd,
            "paid_usd": usd,
            "latency_s": round(time.perf_counter() - t0, 3),
            "attempts": attempts,
            "cached": False,
        }


def transcripts_under(root: Path) -> list[dict[str, Any]]:
    """Every transcript below ``root`` (a problem's directory), for accounting."""
    out = []
    for t in llm_transcripts(root):
        try:
            out.append(read_json(t))
        except (OSError, ValueError):
            continue
    return out


def account(root: Path) -> dict[str, Any]:
    """LLM calls, tokens and USD of a problem directory (what its results cost, cached or not)."""
    calls = [t for t in transcripts_under(root) if t.get("response")]
    sums = {"llm_calls": len(calls), "input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
            "cache_write_tokens": 0, "usd": 0.0}  # fmt: skip
    for t in calls:
        u = t.get("usage", {})
        sums["input_tokens"] += u.get("input_tokens", 0)
        sums["output_tokens"] += u.get("output_tokens", 0)
        sums["cache_read_tokens"] += u.get("cache_read_input_tokens", 0)
        sums["cache_write_tokens"] += u.get("cache_creation_input_tokens", 0)
        sums["usd"] += float(t.get("usd", 0.0))
    sums["usd"] = round(sums["usd"], 6)
    return sums
