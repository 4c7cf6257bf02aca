"""The report's summary numbers (fast_p, geomeans) and the HTML report: on synthetic rows, on
the GPU run with an optimized problem and LLM transcripts (bench/README.md's LLM run on the H200,
tests/fixtures/llm_run_h200.tar.gz), and on the session's CPU demo run; links, pages, a
headless-Chromium render and Snakemake's --report."""

import csv
import json
import math
import os
import re
import shutil
import tarfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import ROOT, snakemake

from kernelopt.core.records import Dispatch, DispatchUnit
from kernelopt.report import html, tables

LLM_RUN = ROOT / "tests/fixtures/llm_run_h200.tar.gz"


def row(problem, category, speedup=None, eager=None, band="", level=None, reason=""):
    base = {c: None for c in tables.RESULT_COLUMNS}
    base.update(
        level=level or problem.split("_")[0],
        problem=problem,
        category=category,
        fallback_reason=reason,
        speedup_vs_compiled=speedup if category != "error" else None,
        speedup_vs_eager=eager,
        noise_band=band,
        meaningful=True,
        **{k: 0 for k in tables.LLM_COLUMNS},
    )
    return base


ROWS = [
    row("level1_1_A", "optimized", 2.5, 3.0, "0.3900-0.4100"),
    row("level1_2_B", "optimized", 1.2, 1.1, "0.8200-0.8400"),
    row("level1_3_C", "fallback", 1.0, 0.9, "0.9900-1.0300", reason="perf-gate"),
    row("level2_1_D", "matched (optimized)", 1.0, 1.6, "0.9950-1.0050"),
    row("level2_2_E", "error", None, None, reason="infrastructure: the child hung"),
]


def test_fast_p_counts_correct_problems_strictly_faster_than_p_over_all_problems():
    assert tables.fast_p([2.0, 1.0, None, 3.0], 1.0) == 0.5
    assert tables.fast_p([2.0, 1.0, None, 3.0], 2.0) == 0.25  # 2.0 is not faster than 2.0
    assert tables.fast_p([None, None], 1.0) == 0.0  # errors are neither correct nor fast
    assert tables.fast_p([], 1.0) is None


def test_summary_numbers_on_a_synthetic_results_table():
    s = tables.summarize(ROWS)
    assert s["problems"] == 5
    assert s["categories"]["optimized"] == 2 and s["categories"]["error"] == 1
    assert s["errors_by_cause"] == {"infrastructure": 1, "problem": 0}
    assert s["fallback_reasons"] == {"perf-gate": 1}
    # deployed: optimized problems at their speedup, fallback and matched at 1x, the error left out
    assert s["deployed_geomean"] == pytest.approx((2.5 * 1.2) ** (1 / 4))
    assert s["optimized_rate"] == pytest.approx(2 / 5)
    assert s["conditional_geomean_over_optimized"] == pytest.approx(math.sqrt(2.5 * 1.2))
    assert s["deployed_geomean_vs_eager"] == pytest.approx((3.0 * 1.1 * 0.9 * 1.6) ** (1 / 4))
    assert s["conditional_geomean_over_optimized_vs_eager"] == pytest.approx(math.sqrt(3.0 * 1.1))
    assert s["fast_p"]["vs_compiled"] == {"1.0": 2 / 5, "1.5": 1 / 5, "2.0": 1 / 5}
    assert s["fast_p"]["vs_eager"] == {"1.0": 3 / 5, "1.5": 2 / 5, "2.0": 1 / 5}
    # the median half-width of gate 4's CIs: 0.01, 0.01, 0.02, 0.005 -> 0.01
    assert s["noise_band_halfwidth_median"] == pytest.approx(0.01)
    full = tables.summary_of(ROWS)
    assert set(full["levels"]) == {"level1", "level2"}
    assert full["levels"]["level2"]["fast_p"]["vs_compiled"]["1.0"] == 0.0
    assert full["levels"]["level1"]["deployed_geomean"] == pytest.approx((2.5 * 1.2) ** (1 / 3))
    assert full["meaningful"] is True
    assert [html.bucket(r) for r in ROWS] == ["2-5x", "1.01-2x", "fallback", "matched", "error"]
    assert html.bucket(row("level3_1_F", "optimized", 7.0)) == ">= 5x"
    assert html.bucket(row("level3_2_G", "unit-not-checkable", 1.0)) == "fallback"


