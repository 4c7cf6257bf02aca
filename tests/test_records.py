"""The records stages hand each other (kernelopt/core/records.py): paths, enums, and the typed
records that save with a schema and refuse an older or newer file with one sentence."""

import json
from dataclasses import replace

import pytest
from conftest import ROOT

from kernelopt.core.records import (
    SCHEMA,
    Beam,
    Best,
    Capture,
    CaptureProfile,
    Category,
    Contract,
    Dispatch,
    DispatchKind,
    DispatchUnit,
    DispatchVerdict,
    GateVerdict,
    PlanStatus,
    ProblemPaths,
    RecordError,
    Result,
    Slot,
    StitchPlan,
    Verdict,
    attempt_of,
    attempt_stage,
    member_path,
    slot_of_member,
)


def test_paths_of_slots_iterations_and_attempts(tmp_path):
    p = ProblemPaths(tmp_path, "lvl1_x")
    unit = p.unit("k0")
    assert p.slot("k0", "iter2/cand1/r1").gate(2) == unit / "iter2" / "cand1" / "r1" / "gate2.json"
    assert p.iteration("k0", 3).cand(0).candidate == unit / "iter3" / "cand0" / "candidate.py"
    assert p.iteration("k0", 3).cand("cand1/r2").slot == unit / "iter3" / "cand1" / "r2" / "slot.json"
    assert p.iteration("k0", 1).profile(2).summary == unit / "iter1" / "profile" / "m2" / "summary.json"
    assert p.cand("k0", 0).dir == p.candidate_dir("k0", 0)
    assert p.attempt(2).gate(4) == tmp_path / "lvl1_x" / "stitch" / "retries" / "r2" / "gate4.json"
    assert attempt_of(attempt_stage(3)) == 3
    # what a retry and a stitch attempt read, said once for the rules and the stages
    before, first = p.iteration("k0", 2).retry_reads(1, 1)
    assert (before.dir, first.dir) == (unit / "iter2" / "cand1", unit / "iter2" / "cand1")
    assert p.iteration("k0", 2).retry_reads(1, 3)[0].dir == unit / "iter2" / "cand1" / "r2"
    assert p.previous_attempt(0) is None and p.previous_attempt(2) == p.attempt(1)
    assert slot_of_member(member_path("iter1/cand0/r1")) == "iter1/cand0/r1"
    # the rules build patterns from the same table, with wildcards for names
    pattern = str(ProblemPaths("wd", "{problem}").slot("{unit}", "{cand}").gate(1))
    assert pattern == "wd/{problem}/units/{unit}/{cand}/gate1.json"


def test_enums_are_the_strings_on_disk():
    assert Verdict.PASS == "pass" and json.dumps(Verdict.SKIPPED_BY_MODE) == '"skipped-by-mode"'
    assert f"{Verdict.NOT_CHECKABLE}" == "not-checkable"
    assert Category("matched (synthesis failed)") is Category.MATCHED_SYNTHESIS_FAILED


def test_a_gate_verdict_round_trips_with_its_schema(tmp_path):
    f = tmp_path / "gate2.json"
    v = GateVerdict(2, Verdict.FAIL, "max abs diff 3.1", rule="tolerance", seeds=[0, 1, 2], slot="cands/c1", unit="u")
    written = v.save(f)
    on_disk = json.loads(f.read_text())
    assert on_disk == written and on_disk["schema"] == SCHEMA and on_disk["slot"] == "cands/c1"
    back = GateVerdict.load(f)
    assert back == v and not back.passed
    assert GateVerdict.load_or_none(f) == v and GateVerdict.load_or_none(tmp_path / "gate1.json") is None


def test_an_older_record_is_refused_with_the_file_and_the_fix(tmp_path):
    f = tmp_path / "gate1.json"
    f.write_text(json.dumps({"gate": 1, "status": "ok"}))  # no verdict, no reason: another layout
    with pytest.raises(RecordError) as e:
        GateVerdict.load(f)
    assert str(f) in str(e.value) and "new workdir" in str(e.value) and "verdict" in str(e.value)
    f.write_text(json.dumps({"gate": 1, "verdict": "pass", "reason": "", "schema": SCHEMA + 1}))
    with pytest.raises(RecordError, match="newer than this kernelopt"):
        GateVerdict.load(f)
    f.write_text("{not json")
    with pytest.raises(RecordError, match="not a readable gate verdict"):
        GateVerdict.load(f)


