"""Stages 4-5, the search (docs/architecture.md): a beam of candidates per unit, improved over
``search.iterations`` chained iterations.  Each function is one Snakemake rule:

  synthesize  synth/a<k>/            an independent kernel from the unit's eager reference (synth/)
  seed_beam   iter0/beam.json        Inductor's kernel (and synthesised ones) as the first beam
  profile     iter<i>/profile/m<j>/  NCU (GPU, when it works) or timing + roofline, summarised
  expand      iter<i>/plan.json ...  analyst -> planner -> executor: cand<j>/candidate.py slots
  (gate12 on iter<i>/cand<j>: gates 1-2, rules/gates.smk)
  retry       iter<i>/cand<j>/r<k>/  directed retry of a candidate that failed gate 1 or 2
  select_iter iter<i>/beam.json      time the new candidates, keep the best distinct ones,
                                     summarizer's memory.json + summary.md; early stop

Every role's input and output is a file; the agent backend (agents/) does the thinking.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core import hardware, outputcode, roofline, runtime
from ..core.records import (
    CANDIDATE_FILE,
    NCU_REPORT_FILE,
    Analyses,
    Baseline,
    Beam,
    CandidateTiming,
    Capture,
    Contract,
    Dispatch,
    GateVerdict,
    IterPaths,
    Member,
    MemberProfile,
    ProblemPaths,
    SearchPlan,
    Slot,
    member_path,
    retry_slot,
)
from ..gates.faults import retry_alone
from ..gates.verdict import NOT_CHECKABLE, PASS
from ..runner.timing import time_against_inductor, time_candidate
from . import agents, profiler
from .agents.base import Analysis, Direction, Memory, Plan, ProfileSummary
from .agents.llm.client import INFRASTRUCTURE, BudgetExhausted
from .agents.llm.client import clear as clear_transcripts
from .synth.classes import candidate_what, unit_class
from .synth.fused import synthesize_fused
from .synth.generate import generate as generate_template
from .synth.generate import source_of, synthesize_attempt
from .synth.ops import CannotSynthesize
from .synth.pointwise import TransposingCopy
from .transform import signature

# L2 of the H200 (core/hardware.py): a unit that moves less than a few times this was timed at
# capture partly from L2 (back-to-back runs, no flush), so its share of the DRAM roof is not a measure
L2_BYTES = hardware.TARGET.l2_bytes


def roof_figure(paths: ProblemPaths, unit: str, contract: Contract, cfg: dict[str, Any]) -> dict[str, Any] | None:
    """Where Inductor's kernel stood at capture, on the GPU: ``pct`` of the copy bandwidth
    (``peak`` GB/s) and ``roof``, the share its traffic allows (100, or the roof at two reads of
    rows that do not fit on one SM: ``floor``); None on the CPU and whenever the figure cannot be
    trusted: a unit moving less than 4x the L2, one launched with different shapes, a share above
    105 % of the roof (the contract's bytes overstate what the kernel reads, e.g. a gather), or a
    figure that cannot be computed."""
    if contract.device != "cuda" or contract.fused:
        return None
    try:
        entry = (Dispatch.load_optional(paths.dispatch) or Dispatch()).unit(unit)
        ms = entry.time_ms if entry else None
        launches = int((entry.launches if entry else None) or contract.launches or 1)
        loaded = roofline.unit_loaded_only(paths.inductor_kernel(unit), contract)
        nbytes = roofline.moved_bytes(contract, loaded)
        if not ms or nbytes < 4 * L2_BYTES or (launches > 1 and not contract.launch_shapes_identical):
            return None
        peak = float(cfg["search"]["peak_bandwidth_gbs"])
        pct = roofline.bandwidth_pct(nbytes, ms / launches, peak)  # dispatch's time sums the launches
        floor = roofline.reread_roof_pct(contract, roofline.unit_rereads(paths.inductor_kernel(unit), contract), loaded)
    except Exception as e:  # noqa: BLE001 - no figure: the unit is treated as far from its roof
        print(f"[synthesize] {paths.problem}/{unit}: no roofline figure ({type(e).__name__}: {e})")
        return None
    roof = floor or 100.0
    if pct > 1.05 * roof:
        return None
    return {"pct": pct, "roof": roof, "floor": floor, "peak": peak}


def near_roof(paths: ProblemPaths, unit: str, contract: Contract, cfg: dict[str, Any]) -> str | None:
    """Why a unit is not worth synthesizing: Inductor's kernel ran at capture at
    ``search.synthesis_skip_roof_pct`` % or more of its roof (``roof_figure``); None otherwise."""
    limit = cfg["search"].get("synthesis_skip_roof_pct")
    fig = None if limit is None else roof_figure(paths, unit, contract, cfg)
    if fig is None or fig["pct"] < float(limit) / 100.0 * fig["roof"]:
        return None
    pct, roof, floor, peak = fig["pct"], fig["roof"], fig["floor"], fig["peak"]
    where = f"{floor:.0f} % roof at two reads of rows too large for one SM" if floor else "copy bandwidth"
    return (
        f"Inductor's kernel ran at {pct:.1f} % of the {peak / 1000:.1f} TB/s copy bandwidth at capture "
        f"({roofline.roof_share_pct(pct, roof):.0f} % of its roof, the {where}; "
        f"search.synthesis_skip_roof_pct = {limit}): "
        "an independent implementation has next to nothing to gain"
    )


def synthesis_hints(paths: ProblemPaths, unit: str, contract: Contract, cfg: dict[str, Any]) -> str:
    """What an LLM synthesizer is told besides the contract and the reference (issue 13): the
    unit's class, how far Inductor's kernel is from its roof and so what is left to gain, and the
    heuristic backend's template for the class (a kernel that compiles from the same reference),
    as an example to improve on."""
    ref = paths.reference(unit).read_text()
    lines = [f"Class of this unit: {unit_class(ref)}."]
    fig = roof_figure(paths, unit, contract, cfg)
    if fig:
        lines.append(
            f"Inductor's kernel ran at {fig['pct']:.1f} % of the {fig['peak'] / 1000:.1f} TB/s copy bandwidth "
            f"at capture; the roof its traffic allows is {fig['roof']:.0f} %, so the most a kernel can gain here is "
            f"{fig['roof'] / max(fig['pct'], 1e-9):.2f}x. Read each input once and write each output once."
        )
    try:
        template = generate_template(contract, ref, 0)
    except CannotSynthesize as e:
        lines.append(f"No template of the heuristic backend fits this unit ({e}).")
    else:
        lines.append(
            "The heuristic backend's template for this class, generated from the same reference (it may "
            "not pass the checks, and it is not tuned: improve on it):\n```python\n" + template + "\n```"
        )
    return "\n\n".join(lines)


def negligible(paths: ProblemPaths, unit: str, contract: Contract, cfg: dict[str, Any]) -> str | None:
    """Why a unit is not worth synthesizing or searching: on the GPU, it is one of the problem's
    smallest units, whose Inductor kernels (timed at capture) together take less than
    ``search.negligible_share_pct`` % of the output code's time (capture's CUDA-graph time, gate
    4's baseline): even taking no time at all, they would speed the problem up by less than
    gate 4's minimum gain, so the search's GPU time goes elsewhere (bench/README.md, "The
    search at 5 iterations").  None otherwise, always on the CPU, for
    fused units and regions (not timed alone at capture), and whenever a time is missing."""
    limit = cfg["search"].get("negligible_share_pct")
    if limit is None or contract.device != "cuda":
        return None
    try:
        disp = Dispatch.load(paths.dispatch)
        wrapper = float(Baseline.load(paths.baseline).wrapper_ms or 0.0)
        times = {  # kernels only: a fused pair's or a region's time is its members' again
            u.id: float(u.time_ms) for u in disp.units if u.time_ms is not None and not u.composite
        }
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if wrapper <= 0 or unit not in times:
        return None
    acc, small = 0.0, []
    for uid, t in sorted(times.items(), key=lambda x: (x[1], x[0])):
        if 100.0 * (acc + t) / wrapper >= float(limit):
            break
        acc += t
        small.append(uid)
    if unit not in small:
        return None
    return (
        f"Inductor's kernel took {1000 * times[unit]:.1f} us of the output code's {wrapper:.4f} ms at capture; "
        f"with the problem's {len(small) - 1} other smallest unit(s) that is {100.0 * acc / wrapper:.2f} % "
        f"(search.negligible_share_pct = {limit}): even at no time at all they would speed the problem up by "
        f"at most {wrapper / (wrapper - acc):.4f}x"
    )


def synthesize(paths: ProblemPaths, unit: str, attempt: int, cfg: dict[str, Any]) -> dict[str, Any]:
    """Rule synthesize: writes synth/a<k>/candidate.py and slot.json (empty with the reason
    when the unit cannot be synthesised).  With an LLM backend the attempts are a chain:
    attempt k is shown why attempts 0..k-1 failed, and is not made once one passed gates 1-2."""
    d = paths.synth_dir(unit, attempt)
    d.mkdir(parents=True, exist_ok=True)
    slot = paths.synth(unit, attempt)
    info: dict[str, Any] = {"slot": attempt, "empty": True}
    contract = Contract.load(paths.contract(unit))
    ref = paths.reference(unit)
    clear_transcripts(d, ["synthesizer"])
    backend = agents.backend(cfg["agent"], paths.workdir, paths.problem, unit, d)
    near = near_roof(paths, unit, contract, cfg)
    tiny = None if near else negligible(paths, unit, contract, cfg)
    try:
        if not ref.exists():
            raise CannotSynthesize("the unit has no eager reference")
        if near:
            info.update(reason=f"not synthesized: {near}", near_roof=True)
            src = None
        elif tiny:
            info.update(reason=f"not synthesized: {tiny}", negligible=True)
            src = None
        elif backend.name == "heuristic":
            # fused pairs: the hand-written generator; other units: the fixed order of sources
            info["source"] = "handwritten" if contract.fused else source_of(attempt, contract)[0]
            try:
                if contract.fused:
                    src = synthesize_fused(paths, contract, attempt)
                else:
                    if info["source"] in ("inductor", "helion"):  # their codegen needs the device's mode
                        runtime.prepare(contract.device or cfg["device"], paths.cache)
                    src, info["source"] = synthesize_attempt(contract, paths.unit(unit), attempt)
            except CannotSynthesize:
                raise
            except Exception as e:  # noqa: BLE001 - a bug of the generator: the unit says why, the run goes on
                import traceback

                traceback.print_exc()
                raise CannotSynthesize(f"the heuristic synthesizer failed: {type(e).__name__}: {str(e)[:200]}") from e
        else:
            earlier = _earlier_attempts(paths, unit, attempt)
            if isinstance(earlier, str):
                info["reason"] = earlier
                src = None
            else:
                inductor = paths.inductor_kernel(unit)
                src = backend.synthesize(
                    contract,
                    ref.read_text(),
                    inductor.read_text() if inductor.exists() else "",
                    earlier,
                    hints=synthesis_hints(paths, unit, contract, cfg),
                )
        if src is not None:
            slot.candidate.write_text(src)
            info = {
                "slot": attempt,
                "empty": False,
                "origin": f"synthesis:{backend.name}",
                "signature": signature(src),
                **({"source": info["source"]} if "source" in info else {}),
                # a graph-level unit's class is its rewrite (its reference spans library calls)
                "class": f"graph-level {r['name']}" if (r := contract.rewrite) else unit_class(ref.read_text()),
                **({"what": what} if (what := candidate_what(src)) else {}),
            }
    except CannotSynthesize as e:
        info["reason"] = f"cannot synthesize: {e}"
        if isinstance(e, TransposingCopy):
            info["declined"] = True  # Inductor's 2-D tiled kernel is the one this unit wants
    if info["empty"]:
        slot.candidate.unlink(missing_ok=True)
    Slot.from_dict(info).save(slot.slot)
    print(f"[synthesize] {paths.problem}/{unit}/a{attempt}: " + ("written" if not info["empty"] else info["reason"]))
    return info


def failing_verdict(g1: GateVerdict | None, g2: GateVerdict | None) -> GateVerdict | None:
    """The verdict a slot failed on: gate 1's when it did not pass (gate 2 then never ran), else
    gate 2's (None: neither gate ran)."""
    return g1 if g1 is not None and g1.verdict != PASS else g2


def _earlier_attempts(paths: ProblemPaths, unit: str, attempt: int) -> list[dict[str, Any]] | str:
    """Why each earlier synthesis attempt failed (with its code), or the reason this attempt is
    not needed (an earlier one passed gates 1-2)."""
    earlier = []
    for k in range(attempt):
        a = paths.synth(unit, k)
        slot = Slot.load(a.slot)
        g1, g2 = GateVerdict.load_or_none(a.gate(1)), GateVerdict.load_or_none(a.gate(2))
        if g2 is not None and g2.passed:
            return f"no attempt needed: a{k} passed gates 1-2"
        if slot.empty:
            why = slot.reason or "no candidate"
        elif (bad := failing_verdict(g1, g2)) is None:
            why = "gate None None (None): "
        else:
            why = f"gate {bad.gate} {bad.verdict} ({bad.rule}): {str(bad.reason)[:1500]}"
        src = a.candidate
        earlier.append({"why": why, "source": src.read_text() if src.exists() else ""})
    return earlier


def seed_beam(paths: ProblemPaths, unit: str, cfg: dict[str, Any]) -> dict[str, Any]:
    d = paths.iter_dir(unit, 0)
    d.mkdir(parents=True, exist_ok=True)
    members = []
    c0 = paths.cand(unit, 0)
    c0_verdict = GateVerdict.load(c0.gate(2))
    if cfg["search"]["seed_with_inductor"] and c0_verdict.passed:
        src = c0.candidate.read_text()
        members.append({"id": "inductor", "path": member_path("cands/c0"), "ratio": 1.0, "signature": signature(src)})
    # every synthesized kernel that passed gates 1-2 joins the first beam, whatever its width:
    # synthesis is a separate budget (synthesis_attempts), and a member beyond the width is still
    # timed by the first select_iter, which then keeps the best ``beam_width``.  (Capped at the
    # width, a beam of 1 seeded with Inductor's kernel dropped every synthesized kernel untimed,
    # and the report said no candidate had passed gates 1-2.)
    for k in range(int(cfg["search"]["synthesis_attempts"])):
        a = paths.synth(unit, k)
        if GateVerdict.load(a.gate(2)).passed:
            src = a.candidate.read_text()
            sig = signature(src)
            if sig not in {m["signature"] for m in members}:
                members.append(
                    {
                        "id": f"synth/a{k}",
                        "path": member_path(f"synth/a{k}"),
                        "ratio": 1.0,
                        "meaningful": False,
                        "signature": sig,
                    }
                )
    contract = Contract.load_or_none(paths.contract(unit)) or Contract()
    tiny = negligible(paths, unit, contract, cfg)
    if c0_verdict.verdict == NOT_CHECKABLE:
        members, why = [], c0_verdict.reason  # nothing is judged, so nothing is searched
    elif tiny:  # it keeps its members (Inductor's kernel is its answer) but is not searched
        why = f"not searched: {tiny}"
    else:
        why = "no candidate passed gates 1-2 to seed the beam"
    stopped = why if tiny or not members else None
    record = Beam(0, members, stopped)
    record.save(paths.iteration(unit, 0).beam)
    beam = record.as_dict()
    Memory(tried={m["signature"]: {"iteration": 0, "verdict": "pass", "ratio": 1.0} for m in members}).save(
        paths.iteration(unit, 0).memory
    )
    return beam


def _ncu(paths: ProblemPaths, unit: str, cand: Path, report: Path, h: Any, cfg: dict[str, Any]) -> dict[str, Any]:
    """NCU around a jailed child that launches the candidate on the unit's inputs (drawn here,
    handed over in slots); the report comes out of the child's scratch and is parsed here."""
    from ..runner import sandbox

    names = outputcode.jit_kernel_names(cand.read_text())
    ncu = profiler.ncu_command("^(" + "|".join(names) + ")$", f"/tmp/{NCU_REPORT_FILE}", cfg["search"]["ncu_sections"])
    before, _ = h.inputs(cfg["seed"])
    job = {"kind": "profile", "device": h.rt.device, "candidate": CANDIDATE_FILE, "args": before, "launches": 3}
    gc = cfg["gates"]
    budget = sandbox.budget_s(gc["timeout_s"] + 240, gc["timeout_factor"], h.kernel_ms(), 40)
    report.unlink(missing_ok=True)
    outcome = sandbox.run(
        job,
        budget,
        cache=paths.cache,
        files={CANDIDATE_FILE: cand},
        hidden=[paths.root.parent],
        argv=[*ncu, *sandbox.child_command(h.rt.device)],
        collect={NCU_REPORT_FILE: report},
    )
    del before
    if outcome.status != "ok":
        return {"ok": False, "stderr": f"{outcome.status}: {outcome.detail}; {outcome.log_tail[-1500:]}"}
    res = profiler.read_ncu(report)
    locked = (outcome.reply or {}).get("ncu_locked_s")
    res["ncu_locked_s"] = round(float(locked), 3) if isinstance(locked, (int, float)) else None
    return res


def profile_member(paths: ProblemPaths, unit: str, i: int, j: int, cfg: dict[str, Any]) -> dict[str, Any]:
    prof = paths.iteration(unit, i).profile(j)
    d = prof.dir
    d.mkdir(parents=True, exist_ok=True)
    beam = Beam.load(paths.iteration(unit, i).beam)
    if beam.stopped or j >= len(beam.members):
        out = {"empty": True, "member": None}
        MemberProfile.from_dict(out).save(prof.summary)
        return out
    member = beam.members[j]
    cand = paths.member_candidate(unit, member.path)
    # a member kept from an earlier beam was profiled then: candidate files never change, so
    # reuse that profile instead of paying NCU again
    for k in range(i - 1, -1, -1):
        for prev in sorted(paths.iteration(unit, k).profile_summaries()):
            old = MemberProfile.load(prev)
            if not old.empty and old.member == member.id and not old.reused_from:
                out = {
                    **old.as_dict(),
                    "reused_from": prev.parent.relative_to(paths.unit(unit)).as_posix(),
                    "cost": {"timing_s": 0.0, "ncu_s": None},
                }
                MemberProfile.from_dict(out).save(prof.summary)
                prof.summary_text.write_text(old.text + "\n")
                print(f"[profile] {paths.problem}/{unit} iter{i}/m{j}: {member.id} reused from {out['reused_from']}")
                return out
    t, h = time_candidate(paths, unit, cfg, cand, f"profile {unit}/iter{i}/m{j}")
    device = h.rt.device
    if t is None:
        out = {
            "empty": False,
            "member": member.id,
            "source": "none",
            "metrics": {},
            "text": f"member {member.id}: could not be timed",
            "note": "the candidate could not be timed in its sandbox",
            "cost": {"timing_s": None, "ncu_s": None},
        }
        MemberProfile.from_dict(out).save(prof.summary)
        prof.summary_text.write_text(out["text"] + "\n")
        return out
    # costs count from the moment the GPU lock is held (waiting for it is not a cost of profiling)
    cost = {"timing_s": round(float(t.pop("locked_s", 0.0)), 3), "ncu_s": None}
    sms = hardware.current(device).sm_count
    # the bytes the unit must move are Inductor's kernel's, whoever the member is
    loaded = roofline.unit_loaded_only(paths.inductor_kernel(unit), h.contract)
    metrics = roofline.estimate(h.contract, t["median_ms"], device, cfg["search"]["peak_bandwidth_gbs"], sms, loaded)
    # rows too large for one SM are read twice by a kernel that keeps a row to one SM: the roof at that traffic
    rereads = roofline.unit_rereads(paths.inductor_kernel(unit), h.contract)
    floor = roofline.reread_roof_pct(h.contract, rereads, loaded)
    if floor is not None:
        metrics["reread_roof_pct"] = floor
    source = "roofline"
    ncu_note = "ncu not used: CPU mode" if device != "cuda" else "ncu not found"
    if device == "cuda" and cfg["search"]["ncu"] != "off" and profiler.ncu_available():
        t0 = time.perf_counter()
        res = _ncu(paths, unit, cand, prof.ncu_report, h, cfg)
        cost["ncu_s"] = round(time.perf_counter() - t0, 3)
        cost["ncu_locked_s"] = res.get("ncu_locked_s")
        if res.get("ok") and res.get("metrics"):
            metrics.update(res["metrics"])
            source = "ncu"
            ncu_note = ""
        else:
            ncu_note = f"ncu failed, fell back to the roofline estimate: {res.get('stderr', '')[-300:]}"
    summary = agents.backend(cfg["agent"], paths.workdir, paths.problem, unit, d).summarize_profile(
        member.id, metrics, source
    )
    if ncu_note:
        summary.note = (summary.note + "; " if summary.note else "") + ncu_note
    out = {"empty": False, **summary.to_dict(), "cost": cost}
    MemberProfile.from_dict(out).save(prof.summary)
    prof.summary_text.write_text(summary.text + "\n")
    return out


def expand(paths: ProblemPaths, unit: str, i: int, cfg: dict[str, Any]) -> dict[str, Any]:
    it = paths.iteration(unit, i)
    d = it.dir
    d.mkdir(parents=True, exist_ok=True)
    prev = paths.iteration(unit, i - 1)
    beam = Beam.load(prev.beam)
    memory = Memory.load(prev.memory)
    contract = Contract.load(paths.contract(unit))
    width = int(cfg["search"]["beam_width"])
    clear_transcripts(d, ["analyst", "planner"])
    for j in range(width):
        clear_transcripts(it.cand(j).dir, ["executor"])
    backend = agents.backend(cfg["agent"], paths.workdir, paths.problem, unit, d)
    analyses: dict[str, Analysis] = {}
    members = []
    if not beam.stopped:
        try:
            for j, m in enumerate(beam.members[:width]):  # the first beam may hold more (synthesis)
                prof = MemberProfile.load(prev.profile(j).summary)
                if prof.empty:
                    continue
                summary = ProfileSummary(str(prof.member), str(prof.source), prof.metrics, prof.text, prof.note)
                src = paths.member_candidate(unit, m.path).read_text()
                analyses[m.id] = backend.analyze(summary, contract, memory, kernel=src)
                members.append({**m.as_dict(), "source": src})  # the agents read a member as its file holds it
            plan = backend.plan(i, members, analyses, contract, memory, width)
        except BudgetExhausted as e:  # the unit's search stops here, and says why
            plan = Plan(i, [], stop=f"stopped in iteration {i}: {e}")
    else:
        # say once where and why the search stopped (later iterations carry the same text)
        why = beam.stopped
        plan = Plan(
            i, [], stop=why if why.startswith("stopped in iteration ") else f"stopped in iteration {i - 1}: {why}"
        )
    Analyses.from_dict({k: v.to_dict() for k, v in analyses.items()}).save(it.analysis)
    plan.save(it.plan)
    by_id = {m["id"]: m for m in members}
    for j in range(width):
        cs = it.cand(j)
        cd = cs.dir
        cd.mkdir(parents=True, exist_ok=True)
        info: dict[str, Any] = {"slot": j, "empty": True}
        if j < len(plan.directions):
            direction = plan.directions[j]
            try:
                src = backend.at(cd).execute(direction, by_id[direction.member]["source"], contract)
                cs.candidate.write_text(src)
                info = {
                    "slot": j,
                    "empty": False,
                    "origin": f"search:{backend.name}",
                    "direction": direction.to_dict(),
                    "signature": signature(src),
                }
            except INFRASTRUCTURE:
                raise  # the API failed: a fault of this job, never an empty slot
            except BudgetExhausted as e:  # the unit's search stops after this iteration, and says why
                info["error"] = f"executor: {e}"
                plan.stop = plan.stop or f"stopped in iteration {i}: {e}"
            except Exception as e:  # noqa: BLE001 - the executor failed: an empty slot that says why
                info["error"] = f"executor: {type(e).__name__}: {e}"
        if info["empty"]:
            cs.candidate.unlink(missing_ok=True)
        Slot.from_dict(info).save(cs.slot)
    if plan.stop:
        plan.save(it.plan)
    print(
        f"[expand] {paths.problem}/{unit} iter{i}: {len(plan.directions)} direction(s)"
        + (f"; stop: {plan.stop}" if plan.stop else "")
    )
    return plan.to_dict()


def attempts_of(j: int, retries: int) -> list[str]:
    """Slot paths of candidate j in an iteration directory: the planned one, then its retries."""
    return [retry_slot(j, r) for r in range(retries + 1)]


def retry(paths: ProblemPaths, unit: str, i: int, j: int, r: int, cfg: dict[str, Any]) -> dict[str, Any]:
    """Directed retry r of candidate j in iteration i (rule retry).  Passes through (an empty
    slot) when the previous attempt passed gates 1-2 or was empty; otherwise asks the agent
    for a fix of that failure, applied to the same beam member."""
    it = paths.iteration(unit, i)
    d = it.dir
    (prev_s, base), out_s = it.retry_reads(j, r), it.cand(retry_slot(j, r))
    prev, out = prev_s.dir, out_s.dir
    out.mkdir(parents=True, exist_ok=True)
    clear_transcripts(out, ["fixer"])
    info: dict[str, Any] = {"slot": f"cand{j}/r{r}", "empty": True}
    prev_slot, first = Slot.load(prev_s.slot), Slot.load(base.slot)
    g1, g2 = GateVerdict.load_or_none(prev_s.gate(1)), GateVerdict.load(prev_s.gate(2))
    if prev_slot.empty:
        info["reason"] = "no retry needed: the previous attempt was empty"
    elif g2.passed:
        info["reason"] = "no retry needed: the previous attempt passed gates 1-2"
    else:
        bad = failing_verdict(g1, g2) or g2
        failure = bad.record()  # the agents read the verdict as its file holds it
        backend = agents.backend(cfg["agent"], paths.workdir, paths.problem, unit, out)
        contract = Contract.load(paths.contract(unit))
        failed = Direction(**(prev_slot.direction or {}))
        member = Direction(**(first.direction or {})).member
        beam = Beam.load(paths.iteration(unit, i - 1).beam)
        src_member = next((m for m in beam.members if m.id == member), None)
        analyses = Analyses.load(it.analysis).by_member
        analysis = Analysis(**analyses[member]) if member in analyses else None
        memory = Memory.load(paths.iteration(unit, i - 1).memory)
        # what is already planned: every candidate of this iteration and this candidate's own
        # earlier retries (all inputs of this job; the other candidates' retries run
        # concurrently, so counting them would make the choice depend on job order)
        slots = [Slot.load(it.cand(k).slot) for k in range(int(cfg["search"]["beam_width"]))]
        slots += [Slot.load(it.cand(retry_slot(j, k)).slot) for k in range(1, r)]
        taken = {sl.signature for sl in slots if not sl.empty}
        if src_member is None:
            info["reason"] = f"beam member {member} not found"
        else:
            source = paths.member_candidate(unit, src_member.path).read_text()
            direction, note = backend.fix(failed, failure, source, analysis, contract, memory, taken)
            info["reasoning"] = note
            if direction is None:
                info["reason"] = f"no fix: {note}"
            else:
                try:
                    ref = paths.reference(unit)
                    src = backend.apply_fix(
                        direction,
                        prev_s.candidate.read_text(),
                        source,
                        failure,
                        contract,
                        ref.read_text() if ref.exists() else "",
                    )
                    out_s.candidate.write_text(src)
                    info = {
                        **info,
                        "empty": False,
                        "origin": f"retry:{backend.name}",
                        "direction": direction.to_dict(),
                        "signature": signature(src),
                        "fixes": {
                            "slot": prev.relative_to(d).as_posix(),
                            "gate": bad.gate,
                            "rule": bad.rule,
                            "reason": str(bad.reason)[:300],
                        },
                    }
                except INFRASTRUCTURE:
                    raise
                except Exception as e:  # noqa: BLE001 - the executor failed: an empty slot that says why
                    info["reason"] = f"executor: {type(e).__name__}: {e}"
    if info["empty"]:
        out_s.candidate.unlink(missing_ok=True)
    Slot.from_dict(info).save(out_s.slot)
    print(
        f"[retry] {paths.problem}/{unit} iter{i}/cand{j}/r{r}: "
        + ("written: " + info.get("reasoning", "") if not info["empty"] else info["reason"])
    )
    return info


def _outcome(i: int, a: str, name: str, slot: Slot, verdict: str, **more: Any) -> dict[str, Any]:
    """What the summarizer is told of one slot of iteration ``i``."""
    return {"id": f"iter{i}/{a}", "direction": name, "signature": slot.signature, "verdict": verdict, **more}


def _judged_slots(
    it: IterPaths, i: int, width: int, retries: int, outcomes: list[dict[str, Any]]
) -> list[tuple[str, Slot, str]]:
    """The iteration's slots that passed gates 1-2 (slot path, slot record, direction); a failed
    one is told to the summarizer with the gate it failed."""
    passing = []
    for j in range(width):
        for a in attempts_of(j, retries):
            cs = it.cand(a)
            slot = Slot.load(cs.slot)
            if slot.empty:
                continue
            g1, g2 = GateVerdict.load(cs.gate(1)), GateVerdict.load(cs.gate(2))
            name = slot.direction_name
            if not g2.passed:
                bad = failing_verdict(g1, g2) or g2
                outcomes.append(_outcome(i, a, name, slot, f"gate {bad.gate} {bad.verdict}", reason=bad.reason[:200]))
                continue
            passing.append((a, slot, name))
    return passing


def _time_candidates(
    paths: ProblemPaths,
    unit: str,
    i: int,
    cfg: dict[str, Any],
    device: str,
    passing: list[tuple[str, Slot, str]],
    untimed: list[Member],
    outcomes: list[dict[str, Any]],
) -> tuple[list[Member], dict[str, Member], str | None]:
    """Time the new candidates (and the earlier members never timed) against Inductor's kernel:
    the new beam members, the earlier ones now timed (by id), and the fault that kept them from
    being timed, if one did."""
    it = paths.iteration(unit, i)
    files = [it.cand(a).candidate for a, _, _ in passing] + [paths.member_candidate(unit, m.path) for m in untimed]
    fault: dict[str, str] = {}

    def on_fault(cause: str) -> list[Any]:
        fault["cause"] = cause
        return [None] * len(files)

    cmps = retry_alone(
        device,
        f"select {paths.problem}/{unit}/iter{i}",
        lambda: time_against_inductor(paths, unit, cfg, files, f"select {unit}/iter{i}"),
        on_fault,
    )
    new_members = []
    for (a, slot, name), cmp in zip(passing, cmps):
        if cmp is None:  # it passed gates 1-2 but hung or crashed when timed: not a beam member
            CandidateTiming(error="could not be timed in its sandbox").save(it.cand(a).timing)
            outcomes.append(_outcome(i, a, name, slot, "not timed", reason="hung or crashed when timed"))
            continue
        CandidateTiming.from_dict(cmp.to_dict()).save(it.cand(a).timing)
        ratio = cmp.ratio if cmp.meaningful else None
        new_members.append(
            Member.from_dict(
                {
                    "id": f"iter{i}/{a}",
                    "path": member_path(f"iter{i}/{a}"),
                    "ratio": ratio if ratio is not None else 1.0,
                    "ci": [cmp.ci_low, cmp.ci_high],
                    "meaningful": cmp.meaningful,
                    "signature": slot.signature,
                    "direction": name,
                }
            )
        )
        outcomes.append(_outcome(i, a, name, slot, "pass", ratio=ratio))
    retimed = {
        m.id: replace(m, ratio=cmp.ratio, ci=[cmp.ci_low, cmp.ci_high], meaningful=cmp.meaningful)
        for m, cmp in zip(untimed, cmps[len(passing) :])
        if cmp is not None
    }
    return new_members, retimed, fault.get("cause")


def _next_beam(
    prev_members: list[Member], prev_dropped: list[Member], new_members: list[Member], width: int
) -> tuple[list[Member], list[Member]]:
    """The best ``width`` distinct members of the old beam and the new ones, and every timed
    candidate that left the beam (kept with its times for the report's "why nothing was
    stitched", e.g. a synthesized kernel slower than Inductor's in a beam of 1)."""
    pool = prev_members + new_members
    # best first (CPU: times mean nothing, so new candidates first to keep the search moving),
    # at most one member per configuration
    pool.sort(key=lambda m: (m.ratio if m.meaningful else 0.999, m.id))
    beam_members: list[Member] = []
    sigs = set()
    for m in pool:
        if m.signature in sigs:
            continue
        sigs.add(m.signature)
        beam_members.append(m)
        if len(beam_members) >= width:
            break
    kept = {m.id for m in beam_members}
    dropped = {m.id: m for m in prev_dropped}
    for m in pool:
        if m.id not in kept and m.id != "inductor" and m.ci is not None:
            d = m.as_dict()
            kept_keys = ("id", "path", "ratio", "ci", "meaningful")
            dropped.setdefault(m.id, Member.from_dict({k: d[k] for k in kept_keys if k in d}))
    return beam_members, list(dropped.values())


def select_iter(paths: ProblemPaths, unit: str, i: int, cfg: dict[str, Any]) -> dict[str, Any]:
    """Rule select_iter: time the iteration's new candidates, keep the best distinct ones as the
    next beam, let the summarizer update the memory; stop when nothing new entered."""
    it = paths.iteration(unit, i)
    prev_beam = Beam.load(paths.iteration(unit, i - 1).beam)
    memory = Memory.load(paths.iteration(unit, i - 1).memory)
    plan = SearchPlan.load(it.plan)
    width = int(cfg["search"]["beam_width"])
    outcomes: list[dict[str, Any]] = []
    passing = _judged_slots(it, i, width, int(cfg["search"].get("retries", 0)), outcomes)
    device = Capture.load(paths.capture_record).device
    # members never timed (e.g. synthesised seeds): timed now, on the GPU
    untimed = [m for m in prev_beam.members if device == "cuda" and not m.meaningful]
    new_members: list[Member] = []
    retimed: dict[str, Member] = {}
    fault = None
    if passing or untimed:
        new_members, retimed, fault = _time_candidates(paths, unit, i, cfg, device, passing, untimed, outcomes)
    prev_members = [retimed.get(m.id, m) for m in prev_beam.members]
    beam_members, dropped = _next_beam(prev_members, prev_beam.dropped or [], new_members, width)
    stopped = plan.stop
    if not stopped and not new_members and [m.id for m in beam_members] == prev_beam.member_ids:
        stopped = "converged: no new candidate entered the beam"
    clear_transcripts(it.dir, ["summarizer"])
    backend = agents.backend(cfg["agent"], paths.workdir, paths.problem, unit, it.dir)
    memory, text = backend.summarize(i, outcomes, memory)
    # a fault that kept candidates from being timed: the result says so, never "matched"
    infrastructure = fault or prev_beam.infrastructure
    record = Beam(i, beam_members, stopped or prev_beam.stopped, dropped or None, infrastructure)
    record.save(it.beam)
    beam = record.as_dict()
    memory.save(it.memory)
    it.summary.write_text(text + (f"\nStopped: {beam['stopped']}\n" if beam["stopped"] else ""))
    print(
        f"[select] {paths.problem}/{unit} iter{i}: beam {[m.id for m in beam_members]}"
        + (f" (stopped: {beam['stopped']})" if beam["stopped"] else "")
    )
    return beam
