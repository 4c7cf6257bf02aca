"""The LLM path through the real anthropic SDK, pointed at a fake Messages API on 127.0.0.1
(tests/fake_messages_api.py): faults, retries, timeouts, cut and unparseable replies, the
response cache, budgets, the cross-job semaphore, prompt caching, and the key never on disk."""

from __future__ import annotations

import json
import threading

import pytest
from conftest import ROOT
from fake_messages_api import FakeMessagesAPI, KernelSmith

from kernelopt.core.errors import ConfigError
from kernelopt.core.records import Contract
from kernelopt.search import agents
from kernelopt.search.agents.base import Memory, ProfileSummary
from kernelopt.search.agents.llm import protocol
from kernelopt.search.agents.llm.client import APIUnavailable, BudgetExhausted, Caller, ledger, write_settings
from kernelopt.search.synth.ops import CannotSynthesize

KEY = "sk-ant-fake-0123456789abcdef-never-on-disk"
CONTRACT = Contract.from_dict(
    {
        "unit": "triton_poi_fused_add_0",
        "problem": "level1_9_Add",
        "kernel": "triton_poi_fused_add_0",
        "heuristic": "pointwise",
        "device": "cpu",
        "args": [
            {"kind": "tensor", "name": "in_ptr0", "shape": [64], "stride": [1], "dtype": "float32", "access": "read"},
            {"kind": "tensor", "name": "out_ptr0", "shape": [64], "stride": [1], "dtype": "float32", "access": "write"},
            {"kind": "scalar", "name": "xnumel", "type": "int", "value": 64},
        ],
        "aten_ops": ["aten.add.Tensor"],
    }
)
INDUCTOR = """import triton
import triton.language as tl

@triton.jit
def k(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    x = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    m = x < xnumel
    tl.store(out_ptr0 + x, tl.load(in_ptr0 + x, m) + 1.0, m)

NUM_WARPS = 4

def launch(in_ptr0, out_ptr0, xnumel):
    k[(1,)](in_ptr0, out_ptr0, xnumel, XBLOCK=64, num_warps=NUM_WARPS)
"""
REFERENCE = "def reference(**args):\n    return {'out_ptr0': args['in_ptr0'] + 1.0}\n"


@pytest.fixture
def fake(monkeypatch):
    with FakeMessagesAPI(KernelSmith()) as f:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        yield f


def llm(tmp_path, **agent):
    cfg = {"backend": "anthropic", "max_retries": 4, "timeout_s": 30, **agent}
    write_settings(tmp_path, cfg)
    where = tmp_path / "p/units/u/synth/a0"
    return agents.backend(cfg, tmp_path, "p", "u", where)


def transcripts(root):
    return {
        p.relative_to(root).as_posix(): json.loads(p.read_text())
        for p in sorted(root.glob("**/llm/*.json"))
        if p.parent.parent != root  # <run>/llm/ is run state (settings), not a transcript
    }


def assert_key_nowhere(root):
    for p in root.rglob("*"):
        if p.is_file():
            assert KEY not in p.read_text(errors="replace"), p


def test_a_synthesis_call_is_an_artifact_with_usage_cost_and_no_key(tmp_path, fake):
    be = llm(tmp_path)
    src = be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    assert "@triton.jit" in src and "def launch" in src
    (name, t), *_ = transcripts(tmp_path).items()
    assert name == "p/units/u/synth/a0/llm/synthesizer-0.json"
    assert t["request"]["model"] == "claude-sonnet-4-6" and t["request"]["system"][0]["cache_control"]
    assert t["response"]["id"].startswith("msg_fake_") and t["response"]["stop_reason"] == "end_turn"
    u = t["usage"]
    assert u["input_tokens"] + u["cache_creation_input_tokens"] > 100 and u["output_tokens"] > 10
    expect = (u["input_tokens"] * 3 + u["output_tokens"] * 15 + u["cache_creation_input_tokens"] * 3.75) / 1e6
    assert t["usd"] == pytest.approx(expect, abs=1e-6) and t["usd"] > 0
    assert t["attempts"] == [{"t": t["attempts"][0]["t"], "status": 200}] and t["parsed"] is True
    # the SDK sent the key to the server, and nothing on disk holds it
    sent = {k.lower(): v for k, v in fake.requests[0]["headers"].items()}
    assert KEY in (sent.get("x-api-key"), sent.get("authorization", "").removeprefix("Bearer "))
    assert_key_nowhere(tmp_path)


