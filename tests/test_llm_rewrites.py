"""Graph-level units (issue 16) in the LLM backend's prompts, through the real anthropic SDK and
the fake Messages API (tests/fake_messages_api.py): the synthesizer, planner, executor and fixer
of the small diagonal product's unit ``rw_diag_matmul_buf1`` (tests/fixtures/llm_rewrites/) are
shown its whole FX subgraph with dtypes and shapes, the launches it replaces (the Triton kernel
and ``extern_kernels.mm``), the analysis' finding, and are asked for the algebraic
simplification first; the reply goes through the same protocol and gate 1 as any other; a unit
that is not graph-level gets the prompt it had.  The pipeline end to end with the fake:
tests/test_llm_pipeline.py."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import ROOT
from fake_messages_api import FakeMessagesAPI, _user_text
from test_llm import CONTRACT, INDUCTOR, REFERENCE

from kernelopt.core.records import Contract
from kernelopt.gates.form import static_problems
from kernelopt.search import agents
from kernelopt.search.agents.base import Analysis, Direction, Memory
from kernelopt.search.agents.llm.client import write_settings
from kernelopt.search.agents.roles.common import code, contract_text, system
from kernelopt.search.agents.roles.graph import fx_subgraph, section
from kernelopt.search.synth.ops import CannotSynthesize
from kernelopt.search.synth.rewrites import diag_matmul

KEY = "sk-ant-fake-rewrites-0c1d-never-on-disk"
FIXTURES = ROOT / "tests/fixtures/llm_rewrites"
PROBLEM, UNIT = "level1_1_DiagMatmul", "rw_diag_matmul_buf1"
UNIT_DIR = FIXTURES / PROBLEM / "units" / UNIT
GRAPH = "## The unit's whole graph: a graph-level unit (rewrite `diag-matmul`)"
FIRST = "### Algebraic simplification first"


def contract():
    return Contract.load(UNIT_DIR / "contract.json")


class Answers:
    """The role's answer by the system prompt's role: a kernel (the row scaling) for the kernel
    roles, a direction for the planner; every request is kept by the fake."""

    def __init__(self):
        self.kernel = diag_matmul(contract(), 0)

    def __call__(self, req):
        role = "".join(b.get("text", "") for b in req["system"]).split(".")[0]
        if "planner" in role:
            d = {"member": "synth/a0", "name": "tiles", "instructions": "BLOCK_N = 8: the output has 8 columns"}
            return "```json\n" + json.dumps({"directions": [d]}) + "\n```\n"
        return f"A row scaling of B: the GEMM and the diagonal matrix dropped.\n```python\n{self.kernel}```\n"


@pytest.fixture
def fake(monkeypatch):
    with FakeMessagesAPI(Answers()) as f:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        yield f


@pytest.fixture
def wd(tmp_path):
    """A run directory holding the problem's capture and the unit's files (as the pipeline wrote them)."""
    shutil.copytree(FIXTURES / PROBLEM, tmp_path / PROBLEM)
    write_settings(tmp_path, {"backend": "anthropic", "timeout_s": 30})
    return tmp_path


def backend(wd, unit=UNIT, problem=PROBLEM):
    return agents.backend({"backend": "anthropic"}, wd, problem, unit, wd / problem / "units" / unit / "synth/a0")


def static_text(req):
    return req["messages"][0]["content"][0]["text"]


def test_the_synthesizer_of_a_graph_level_unit_sees_the_whole_graph_the_finding_and_simplifies_first(wd, fake):
    c = contract()
    ref, inductor = (UNIT_DIR / "reference.py").read_text(), (UNIT_DIR / "inductor.py").read_text()
    src = backend(wd).synthesize(c, ref, inductor, [], hints="Class of this unit: pointwise.")
    assert src == diag_matmul(c, 0)  # the reply, through the same protocol
    (req,) = [r["body"] for r in fake.requests]
    text = _user_text(req)
    # the whole FX subgraph, every value with its dtype and shape, from the graph inputs to the output
    assert GRAPH in text and "Device: cpu; a graph-level unit (rewrite `diag-matmul`) of 2 launches." in text
    assert 'def unit(arg0_1: "f32[16]", arg1_1: "f32[16, 8]"):' in text
    assert "# model source: return torch.diag(A) @ B" in text
    for line in (
        'eq: "b8[16, 16]" = torch.ops.aten.eq.Tensor(iota, unsqueeze_1)',
        'where: "f32[16, 16]" = torch.ops.aten.where.self(eq, permute, full_default)',
        'mm: "f32[16, 8]" = torch.ops.aten.mm.default(where, arg1_1)',
        "return {'buf1': mm}",
    ):
        assert line in text, line
    assert "= None" not in text.split(GRAPH, 1)[1].split("```", 2)[1]  # FX's last-use tails dropped
    # the launches it replaces, the library call among them, and the analysis' finding
    assert "- `extern_kernels.mm(buf0, arg1_1, out=buf1)` (library call)" in text
    assert "- `triton_poi_fused_diag_embed_0.run(arg0_1, buf0, 256" in text and "(Triton kernel)" in text
    r = c.rewrite
    assert f"Why it holds: {r['why']}" in text and f"What it saves: {r['win']}" in text
    assert "dense = `arg1_1`, scale = `arg0_1`, side = `left`" in text
    # asked for the algebraic simplification first, in the unchanged candidate form
    assert FIRST in text and "drop\nthe library call" in text and "The candidate form is unchanged" in text
    assert "It is a graph-level unit: the algebraic simplification first." in req["messages"][0]["content"][1]["text"]
    # Inductor's code is the baseline, not "a correct reference implementation" to resubmit; no one-kernel class
    assert "Inductor's code for this unit: its Triton kernels and library calls" in text and "extern_kernels" in text
    assert "a correct reference implementation" not in text and "Class of this unit" not in text
    # the whole section is in the cached static part; the system prompt is the role's own
    assert GRAPH in static_text(req) and req["system"] == system("synthesizer")


def test_the_planner_executor_and_fixer_of_a_graph_level_unit_see_it_too(wd, fake):
    c = contract()
    be = backend(wd)
    member = diag_matmul(c, 1)
    beam = [{"id": "synth/a0", "source": member, "ratio": 1.0}]
    plan = be.plan(1, beam, {"synth/a0": Analysis("synth/a0", "memory-bound", ["x"])}, c, Memory(), 2)
    (d,) = plan.directions
    assert be.execute(d, member, c) == diag_matmul(c, 0)
    failure = {"gate": 2, "verdict": "fail", "rule": "mismatch", "reason": "max abs error 1.0"}
    ref = (UNIT_DIR / "reference.py").read_text()
    fixed = be.apply_fix(Direction("synth/a0", "llm-fix", {}, "fix", "", ""), member, member, failure, c, ref)
    assert fixed == diag_matmul(c, 0)
    reqs = {r["body"]["system"][0]["text"].split(".")[0]: r["body"] for r in fake.requests}
    assert len(reqs) == 3
    for req in reqs.values():
        assert GRAPH in static_text(req) and FIRST in static_text(req)
        assert 'mm: "f32[16, 8]" = torch.ops.aten.mm.default(where, arg1_1)' in static_text(req)


def test_a_unit_that_is_not_graph_level_gets_the_prompt_it_had(tmp_path, fake):
    write_settings(tmp_path, {"backend": "anthropic", "timeout_s": 30})
    be = backend(tmp_path, "u", "p")
    be.synthesize(CONTRACT, REFERENCE, INDUCTOR, [], hints="Class of this unit: pointwise.")
    (req,) = [r["body"] for r in fake.requests]
    assert static_text(req) == "\n\n".join(
        [
            contract_text(CONTRACT),
            code("The eager reference (ATen ops of Inductor's post-grad graph)", REFERENCE),
            code("Inductor's kernel for this unit (a correct reference implementation)", INDUCTOR),
            "## The unit's class, its roof and a template\n\nClass of this unit: pointwise.",
        ]
    )
    assert req["messages"][0]["content"][1]["text"] == "Write synthesis attempt 1 for this unit."
    assert be.graph(CONTRACT) == "" and section(CONTRACT, REFERENCE, "") == ""
    beam = [{"id": "synth/a0", "source": INDUCTOR, "ratio": 1.0}]
    be.plan(1, beam, {"synth/a0": Analysis("synth/a0", "memory-bound", ["x"])}, CONTRACT, Memory(), 1)
    assert static_text(fake.requests[-1]["body"]) == contract_text(CONTRACT)
    assert not any("Algebraic simplification" in _user_text(r["body"]) for r in fake.requests)


def test_without_the_post_grad_graph_the_subgraph_is_the_references_with_the_contracts_shapes():
    c = contract()
    text = fx_subgraph(c, (UNIT_DIR / "reference.py").read_text(), "")
    assert text.startswith('def unit(arg0_1: "f32[16]", arg1_1: "f32[16, 8]"):')
    assert "mm = torch.ops.aten.mm.default(where, arg1_1)" in text and "x1" not in text
    assert text.endswith("return {'buf1': mm}  # written to the unit's output argument(s): buf1 f32[16, 8]")


def test_a_graph_level_reply_meets_the_same_protocol_and_gate_1(wd, fake):
    """No special path: a reply without a kernel is unparseable (asked once more, then the slot is
    empty with the reason), and what parses is held to the candidate form like any candidate:
    the row scaling passes gate 1's form check, a reply that keeps the library call does not."""
    c = contract()
    fake.faults = [{"kind": "text", "text": "Use a row scaling."}]
    with pytest.raises(CannotSynthesize, match="no fenced ```python block"):
        backend(wd).synthesize(c, (UNIT_DIR / "reference.py").read_text(), "", [])
    assert static_problems(diag_matmul(c, 0), c) == []
    keeps_mm = (UNIT_DIR / "inductor.py").read_text()
    assert any("extern_kernels" in why or "torch" in why for _, why, _ in static_problems(keeps_mm, c))