def test_a_beam_keeps_its_optional_keys_only_when_set(tmp_path):
    f = tmp_path / "beam.json"
    Beam(0, [{"id": "inductor", "path": member_path("cands/c0"), "ratio": 1.0, "signature": "s"}], None).save(f)
    assert set(json.loads(f.read_text())) == {"iteration", "members", "stopped", "schema"}
    b = Beam.load(f)
    assert b.members[0].id == "inductor" and b.members[0].meaningful and b.dropped is None
    # a member keeps its file's keys in order: a default it never wrote stays unwritten
    assert b.members[0].as_dict() == {"id": "inductor", "path": "cands/c0/candidate.py", "ratio": 1.0, "signature": "s"}
    x = {"id": "x", "path": "iter1/cand0/candidate.py", "ratio": 1.2, "ci": [1.1, 1.3], "meaningful": True}
    Beam(1, [], "converged", dropped=[x], infrastructure="oom").save(f)
    assert Beam.load(f).as_dict() == {
        "iteration": 1,
        "members": [],
        "stopped": "converged",
        "dropped": [x],
        "infrastructure": "oom",
    }
    assert Beam.load(f).dropped[0].ranked_ratio == 1.2
    f.write_text(json.dumps({"members": []}))
    with pytest.raises(RecordError, match="beam record without iteration, stopped"):
        Beam.load(f)
    f.write_text(json.dumps({"iteration": 0, "members": [{"id": "inductor"}], "stopped": None}))
    with pytest.raises(RecordError, match="beam member 0 record without path"):
        Beam.load(f)


def test_a_ranking_round_trips_and_says_which_ratios_mean_something(tmp_path):
    f = tmp_path / "units" / "k0" / "best.json"
    f.parent.mkdir(parents=True)
    cands = {"cands/c0/candidate.py": {"origin": "inductor", "ratio": 1.0}, "synth/a0/candidate.py": {"ratio": 0.5}}
    Best("k0", cands, list(cands), meaningful=True, not_timed={"cands/c1/candidate.py": "hung"}).save(f)
    on_disk = json.loads(f.read_text())
    assert on_disk["schema"] == SCHEMA and "infrastructure" not in on_disk  # unset optional keys stay out
    b = Best.load(f)
    assert b.ranked == list(cands) and b.not_timed == {"cands/c1/candidate.py": "hung"}
    assert b.ratio("synth/a0/candidate.py") == 0.5 and b.ratio("nowhere") is None
    b = replace(b, meaningful=False)  # CPU mode: a ranking by origin, whose ratios mean nothing
    assert b.ratio("synth/a0/candidate.py") is None
    # select never ran (the problem failed earlier): an empty ranking, named after the unit
    gone = Best.load_or_empty(tmp_path / "units" / "k1" / "best.json")
    assert gone.unit == "k1" and gone.ranked == [] and gone.candidates == {}
    f.write_text(json.dumps({"unit": "k0", "ranking": []}))  # another layout
    with pytest.raises(RecordError, match="best record without candidates, ranked"):
        Best.load(f)


def test_a_result_types_what_every_reader_needs_and_keeps_the_rest(tmp_path):
    f = tmp_path / "result.json"
    res = {"problem": "level1_1_x", "category": "optimized", "reason": None, "stitched_attempt": 1, "llm": {"calls": 2}}
    Result.from_dict(res).save(f)
    back = Result.load(f)
    assert back.optimized and back.category is Category.OPTIMIZED and back.stitched_attempt == 1
    assert back.extra == {"llm": {"calls": 2}} and json.loads(f.read_text())["llm"] == {"calls": 2}
    f.write_text(json.dumps({**res, "category": "faster"}))  # a category this kernelopt does not know
    with pytest.raises(RecordError, match="faster"):
        Result.load(f)
    f.write_text(json.dumps({"problem": "p"}))
    with pytest.raises(RecordError, match="result record without category"):
        Result.load(f)


def test_a_stitch_plan_round_trips_and_refuses_an_unknown_status(tmp_path):
    f = tmp_path / "plan.json"
    StitchPlan(0, PlanStatus.STITCHED, {"u": "units/u/synth/a0/candidate.py"}, stitch={"replaced": {}}).save(f)
    back = StitchPlan.load(f)
    assert back.stitched and back.status is PlanStatus.STITCHED and back.reason is None
    assert "fusion_choice" not in json.loads(f.read_text())  # unset optional keys stay out
    StitchPlan(1, PlanStatus.PASSED_THROUGH, reason="attempt 0 needs no retry").save(f)
    assert not StitchPlan.load(f).stitched and StitchPlan.load(f).replacements == {}
    assert StitchPlan.load_or_none(tmp_path / "none.json") is None
    f.write_text(json.dumps({"attempt": 0, "status": "spliced"}))
    with pytest.raises(RecordError, match="spliced"):
        StitchPlan.load(f)