def test_429_with_retry_after_500_and_529_are_retried_by_the_sdk(tmp_path, fake):
    fake.faults = [
        {"kind": "status", "code": 429, "headers": {"retry-after": "1"}},
        {"kind": "status", "code": 500},
        {"kind": "status", "code": 529},
    ]
    be = llm(tmp_path)
    be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    t = next(iter(transcripts(tmp_path).values()))
    assert [a["status"] for a in t["attempts"]] == [429, 500, 529, 200]
    assert t["attempts"][0]["retry_after"] == "1"
    assert t["attempts"][1]["t"] - t["attempts"][0]["t"] >= 0.95  # retry-after honoured
    assert len(fake.requests) == 4


def test_a_reply_slower_than_the_timeout_is_retried(tmp_path, fake):
    fake.faults = [{"kind": "delay", "seconds": 3.0}]
    be = llm(tmp_path, timeout_s=1.0)
    be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    t = next(iter(transcripts(tmp_path).values()))
    assert t["attempts"][0]["status"].startswith("no response") and t["attempts"][-1]["status"] == 200


def test_an_api_that_keeps_failing_is_an_infrastructure_fault_not_a_verdict(tmp_path, fake):
    fake.faults = [{"kind": "status", "code": 500}] * 3
    be = llm(tmp_path, max_retries=2)
    with pytest.raises(APIUnavailable, match="after 3 attempt"):
        be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    t = next(iter(transcripts(tmp_path).values()))
    assert "InternalServerError" in t["error"] and [a["status"] for a in t["attempts"]] == [500, 500, 500]
    assert not ledger(tmp_path)  # nothing paid, nothing cached
    assert not (tmp_path / "llm/cache").exists() or not list((tmp_path / "llm/cache").iterdir())
    assert_key_nowhere(tmp_path)


def test_a_reply_cut_by_max_tokens_is_a_failed_attempt_with_the_reply_kept(tmp_path, fake):
    fake.faults = [{"kind": "max_tokens"}]
    be = llm(tmp_path)
    with pytest.raises(CannotSynthesize, match="max_tokens"):
        be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    t = next(iter(transcripts(tmp_path).values()))
    assert t["response"]["stop_reason"] == "max_tokens" and t["parsed"] is False and t["response"]["text"]


def test_an_unparseable_analysis_is_asked_again_then_falls_back(tmp_path, fake):
    summary = ProfileSummary("inductor", "roofline", {"time_ms": 0.5}, "member inductor\ntime_ms: 0.5")
    fake.faults = [{"kind": "text", "text": "It is memory-bound, I think."}]
    be = llm(tmp_path)
    a = be.analyze(summary, CONTRACT, Memory(), kernel=INDUCTOR)
    assert a.bottleneck == "memory-bound" and a.evidence == ["time_ms: 0.5, the measured time"]
    ts = transcripts(tmp_path)
    assert [t["parsed"] for t in ts.values()] == [False, True]
    assert "no fenced ```json block" in ts["p/units/u/synth/a0/llm/analyst-0.json"]["parse_error"]
    # both attempts unusable: the heuristic analysis, saying so
    fake.faults = [{"kind": "text", "text": '```json\n{"bottleneck": "slow"}\n```'}] * 2
    a = be.at(tmp_path / "p/units/u/iter1").analyze(summary, CONTRACT, Memory(), kernel=INDUCTOR)
    assert a.evidence[0].startswith("analyst reply unusable") and "schema" in a.evidence[0]


