"""The HTML report (docs/report.md): ``report/index.html`` and one page per problem,
``report/problems/<problem>.html``, with small PNG plots under ``report/plots/``.

Everything is read from the run directory (``result.json``, ``dispatch.json``, each unit's
slots, iterations and ``best.json``, the stitch attempts, the LLM transcripts); the numbers
of the summary are ``tables.summary_of``'s, the same as ``summary.json``'s.  Links are
relative and made only to files that exist, so the report works when the run directory is
copied elsewhere.  ``build`` is what the ``report`` rule and ``kernelopt html`` call.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..core.records import (
    JOB_GPU_SUFFIX,
    AttemptPaths,
    Beam,
    Best,
    CandidateTiming,
    Dispatch,
    DispatchUnit,
    GateVerdict,
    IsolateCheck,
    IterPaths,
    Member,
    MemberProfile,
    ProblemPaths,
    ProfilePaths,
    RecordError,
    ReportPaths,
    Slot,
    SlotPaths,
    StitchPlan,
    attempt_stage,
    llm_ledger,
    llm_settings,
    llm_state_dir,
    llm_transcripts,
    llm_transcripts_at,
    load_readable,
    logs_dir,
    member_path,
    problem_set,
    problems_with_result,
    report_dir,
    slot_of_member,
)
from . import tables

PAGES = "problems"  # report/problems/<problem>.html
PLOTS = "plots"  # report/plots/*.png, report/plots/<problem>/*.png
KINDS = ["triton", "cublas", "blas", "cudnn", "aten", "other"]
KIND_COLORS = {
    "triton": "#4c72b0",
    "cublas": "#dd8452",
    "blas": "#c44e52",
    "cudnn": "#55a868",
    "aten": "#8172b3",
    "other": "#937860",
}
BUCKETS = [">= 5x", "2-5x", "1.01-2x", "matched", "fallback", "error"]
CPU_NOTE = (
    "CPU mode: times mean nothing here (Triton's interpreter, timed with a wall clock); gate 4 is never "
    "passed, so no problem is reported as optimized.  Speedups, fast_p and the plots of times show the "
    "plumbing only."
)
DPI = 90


# --- reading the run directory -----------------------------------------------------------


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _best(path: Path) -> Best:
    """A unit's ranking; an empty one where select never ran or its file cannot be read (the
    report still renders what there is)."""
    try:
        return Best.load_or_empty(path)
    except RecordError:
        return Best(unit=Path(path).parent.name)


def _dispatch(path: Path) -> Dispatch | None:
    """The problem's dispatch record; None where classify never wrote it or it cannot be read
    (the page says so)."""
    try:
        return Dispatch.load_optional(path)
    except (OSError, ValueError):  # RecordError too
        return None


def _plan(path: Path) -> StitchPlan | None:
    """A stitch attempt's plan; None where it cannot be read (the report renders what there is)."""
    try:
        return StitchPlan.load_or_none(path)
    except RecordError:
        return None


def _replacements(path: Path) -> dict[str, str]:
    plan = _plan(path)
    return plan.replacements if plan else {}


def _natural(path: Path | str) -> list[Any]:
    """Sort key that orders ``c2`` before ``c10``."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(path))]


def run_problems(workdir: Path) -> list[str]:
    """The run's problems: ``problem_set.json``, else ``report/results.csv``, else every
    directory with a ``result.json``."""
    ps = _read(problem_set(workdir)).get("problems")
    if ps:
        return list(ps)
    csv_path = ReportPaths.of(workdir).results_csv
    if csv_path.exists():
        import pandas as pd

        return [str(p) for p in pd.read_csv(csv_path)["problem"]]
    return problems_with_result(workdir)


class Linker:
    """Relative links from one page's directory to files of the run, only to files that exist."""

    def __init__(self, page_dir: Path, root: Path):
        self.page_dir = page_dir
        self.root = Path(root).resolve()  # the run directory: nothing outside it is linked

    def href(self, target: Path) -> str | None:
        if not Path(target).is_file() or not Path(target).resolve().is_relative_to(self.root):
            return None
        rel = os.path.relpath(Path(target).resolve(), self.page_dir.resolve())
        return quote(rel.replace(os.sep, "/"))

    def link(self, target: Path, text: str | None = None) -> dict[str, Any]:
        return {"text": text if text is not None else Path(target).name, "href": self.href(target)}

    def links(self, targets: list[Path], base: Path | None = None) -> list[dict[str, Any]]:
        """Links to the targets that exist (text: the path under ``base``, else the name)."""
        out = []
        for t in targets:
            if Path(t).is_file():
                text = Path(t).relative_to(base).as_posix() if base else Path(t).name
                out.append(self.link(t, text))
        return out