def test_a_slot_keeps_its_file_keys_types_what_readers_need_and_refuses_no_empty(tmp_path):
    f = tmp_path / "slot.json"
    written = {
        "slot": 1,
        "empty": False,
        "origin": "search:heuristic",
        "direction": {"name": "drop-masks", "member": "synth/a0"},
        "signature": "abc",
        "class": "norm",  # a keyword in Python: the field is unit_class, the file keeps "class"
        "fixes": None,
        "by_another_writer": [1, 2],
    }
    Slot.from_dict(written).save(f)
    on_disk = json.loads(f.read_text())
    assert on_disk["class"] == "norm" and "unit_class" not in on_disk and on_disk["by_another_writer"] == [1, 2]
    assert "fixes" not in on_disk and on_disk["schema"] == SCHEMA  # unset keys stay out
    back = Slot.load(f)
    assert not back.empty and back.unit_class == "norm" and back.direction_name == "drop-masks on synth/a0"
    assert back.extra == {"by_another_writer": [1, 2]}
    assert Slot.load_or_none(tmp_path / "none.json") is None
    f.write_text(json.dumps({"slot": 0, "reason": "x"}))
    with pytest.raises(RecordError, match="slot record without empty"):
        Slot.load(f)
    f.write_text(json.dumps({"slot": 0, "empty": True, "schema": SCHEMA + 1}))
    with pytest.raises(RecordError, match="newer than this kernelopt reads"):
        Slot.load(f)


def test_a_contract_gives_back_its_file_as_written_and_types_what_readers_need(tmp_path):
    # a kernel's, an older fused unit's (no user, helion, aliases, share) and a graph-level unit's
    files = sorted((ROOT / "tests" / "fixtures").rglob("contract.json"))
    assert len(files) >= 3
    for src in files:
        c = Contract.load(src)
        f = tmp_path / "contract.json"
        c.save(f)
        as_written = json.dumps({**json.loads(src.read_text()), "schema": SCHEMA}, indent=2) + "\n"
        assert f.read_text() == as_written, src  # same keys, same order, same values, and the schema
        assert Contract.load(f) == c and c.as_dict() == json.loads(src.read_text())
        assert c.unit and c.args and c.kernel and c.extra == {}
    fused = Contract.load(next(f for f in files if "fused" in json.loads(f.read_text())))
    assert fused.fused["producer_contract"]["kernel"] and fused.share is None and "share" not in fused.as_dict()
    assert Contract.load_or_none(tmp_path / "none.json") is None


def test_a_contract_keeps_other_keys_and_puts_a_key_set_since_last():
    written = {"unit": "u", "problem": "p", "graph": 0, "kernel": "k", "helion": None, "args": [], "note": 1}
    c = Contract.from_dict(written)
    assert c.extra == {"note": 1} and c.as_dict() == written and list(c.as_dict()) == list(written)
    assert list(replace(c, grid_inferred={}).as_dict())[-1] == "grid_inferred"
    assert Contract(unit="u", args=[{"name": "x"}]).as_dict() == {"unit": "u", "args": [{"name": "x"}]}


def test_an_older_or_damaged_contract_is_refused_with_the_file(tmp_path):
    f = tmp_path / "contract.json"
    f.write_text(json.dumps({"unit": "u", "args": []}))
    with pytest.raises(RecordError, match="contract record without problem, graph, kernel, device") as e:
        Contract.load(f)
    assert str(f) in str(e.value) and "new workdir" in str(e.value)
    f.write_text("[1, 2]")
    with pytest.raises(RecordError, match="not a contract record"):
        Contract.load(f)


# --- dispatch.json: classify's record -----------------------------------------------------
def _h200(problem: str):
    """A problem of the H200 stages run (tests/fixtures/h200.tar.gz): its directory."""
    from conftest import unpacked

    return unpacked("h200.tar.gz") / "h200" / problem


def _as_written(data) -> str:
    """What classify wrote before the record (``write_json`` of its dict)."""
    return json.dumps(data, indent=2, default=str) + "\n"