def test_the_response_cache_never_pays_twice(tmp_path, fake):
    be = llm(tmp_path)
    first = be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    again = llm(tmp_path).synthesize(CONTRACT, REFERENCE, INDUCTOR, [])  # a re-run of the same job
    assert first == again and len(fake.requests) == 1 and len(ledger(tmp_path)) == 1
    t = next(iter(transcripts(tmp_path).values()))
    assert t["cached"] is True and t["paid_usd"] == 0.0 and t["usd"] > 0


def test_the_static_prompt_part_is_read_from_the_prompt_cache_on_later_calls(tmp_path, fake):
    be = llm(tmp_path)
    be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    be.at(tmp_path / "p/units/u/synth/a1").synthesize(CONTRACT, REFERENCE, INDUCTOR, [{"why": "gate 2 mismatch"}])
    ts = list(transcripts(tmp_path).values())
    assert ts[0]["usage"]["cache_read_input_tokens"] == 0 and ts[0]["usage"]["cache_creation_input_tokens"] > 0
    assert ts[1]["usage"]["cache_read_input_tokens"] == ts[0]["usage"]["cache_creation_input_tokens"]


def test_budgets_stop_the_calls_with_the_reason(tmp_path, fake):
    be = llm(tmp_path, max_calls_per_unit=1)
    be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    with pytest.raises(CannotSynthesize, match="max_calls_per_unit"):
        be.at(tmp_path / "p/units/u/synth/a1").synthesize(CONTRACT, REFERENCE, INDUCTOR, [{"why": "x"}])
    be = llm(tmp_path, max_usd_per_problem=0.000001)
    with pytest.raises(BudgetExhausted, match="max_usd_per_problem"):
        Caller({"backend": "anthropic"}, tmp_path, "p", "v", tmp_path / "p/units/v").check_budget()
    assert len(fake.requests) == 1


def test_max_concurrency_holds_across_callers(tmp_path, fake):
    write_settings(tmp_path, {"max_concurrency": 1, "timeout_s": 30})
    fake.faults = [{"kind": "delay", "seconds": 0.4}] * 3
    errors = []

    def one(k):
        try:
            agents.backend({"backend": "anthropic"}, tmp_path, "p", f"u{k}", tmp_path / f"p/units/u{k}").synthesize(
                CONTRACT, REFERENCE, INDUCTOR, []
            )
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(fake.requests) == 3 and fake.max_inflight == 1


def test_reply_protocol():
    src = "x = 1\n```python\n@triton.jit\ndef a(): pass\n```\nthen\n```python\n@triton.jit\ndef b(): pass\n```\n"
    assert "def b" in protocol.kernel(src)
    with pytest.raises(protocol.Unparseable, match="max_tokens"):
        protocol.kernel("```python\n@triton.jit\ndef a(): pass\n", "max_tokens")
    with pytest.raises(protocol.Unparseable, match="max_tokens"):  # a complete block before the cut
        protocol.kernel(src + "```python\n@triton.jit\ndef c(", "max_tokens")
    with pytest.raises(protocol.Unparseable, match="schema"):
        protocol.json_block('```json\n{"a": 1}\n```', {"type": "object", "required": ["b"]})