def _verdict(path: Path) -> dict[str, Any]:
    g = load_readable(GateVerdict.load, path)
    return {"verdict": g.verdict, "reason": g.reason, "rule": g.rule} if g else {}


def _transcripts(directory: Path, linker: Linker, base: Path) -> list[dict[str, Any]]:
    """The LLM transcripts under ``directory`` (``llm_transcripts``: one per call), with their cost."""
    out = []
    for f in sorted(llm_transcripts(directory), key=_natural):
        t = _read(f)
        u = t.get("usage") or {}
        out.append(
            {
                "link": linker.link(f, f.relative_to(base).as_posix()),
                "role": t.get("role", f.stem.rsplit("-", 1)[0]),
                "model": (t.get("response") or {}).get("model") or "",
                "input_tokens": u.get("input_tokens", 0),
                "output_tokens": u.get("output_tokens", 0),
                "cache_read_tokens": u.get("cache_read_input_tokens", 0),
                "cache_write_tokens": u.get("cache_creation_input_tokens", 0),
                "usd": float(t.get("usd", 0.0) or 0.0),
                "cached": bool(t.get("cached")),
                "answered": bool(t.get("response")),
            }
        )
    return out


def _slot_dirs(udir: Path) -> list[Path]:
    """Every candidate slot of a unit, in pipeline order: hand-written, synthesised, then each
    iteration's candidates with their directed retries."""
    found = [d for pat in ("cands/c*", "synth/a*") for d in sorted(udir.glob(pat), key=_natural)]
    iters = sorted(udir.glob("iter*/cand*"), key=_natural)
    for d in iters:
        found.append(d)
        found += sorted(d.glob("r*"), key=_natural)
    return [d for d in found if d.is_dir() and SlotPaths(d).slot.exists()]


def _timing(d: Path, ranked: dict[str, Any]) -> dict[str, Any]:
    """The slot's isolated time relative to Inductor's kernel: its ``timing.json`` (the search),
    else what ``select`` measured (``best.json``)."""
    t = load_readable(CandidateTiming.load, SlotPaths(d).timing)
    if t is None:
        r = ranked or {}
        if not r:
            return {}
        # select writes 1.0 for a time that means nothing (CPU mode): then only its CI is shown
        ratio = r.get("ratio") if r.get("meaningful", True) or r.get("origin") == "inductor" else None
        return {"ratio": ratio, "ci": r.get("ci"), "meaningful": r.get("meaningful")}
    if t.error:
        return {"error": t.error}
    return {"ratio": t.ratio, "ci": t.ci, "meaningful": t.meaningful}


def _measured_ratio(udir: Path, member: Member) -> float | None:
    """A beam member's time relative to Inductor's kernel: its ratio where it is meaningful,
    else what its timing measured (CPU mode: the plumbing's number)."""
    if member.meaningful:
        return member.ratio
    t = load_readable(CandidateTiming.load, SlotPaths(udir / slot_of_member(member.path)).timing)
    return t.ratio if t and t.ratio is not None else member.ratio


def _stitched_paths(paths: ProblemPaths, a: int | None) -> dict[str, str]:
    """unit -> the candidate (path under the unit) stitch attempt ``a`` (the deployed one)
    replaced it with."""
    if a is None:
        return {}
    out = {}
    for unit, cand in _replacements(paths.attempt(int(a)).plan).items():
        marker = f"/units/{unit}/"
        out[unit] = str(cand).split(marker, 1)[1] if marker in str(cand) else Path(str(cand)).name
    return out


def _profiles(paths: ProblemPaths, unit: str) -> list[MemberProfile]:
    """Every profile of a member of the unit's search (``iter<i>/profile/m<j>/summary.json``)."""
    out = []
    for f in sorted(paths.profile_summaries(unit), key=_natural):
        s = load_readable(MemberProfile.load, f)
        if s and not s.empty:
            out.append(s)
    return out


