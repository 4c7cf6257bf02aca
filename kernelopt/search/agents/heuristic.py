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
  kernels), a diversity rule (no two directions that lead to
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
from typing import Any

from .. import profiler, transform
from ..transform import signature
from .base import Analysis, Direction, Memory, Plan, ProfileSummary

NEAR_OPTIMAL_SOL = 85.0  # % of peak memory bandwidth (or NCU memory SOL) that counts as at the roof
MEMORY_SOL = 50.0
COMPUTE_SOL = 60.0


HUGE_GRID = 1 << 20  # programs: far beyond what any GPU holds at once (132 SMs x ~16 resident)
MOMENTUM_RATIO = 0.97  # a member at least 3 % faster than Inductor's kernel repeats its direction


def _big_broadcast(source: str, contract: dict[str, Any]) -> dict[str, Any] | None:
    """transform.broadcast_period of an Inductor kernel whose re-read operand outgrows the L2
    between two reads (where block order matters), else None."""
    if not source or contract.get("user"):
        return None
    bc = transform.broadcast_period(source, contract)
    return bc if bc and bc["period_bytes"] >= transform.SWIZZLE_MIN_PERIOD_BYTES else None


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
    def analyze(self, summary: ProfileSummary, contract: dict[str, Any], memory: Memory, kernel: str = "") -> Analysis:
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
        return a

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
                    f"SM): the roof at that traffic is {floor:.1f}% "
                    f"of the copy bandwidth, and {mem:.1f}% is {100.0 * mem / floor:.0f}% of it: little left to gain"
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
        contract: dict[str, Any],
        source: str = "",
        sms: int | None = None,
    ) -> list[tuple[str, str, dict[str, Any], str, str]]:
        """(name, kind, args, rationale, prediction) in preference order for this bottleneck
        (``sms``: the GPU's SMs, for the programs-per-SM directions; None: not offered)."""
        cfg = params.config
        # a reduction kernel that loops over the row (Inductor's triton_red_*) can change its
        # R0_BLOCK freely; a persistent one (triton_per_*, no loop) holds the whole row in one
        # block, so its R0_BLOCK is not a tuning knob
        looped_synth = "for c0 in range(" in source  # synth_rows' looped variant
        looped = "for r0_offset in" in source or looped_synth or not source
        # the reduction block: Inductor's R0_BLOCK, or the chunk of a looped synthesised row kernel
        rkey = "R0_BLOCK" if "R0_BLOCK" in cfg else ("BLOCK_N" if looped_synth else None)
        scal = {a["name"]: a.get("value") for a in contract["args"] if a["kind"] == "scalar"}
        xn = scal.get("xnumel") or 1
        rn = scal.get("r0_numel") or 1
        opts: dict[str, tuple[str, dict[str, Any], str, str]] = {}

        def launch(**kw: Any) -> dict[str, Any]:
            return {k: v for k, v in kw.items() if v is not None}

        # the block over independent elements/rows: Inductor's XBLOCK, or the synthesised
        # kernels' BLOCK (pointwise) and ROWS (row kernels)
        xkey = next((k for k in ("XBLOCK", "ROWS", "BLOCK") if k in cfg), None)
        divides = True
        if contract.get("user") and cfg:
            # a user's kernel: its block size is any constexpr named *BLOCK*, the elements it
            # covers the size its grid was inferred from (isolate/user.py), masks its own
            xkey = xkey or next((k for k in cfg if "BLOCK" in k.upper() and isinstance(cfg[k], int)), None)
            sizes = {m for e in (contract.get("grid_inferred") or {}).values() for m in re.findall(r"cdiv\((\w+),", e)}
            xn = max([v for n, v in scal.items() if isinstance(v, int) and n in sizes] or [xn])
            divides = False
        if xkey and cfg[xkey] * 2 <= xn and (not divides or xn % (cfg[xkey] * 2) == 0):
            opts["bigger-xblock"] = (
                "launch",
                launch(config={xkey: cfg[xkey] * 2}),
                "more work per program: fewer, larger memory transactions",
                "a few % faster if the loads were short",
            )
        if xkey and cfg[xkey] >= 2:
            opts["smaller-xblock"] = (
                "launch",
                launch(config={xkey: cfg[xkey] // 2}),
                "twice the programs: fills more SMs",
                "faster if the grid was too small",
            )
        whole = 1 << max(0, (int(xn) - 1).bit_length())
        if xkey and cfg[xkey] < whole and whole * int(cfg.get("R0_BLOCK", cfg.get("BLOCK_N", 1))) <= 16384:
            opts["one-program"] = (
                "launch",
                launch(config={xkey: whole}),
                "a tiny kernel: one program covers every element, so launch and scheduling overhead is paid once",
                "a few microseconds saved when the kernel is launch-bound",
            )
        if looped and rkey and cfg[rkey] * 2 <= max(rn, 1) * 2 and cfg[rkey] < 8192:
            opts["bigger-rblock"] = (
                "launch",
                launch(config={rkey: cfg[rkey] * 2}),
                "fewer loop trips in the reduction",
                "a few % faster on long rows",
            )
        full = 1 << max(0, (int(rn) - 1).bit_length())
        if looped and source and rkey and cfg[rkey] < full <= 16384:
            w0 = params.num_warps or 4
            opts["persistent-rblock"] = (
                "launch",
                launch(config={rkey: full}, num_warps=max(w0, min(32, full // 512))),
                "one loop trip: the whole row in one block, so the second pass re-reads from L1/L2 instead of DRAM",
                "faster when the row fits in registers",
            )
        if looped and rkey and cfg[rkey] >= 64:
            opts["smaller-rblock"] = (
                "launch",
                launch(config={rkey: cfg[rkey] // 2}),
                "fewer registers per thread: more warps resident",
                "faster if occupancy was register-limited",
            )
        w = params.num_warps
        if w is not None and w < 32:
            opts["more-warps"] = (
                "launch",
                launch(num_warps=w * 2),
                "more warps in flight to hide memory latency",
                "faster if stalls on memory dominate",
            )
        if w is not None and w > 1:
            opts["fewer-warps"] = (
                "launch",
                launch(num_warps=w // 2),
                "less synchronisation per program, more programs per SM",
                "faster for small per-program work",
            )
        s = params.num_stages
        if s is not None:
            opts["more-stages" if s < 3 else "fewer-stages"] = (
                "launch",
                launch(num_stages=s + 1 if s < 3 else s - 1),
                "software pipelining depth of the loads",
                "small change either way",
            )
        # programs per SM: a grid of many short-lived programs becomes one wave of persistent
        # programs, each looping over blocks (transform.set_programs), then their number is tuned
        persistent = transform.programs_of(source) if source else None
        blocks = -(-int(xn) // int(cfg["XBLOCK"])) if "XBLOCK" in cfg and not contract.get("user") else None
        resident = max(1, min(32, 64 // (w or 4)))  # an SM holds 64 warps and 32 programs at once
        if sms and blocks and persistent is None and blocks > 2 * sms * resident:
            opts["persistent-programs"] = (
                "programs",
                {"programs": sms * resident},
                f"{blocks} programs of {cfg['XBLOCK']} elements run in {blocks / (sms * resident):.0f} waves: "
                f"{resident} persistent programs per SM ({sms} SMs) loop over the blocks instead, so block "
                "scheduling and the prologue are paid once and no tail wave is left",
                "a few % on grids of many short programs",
            )
        if sms and blocks and persistent is not None:
            if persistent * 2 <= blocks:
                opts["more-programs-per-sm"] = (
                    "programs",
                    {"programs": persistent * 2},
                    f"{2 * persistent / sms:.0f} programs per SM instead of {persistent / sms:.0f}: "
                    "more loads in flight",
                    "faster if the persistent programs left the memory system idle",
                )
            if persistent // 2 >= sms:
                opts["fewer-programs-per-sm"] = (
                    "programs",
                    {"programs": persistent // 2},
                    f"{persistent // 2 / sms:.0f} programs per SM instead of {persistent / sms:.0f}: "
                    "fewer programs competing for registers and L1",
                    "faster if occupancy was limited",
                )
        bc = _big_broadcast(source, contract)
        if bc and transform.swizzle_of(source) is None and persistent is None:
            opts["broadcast-swizzle"] = (
                "swizzle",
                {"rows": bc["rows"]},
                f"{', '.join(bc['operands'])} ({bc['period']} elements) is read once per row of {bc['period']} "
                f"outputs, {bc['rows']} times, and one row's traffic ({bc['period_bytes'] / 2**20:.0f} MiB) "
                "outgrows the L2 between two reads: re-order the blocks so that the programs in flight cover "
                f"the same offset of all {bc['rows']} rows and share each chunk of it from L2",
                "up to the re-read traffic saved, on a memory-bound kernel",
            )
        opts["evict-first"] = (
            "eviction",
            {"policy": "evict_first", "only": None},
            "stream through L2: data read once need not stay",
            "a few % on streaming kernels",
        )
        if "ASSUMES_DIVISIBLE" not in source:
            opts["drop-masks"] = (
                "drop-masks",
                {},
                "every numel is a multiple of its block: the bound masks are always true, "
                "drop them (fewer predicates, wider loads)",
                "a few % on memory-bound kernels",
            )
        order = {
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
                "bigger-rblock",
                "bigger-xblock",
                "persistent-programs",
                "more-programs-per-sm",
                "fewer-programs-per-sm",
                "evict-first",
                "fewer-stages",
            ],
            "compute-bound": [
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
        }[bottleneck]
        programs = math.prod(int(g) for g in (contract.get("grid") or [1]))
        if bottleneck == "underutilized" and programs >= HUGE_GRID:
            # busy with nothing on a huge grid: each program does too little (a user's BLOCK=32
            # over 256 Mi elements ran 8 Mi programs at 10 % of the roof); more work per program
            # first, never more programs
            head = ["bigger-xblock", "bigger-rblock", "persistent-programs", "fewer-warps"]
            order = head + [n for n in order if n not in (*head, "smaller-xblock", "more-programs-per-sm")]
        return [(n, *opts[n]) for n in order if n in opts]

    def plan(
        self,
        iteration: int,
        beam: list[dict[str, Any]],
        analyses: dict[str, Analysis],
        contract: dict[str, Any],
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
    def _result_signature(
        source: str, kind: str, args: dict[str, Any], contract: dict[str, Any] | None = None
    ) -> str | None:
        try:
            new = transform.apply(source, {"kind": kind, "args": args}, contract)
        except transform.TransformError:
            return None
        return signature(new)

    # -- executor --------------------------------------------------------------------------
    def execute(self, direction: Direction, source: str, contract: dict[str, Any]) -> str:
        new = transform.apply(source, {"kind": direction.kind, "args": direction.args}, contract)
        return transform.retitle(
            new,
            f"heuristic executor: {direction.name} on {direction.member} "
            f"({json.dumps(direction.args, sort_keys=True)})\n{direction.rationale}",
        )

    def apply_fix(
        self, direction: Direction, failed_source: str, member_source: str, failure: dict[str, Any],
        contract: dict[str, Any], reference: str,
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
        contract: dict[str, Any],
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