# --- checking a written report -------------------------------------------------------------


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v is not None:
                self.refs.append(v)

    def handle_data(self, data):
        self.text.append(data)


def _refs(page: Path) -> tuple[list[str], str]:
    p = _Refs()
    p.feed(page.read_text())
    return p.refs, re.sub(r"\s+", " ", " ".join(p.text))


def check_links(workdir: Path) -> list[Path]:
    """Every href/src of every page of the report is relative and names an existing file inside
    the run directory (an in-page anchor is allowed).  Returns the pages."""
    rep = workdir / "report"
    pages = [rep / "index.html", *sorted((rep / "problems").glob("*.html"))]
    root = workdir.resolve()
    bad = []
    for page in pages:
        refs, _ = _refs(page)
        for ref in refs:
            if ref.startswith("#"):
                continue
            parts = urlsplit(ref)
            if parts.scheme or parts.netloc or ref.startswith("/"):
                bad.append(f"{page.name}: not relative: {ref}")
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            if not target.is_file():
                bad.append(f"{page.name}: missing: {ref}")
            elif root not in target.parents:
                bad.append(f"{page.name}: outside the run directory: {ref}")
    assert not bad, bad[:20]
    return pages


def check_problems_listed(workdir: Path, problems: list[str]) -> None:
    index = (workdir / "report/index.html").read_text()
    for p in problems:
        assert f'href="problems/{p}.html"' in index, p
        assert (workdir / "report/problems" / f"{p}.html").is_file(), p


@pytest.fixture(scope="module")
def llm_run(tmp_path_factory):
    """The GPU run of the LLM benchmark (one optimized problem, LLM transcripts), with NCU
    profile summaries added to its search (the run had none) for the roofline plot."""
    wd = tmp_path_factory.mktemp("llm_run")
    with tarfile.open(LLM_RUN) as t:
        t.extractall(wd, filter="data")
    unit = next((wd / "level1_1_Softmax/units").iterdir())
    for j, (member, mem, comp) in enumerate([("inductor", 75.8, 76.3), ("synth/a0", 82.0, 70.5)]):
        d = unit / "iter1/profile" / f"m{j}"
        d.mkdir(parents=True)
        metrics = {"duration_us": 140.0, "memory_sol_pct": mem, "compute_sol_pct": comp}
        (d / "summary.json").write_text(
            json.dumps({"empty": False, "member": member, "source": "ncu", "metrics": metrics})
        )
        (d / "report.ncu-rep").write_bytes(b"NCU")
    # a second problem whose capture failed, next to it: an error page
    err = wd / "level1_2_Broken"
    err.mkdir()
    (err / "result.json").write_text(
        json.dumps(
            {
                "problem": "level1_2_Broken",
                "status": "error",
                "category": "error",
                "stage": "import",
                "reason": "import: ModuleNotFoundError: No module named 'nope'",
                "error": "Traceback ...\nModuleNotFoundError: No module named 'nope'",
                "meaningful": True,
            }
        )
    )
    return wd


def test_html_report_of_a_gpu_run_with_an_optimized_problem_and_llm_transcripts(llm_run):
    index = html.build(llm_run)  # no problem_set.json or results.csv: every <problem>/result.json
    assert index == llm_run / "report/index.html"
    check_problems_listed(llm_run, ["level1_1_Softmax", "level1_2_Broken"])
    pages = check_links(llm_run)
    _, text = _refs(index)
    assert "CPU mode" not in text  # a GPU run's times mean something
    assert "fast_1.5" in text and "deployed geomean" in text
    page = (llm_run / "report/problems/level1_1_Softmax.html").read_text()
    refs, text = _refs(llm_run / "report/problems/level1_1_Softmax.html")
    assert "optimized" in text and "1.029x" in text
    # the transcripts with their costs, the chosen candidate, gate files, the NCU reports
    assert sum(1 for r in refs if "/llm/" in r and r.endswith(".json")) >= 7
    assert "synthesizer" in text and "0.01334" in text
    assert "synth/a0 (stitched)" in text
    assert any(r.endswith("synth/a0/candidate.py") for r in refs)
    assert any(r.endswith("gate4.json") for r in refs) and any(r.endswith("report.ncu-rep") for r in refs)
    assert any(r.endswith("roofline.png") for r in refs) and any(r.endswith("search.png") for r in refs)
    assert "No dispatch record" in page  # the archive keeps no dispatch.json: said, not an empty plot
    refs, text = _refs(llm_run / "report/problems/level1_2_Broken.html")
    assert "Error in the problem (import)" in text and "No module named 'nope'" in text
    for png in (llm_run / "report/plots").rglob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size < 200_000, png
    assert len(pages) == 3


