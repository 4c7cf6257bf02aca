"""Checks on the committed H200 evidence: pure JSON, runs anywhere.

``tests/fixtures/h200_search/search5_subset.tar.gz`` holds the files ``bench/refinalize.py`` and
``bench/search_table.py`` read for three problems of the 5-iteration H200 search run (the whole
run tree left git; tests/fixtures/README.md says how the subset was cut).  The committed tables are
files held in a ``bench/results/*/summaries.json``, read with ``bench/evidence.py``.

bench/level1_table.py's in-model bound (issue 8's H200 table), on a hand-made dispatch."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import evidence  # noqa: E402

SUBSET = ROOT / "tests" / "fixtures" / "h200_search" / "search5_subset.tar.gz"
THREE = ("level1_1_Softmax", "level1_2_LayerNorm", "level1_3_GELU_Mul_Add")

spec = importlib.util.spec_from_file_location("level1_table", ROOT / "bench" / "level1_table.py")
table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table)

MS_PER_GB = 1e9 / (table.PEAK_GBS * 1e9) * 1e3  # ms to move 1 GB at the copy bandwidth


def _run_dir(tmp_path: Path) -> Path:
    wd = tmp_path / "run"
    with tarfile.open(SUBSET) as tar:
        tar.extractall(wd, filter="data")
    return wd


def test_refinalize_categorises_the_h200_search_run(tmp_path):
    """The 5-iteration H200 search run, re-finalised from its JSON artifacts: Softmax keeps
    its measured gate-4 speedup; a problem whose search found valid kernels, none faster than
    Inductor's, is 'matched (optimized)' with that reason, not 'synthesis failed'."""
    wd = _run_dir(tmp_path)
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "refinalize.py"), str(wd)], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 0, r.stdout + r.stderr
    res = {p: json.loads((wd / p / "result.json").read_text()) for p in THREE}
    soft = res["level1_1_Softmax"]
    assert soft["category"] == "optimized"
    g4 = json.loads((wd / "level1_1_Softmax" / "stitch" / "gate4.json").read_text())
    assert soft["speedup_vs_compiled"] == g4["numbers"]["speedup"] and g4["numbers"]["ci_high"] < 1.0
    ln = res["level1_2_LayerNorm"]
    assert ln["category"] == "matched (optimized)" and "none measured faster than Inductor's kernel" in ln["reason"], ln
    assert (
        res["level1_3_GELU_Mul_Add"]["category"] == "matched (optimized)"
        and "not significant" in res["level1_3_GELU_Mul_Add"]["reason"]
    )
    # the run's own result is kept beside the recomputed one
    assert (wd / "level1_2_LayerNorm" / "result.run.json").exists()


def test_search_table_reads_the_h200_run(tmp_path):
    wd = _run_dir(tmp_path)
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
    # aa.py's table of the gates run, as search_gpu.sh's AA= names it: a path through a summaries.json
    aa = ROOT / "bench" / "results" / "gates_h200" / "summaries.json" / "aa_h200.json"
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "search_table.py"),
            str(wd),
            str(out_json),
            str(out_csv),
            "--aa",
            str(aa),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {p["problem"]: p for p in json.loads(out_json.read_text())["problems"]}
    assert set(rows) == set(THREE)
    soft = rows["level1_1_Softmax"]
    # an accepted speedup must lie outside the A/A noise band
    assert soft["category"] == "optimized" and soft["outside_aa_band"] is True
    for p in rows.values():
        assert p["profiles_by_ncu"] >= 1 and p["prompt_tokens_max"] <= 4000
        assert p["gpu_lock_s_exclusive"] > 0
    # the committed table of the whole run (8 problems) says the same of these three
    search5 = evidence.load(ROOT / "bench/results/search_h200/summaries.json/search5_h200.json")
    committed = {p["problem"]: p for p in search5["problems"]}
    assert len(committed) == 8
    for name in THREE:
        assert committed[name]["category"] == rows[name]["category"]


def test_every_committed_file_reads_back():
    """bench/results keeps its files in summaries.json files, under 1 MB in all: each holds the
    original files by name, a JSON file's content, any other as its lines, and bench/evidence.py
    gives each back (through the path ``<dir>/summaries.json/<name>``)."""
    results = ROOT / "bench" / "results"
    assert sum(f.stat().st_size for f in results.rglob("*") if f.is_file()) < 1_000_000
    found = sorted(results.rglob("summaries.json"))
    assert len(found) >= 10
    for s in found:
        d = json.loads(s.read_text(encoding="utf-8"))
        assert set(d) == {"what", "cut_from", "format", "files"}, s
        for name, value in d["files"].items():
            text = evidence.read_text(s / name)
            if name.endswith(".json"):
                assert json.loads(text) == value == evidence.load(s / name)
            else:
                assert text.splitlines() == value, (s, name)


def test_in_model_bound_counts_each_kernel_once_and_keeps_library_time():
    # run 14's LayerNorm in miniature: a split reduction (0.1 ms, 1 GB, at the roof 0.2326 ms:
    # already faster, from L2, keeps its time), a normalize kernel (1.0 ms, 2 GB), the region
    # of both (its members again: not counted), 0.5 ms of a library call and gaps
    disp = {
        "units": [
            {"id": "red", "time_ms": 0.1},
            {"id": "poi", "time_ms": 1.0},
            {"id": "rg_red__poi", "time_ms": 1.1, "region": {"members": ["red", "poi"]}},
        ]
    }
    roof = {"units": [{"unit": "red", "bytes": 10**9}, {"unit": "poi", "bytes": 2 * 10**9}, {"unit": "rg_red__poi"}]}
    t, bound = table.in_model_bound(disp, roof, 1.6)
    assert abs(t - 1.1) < 1e-12
    assert abs(bound - 1.6 / (0.5 + 0.1 + 2 * MS_PER_GB)) < 1e-9
    # a row read twice: the re-read roof halves what the kernel can reach
    roof["units"][1]["reread_roof_pct"] = 50.0
    assert abs(table.in_model_bound(disp, roof, 1.6)[1] - 1.6 / (0.5 + 0.1 + min(1.0, 4 * MS_PER_GB))) < 1e-9
    # a kernel without capture's time or without bytes: no bound (not a guess)
    assert table.in_model_bound({"units": [{"id": "red", "time_ms": None}, disp["units"][1]]}, roof, 1.6) == (
        None,
        None,
    )
    assert table.in_model_bound(disp, {"units": roof["units"][1:]}, 1.6) == (None, None)
    assert table.in_model_bound(disp, roof, None) == (None, None)
    # never below 1: the output code cannot be made slower by bringing kernels to their roof
    assert table.in_model_bound({"units": [{"id": "red", "time_ms": 0.1}]}, roof, 0.1)[1] == 1.0


def test_in_model_bound_counts_every_launch_and_no_negative_gap():
    roof = {"units": [{"unit": "k", "bytes": 10**9}]}
    # launched twice at its roof: capture's time is both launches, the bytes one launch's
    at_roof = 2 * MS_PER_GB
    assert (
        abs(table.in_model_bound({"units": [{"id": "k", "time_ms": at_roof, "launches": 2}]}, roof, at_roof)[1] - 1)
        < 1e-9
    )
    # kernels timed one by one a little over the graph's time: the gap is 0, not negative
    t, bound = table.in_model_bound({"units": [{"id": "k", "time_ms": 1.05}]}, roof, 1.0)
    assert abs(bound - 1.0 / MS_PER_GB) < 1e-9