def _slot_rows(
    udir: Path, best: Best, linker: Linker, stitched: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The unit's candidate slots with a candidate (origin, direction, gates, time, rank, files)
    and the empty ones with their reason."""
    ranked = best.ranked
    slots, empty = [], []
    for d in _slot_dirs(udir):
        rel = d.relative_to(udir).as_posix()
        sp = SlotPaths(d)
        try:
            s = Slot.load_or_none(sp.slot)
        except (OSError, RecordError):
            s = None  # the page shows what it can read
        if s is None or s.empty:
            empty.append({"slot": rel, "reason": (s.reason if s else None) or ""})
            continue
        direction = s.direction or {}
        cand = member_path(rel)
        slots.append(
            {
                "slot": rel,
                "origin": s.origin or "",
                "direction": direction.get("name", "") if isinstance(direction, dict) else str(direction),
                "rationale": direction.get("rationale", "") if isinstance(direction, dict) else "",
                "gate1": _verdict(sp.gate(1)),
                "gate2": _verdict(sp.gate(2)),
                "timing": _timing(d, best.candidates.get(cand, {})),
                "rank": ranked.index(cand) + 1 if cand in ranked else None,
                "stitched": stitched == cand,
                "files": linker.links(sp.files[:4]) + linker.links(sp.files[4:]),
                "llm": linker.links(sorted(llm_transcripts_at(d), key=_natural)),
            }
        )
    return slots, empty


def _iteration_rows(udir: Path, linker: Linker) -> list[dict[str, Any]]:
    """The unit's search iterations: each beam's members, why it stopped, its profiles."""
    iterations = []
    for it in sorted((p for p in udir.glob("iter*") if p.is_dir()), key=_natural):
        ip = IterPaths(it)
        beam = load_readable(Beam.load, ip.beam)
        members = [
            {"id": m.id, "ratio": _measured_ratio(udir, m), "direction": m.direction or ""}
            for m in (beam.members if beam else [])
        ]
        profiles = []
        for m in sorted(it.glob("profile/m*"), key=_natural):
            pp = ProfilePaths(m)
            s = load_readable(MemberProfile.load, pp.summary)
            if s is None or s.empty:
                continue
            profiles.append(
                {
                    "slot": m.name,
                    "member": s.member,
                    "source": s.source,
                    "note": s.note,
                    "reused_from": s.reused_from,
                    "files": linker.links(pp.files),
                }
            )
        iterations.append(
            {
                "name": it.name,
                "members": members,
                "stopped": beam.stopped if beam else None,
                "infrastructure": beam.infrastructure if beam else None,
                "files": linker.links(ip.files),
                "profiles": profiles,
                "llm": linker.links(sorted(llm_transcripts_at(it), key=_natural)),
            }
        )
    return iterations


def unit_info(paths: ProblemPaths, unit: str, disp_unit: DispatchUnit | None, linker: Linker, stitched: str | None):
    udir = paths.unit(unit)
    check = load_readable(IsolateCheck.load, paths.isolate_check(unit)) or IsolateCheck()
    best = _best(paths.best(unit))
    ranked = list(best.ranked)
    slots, empty = _slot_rows(udir, best, linker, stitched)
    iterations = _iteration_rows(udir, linker)
    return {
        "id": unit,
        "kernel": disp_unit.kernel if disp_unit else "",
        "share": disp_unit.share if disp_unit else None,
        "time_ms": disp_unit.time_ms if disp_unit else None,
        "fused": unit.startswith("fz_"),
        "region": ((disp_unit and disp_unit.region) or {}).get("member_units"),
        "check": {"status": check.status or None, "reason": check.reason},
        "files": linker.links(
            [
                paths.contract(unit),
                paths.inductor_kernel(unit),
                paths.reference(unit),
                paths.isolate_check(unit),
                paths.best(unit),
            ]
        ),
        "slots": slots,
        "empty": empty,
        "iterations": iterations,
        "ranked": ranked,
        # select ranks by time only where times mean something (on the GPU); else by origin
        "ranked_by_time": best.meaningful is not False,
        "best_infrastructure": best.infrastructure,
        "stitched": stitched,
    }


def _attempts(paths: ProblemPaths, linker: Linker) -> list[dict[str, Any]]:
    out = []
    dirs = [paths.attempt_dir(0)] + sorted(paths.root.glob("stitch/retries/r*"), key=_natural)
    for a, d in enumerate(dirs):
        ap = AttemptPaths(d)
        if not ap.plan.exists():
            continue
        plan = _plan(ap.plan)
        repl = {}
        for unit, cand in (plan.replacements if plan else {}).items():
            marker = f"/units/{unit}/"
            repl[unit] = str(cand).split(marker, 1)[1] if marker in str(cand) else Path(str(cand)).name
        out.append(
            {
                "name": attempt_stage(a),
                "status": plan.status if plan else None,
                "replacements": repl,
                "gate3": _verdict(ap.gate(3)),
                "gate4": _verdict(ap.gate(4)),
                "files": linker.links(ap.files) + linker.links(sorted(d.glob("candidates/*.py")), d),
            }
        )
    return out


def _logs(workdir: Path, problem: str, linker: Linker) -> list[dict[str, Any]]:
    root = logs_dir(workdir)
    if not root.exists():
        return []
    found = []
    for rule in sorted(p for p in root.iterdir() if p.is_dir()):
        found += sorted(rule.glob(f"{problem}.log*"), key=_natural)  # with kept logs of failed attempts
        found += sorted((rule / problem).rglob("*.log*"), key=_natural)
    found = [f for f in found if not f.name.endswith(JOB_GPU_SUFFIX)]
    return linker.links([f for f in found if f.is_file()], root)


def problem_info(
    workdir: Path, problem: str, row: dict[str, Any], page_dir: Path, run_meaningful: bool = False
) -> dict[str, Any]:
    """One problem page's data.  ``run_meaningful``: the run timed on a GPU (a problem whose
    capture failed records no device, and its page must not say "CPU mode")."""
    paths = ProblemPaths(workdir, problem)
    linker = Linker(page_dir, workdir)
    result, disp = tables.read_result(paths.result), _dispatch(paths.dispatch)
    res = result.as_dict() if result else {}  # what the page shows, under the file's keys
    x = result.extra if result else {}  # the result's keys beyond its typed fields
    deployed_attempt = result.stitched_attempt if result else None
    stitched = _stitched_paths(paths, deployed_attempt)
    d = disp or Dispatch()  # the page of a problem classify never reached: no launches, no units
    disp_units = {u.id: u for u in d.units}
    unit_ids = list(disp_units) + sorted(
        (d.name for d in (paths.root / "units").glob("*") if d.is_dir() and d.name not in disp_units), key=_natural
    )
    units = [unit_info(paths, u, disp_units.get(u), linker, stitched.get(u)) for u in unit_ids]
    roof = {r["unit"]: r for r in (x.get("roofline") or {}).get("units", [])}
    for u in units:  # bytes over time against the copy bandwidth (report/roofline.py)
        u["roofline"] = roof.get(u["id"])
    cap = paths.capture
    return {
        "id": problem,
        "row": row,
        "result": res,
        "dispatch": disp,
        "launches": d.launches,
        "kinds": sorted(d.time_by_kind_ms.items(), key=lambda kv: -kv[1]),
        "refused_pairs": (d.fusion or {}).get("refused_pairs", []),
        "refused_regions": (d.regions or {}).get("refused_starts", []),
        "units": units,
        "attempts": _attempts(paths, linker),
        # deployed: only an optimized problem ships its stitched model; a matched one keeps the baseline
        "deployed": (
            linker.link(paths.attempt(int(deployed_attempt)).output_code, "stitched output_code.py")
            if deployed_attempt is not None and result and result.optimized
            else None
        ),
        "stitch_code": linker.link(
            paths.attempt(0).output_code, paths.attempt(0).output_code.relative_to(paths.root).as_posix()
        ),
        "faults": [
            {"where": linker.link(paths.root / f["where"], f["where"]), "cause": f.get("cause", "")}
            for f in x.get("infrastructure_faults", [])
        ],
        "files": linker.links(
            [paths.result, paths.dispatch, paths.isolated, paths.baseline, paths.capture_record, paths.profile],
            paths.root,
        ),
        "capture_code": linker.links(
            sorted(cap.glob("output_code*.py"), key=_natural)
            + sorted(cap.glob("fx_graph_post_grad*.py"), key=_natural),
            paths.root,
        ),
        "kernels": linker.links(sorted(cap.glob("kernels/*.py"), key=_natural), paths.root),
        "logs": _logs(workdir, problem, linker),
        "transcripts": _transcripts(paths.root, linker, paths.root),
        "meaningful": bool(result.meaningful if result else row.get("meaningful")) or run_meaningful,
        "searched": any(u["iterations"] for u in units),
    }


# --- plots -------------------------------------------------------------------------------


def _short(name: str, n: int = 48) -> str:
    """A legend label: long kernel names keep their start and their distinctive end."""
    return name if len(name) <= n else f"{name[: n // 2 - 2]}...{name[-(n // 2 - 1) :]}"


def _figure(width: float, height: float):
    from matplotlib.figure import Figure  # Agg through savefig: no pyplot state, no display

    fig = Figure(figsize=(width, height), dpi=DPI)
    return fig, fig.subplots()


def _save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    return path


def bucket(row: dict[str, Any]) -> str:
    """The speedup distribution's bucket of one problem (docs/report.md)."""
    cat = row["category"]
    if cat == "optimized":
        s = row.get("speedup_vs_compiled") or 1.0
        return ">= 5x" if s >= 5 else "2-5x" if s >= 2 else "1.01-2x"
    if cat.startswith("matched"):
        return "matched"
    return "error" if cat == "error" else "fallback"


