"""The heuristic backend: deterministic rules, no LLM.

- profiler: passes the measured metrics through and writes a compact text summary.
- strategy analyst: rules over the metrics (NCU's speed-of-light %, occupancy, registers,
  spills, the top warp-stall reasons; or the roofline estimate) -> memory-bound / compute-bound /
  underutilized / near-optimal,
  quoting the evidence.
- planner: a catalogue of transformations that suit the bottleneck (block sizes, num_warps,
  num_stages, eviction policy, persistent instead of looped reductions, programs per SM (a
  grid-stride loop over a grid of one wave, then more or fewer programs), masking
  simplification when every numel divides its block, one program for tiny launch-bound
  kernels, cheaper forms of libdevice's tanh/exp/log), a diversity rule (no two directions that lead to
  the same launch parameters, none already tried), deterministic order.
- executor: applies a direction to real kernel source through transform.py (AST edits).
- directed retries: a candidate that failed gate 1 or 2 gets up to two fixes chosen from
  the failure (after a resource failure or a crash only shrinking directions).
- summarizer: remembers each tried configuration and its outcome for the next iteration.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core.records import Contract
from ...core.roofline import roof_share_pct
from .. import profiler, transform
from ..transform import signature
from .base import Analysis, Direction, Memory, Plan, ProfileSummary

NEAR_OPTIMAL_SOL = 85.0  # % of peak memory bandwidth (or NCU memory SOL) that counts as at the roof
MEMORY_SOL = 50.0
COMPUTE_SOL = 60.0


HUGE_GRID = 1 << 20  # programs: far beyond what any GPU holds at once (132 SMs x ~16 resident)
MOMENTUM_RATIO = 0.97  # a member at least 3 % faster than Inductor's kernel repeats its direction
# a member this many times Inductor's time gets no directions: a launch parameter has closed a 2x
# gap (a 3-D max pool on the H100, 1.37 -> 0.67), never a 4.5x one (on that run every direction
# on a member 4.5-11x behind stayed 4.5-7.5x behind: a slot Inductor's own kernel could have had)
FAR_BEHIND_RATIO = 3.0


def _big_broadcast(source: str, contract: Contract) -> dict[str, Any] | None:
    """transform.broadcast_period of an Inductor kernel whose re-read operand outgrows the L2
    between two reads (where block order matters), else None."""
    if not source or contract.user:
        return None
    bc = transform.broadcast_period(source, contract)
    return bc if bc and bc["period_bytes"] >= transform.SWIZZLE_MIN_PERIOD_BYTES else None


Option = tuple[str, dict[str, Any], str, str]  # (kind, args, rationale, prediction) of one direction


@dataclass
class _Kernel:
    """What the catalogue's directions are decided from: a kernel's launch parameters, sizes and
    grid."""

    cfg: dict[str, Any]
    looped: bool  # a reduction that loops over its row (or no source to tell)
    rkey: str | None  # the reduction block
    xkey: str | None  # the block over independent elements/rows
    xn: Any  # elements (rows) the xkey blocks cover
    rn: Any  # the reduced row's length
    divides: bool  # a bigger block must divide xn (not for a user's kernel: it masks its own)
    whole: int  # xn rounded up to a power of two
    full: int  # rn rounded up to a power of two
    warps: int | None
    stages: int | None
    persistent: int | None  # the persistent grid's programs (None: one program per block)
    blocks: int | None  # an Inductor kernel's XBLOCK blocks
    resident: int  # programs an SM holds at once
    sms: int | None
    has_source: bool
    swizzled: bool  # the kernel already re-orders its blocks
    assumes_divisible: bool  # its masks are already dropped
    bc: dict[str, Any] | None  # a re-read broadcast operand that outgrows the L2
    math: list[str]  # libdevice calls ``fast-math`` makes cheaper

    @classmethod
    def of(cls, params: transform.LaunchParams, contract: Contract, source: str, sms: int | None) -> _Kernel:
        cfg = params.config
        # a reduction kernel that loops over the row (Inductor's triton_red_*) can change its
        # R0_BLOCK freely; a persistent one (triton_per_*, no loop) holds the whole row in one
        # block, so its R0_BLOCK is not a tuning knob
        looped_synth = "for c0 in range(" in source  # synth_rows' looped variant
        looped = "for r0_offset in" in source or looped_synth or not source
        # the reduction block: Inductor's R0_BLOCK, or the chunk of a looped synthesised row kernel
        # (the scan and index-reduction kernels loop too, over a chunk named BLOCK: not offered)
        rkey = "R0_BLOCK" if "R0_BLOCK" in cfg else ("BLOCK_N" if looped_synth and "BLOCK_N" in cfg else None)
        scal = {a["name"]: a.get("value") for a in contract.args if a["kind"] == "scalar"}
        xn = scal.get("xnumel") or 1
        rn = scal.get("r0_numel") or 1
        # the block over independent elements/rows: Inductor's XBLOCK, or the synthesised
        # kernels' BLOCK (pointwise) and ROWS (row kernels)
        xkey = next((k for k in ("XBLOCK", "ROWS", "BLOCK") if k in cfg), None)
        if "while seen" in source:  # synth_rows' team kernel: a ticket is one row's part, ROWS is 1
            xkey = None
        divides = True
        if contract.user and cfg:
            # a user's kernel: its block size is any constexpr named *BLOCK*, the elements it
            # covers the size its grid was inferred from (isolate/user.py), masks its own
            xkey = xkey or next((k for k in cfg if "BLOCK" in k.upper() and isinstance(cfg[k], int)), None)
            sizes = {m for e in (contract.grid_inferred or {}).values() for m in re.findall(r"cdiv\((\w+),", e)}
            xn = max([v for n, v in scal.items() if isinstance(v, int) and n in sizes] or [xn])
            divides = False
        whole = 1 << max(0, (int(xn) - 1).bit_length())
        full = 1 << max(0, (int(rn) - 1).bit_length())
        persistent = transform.programs_of(source) if source else None
        blocks = -(-int(xn) // int(cfg["XBLOCK"])) if "XBLOCK" in cfg and not contract.user else None
        resident = max(1, min(32, 64 // (params.num_warps or 4)))  # an SM holds 64 warps and 32 programs at once
        bc = _big_broadcast(source, contract)
        swizzled = bool(bc) and transform.swizzle_of(source) is not None
        return cls(
            cfg=cfg,
            looped=looped,
            rkey=rkey,
            xkey=xkey,
            xn=xn,
            rn=rn,
            divides=divides,
            whole=whole,
            full=full,
            warps=params.num_warps,
            stages=params.num_stages,
            persistent=persistent,
            blocks=blocks,
            resident=resident,
            sms=sms,
            has_source=bool(source),
            swizzled=swizzled,
            assumes_divisible="ASSUMES_DIVISIBLE" in source,
            bc=bc,
            math=transform.fast_math_calls(source),
        )


def _launch(**kw: Any) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


# -- the directions: each decides from the kernel whether it applies, and how -------------------
def _bigger_xblock(k: _Kernel) -> Option | None:
    x = k.cfg[k.xkey] if k.xkey else 0
    if not (k.xkey and x * 2 <= k.xn and (not k.divides or k.xn % (x * 2) == 0)):
        return None
    return (
        "launch",
        _launch(config={k.xkey: x * 2}),
        "more work per program: fewer, larger memory transactions",
        "a few % faster if the loads were short",
    )


def _smaller_xblock(k: _Kernel) -> Option | None:
    if not (k.xkey and k.cfg[k.xkey] >= 2):
        return None
    return (
        "launch",
        _launch(config={k.xkey: k.cfg[k.xkey] // 2}),
        "twice the programs: fills more SMs",
        "faster if the grid was too small",
    )


def _one_program(k: _Kernel) -> Option | None:
    if not (k.xkey and k.cfg[k.xkey] < k.whole):
        return None
    if k.whole * int(k.cfg.get("R0_BLOCK", k.cfg.get("BLOCK_N", 1))) > 16384:  # not tiny
        return None
    return (
        "launch",
        _launch(config={k.xkey: k.whole}),
        "a tiny kernel: one program covers every element, so launch and scheduling overhead is paid once",
        "a few microseconds saved when the kernel is launch-bound",
    )


def _bigger_rblock(k: _Kernel) -> Option | None:
    if not (k.looped and k.rkey and k.cfg[k.rkey] * 2 <= max(k.rn, 1) * 2 and k.cfg[k.rkey] < 8192):
        return None
    return (
        "launch",
        _launch(config={k.rkey: k.cfg[k.rkey] * 2}),
        "fewer loop trips in the reduction",
        "a few % faster on long rows",
    )


def _persistent_rblock(k: _Kernel) -> Option | None:
    if not (k.looped and k.has_source and k.rkey and k.cfg[k.rkey] < k.full <= 16384):
        return None
    w0 = k.warps or 4
    return (
        "launch",
        _launch(config={k.rkey: k.full}, num_warps=max(w0, min(32, k.full // 512))),
        "one loop trip: the whole row in one block, so the second pass re-reads from L1/L2 instead of DRAM",
        "faster when the row fits in registers",
    )


def _smaller_rblock(k: _Kernel) -> Option | None:
    if not (k.looped and k.rkey and k.cfg[k.rkey] >= 64):
        return None
    return (
        "launch",
        _launch(config={k.rkey: k.cfg[k.rkey] // 2}),
        "fewer registers per thread: more warps resident",
        "faster if occupancy was register-limited",
    )


def _more_warps(k: _Kernel) -> Option | None:
    if k.warps is None or k.warps >= 32:
        return None
    why = "more warps in flight to hide memory latency"
    return "launch", _launch(num_warps=k.warps * 2), why, "faster if stalls on memory dominate"


def _fewer_warps(k: _Kernel) -> Option | None:
    if k.warps is None or k.warps <= 1:
        return None
    why = "less synchronisation per program, more programs per SM"
    return "launch", _launch(num_warps=k.warps // 2), why, "faster for small per-program work"


STAGES_WHY = ("software pipelining depth of the loads", "small change either way")


def _more_stages(k: _Kernel) -> Option | None:
    return None if k.stages is None or k.stages >= 3 else ("launch", _launch(num_stages=k.stages + 1), *STAGES_WHY)


def _fewer_stages(k: _Kernel) -> Option | None:
    return None if k.stages is None or k.stages < 3 else ("launch", _launch(num_stages=k.stages - 1), *STAGES_WHY)


# programs per SM: a grid of many short-lived programs becomes one wave of persistent programs,
# each looping over blocks (transform.set_programs), then their number is tuned
def _persistent_programs(k: _Kernel) -> Option | None:
    wave = (k.sms or 0) * k.resident
    if not (k.sms and k.blocks and k.persistent is None and k.blocks > 2 * wave):
        return None
    return (
        "programs",
        {"programs": wave},
        f"{k.blocks} programs of {k.cfg['XBLOCK']} elements run in {k.blocks / wave:.0f} waves: "
        f"{k.resident} persistent programs per SM ({k.sms} SMs) loop over the blocks instead, so block "
        "scheduling and the prologue are paid once and no tail wave is left",
        "a few % on grids of many short programs",
    )


def _more_programs_per_sm(k: _Kernel) -> Option | None:
    if not (k.sms and k.blocks and k.persistent is not None and k.persistent * 2 <= k.blocks):
        return None
    return (
        "programs",
        {"programs": k.persistent * 2},
        f"{2 * k.persistent / k.sms:.0f} programs per SM instead of {k.persistent / k.sms:.0f}: more loads in flight",
        "faster if the persistent programs left the memory system idle",
    )


def _fewer_programs_per_sm(k: _Kernel) -> Option | None:
    if not (k.sms and k.blocks and k.persistent is not None and k.persistent // 2 >= k.sms):
        return None
    return (
        "programs",
        {"programs": k.persistent // 2},
        f"{k.persistent // 2 / k.sms:.0f} programs per SM instead of {k.persistent / k.sms:.0f}: "
        "fewer programs competing for registers and L1",
        "faster if occupancy was limited",
    )


def _broadcast_swizzle(k: _Kernel) -> Option | None:
    bc = k.bc
    if not bc or k.swizzled or k.persistent is not None:
        return None
    return (
        "swizzle",
        {"rows": bc["rows"]},
        f"{', '.join(bc['operands'])} ({bc['period']} elements) is read once per row of {bc['period']} "
        f"outputs, {bc['rows']} times, and one row's traffic ({bc['period_bytes'] / 2**20:.0f} MiB) "
        "outgrows the L2 between two reads: re-order the blocks so that the programs in flight cover "
        f"the same offset of all {bc['rows']} rows and share each chunk of it from L2",
        "up to the re-read traffic saved, on a memory-bound kernel",
    )


def _evict_first(k: _Kernel) -> Option | None:
    return (
        "eviction",
        {"policy": "evict_first", "only": None},
        "stream through L2: data read once need not stay",
        "a few % on streaming kernels",
    )


def _drop_masks(k: _Kernel) -> Option | None:
    if k.assumes_divisible:
        return None
    return (
        "drop-masks",
        {},
        "every numel is a multiple of its block: the bound masks are always true, drop them (fewer predicates, "
        "wider loads)",
        "a few % on memory-bound kernels",
    )


def _fast_math(k: _Kernel) -> Option | None:
    if not k.math:
        return None
    names = ", ".join(sorted({c.split(".")[-1] for c in k.math}))
    return (
        "fast-math",
        {},
        f"cheaper math: libdevice's {names} in forms of fewer instructions (Triton's exp/log, tanh through exp)",
        "faster where the kernel's arithmetic, not its memory, is the limit",
    )


DIRECTIONS: dict[str, Callable[[_Kernel], Option | None]] = {
    "bigger-xblock": _bigger_xblock,
    "smaller-xblock": _smaller_xblock,
    "one-program": _one_program,
    "bigger-rblock": _bigger_rblock,
    "persistent-rblock": _persistent_rblock,
    "smaller-rblock": _smaller_rblock,
    "more-warps": _more_warps,
    "fewer-warps": _fewer_warps,
    "more-stages": _more_stages,
    "fewer-stages": _fewer_stages,
    "persistent-programs": _persistent_programs,
    "more-programs-per-sm": _more_programs_per_sm,
    "fewer-programs-per-sm": _fewer_programs_per_sm,
    "broadcast-swizzle": _broadcast_swizzle,
    "evict-first": _evict_first,
    "drop-masks": _drop_masks,
    "fast-math": _fast_math,
}

# the directions in preference order, per bottleneck
PREFERENCE: dict[str, list[str]] = {
    "memory-bound": [
        "broadcast-swizzle",
        "persistent-rblock",
        "bigger-xblock",
        "bigger-rblock",
        "drop-masks",
        "persistent-programs",
        "more-programs-per-sm",
        "more-warps",
        "evict-first",
        "more-stages",
        "fewer-warps",
        "fewer-programs-per-sm",
        "smaller-rblock",
        "smaller-xblock",
        "fewer-stages",
        "fast-math",
        "one-program",
    ],
    "underutilized": [
        "broadcast-swizzle",
        "one-program",
        "smaller-xblock",
        "fewer-warps",
        "smaller-rblock",
        "more-warps",
        "persistent-rblock",
        "more-stages",
        "drop-masks",
        "fast-math",
        "bigger-rblock",
        "bigger-xblock",
        "persistent-programs",
        "more-programs-per-sm",
        "fewer-programs-per-sm",
        "evict-first",
        "fewer-stages",
    ],
    "compute-bound": [
        "fast-math",
        "drop-masks",
        "more-warps",
        "fewer-warps",
        "more-stages",
        "fewer-stages",
        "smaller-rblock",
        "persistent-rblock",
        "bigger-xblock",
        "smaller-xblock",
        "bigger-rblock",
        "persistent-programs",
        "more-programs-per-sm",
        "fewer-programs-per-sm",
        "evict-first",
        "one-program",
        "broadcast-swizzle",
    ],
    "near-optimal": [],
}


def _preference(bottleneck: str, contract: Contract) -> list[str]:
    order = PREFERENCE[bottleneck]
    programs = math.prod(int(g) for g in (contract.grid or [1]))
    if bottleneck == "underutilized" and programs >= HUGE_GRID:
        # busy with nothing on a huge grid: each program does too little; more work per program
        # first, never more programs
        head = ["bigger-xblock", "bigger-rblock", "persistent-programs", "fewer-warps"]
        order = head + [n for n in order if n not in (*head, "smaller-xblock", "more-programs-per-sm")]
    return order


class HeuristicBackend:
    name = "heuristic"

    def at(self, where: Any) -> HeuristicBackend:
        return self  # writes nothing of its own

    # -- profiler --------------------------------------------------------------------------
    def summarize_profile(self, member: str, metrics: dict[str, Any], source: str) -> ProfileSummary:
        keys = [
            "time_ms",
            "duration_us",
            "memory_sol_pct",
            "reread_roof_pct",
            "compute_sol_pct",
            "achieved_occupancy_pct",
            "registers_per_thread",
            "local_loads",
            "achieved_gbs",
            "bytes_read",
            "bytes_written",
            "programs",
            "programs_per_sm",
            "grid_size",
            "block_size",
        ]
        lines = [f"member {member} ({source})"]
        for k in keys:
            v = metrics.get(k)
            if v is not None:
                lines.append(f"{k}: {v:.4g}" if isinstance(v, float) else f"{k}: {v}")
        stalls = profiler.top_stalls(metrics)
        if stalls:
            lines.append("top warp stalls (cycles/issue): " + ", ".join(f"{k} {v:.3g}" for k, v in stalls))
        note = (
            "" if source == "ncu" else "no hardware counters: timings and a roofline estimate from the contract's bytes"
        )
        return ProfileSummary(member, source, metrics, "\n".join(lines), note)

    # -- strategy analyst ----------------------------------------------------------------------
    def analyze(self, summary: ProfileSummary, contract: Contract, memory: Memory, kernel: str = "") -> Analysis:
        a = self._analyze(summary)
        m = summary.metrics
        bc = _big_broadcast(kernel, contract) if a.bottleneck == "near-optimal" and summary.source == "ncu" else None
        if bc and self._swizzle_untried(kernel, bc, memory):
            # NCU counts the DRAM bytes moved, re-reads included: a kernel busy re-reading a
            # broadcast operand the L2 could have kept is at the roof of traffic it need not make
            a.bottleneck = "memory-bound"
            a.evidence.append(
                f"but {', '.join(bc['operands'])} is read {bc['rows']} times, once per row of {bc['period']} "
                f"outputs ({bc['period_bytes'] / 2**20:.0f} MiB of traffic between two reads, too much for the L2 "
                "to keep it): the DRAM throughput counts re-reads a different block order avoids"
            )
        if m.get("programs") and m.get("programs_per_sm") and m.get("memory_sol_pct") is not None:
            a.sms = max(1, round(float(m["programs"]) / float(m["programs_per_sm"])))
        self._math_bound(a, summary, kernel)
        return a

    @staticmethod
    def _math_bound(a: Analysis, summary: ProfileSummary, kernel: str) -> None:
        """Without hardware counters a kernel far from its memory roof on a full grid is called
        latency-bound; one that computes libdevice functions per element is more likely bound by
        that arithmetic (conv + GroupNorm + tanh + LogSumExp's apply kernel: 35 % of the copy roof,
        72 instructions an element compiled for sm_90), so the cheaper math is tried first."""
        m = summary.metrics
        mem, per_sm = m.get("memory_sol_pct"), m.get("programs_per_sm")
        if summary.source != "roofline" or a.bottleneck != "underutilized" or mem is None or mem >= MEMORY_SOL:
            return
        calls = transform.fast_math_calls(kernel)
        if not calls or (per_sm is not None and per_sm < 1.0):
            return
        names = ", ".join(sorted({c.split(".")[-1] for c in calls}))
        a.bottleneck = "compute-bound"
        a.evidence.append(
            f"but it computes {len(calls)} libdevice function(s) an element ({names}): its arithmetic, not its "
            "memory, is the likely limit (no hardware counters to tell)"
        )

    @staticmethod
    def _swizzle_untried(kernel: str, bc: dict[str, Any], memory: Memory) -> bool:
        """Whether the block order applies to this kernel and its result was not tried yet (else
        the kernel at NCU's DRAM roof is near-optimal for all the search can still do)."""
        try:
            return signature(transform.set_swizzle(kernel, bc["rows"])) not in memory.tried
        except (transform.TransformError, SyntaxError, ValueError):
            return False

    def _analyze(self, summary: ProfileSummary) -> Analysis:
        m = summary.metrics
        mem = m.get("memory_sol_pct")
        comp = m.get("compute_sol_pct")
        occ = m.get("achieved_occupancy_pct")
        per_sm = m.get("programs_per_sm")
        ev: list[str] = []
        if mem is None:
            ev.append(
                "no meaningful memory throughput (CPU mode): assume memory-bound, "
                "the usual case for Inductor's Triton kernels"
            )
            return Analysis(summary.member, "memory-bound", ev)
        ev.append(f"memory throughput {mem:.1f}% of peak")
        if comp is not None:
            ev.append(f"compute throughput {comp:.1f}% of peak")
        if occ is not None:
            ev.append(f"achieved occupancy {occ:.1f}%")
        if per_sm is not None:
            ev.append(f"{per_sm:.2f} programs per SM")
        stalls = profiler.top_stalls(m, 1)
        if stalls:
            ev.append(f"top warp stall: {stalls[0][0]} ({stalls[0][1]:.3g} cycles per issued instruction)")
        if m.get("local_spill_requests"):
            ev.append(f"{m['local_spill_requests']:.0f} local-memory spill requests: registers overflow")
        if mem >= NEAR_OPTIMAL_SOL:
            return Analysis(
                summary.member,
                "near-optimal",
                ev + [f">= {NEAR_OPTIMAL_SOL:.0f}% of the memory roof: little left to gain"],
            )
        floor = m.get("reread_roof_pct") if summary.source == "roofline" else None
        if floor and mem >= NEAR_OPTIMAL_SOL / 100.0 * floor:
            # the roofline estimate counts each row once; a row too large for one SM is read
            # twice by any kernel (NCU's own throughput counts both reads, so NCU needs no floor)
            return Analysis(
                summary.member,
                "near-optimal",
                ev
                + [
                    f"its rows do not fit on one SM and are read twice (as by any kernel that keeps a row to one "
                    f"SM): the roof at that traffic is {floor:.1f}% of the copy bandwidth, "
                    f"and {mem:.1f}% is {roof_share_pct(mem, floor):.0f}% of it: little left to gain"
                ],
            )
        if per_sm is not None and per_sm < 1.0:
            return Analysis(
                summary.member, "underutilized", ev + ["fewer programs than SMs: the grid does not fill the GPU"]
            )
        if comp is not None and comp >= COMPUTE_SOL and comp > mem:
            return Analysis(summary.member, "compute-bound", ev)
        if (
            stalls
            and stalls[0][0] in ("math_pipe_throttle", "wait", "short_scoreboard")
            and comp is not None
            and comp > mem
        ):
            return Analysis(
                summary.member, "compute-bound", ev + [f"the top stall ({stalls[0][0]}) is an arithmetic one"]
            )
        if mem >= MEMORY_SOL:
            return Analysis(summary.member, "memory-bound", ev)
        return Analysis(
            summary.member,
            "underutilized",
            ev + [f"neither memory (< {MEMORY_SOL:.0f}%) nor compute is busy: latency-bound"],
        )

    # -- planner ---------------------------------------------------------------------------
    def catalogue(
        self,
        bottleneck: str,
        params: transform.LaunchParams,
        contract: Contract,
        source: str = "",
        sms: int | None = None,
    ) -> list[tuple[str, str, dict[str, Any], str, str]]:
        """(name, kind, args, rationale, prediction) in preference order for this bottleneck
        (``sms``: the GPU's SMs, for the programs-per-SM directions; None: not offered)."""
        k = _Kernel.of(params, contract, source, sms)
        opts = {name: opt for name, build in DIRECTIONS.items() if (opt := build(k)) is not None}
        return [(n, *opts[n]) for n in _preference(bottleneck, contract) if n in opts]

    def plan(
        self,
        iteration: int,
        beam: list[dict[str, Any]],
        analyses: dict[str, Analysis],
        contract: Contract,
        memory: Memory,
        width: int,
    ) -> Plan:
        directions: list[Direction] = []
        seen = set(memory.tried)
        diversity: list[str] = []
        if beam and all(analyses[m["id"]].bottleneck == "near-optimal" for m in beam if m["id"] in analyses):
            return Plan(iteration, [], stop="every beam member is near-optimal")
        # round-robin over members so that one member cannot take every slot
        queues = []
        for m in beam:
            a = analyses.get(m["id"])
            if a is None or a.bottleneck == "near-optimal":
                continue
            if (m.get("ratio") or 1.0) >= FAR_BEHIND_RATIO:
                diversity.append(
                    f"no directions on {m['id']}: {m['ratio']:.2f}x Inductor's time, further behind than a "
                    "launch parameter closes"
                )
                continue
            try:
                params = transform.launch_params(m["source"])
            except transform.TransformError as e:  # e.g. a region's several kernels, one CONFIG each
                diversity.append(f"no launch parameters to tune on {m['id']}: {e}")
                continue
            options = self.catalogue(a.bottleneck, params, contract, m["source"], sms=a.sms)
            # momentum: a member that a direction made faster tries the same direction again first
            # (BLOCK 32 -> 64 halved the time; 64 -> 128 is the next step to try, not warps)
            last = (m.get("direction") or "").split(" on ")[0]
            if last and (m.get("ratio") or 1.0) < MOMENTUM_RATIO:
                options = [c for c in options if c[0] == last] + [c for c in options if c[0] != last]
            queues.append([(m, params, c) for c in options])
        while len(directions) < width and any(queues):
            for q in queues:
                while q:
                    m, params, (name, kind, args, why, pred) = q.pop(0)
                    new_sig = self._result_signature(m["source"], kind, args, contract)
                    if new_sig is None:
                        continue
                    if new_sig in seen:
                        diversity.append(
                            f"skipped {name} on {m['id']}: "
                            f"leads to an already tried or planned configuration ({new_sig})"
                        )
                        continue
                    seen.add(new_sig)
                    directions.append(Direction(m["id"], kind, args, name, why, pred))
                    break
                if len(directions) >= width:
                    break
        stop = None if directions else "no untried direction left for any beam member"
        return Plan(iteration, directions, diversity, stop)

    @staticmethod
    def _result_signature(source: str, kind: str, args: dict[str, Any], contract: Contract | None = None) -> str | None:
        try:
            new = transform.apply(source, {"kind": kind, "args": args}, contract)
        except transform.TransformError:
            return None
        return signature(new)

    # -- executor --------------------------------------------------------------------------
    def execute(self, direction: Direction, source: str, contract: Contract) -> str:
        new = transform.apply(source, {"kind": direction.kind, "args": direction.args}, contract)
        return transform.retitle(
            new,
            f"heuristic executor: {direction.name} on {direction.member} "
            f"({json.dumps(direction.args, sort_keys=True)})\n{direction.rationale}",
        )

    def apply_fix(
        self, direction: Direction, failed_source: str, member_source: str, failure: dict[str, Any],
        contract: Contract, reference: str,
    ) -> str:  # fmt: skip
        """A retry's direction applied to the beam member (the failed candidate is not needed)."""
        return self.execute(direction, member_source, contract)

    # -- directed retries -------------------------------------------------------------------
    @staticmethod
    def failure_class(failure: dict[str, Any]) -> str:
        """resources | numerics | crash | other, from a gate verdict."""
        text = f"{failure.get('rule', '')} {failure.get('reason', '')}".lower()
        if any(
            k in text
            for k in (
                "out of resource",
                "outofresources",
                "shared memory",
                "too many resources",
                "registers",
                "max threads",
            )
        ):
            return "resources"
        if failure.get("gate") == 2 and failure.get("rule") != "crash" or "mismatch" in text or "nan" in text.split():
            return "numerics"
        if "crash" in text or "illegal" in text or "segfault" in text:
            return "crash"
        return "other"

    SHRINKING = ("smaller-xblock", "smaller-rblock", "fewer-warps", "fewer-stages")
    SAFE = (
        "bigger-xblock",
        "smaller-xblock",
        "bigger-rblock",
        "smaller-rblock",
        "persistent-rblock",
        "more-warps",
        "fewer-warps",
        "more-stages",
        "fewer-stages",
        "evict-first",
        "more-programs-per-sm",
        "fewer-programs-per-sm",
    )

    def fix(
        self,
        failed: Direction,
        failure: dict[str, Any],
        member_source: str,
        analysis: Analysis | None,
        contract: Contract,
        memory: Memory,
        taken: set[str],
    ) -> tuple[Direction | None, str]:
        cls = self.failure_class(failure)
        bottleneck = analysis.bottleneck if analysis and analysis.bottleneck != "near-optimal" else "memory-bound"
        params = transform.launch_params(member_source)
        allowed = {"resources": self.SHRINKING, "crash": self.SHRINKING}.get(cls, self.SAFE)
        why = f"{failed.name} failed gate {failure.get('gate')} ({cls}: {str(failure.get('reason', ''))[:120]})"
        sms = analysis.sms if analysis else None
        for name, kind, args, rationale, pred in self.catalogue(bottleneck, params, contract, member_source, sms):
            if name == failed.name or name not in allowed:
                continue
            sig = self._result_signature(member_source, kind, args, contract)
            if sig is None or sig in taken or sig in memory.tried:
                continue
            note = f"{why}; retry with {name}" + (
                " (only shrinking directions after a resource failure or crash)"
                if cls in ("resources", "crash")
                else ""
            )
            return Direction(failed.member, kind, args, name, f"directed retry: {rationale}", pred), note
        return None, f"{why}; no untried direction of the allowed kinds ({', '.join(allowed)}) is left"

    # -- summarizer ------------------------------------------------------------------------
    def summarize(self, iteration: int, outcomes: list[dict[str, Any]], memory: Memory) -> tuple[Memory, str]:
        lines = [f"# iteration {iteration}", ""]
        for o in outcomes:
            memory.tried[o["signature"]] = {
                "iteration": iteration,
                "direction": o.get("direction"),
                "verdict": o["verdict"],
                "ratio": o.get("ratio"),
            }
            r = o.get("ratio")
            lines.append(
                f"- {o.get('direction') or o['id']}: {o['verdict']}"
                + (f", time ratio vs Inductor {r:.4f}" if isinstance(r, float) else "")
                + (f" ({o['reason']})" if o.get("reason") else "")
            )
        best = min((o for o in outcomes if isinstance(o.get("ratio"), float)), key=lambda o: o["ratio"], default=None)
        if best:
            memory.notes.append(f"iteration {iteration}: best {best['id']} at {best['ratio']:.4f} of Inductor's time")
        lines += ["", "Memory carried forward:"] + [f"- {n}" for n in memory.notes[-10:]]
        return memory, "\n".join(lines) + "\n"
