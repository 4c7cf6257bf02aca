"""``RULE_SETTINGS`` (kernelopt/core/config.py) says which settings each rule reads: a job re-runs
when one of them changes, and is handed nothing else.  These tests keep it true to the code: a
pipeline run that records every settings key each job's code reads
(``KERNELOPT_RECORD_SETTINGS``, ``config.RecordingSettings``) must find, rule by rule, exactly the
declared ones."""

import copy
import json
import pickle
from collections import defaultdict

import pytest
from conftest import snakemake

from kernelopt.core import config

# Settings a rule reads only on paths that the CPU run below does not take (one small problem,
# the heuristic backend): the run cannot see them read, so it does not ask to.  Each says where
# the read is.  Anything else declared and never read, or read and never declared, fails.
NOT_READ_IN_THE_CPU_RUN = {
    "synthesize": {
        "search.peak_bandwidth_gbs": "on the GPU: how near its roof Inductor's kernel ran (search/stage.py)",
    },
    "profile": {
        "search.ncu": "on the GPU: whether Nsight Compute profiles the member (search/stage.py profile_member)",
        "search.ncu_sections": "on the GPU: the sections Nsight Compute collects (search/stage.py _ncu)",
    },
    "retry": {
        "agent.backend": "to fix an attempt that failed gates 1-2; the heuristic's candidates here pass",
        "search.beam_width": "to fix an attempt that failed gates 1-2: the slots already planned",
    },
    "result": {
        "gates.optimized_min_speedup": "for an attempt that passed gate 4, which CPU mode skips (report/stage.py)",
    },
}


def test_the_recording_settings_note_every_key_path_read_at_any_depth():
    s = config.RecordingSettings({"device": "cpu", "gates": {"rtol": 1e-3, "atol": 1e-4}, "measure": {"reps": 5}})
    assert s["device"] == "cpu" and s["gates"]["rtol"] == 1e-3
    assert isinstance(s["gates"], dict) and s["gates"] == {"rtol": 1e-3, "atol": 1e-4}
    assert s.reads == {"device", "gates", "gates.rtol"}
    g = s["gates"]
    assert g.get("missing", 7) == 7 and "absent" not in g  # a key asked for and missing is read too
    assert {"gates.missing", "gates.absent"} <= s.reads and "gates.atol" not in s.reads
    assert s.get("measure").get("reps") == 5 and "measure.reps" in s.reads


def test_a_mapping_copied_or_serialised_whole_reads_every_key():
    def fresh():
        return config.RecordingSettings({"a": 1, "sect": {"x": 1, "y": [1, 2]}})

    for use in (dict, lambda s: {**s}, lambda s: list(s.values()), lambda s: list(s.items()), pickle.dumps):
        s = fresh()
        assert use(s)
        assert s.reads >= {"a", "sect"}
    s = fresh()
    assert json.loads(json.dumps(s)) == {"a": 1, "sect": {"x": 1, "y": [1, 2]}}
    assert s.reads == {"a", "sect", "sect.x", "sect.y"}
    s = fresh()
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is dict
    assert s.reads == {"a", "sect", "sect.x", "sect.y"}
    # a copy notes into the same set: what the copy's user reads, the job read
    s = fresh()
    c = copy.deepcopy(s["sect"])
    assert isinstance(c, config.RecordingSettings) and c == {"x": 1, "y": [1, 2]}
    assert c["x"] == 1 and s.reads == {"sect", "sect.x"}
    assert copy.copy(s)["a"] == 1 and "a" in s.reads
    # the key names alone read no value
    s = fresh()
    assert list(s) == ["a", "sect"] and list(s.keys()) == ["a", "sect"] and len(s) == 2
    assert s.reads == set()


def test_settings_drift_counts_keys_under_a_declared_section_and_on_the_way_to_one():
    declared = ["device", "gates.rtol", "measure", "search.beam_width"]
    read = ["device", "gates", "gates.rtol", "measure", "measure.reps", "search", "agent", "agent.backend"]
    unread, undeclared = config.settings_drift(declared, read)
    assert unread == ["search.beam_width"]
    assert undeclared == ["agent", "agent.backend"]
    assert config.settings_drift(["gates.rtol"], ["gates.rtol_x"]) == (["gates.rtol"], ["gates.rtol_x"])


