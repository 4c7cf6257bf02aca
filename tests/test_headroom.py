"""problems/headroom/ (issue 13): the suite builds at its full sizes on the ``meta`` device, its
small copies (bench/headroom_small.py) cover every problem, and on CPU the pipeline reaches the
new templates end to end: an average pool, and a suffix sum Inductor splits into two kernels (one
fusible region, one scan kernel, stitched, gate 3)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch
from conftest import ROOT, snakemake

from kernelopt.core import problems
from kernelopt.core.records import Contract
from kernelopt.search.synth.generate import source_of

sys.path.insert(0, str(ROOT / "bench"))
import headroom_small  # noqa: E402
import headroom_table  # noqa: E402

SUITE = sorted((ROOT / "problems/headroom").rglob("*.py"))


def test_the_suite_has_two_problems_per_class_and_small_copies_of_all():
    names = {f"{p.parent.name}/{p.stem}" for p in SUITE}
    assert names == set(headroom_small.SMALL)
    classes = Counter(headroom_table.problem_class(f"{n.split('/')[0]}_{n.split('/')[1]}") for n in names)
    assert "other" not in classes and min(classes.values()) >= 1
    assert sum(classes.values()) == len(names) and len(classes) >= 10
    assert all(n >= 2 for c, n in classes.items() if c != "GroupNorm"), classes  # GroupNorm: 1 + 2 after convs


@pytest.mark.parametrize("path", SUITE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_headroom_problem_runs_on_meta_and_small(path, tmp_path):
    mod = problems.load(path).module
    with torch.device("meta"):
        out = mod.Model(*mod.get_init_inputs())(*mod.get_inputs())
    assert out.device.type == "meta"
    small = tmp_path / "small.py"
    small.write_text(headroom_small.small_source(f"{path.parent.name}/{path.stem}"))
    smod = problems.load(small).module
    ins = smod.get_inputs()
    assert max(t.numel() for t in ins) <= 4096  # the interpreter's budget, as the demo's
    with torch.no_grad():
        assert torch.isfinite(smod.Model(*smod.get_init_inputs())(*ins)).all()


def test_a_unit_far_from_its_roof_gets_its_class_template_first():
    """The heuristic backend's first attempt is the hand-written template of the unit's class, for a
    kernel and for a fusible region (formed for one kernel); a split region re-lowers first."""
    assert source_of(0, Contract())[0] == "handwritten"
    assert source_of(0, Contract(region={"kind": "fusible"}))[0] == "handwritten"
    assert source_of(0, Contract(region={"kind": "split"}))[0] == "inductor"
    assert source_of(1, Contract(region={"kind": "fusible"}))[0] == "inductor"


@pytest.mark.slow
def test_the_templates_pass_gates_1_2_and_a_suffix_sum_is_one_stitched_kernel(tmp_path):
    from kernelopt.report.coverage import coverage

    # argmax's template is checked against torch in tests/test_synth_reduce.py (CI time)
    names = ["level1/3_AvgPool2d", "level1/15_Cumsum_Reverse"]
    written = headroom_small.write_small(tmp_path / "problems", names)
    wd = tmp_path / "run"
    r = snakemake(
        "--cores", "2", "--config", f"problems=[{', '.join(str(p) for p in written)}]", "device=cpu",
        f"workdir={wd}", "search={iterations: 1, beam_width: 1, synthesis_attempts: 2, retries: 0}",
        "gates={user_candidates: 0, error_ratio: 30, retries: 0}", timeout=2400,
    )  # fmt: skip
    # error_ratio 30 (default 10): a scan's largest relative error on its near-zero sums is the
    # luck of one element under either summation order; at 10 gate 3 rejected the honest reverse
    # scan once in many runs (11x Inductor's), which is a missed win, not what this test is about
    assert r.returncode == 0, (r.stdout + r.stderr)[-5000:]
    rows = coverage(wd)["rows"]
    assert rows and all(x["covered"] or x["through_region"] for x in rows), rows
    # the average pool's first attempt is the rolling kernel (its sums in Inductor's order)
    rolling = "window rows kept in registers"
    for problem, template in (("level1_3_AvgPool2d", rolling), ("level1_15_Cumsum_Reverse", "suffix sum")):
        units = [u for u in (wd / problem / "units").iterdir() if u.is_dir()]
        found = []
        for u in units:
            for a in sorted((u / "synth").glob("a*")):
                slot = json.loads((a / "slot.json").read_text())
                g2 = a / "gate2.json"
                if (
                    slot.get("source") == "handwritten"
                    and g2.exists()
                    and json.loads(g2.read_text())["verdict"] == "pass"
                ):
                    found.append((u.name, slot.get("what", ""), slot.get("class")))
        assert any(template in what for _, what, _ in found), (problem, found)
    # the suffix sum: Inductor's scan of the reversed row and its flip, one fusible region whose
    # hand-written candidate (one scan kernel) replaces both in the stitched model
    p = wd / "level1_15_Cumsum_Reverse"
    disp = json.loads((p / "dispatch.json").read_text())
    (region,) = disp["regions"]["region_units"]
    contract = Contract.load(p / "units" / region / "contract.json")
    assert contract.region["kind"] == "fusible" and len(contract.region["members"]) == 2
    plan = json.loads((p / "stitch/plan.json").read_text())
    assert region in plan["replacements"] and "/synth/" in plan["replacements"][region]
    assert json.loads((p / "stitch/gate3.json").read_text())["verdict"] == "pass"
    assert Path(plan["replacements"][region]).read_text().count("@triton.jit") == 1


def test_an_in_out_argument_only_loaded_from_is_not_a_reference_output():
    """Inductor keeps the in/out name of a reused buffer whose store it dropped (conv + GroupNorm +
    tanh + LogSumExp: the tanh's values live in registers only); the unit's reference must not
    expect that buffer written, or Inductor's own kernel "misses" it and the unit is not checkable."""
    from kernelopt.core.outputcode import stores_to

    src = (ROOT / "tests/fixtures/inductor_kernels/dropped_inout_store.py").read_text()
    assert "'mutated_arg_names': ['in_out_ptr0', 'in_out_ptr1']" in src  # Inductor still calls it mutated
    assert not stores_to(src, "in_out_ptr0")
    assert stores_to(src, "in_out_ptr1")
    assert not stores_to(src, "in_ptr2")
    # a store, an atomic or a pointer handed on are writes; a load with spaces is a read
    body = "@triton.jit\ndef k(a, b, c, d, XBLOCK : tl.constexpr):\n"
    assert stores_to(body + "    tl.atomic_add(a + x, 1.0)\n", "a")
    assert stores_to(body + "    helper(b + 1)\n", "b")
    assert not stores_to(body + "    v = tl.load( c + x)\n    w = tl.load(c + 1)\n", "c")
    assert not stores_to(body + "    pass\n", "d")