def test_the_report_works_from_a_copy_of_the_run_directory(llm_run, tmp_path):
    html.build(llm_run)
    copy = tmp_path / "elsewhere"
    shutil.copytree(llm_run, copy)
    check_links(copy)
    assert str(llm_run) not in (copy / "report/index.html").read_text()


def test_the_cli_rewrites_the_html_of_a_run_directory(llm_run, tmp_path):
    from kernelopt.cli import main

    stale = llm_run / "report/problems/level9_9_Gone.html"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text("old")
    assert main(["html", str(llm_run)]) == 0
    assert not stale.exists()  # pages and plots are the report's own: rewritten from scratch
    assert (llm_run / "report/index.html").is_file()
    assert main(["html", str(tmp_path / "missing")]) == 2


def test_file_contents_are_escaped_and_nothing_outside_the_run_is_linked(llm_run, tmp_path):
    """What a page shows comes from files a candidate or an LLM wrote: escaped, never markup.
    A link target outside the run directory is not linked.  A GPU run's failed capture (no
    device recorded) is not called CPU mode, and its failed attempt's kept log is linked."""
    wd = tmp_path / "run"
    shutil.copytree(llm_run, wd)
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    d = wd / "level1_3_Evil"
    d.mkdir()
    (d / "result.json").write_text(
        json.dumps(
            {
                "problem": "level1_3_Evil",
                "status": "error",
                "category": "error",
                "stage": "capture",
                "reason": evil,
                "error": evil,
                "infrastructure_faults": [{"where": "../../../../../../../../etc/hostname", "cause": evil}],
            }
        )
    )
    kept = wd / "logs/capture/level1_3_Evil.log.failed-20261130T000000-1"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text("torch.OutOfMemoryError: CUDA out of memory")
    html.build(wd, sorted(r.parent.name for r in wd.glob("*/result.json")))
    page = wd / "report/problems/level1_3_Evil.html"
    src = page.read_text()
    assert "<script>alert" not in src and "<img src=x" not in src
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in src
    refs, text = _refs(page)
    assert not any("hostname" in r for r in refs)
    assert any(r.endswith("level1_3_Evil.log.failed-20261130T000000-1") for r in refs)
    assert "CPU mode" not in text
    check_links(wd)


# --- the session's CPU demo run ------------------------------------------------------------


@pytest.mark.slow
def test_the_pipeline_writes_the_html_report(demo_run):
    problems = [r["problem"] for r in csv.DictReader(open(demo_run / "report/results.csv"))]
    assert len(problems) >= 10
    check_problems_listed(demo_run, problems)
    pages = check_links(demo_run)
    assert len(pages) == len(problems) + 1
    _, text = _refs(demo_run / "report/index.html")
    assert "CPU mode: times mean nothing" in text
    assert "CPU mode has no hardware counters" in text  # the roofline: one line, not an empty plot
    for p in problems:
        assert p in text
    # the plain matmul: no unit, no candidate; the search ran no iteration anywhere (search.iterations 0)
    _, text = _refs(demo_run / "report/problems/level1_5_Matmul.html")
    assert "no-triton" in text and "No unit" in text
    _, text = _refs(demo_run / "report/problems/level1_1_Softmax.html")
    assert "The search ran no iteration" in text and "CPU mode: times mean nothing" in text
    assert "skipped-by-mode" in text
    assert (demo_run / "report/plots/speedup_distribution.png").stat().st_size > 1000