def test_declared_keys_are_those_the_rule_is_handed():
    cfg = config.validate({"agent": {"backend": "heuristic"}})
    handed = config.settings_for(cfg, "expand")
    assert config.declared_keys(handed, "expand") == ["search.beam_width", "agent.backend"]
    g4 = config.declared_keys(config.settings_for(cfg, "gate4"), "gate4")
    assert g4 == list(config.RULE_SETTINGS["gate4"])


def test_a_recording_run_hands_jobs_settings_that_record_in_the_job_process(tmp_path, monkeypatch):
    """Snakemake pickles a job's params into its script: unpickled there, the settings record,
    and the reads are written when the process ends."""
    import atexit

    cfg = config.validate({})
    monkeypatch.delenv(config.RECORD_ENV, raising=False)
    plain = config.handed_settings(cfg, "stitch")
    assert type(plain) is dict and plain == config.settings_for(cfg, "stitch")
    assert type(pickle.loads(pickle.dumps(plain))) is dict
    at_exit = []
    monkeypatch.setattr(atexit, "register", lambda fn, *args: at_exit.append((fn, args)))
    monkeypatch.setenv(config.RECORD_ENV, str(tmp_path / "reads"))
    handed = config.handed_settings(cfg, "stitch")
    assert handed == plain and repr(handed) == repr(plain)  # the same params to Snakemake's metadata
    assert not at_exit  # nothing recorded in the workflow's own process
    in_job = pickle.loads(pickle.dumps(handed, protocol=4))
    assert isinstance(in_job, config.RecordingSettings) and in_job == plain
    assert in_job["gates"]["replace_with_inductor"] is False
    [(fn, args)] = at_exit
    record = json.loads(fn(*args).read_text())
    assert record == {
        "rule": "stitch",
        "wildcards": {},
        "declared": ["device", "gates.replace_with_inductor"],
        "read": ["gates", "gates.replace_with_inductor"],
    }


def test_what_the_cpu_run_may_leave_unread_is_declared():
    for rule, keys in NOT_READ_IN_THE_CPU_RUN.items():
        gone = set(keys) - set(config.RULE_SETTINGS[rule])
        assert not gone, f"{rule} no longer declares {gone}: drop them here"


@pytest.mark.slow
def test_every_rule_reads_exactly_the_settings_it_declares(root, tmp_path, monkeypatch):
    """Every rule of RULE_SETTINGS runs once or more on one small problem, with a hand-written
    candidate (select times it), a search iteration with a directed retry and a stitch retry;
    each job writes the settings keys its code read.  Per rule (all its jobs together), the
    declared keys must be the ones read."""
    reads = tmp_path / "reads"
    monkeypatch.setenv(config.RECORD_ENV, str(reads))
    r = snakemake(
        "--cores",
        "2",
        "--config",
        "problems=[problems/demo/level1/1_Softmax.py]",
        "device=cpu",
        f"workdir={tmp_path / 'run'}",
        "candidates=tests/fixtures/candidates_demo",
        "gates={user_candidates: 1, retries: 1}",
        "search={iterations: 1, beam_width: 1, synthesis_attempts: 1, retries: 1}",
        cwd=root,
        timeout=3000,
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    declared: dict[str, set[str]] = defaultdict(set)
    read: dict[str, set[str]] = defaultdict(set)
    for f in reads.glob("*.json"):
        record = json.loads(f.read_text())
        declared[record["rule"]] |= set(record["declared"])
        read[record["rule"]] |= set(record["read"])
    assert set(declared) == set(config.RULE_SETTINGS), f"did not run: {set(config.RULE_SETTINGS) - set(declared)}"
    drift = []
    for rule in sorted(declared):
        unread, undeclared = config.settings_drift(declared[rule], read[rule])
        unread = [k for k in unread if k not in NOT_READ_IN_THE_CPU_RUN.get(rule, {})]
        if unread:
            drift.append(f"{rule} declares {unread}, which its code never read: a change re-runs it for nothing")
        if undeclared:
            drift.append(f"{rule} reads {undeclared}, not declared: never handed out, a change re-runs nothing")
    assert not drift, "RULE_SETTINGS (kernelopt/core/config.py) drifted from the code:\n" + "\n".join(drift)