def test_anthropic_without_a_key_stops_at_config_time(tmp_path, monkeypatch):
    from kernelopt.core.config import validate

    agent = validate({})["agent"]
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        agents.prepare({**agent, "backend": "anthropic"}, tmp_path)
    assert agents.prepare(agent, tmp_path) == "heuristic"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert agents.prepare(agent, tmp_path) == "anthropic"
    assert KEY not in (tmp_path / "llm/settings.json").read_text()
    with pytest.raises(ConfigError, match="no row in agent.prices"):
        agents.prepare({**agent, "model": "claude-unpriced-9"}, tmp_path)
    with pytest.raises(ConfigError, match="needs agent.replay_from"):
        agents.prepare({**agent, "backend": "replay"}, tmp_path)
    with pytest.raises(ConfigError, match="own workdir"):
        agents.prepare({**agent, "backend": "replay", "replay_from": str(tmp_path)}, tmp_path)
    with pytest.raises(ConfigError, match="no LLM transcripts"):
        agents.prepare({**agent, "backend": "replay", "replay_from": str(tmp_path / "none")}, tmp_path / "new")


def test_a_budget_hit_is_on_disk_and_replay_stops_at_the_same_place(tmp_path, fake):
    run, again = tmp_path / "run", tmp_path / "again"
    first = llm(run, max_calls_per_unit=1).synthesize(CONTRACT, REFERENCE, INDUCTOR, [])
    a1 = run / "p/units/u/synth/a1"
    with pytest.raises(CannotSynthesize, match="max_calls_per_unit"):
        llm(run, max_calls_per_unit=1).at(a1).synthesize(CONTRACT, REFERENCE, INDUCTOR, [{"why": "x"}])
    assert "max_calls_per_unit" in json.loads((a1 / "llm/synthesizer-0.json").read_text())["budget"]
    write_settings(again, {"replay_from": str(run)})
    be = agents.backend({"backend": "replay"}, again, "p", "u", again / "p/units/u/synth/a0")
    assert be.synthesize(CONTRACT, REFERENCE, INDUCTOR, []) == first
    with pytest.raises(CannotSynthesize, match="max_calls_per_unit"):
        be.at(again / "p/units/u/synth/a1").synthesize(CONTRACT, REFERENCE, INDUCTOR, [{"why": "x"}])
    assert len(fake.requests) == 1


def test_candidate_processes_get_no_credentials(monkeypatch):
    from kernelopt.core.runtime import child_env

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("OTHER_SERVICE_API_KEY", "x")
    env = child_env(TMPDIR="/tmp/x")
    assert "ANTHROPIC_API_KEY" not in env and "OTHER_SERVICE_API_KEY" not in env and env["TMPDIR"] == "/tmp/x"
    assert KEY not in json.dumps(env) and env.get("PATH") == __import__("os").environ.get("PATH")


FREE_FORM = (
    ROOT
    / "tests/fixtures/candidates_h200/level1_1_Softmax/triton_red_fused__softmax_exp_prepare_softmax_online_sub_0.py"
).read_text()


def test_a_free_form_kernel_has_a_signature_and_the_planner_fallback_skips_it(tmp_path, fake):
    from kernelopt.search.agents.base import Analysis
    from kernelopt.search.transform import is_inductor_form, signature

    assert not is_inductor_form(FREE_FORM)
    assert is_inductor_form(INDUCTOR.replace("NUM_WARPS = 4", "CONFIG = {}\nNUM_WARPS = 4"))
    sig = signature(FREE_FORM)
    assert sig.startswith("free-form launch") and sig != signature(FREE_FORM.replace("32 if", "16 if"))
    assert signature(FREE_FORM + "\n# a comment\n") == sig and signature("def (").startswith("does not parse")
    assert signature(INDUCTOR + "CONFIG = {'XBLOCK': BLOCK}\n").startswith("free-form launch")  # not a literal
    fake.faults = [{"kind": "text", "text": "no plan"}] * 2
    be = llm(tmp_path)
    beam = [{"id": "synth/a0", "source": FREE_FORM, "ratio": 1.0}]
    plan = be.plan(1, beam, {"synth/a0": Analysis("synth/a0", "memory-bound", ["x"])}, CONTRACT, Memory(), 2)
    assert plan.directions == [] and plan.stop.startswith("planner reply unusable")
    assert "0 inductor-form member(s)" in plan.diversity[0]