def _browser_or_skip():
    from kernelopt.report import browser

    if browser.find_chromium() is None:
        msg = "no chromium on PATH (apt-get install chromium): the headless-browser check of the report"
        if os.environ.get("KERNELOPT_CI") == "1":
            pytest.fail(msg + " must run in CI")
        pytest.skip(msg)
    return browser


@pytest.mark.slow
def test_the_report_renders_in_headless_chromium_without_console_errors(demo_run, tmp_path):
    browser = _browser_or_skip()
    page = demo_run / "report/problems/level1_1_Softmax.html"
    for i, p in enumerate([demo_run / "report/index.html", page]):
        shot = tmp_path / f"page{i}.png"
        r = browser.render(p, shot, width=1400, height=1000)
        assert r.errors == [], r.errors
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and r.screenshot_bytes > 10_000


def test_the_browser_reports_console_errors(tmp_path):
    browser = _browser_or_skip()
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><img src="missing.png"><script>console.error("boom"); nope();</script></body></html>')
    r = browser.render(bad, tmp_path / "bad.png", width=400, height=300)
    text = "\n".join(r.errors)
    assert "boom" in text and "nope" in text and "missing.png" in text, r.errors
    assert (tmp_path / "bad.png").stat().st_size > 0


@pytest.mark.slow
def test_snakemakes_own_report_of_the_finished_run(demo_run, tmp_path):
    """``snakemake --report`` (the key outputs carry report() flags) from the checkout the run
    was made in: the session's demo run is one, a KERNELOPT_DEMO_RUN from elsewhere may not be."""
    from conftest import demo_run_config

    if os.environ.get("KERNELOPT_DEMO_RUN"):
        pytest.skip("KERNELOPT_DEMO_RUN may come from another checkout: its .snakemake metadata is not here")
    out = tmp_path / "snakemake_report.html"
    r = snakemake("--report", str(out), "--config", *demo_run_config(demo_run), timeout=300)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    text = out.read_text(errors="replace")
    assert out.stat().st_size > 10_000
    for name in ("results.csv", "summary.json", "stages.csv", "index.html"):
        assert re.search(re.escape(name), text), name


def test_a_unit_page_names_the_reread_roof(llm_run, tmp_path):
    """A unit whose rows do not fit on one SM (result.json: roofline.units[].reread_roof_pct)
    has that roof on its line of the problem page."""
    import shutil

    wd = tmp_path / "run"
    shutil.copytree(llm_run, wd)
    res_path = wd / "level1_1_Softmax/result.json"
    res = json.loads(res_path.read_text())
    unit = next((wd / "level1_1_Softmax/units").iterdir()).name
    line = {"unit": unit, "bytes": 2**29, "inductor_ms": 0.2, "inductor_gbs": 2684.0, "inductor_pct": 62.4}
    for roof, said in ((66.7, True), (None, False)):
        res["roofline"] = {"peak_gbs": 4300.0, "units": [{**line, "best_candidate": None, "reread_roof_pct": roof}]}
        res_path.write_text(json.dumps(res))
        html.build(wd)
        _, text = _refs(wd / "report/problems/level1_1_Softmax.html")
        assert "62.4 % of the copy bandwidth" in text
        assert ("so Inductor's kernel reads them twice: the roof at that traffic is 66.7 %" in text) is said


# --- honest labels (issue 15, item 4) on hand-built run directories ------------------------