def plot_distribution(df, path: Path, meaningful: bool) -> Path:
    import pandas as pd

    counts = pd.crosstab(df["bucket"], df["level"]).reindex(BUCKETS, fill_value=0)
    fig, ax = _figure(6.0, 2.8)
    bottom = [0] * len(BUCKETS)
    for level in counts.columns:
        ax.bar(BUCKETS, counts[level], bottom=bottom, label=level)
        bottom = [b + c for b, c in zip(bottom, counts[level])]
    for x, total in enumerate(bottom):
        if total:
            ax.text(x, total, str(total), ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("problems")
    ax.set_title("speedup vs the compiled baseline" + ("" if meaningful else " (CPU mode: not meaningful)"), fontsize=9)
    ax.set_ylim(0, max(bottom + [1]) * 1.2)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=7, frameon=False)
    ax.tick_params(labelsize=8)
    return _save(fig, path)


def plot_kinds_all(shares, path: Path, meaningful: bool) -> Path:
    """Share of device time by dispatch kind, one bar per problem (``shares``: problem x kind)."""
    n = len(shares.index)
    fig, ax = _figure(6.0, min(0.22 * n + 0.9, 30))
    left = [0.0] * n
    for kind in shares.columns:
        ax.barh(shares.index, shares[kind], left=left, color=KIND_COLORS.get(kind, "#999999"), label=kind)
        left = [a + b for a, b in zip(left, shares[kind])]
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of device time" + ("" if meaningful else " (CPU: wall time per launch, not meaningful)"))
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, ncol=len(shares.columns), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    return _save(fig, path)