def _with_schema(data) -> str:
    """What the record writes: the same keys in the same order, the schema last."""
    return _as_written({**data, "schema": SCHEMA})


def test_a_dispatch_from_the_h200_loads_and_saves_back_with_its_schema(tmp_path):
    srcs = sorted(_h200("").glob("*/dispatch.json"))
    assert len(srcs) == 6  # optimizable, library-dominated, no-triton; written before units had "user"
    for src in srcs:
        d = Dispatch.load(src)
        d.save(tmp_path / "dispatch.json")
        # written before the schema key: the same bytes but the schema, last; then stable
        assert (tmp_path / "dispatch.json").read_text() == _with_schema(json.loads(src.read_text())), src
        Dispatch.load(tmp_path / "dispatch.json").save(tmp_path / "again.json")
        assert (tmp_path / "again.json").read_bytes() == (tmp_path / "dispatch.json").read_bytes()
        assert d.extra == {} and all(u.extra == {} and not u.user for u in d.units)
        assert d.unit_ids == [u["id"] for u in json.loads(src.read_text())["units"]]
    soft = Dispatch.load(_h200("level1_1_Softmax") / "dispatch.json")
    assert soft.verdict is DispatchVerdict.OPTIMIZABLE and soft.optimizable and soft.meaningful
    (u,) = soft.units
    assert soft.unit(u.id) is u and soft.unit("nope") is None and u.time_ms > 0 and not u.composite
    assert {launch["kind"] for launch in soft.launches} <= set(DispatchKind)
    assert Dispatch.load(_h200("level1_5_Matmul") / "dispatch.json").verdict == "no-triton"


def test_classify_writes_through_the_record_what_it_always_wrote_and_the_schema(tmp_path):
    """``classify.run`` saves a ``Dispatch``: the file is ``write_json`` of the dict classify
    builds with the schema last, for an optimizable problem and for one whose capture failed;
    and fused pairs, regions and graph-level units (``add_*_units``) come back byte for byte."""
    from kernelopt.classify import stage as classify

    src = _h200("level3_2_TransformerBlock") / "capture"
    cap, prof = Capture.load(src / "capture.json"), CaptureProfile.load(src / "profile.json")
    paths = ProblemPaths(tmp_path, "level3_2_TransformerBlock")
    for f in ("capture.json", "profile.json", "output_code.py"):
        (paths.capture / f).parent.mkdir(parents=True, exist_ok=True)
        (paths.capture / f).write_bytes((src / f).read_bytes())
    expected = classify.classify(cap, prof, 0.10)
    classify.add_region_units(expected, cap)
    written = classify.run(paths, 0.10, fuse_neighbours=False)
    assert paths.dispatch.read_text() == _with_schema(expected)
    assert isinstance(written, Dispatch) and written.optimizable and "user" in written.as_dict()["units"][0]
    # the composite units, as classify adds them (a fused pair, a region, a graph-level unit)
    a, b, c = (u["kernel"] for u in expected["units"][:3])
    lineno = next(launch["lineno"] for launch in expected["launches"] if launch.get("unit") == c)
    classify.add_fused_units(expected, [{"producer": a, "consumer": b}], [{"producer": b, "why": "x"}])
    regions = {"found": [{"id": f"rg_{a}__{b}", "members": [a, b], "kind": "split"}], "refused": []}
    rw = {"id": "rw_t_buf1", "rewrite": {"rewrite": "t"}, "kernels": [c], "members": [{"lineno": lineno}], "anchor": c}
    rewrites = {"findings": [{"rewrite": "t"}], "units": [rw], "refused": []}
    classify.add_region_units(expected, Capture(graphs=[{"regions": regions}]))
    classify.add_rewrite_units(expected, Capture(graphs=[{"rewrites": rewrites}]))
    f = tmp_path / "dispatch.json"
    Dispatch.from_dict(expected).save(f)
    assert f.read_text() == _with_schema(expected)
    d = Dispatch.load(f)
    d.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == f.read_bytes()
    fused, region, rewrite = d.units[-3:]
    assert fused.parts == [a, b] and region.parts == [a, b] and rewrite.parts == [c]
    assert fused.composite and region.composite and not rewrite.composite and rewrite.rewrite["anchor"] == c
    assert d.fusion["fused_units"] == [fused.id] and d.rewrites["rewrite_units"] == [rewrite.id]
    # a capture that failed: the short record
    (paths.capture / "capture.json").write_text(json.dumps({"failed": True, "stage": "compile", "error": "boom\nat"}))
    failed = classify.run(paths, 0.10)
    short = ["problem", "verdict", "reason", "launches", "units", "time_by_kind_ms", "triton_share"]
    assert list(json.loads(paths.dispatch.read_text())) == [*short, "schema"]
    assert failed.verdict is DispatchVerdict.ERROR and failed.reason == "capture failed at compile: boom"
    assert {**Dispatch.load(paths.dispatch).as_dict(), "schema": SCHEMA} == json.loads(paths.dispatch.read_text())