def _put(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def test_a_gpu_run_flags_a_model_slower_than_eager_on_the_index_and_its_page(tmp_path):
    """Optimized 1.02x vs torch.compile but 0.58x vs eager: flagged on the index (the cell and a
    note) and on the problem's page; a GPU run keeps its GPU columns."""
    common = {"level": "level1", "units": 1, "units_replaced": 1, "meaningful": True, "gpu_seconds": 4.0}
    _put(
        tmp_path / "level1_1_Slow/result.json",
        {
            **common,
            "problem": "level1_1_Slow",
            "category": "optimized",
            "speedup_vs_compiled": 1.02,
            "speedup_vs_eager": 0.58,
            "eager_ms": 0.58,
            "deployed_ms": 1.0,
        },
    )
    _put(
        tmp_path / "level1_2_Fast/result.json",
        {
            **common,
            "problem": "level1_2_Fast",
            "category": "optimized",
            "speedup_vs_compiled": 1.5,
            "speedup_vs_eager": 2.0,
        },
    )
    html.build(tmp_path, ["level1_1_Slow", "level1_2_Fast"])
    _, text = _refs(tmp_path / "report/index.html")
    assert "Slower than eager: 1 problem(s) deploy a model slower than the eager PyTorch model" in text
    src = (tmp_path / "report/index.html").read_text()
    assert src.count('<span class="small">slower than eager</span>') == 1  # the slow problem's cell only
    assert '<td class="num slow">0.580x<br>' in src
    assert "GPU s" in text and "GPU busy" in text and "CPU mode" not in text
    _, text = _refs(tmp_path / "report/problems/level1_1_Slow.html")
    assert "Slower than eager: the deployed model (the stitched one, 1 ms) takes longer than the eager" in text
    assert "0.580x vs eager, although 1.020x vs torch.compile" in text
    assert "GPU seconds" in text
    _, text = _refs(tmp_path / "report/problems/level1_2_Fast.html")
    assert "slower than eager" not in text.lower()


def test_a_cpu_run_hides_gpu_columns_and_says_ranks_ignore_times(tmp_path):
    """CPU mode: no GPU s / GPU busy column or row, the cpu-mode reason explained, and a unit's
    ranking said to be by origin, not by the (meaningless) times shown beside it."""
    p = tmp_path / "level1_1_Softmax"
    _put(
        p / "result.json",
        {
            "problem": "level1_1_Softmax",
            "level": "level1",
            "category": "fallback",
            "reason": "cpu-mode",
            "detail": ["gate 4 skipped in CPU mode (times mean nothing there): ..."],
            "speedup_vs_compiled": 1.0,
            "speedup_vs_eager": 0.0008,
            "units": 1,
            "meaningful": False,
            "gpu_seconds": 68.35,
        },
    )
    Dispatch(problem=p.name, verdict="optimizable", units=[DispatchUnit(id="u", kernel="u")]).save(p / "dispatch.json")
    u = p / "units/u"
    for slot, origin in (("cands/c0", "inductor"), ("iter1/cand0", "search"), ("iter1/cand1", "search")):
        _put(u / slot / "slot.json", {"empty": False, "origin": origin})
        (u / slot / "candidate.py").write_text("# kernel\n")
    _put(u / "iter1/cand0/timing.json", {"ratio": 0.56, "ci_low": 0.55, "ci_high": 0.57, "meaningful": False})
    _put(u / "iter1/cand1/timing.json", {"ratio": 0.39, "ci_low": 0.33, "ci_high": 0.44, "meaningful": False})
    ranked = ["iter1/cand0/candidate.py", "iter1/cand1/candidate.py", "cands/c0/candidate.py"]
    _put(u / "best.json", {"unit": "u", "candidates": {r: {} for r in ranked}, "ranked": ranked, "meaningful": False})
    html.build(tmp_path, ["level1_1_Softmax"])
    _, text = _refs(tmp_path / "report/index.html")
    assert "GPU s" not in text and "GPU busy" not in text
    assert "Fallback reason cpu-mode : gate 4 was skipped, not failed" in text  # (<code>cpu-mode</code>)
    assert "ranks ignore the times" in text
    assert "slower than eager" not in text.lower()  # CPU-mode times say nothing about eager
    _, text = _refs(tmp_path / "report/problems/level1_1_Softmax.html")
    assert "GPU seconds" not in text and "GPU busy" not in text and "CUDA graph" not in text
    assert "ranked first (by origin, not time): iter1/cand0/candidate.py" in text
    assert "In CPU mode ranks ignore the times" in text and "rank 1 may be shown slower" in text
    assert "rank (by origin)" in text


def test_the_new_matched_category_is_counted_and_styled(tmp_path):
    _put(
        tmp_path / "level1_1_A/result.json",
        {
            "problem": "level1_1_A",
            "level": "level1",
            "category": "matched (not synthesized)",
            "reason": "synthesis and search off (search.iterations: 0): no candidate was tried",
            "speedup_vs_compiled": 1.0,
            "meaningful": True,
        },
    )
    html.build(tmp_path, ["level1_1_A"])
    src = (tmp_path / "report/index.html").read_text()
    assert 'class="badge c-matched-not-synthesized-"' in src and ".c-matched-not-synthesized-" in src
    assert tables.summarize([tables.result_row(tmp_path, "level1_1_A")])["categories"]["matched (not synthesized)"] == 1
    _, text = _refs(tmp_path / "report/problems/level1_1_A.html")
    assert "Reason: synthesis and search off (search.iterations: 0): no candidate was tried" in text


def test_graph_level_wins_are_shown_apart_from_kernel_level_ones(tmp_path):
    """Issue 16: a problem won by a rewrite above the kernel is counted and labelled apart from
    one won by a kernel candidate: summary.json, results.csv, the console, the index and the
    problem's page (with the analysis's findings)."""
    import csv

    from kernelopt.report import tables

    common = {"level": "level1", "units": 1, "units_replaced": 1, "meaningful": True, "speedup_vs_eager": 2.0}
    rw = {"rewrite": "diag-matmul", "why": "mm with diag(a) built in the graph", "win": "a row scaling"}
    gl = {
        "findings": [{**rw, "node": "mm", "candidate": True}, {**rw, "rewrite": "cancelling", "node": "neg_1"}],
        "units": ["rw_diag_matmul_buf1"],
        "refused": [],
        "stitched": [{"attempt": 0, "unit": "rw_diag_matmul_buf1", "rewrite": "diag-matmul", "gate3": "pass"}],
    }
    won = {"unit": "rw_diag_matmul_buf1", "class": "graph-level diag-matmul", "source": "rewrite:diag-matmul"}
    _put(
        tmp_path / "level1_1_Diag/result.json",
        {**common, "problem": "level1_1_Diag", "category": "optimized", "speedup_vs_compiled": 70.3,
         "winners": [{**won, "graph_level": rw}], "graph_level": gl},
    )  # fmt: skip
    _put(
        tmp_path / "level1_2_Softmax/result.json",
        {**common, "problem": "level1_2_Softmax", "category": "optimized", "speedup_vs_compiled": 1.02,
         "winners": [{"unit": "u", "class": "row-reduction", "source": "handwritten"}]},
    )  # fmt: skip
    out = tmp_path / "report"
    probs = ["level1_1_Diag", "level1_2_Softmax"]
    summary = tables.results(tmp_path, probs, out / "results.csv", out / "summary.json")
    apart = summary["overall"]["optimized_by_where_won"]
    assert apart["graph-level"]["problems"] == 1 and abs(apart["graph-level"]["geomean"] - 70.3) < 1e-9
    assert apart["kernel-level"]["problems"] == 1 and abs(apart["kernel-level"]["geomean"] - 1.02) < 1e-9
    rows = {r["problem"]: r for r in csv.DictReader(open(out / "results.csv"))}
    assert rows["level1_1_Diag"]["won_at"] == "graph-level" and rows["level1_2_Softmax"]["won_at"] == "kernel-level"
    assert "graph-level diag-matmul: rewrite:diag-matmul" == rows["level1_1_Diag"]["winner"]
    text = tables.results_console(summary)
    assert "optimized graph-level (rewrites above the kernel): 1 (geomean 70.300x)" in text
    html.build(tmp_path, probs)
    _, text = _refs(tmp_path / "report/index.html")
    assert "Optimized problems by where the win came from: graph-level" in text
    src = (tmp_path / "report/index.html").read_text()
    assert src.count(">graph-level</span>") == 1 and src.count(">kernel-level</span>") == 1
    _, text = _refs(tmp_path / "report/problems/level1_1_Diag.html")
    assert "What produced it (graph-level)" in text and "graph-level rewrite diag-matmul" in text
    assert "Rewrites above the kernel" in text and "no candidate generator" in text  # the cancelling finding
    assert "attempt 0: rw_diag_matmul_buf1 (diag-matmul), gate 3 pass" in text
    _, text = _refs(tmp_path / "report/problems/level1_2_Softmax.html")
    assert "Rewrites above the kernel" not in text and "What produced it (kernel-level)" in text