def plot_kinds(kinds: list[tuple[str, float]], path: Path, meaningful: bool) -> Path:
    fig, ax = _figure(4.5, 0.3 * len(kinds) + 0.8)
    names = [k for k, _ in kinds]
    ax.barh(names, [v for _, v in kinds], color=[KIND_COLORS.get(k, "#999999") for k in names])
    ax.invert_yaxis()
    ax.set_xlabel("device time, ms" + ("" if meaningful else " (CPU mode: not meaningful)"), fontsize=8)
    ax.tick_params(labelsize=8)
    return _save(fig, path)


def plot_search(units: list[dict[str, Any]], path: Path, meaningful: bool) -> Path | None:
    """Best time (relative to Inductor's kernel) of each unit's beam per iteration."""
    lines = []
    for u in units:
        pts = []
        for it in u["iterations"]:
            vals = [m["ratio"] for m in it["members"] if isinstance(m.get("ratio"), (int, float))]
            if vals:
                pts.append((int(it["name"][4:]), min(vals)))
        if len(pts) >= 2:
            lines.append((u["id"], pts))
    if not lines:
        return None
    fig, ax = _figure(6.0, 2.8)
    for name, pts in lines:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=_short(name))
    ax.axhline(1.0, color="#888888", lw=0.8, ls="--")
    ax.set_xlabel("iteration", fontsize=8)
    ax.set_ylabel("best time / Inductor's", fontsize=8)
    ax.set_title("the search's best per iteration" + ("" if meaningful else " (CPU mode: not meaningful)"), fontsize=9)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=6, frameon=False)
    return _save(fig, path)