def test_a_dispatch_keeps_another_writers_keys_where_they_were(tmp_path):
    f = tmp_path / "dispatch.json"
    unit = {"id": "k", "graph": 0, "kernel": "k", "probe": [1], "time_ms": 1.0, "reference": True}
    data = {"problem": "p", "verdict": "optimizable", "note": {"by": "x"}, "units": [unit], "stitchable": True}
    f.write_text(_as_written(data))
    d = Dispatch.load(f)
    assert d.extra == {"note": {"by": "x"}} and d.units[0].extra == {"probe": [1]} and d.stitchable
    d.save(f)
    assert f.read_text() == _with_schema(data)
    # built in code: the keys every reader needs, then what is set; a field set since comes last
    built = Dispatch(problem="p", verdict="no-triton", units=[DispatchUnit(id="k", time_ms=None)])
    assert built.as_dict() == {
        "problem": "p",
        "verdict": "no-triton",
        "units": [{"id": "k", "graph": 0, "kernel": "", "time_ms": None}],
    }
    assert list(replace(d, fusion={"fused_units": []}).as_dict())[-1] == "fusion"
    assert Dispatch.load_optional(tmp_path / "none.json") is None


def test_an_older_or_damaged_dispatch_is_refused_with_the_file(tmp_path):
    f = tmp_path / "dispatch.json"
    unit = {"id": "k", "graph": 0, "kernel": "k", "time_ms": 1.0}
    for data, words in (
        ({"verdict": "optimizable", "units": []}, "dispatch record without problem"),
        (
            {"problem": "p", "verdict": "optimizable", "units": [{"id": "k", "time_ms": 1.0}]},
            "'k' record without graph",
        ),
        ({"problem": "p", "verdict": "optimizable", "units": {"k": unit}}, "units are not a list"),
        ({"problem": "p", "verdict": "maybe", "units": [unit]}, "'maybe' is not a valid DispatchVerdict"),
    ):
        f.write_text(json.dumps(data))
        with pytest.raises(RecordError, match=words) as e:
            Dispatch.load(f)
        assert str(f) in str(e.value) and ("new workdir" in str(e.value) or "another kernelopt" in str(e.value))
    f.write_text(json.dumps({"problem": "p", "verdict": "optimizable", "units": [], "schema": SCHEMA + 1}))
    with pytest.raises(RecordError, match="dispatch record of schema 2, newer than this kernelopt"):
        Dispatch.load(f)
    f.write_text("{not json")
    with pytest.raises(RecordError, match="not a readable dispatch record"):
        Dispatch.load_optional(f)
    with pytest.raises(ValueError, match="not a valid DispatchVerdict"):
        Dispatch(problem="p", verdict="fine")


def test_the_dispatch_kinds_are_the_enum():
    from kernelopt.core.outputcode import dispatch_kind

    assert dispatch_kind("gemm", "cpu") is DispatchKind.BLAS and dispatch_kind("conv", "cuda") == "cudnn"
    assert json.dumps({dispatch_kind("triton", "cuda"): [dispatch_kind("x", "cpu")]}) == '{"triton": ["other"]}'


def test_every_record_is_frozen_and_says_its_kind():
    """A record is what a file held: a stage that wants another builds a new one
    (``dataclasses.replace``), so a record read once cannot drift from its file."""
    import dataclasses
    import inspect

    from kernelopt.core import records

    classes = [
        c
        for _, c in inspect.getmembers(records, inspect.isclass)
        if dataclasses.is_dataclass(c) and c.__module__ == records.__name__ and hasattr(c, "KIND")
    ]
    assert {"Capture", "Baseline", "GateVerdict", "Beam", "Best", "SearchPlan", "MemberProfile"} <= {
        c.__name__ for c in classes
    }
    assert [c.__name__ for c in classes if not c.__dataclass_params__.frozen] == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        GateVerdict(1, "pass", "").verdict = "fail"  # type: ignore[misc]