def roofline_points(paths: ProblemPaths, units: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """NCU speed-of-light positions (memory %, compute %) of Inductor's kernel and the chosen
    candidate of each unit, where an NCU profile of them exists."""
    pts = []
    for u in units:
        chosen = u["stitched"] or (u["ranked"][0] if u["ranked"] else None)
        chosen_id = None
        if chosen:
            chosen_id = "inductor" if chosen.startswith("cands/c0/") else slot_of_member(chosen)
        for prof in _profiles(paths, u["id"]):
            if prof.source != "ncu":
                continue
            m = prof.metrics or {}
            mem, comp = m.get("memory_sol_pct"), m.get("compute_sol_pct")
            if mem is None or comp is None:
                continue
            for role, wanted in (("inductor", "inductor"), ("chosen", chosen_id)):
                if (
                    wanted
                    and prof.member == wanted
                    and not any(p["unit"] == u["id"] and p["role"] == role for p in pts)
                ):
                    pts.append({"unit": u["id"], "role": role, "member": wanted, "memory": mem, "compute": comp})
    return pts


def plot_roofline(points: list[dict[str, Any]], path: Path) -> Path:
    fig, ax = _figure(4.2, 3.4)
    units = sorted({p["unit"] for p in points})
    colors = {u: f"C{i % 10}" for i, u in enumerate(units)}
    for p in points:
        ax.scatter(
            p["memory"],
            p["compute"],
            marker="o" if p["role"] == "inductor" else "*",
            s=40 if p["role"] == "inductor" else 90,
            color=colors[p["unit"]],
        )
    for u in units:
        a = [p for p in points if p["unit"] == u and p["role"] == "inductor"]
        b = [p for p in points if p["unit"] == u and p["role"] == "chosen"]
        if a and b and (a[0]["memory"], a[0]["compute"]) != (b[0]["memory"], b[0]["compute"]):
            ax.annotate(
                "",
                xy=(b[0]["memory"], b[0]["compute"]),
                xytext=(a[0]["memory"], a[0]["compute"]),
                arrowprops={"arrowstyle": "->", "color": colors[u]},
            )
    if len(units) > 1:
        from matplotlib.lines import Line2D

        shown = units[:12]
        handles = [Line2D([], [], marker="o", ls="", color=colors[u]) for u in shown]
        labels = [_short(u) for u in shown]
        ax.legend(handles, labels, fontsize=6, frameon=False, loc="upper left")
    ax.set_xlim(0, 105)
    ax.set_ylim(0, 105)
    ax.set_xlabel("memory throughput, % of peak (NCU)", fontsize=8)
    ax.set_ylabel("compute throughput, % of peak (NCU)", fontsize=8)
    ax.set_title("o Inductor's kernel   * chosen kernel", fontsize=8)
    ax.tick_params(labelsize=8)
    return _save(fig, path)


# --- pages -------------------------------------------------------------------------------


def _env():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.ChainableUndefined,  # result.json keys are optional: a missing one prints as "–"
    )
    env.filters["num"] = _num
    env.filters["pct"] = lambda v, d=0: "–" if _missing(v) else f"{100 * v:.{d}f}%"
    env.filters["speedup"] = lambda v: "–" if _missing(v) else f"{v:.3f}x"
    env.filters["vclass"] = lambda v: re.sub(r"[^a-z0-9]+", "-", str(v or "none").lower())
    return env


def _missing(v: Any) -> bool:
    import jinja2

    return v is None or isinstance(v, jinja2.Undefined) or (isinstance(v, float) and v != v) or v == ""


def _num(v: Any, digits: int = 4) -> str:
    if _missing(v):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def _rel(target: Path, page_dir: Path) -> str:
    return quote(os.path.relpath(target, page_dir).replace(os.sep, "/"))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def build(workdir: str | Path, problems: list[str] | None = None) -> Path:
    """Write ``report/index.html``, ``report/problems/<problem>.html`` and the plots; returns
    the index's path.  Earlier pages and plots are removed first (they are this function's)."""
    import pandas as pd

    workdir = Path(workdir)
    problems = list(problems) if problems is not None else run_problems(workdir)
    rep = report_dir(workdir)
    pages, plots = rep / PAGES, rep / PLOTS
    for d in (pages, plots):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True, exist_ok=True)
    rows = [tables.result_row(workdir, p) for p in problems]
    summary = tables.summary_of(rows)
    meaningful = bool(summary["meaningful"])
    df = pd.DataFrame(rows, columns=tables.RESULT_COLUMNS)
    df["bucket"] = [bucket(r) for r in rows]
    env = _env()

    infos, all_points, shares = [], [], {}
    for row in rows:
        p = row["problem"]
        info = problem_info(workdir, p, row, pages, meaningful)
        pplots = plots / _safe(p)
        figs: dict[str, str | None] = {"kinds": None, "search": None, "roofline": None}
        if info["kinds"]:
            shares[p] = {k: v for k, v in info["kinds"]}
            figs["kinds"] = _rel(plot_kinds(info["kinds"], pplots / "dispatch.png", info["meaningful"]), pages)
        sp = plot_search(info["units"], pplots / "search.png", info["meaningful"])
        figs["search"] = _rel(sp, pages) if sp else None
        pts = roofline_points(ProblemPaths(workdir, p), info["units"])
        if pts:
            figs["roofline"] = _rel(plot_roofline(pts, pplots / "roofline.png"), pages)
            all_points += [{**pt, "unit": f"{p}/{pt['unit']}"} for pt in pts]
        info["figs"] = figs
        info["page"] = f"{PAGES}/{quote(_safe(p))}.html"
        (pages / f"{_safe(p)}.html").write_text(
            env.get_template("problem.html").render(
                p=info,
                cpu_note=CPU_NOTE,
                cpu_ranking=tables.CPU_MODE_RANKING,
                index="../index.html",
                css=_css(),
                title=f"kernelopt: {p}",
            )
        )
        infos.append(info)

    figs = {"distribution": None, "kinds": None, "roofline": None}
    if rows:
        figs["distribution"] = _rel(plot_distribution(df, plots / "speedup_distribution.png", meaningful), rep)
    if shares:
        frame = pd.DataFrame.from_dict(shares, orient="index").fillna(0.0)
        frame = frame[[k for k in KINDS if k in frame.columns] + [k for k in frame.columns if k not in KINDS]]
        frame = frame.div(frame.sum(axis=1).where(lambda s: s > 0, 1.0), axis=0)
        figs["kinds"] = _rel(plot_kinds_all(frame, plots / "dispatch_kinds.png", meaningful), rep)
    if all_points:
        figs["roofline"] = _rel(plot_roofline(all_points, plots / "roofline.png"), rep)
    linker = Linker(rep, workdir)
    levels = [{"name": "all", **summary["overall"]}] + [{"name": k, **v} for k, v in summary["levels"].items()]
    rp = ReportPaths(rep)
    index = rp.index
    index.write_text(
        env.get_template("index.html").render(
            summary=summary,
            levels=levels,
            problems=infos,
            figs=figs,
            cpu_note=CPU_NOTE,
            cpu_ranking=tables.CPU_MODE_RANKING,
            categories=tables.CATEGORIES,
            fast_p=[f"{p:.1f}" for p in tables.FAST_P],
            tables=linker.links([rp.results_csv, rp.summary, rp.stages_csv, rp.stages_json]),
            ledger=linker.links([llm_ledger(llm_state_dir(workdir)), llm_settings(llm_state_dir(workdir))], workdir),
            workdir=workdir.name,
            css=_css(),
            title="kernelopt report",
        )
    )
    return index


def _css() -> str:
    return (Path(__file__).parent / "templates" / "style.css").read_text()


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m kernelopt.report.html", description="write a run's HTML report")
    ap.add_argument("workdir")
    args = ap.parse_args(argv)
    print(build(args.workdir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
