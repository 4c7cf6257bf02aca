"""The heuristic backend: deterministic rules, no LLM.

- profiler: passes the measured metrics through and writes a compact text summary.
- strategy analyst: rules over the metrics (NCU's speed-of-light %, occupancy, registers;
  or the roofline estimate) -> memory-bound / compute-bound / underutilized / near-optimal,
  quoting the evidence.
- planner: a catalogue of launch transformations that suit the bottleneck (block sizes,
  num_warps, num_stages, eviction policy), a diversity rule (no two directions that lead to
  the same launch parameters, none already tried), deterministic order.
- executor: applies a direction to real kernel source through transform.py (AST edits).
- summarizer: remembers each tried configuration and its outcome for the next iteration.
"""
from __future__ import annotations

import json
from typing import Any

from .. import transform
from .base import Analysis, Direction, Memory, Plan, ProfileSummary

NEAR_OPTIMAL_SOL = 85.0  # % of peak memory bandwidth (or NCU memory SOL) that counts as at the roof
MEMORY_SOL = 50.0
COMPUTE_SOL = 60.0


class HeuristicBackend:
    name = "heuristic"

    # -- profiler --------------------------------------------------------------------------
    def summarize_profile(self, member: str, metrics: dict[str, Any], source: str) -> ProfileSummary:
        keys = ["time_ms", "duration_us", "memory_sol_pct", "compute_sol_pct", "achieved_occupancy_pct", "registers_per_thread",
                "local_loads", "achieved_gbs", "bytes_read", "bytes_written", "programs", "programs_per_sm", "grid_size", "block_size"]
        lines = [f"member {member} ({source})"]
        for k in keys:
            v = metrics.get(k)
            if v is not None:
                lines.append(f"{k}: {v:.4g}" if isinstance(v, float) else f"{k}: {v}")
        note = "" if source == "ncu" else "no hardware counters: timings and a roofline estimate from the contract's bytes"
        return ProfileSummary(member, source, metrics, "\n".join(lines), note)

    # -- strategy analyst ----------------------------------------------------------------------
    def analyze(self, summary: ProfileSummary, contract: dict[str, Any], memory: Memory) -> Analysis:
        m = summary.metrics
        mem = m.get("memory_sol_pct")
        comp = m.get("compute_sol_pct")
        occ = m.get("achieved_occupancy_pct")
        per_sm = m.get("programs_per_sm")
        ev: list[str] = []
        if mem is None:
            ev.append("no meaningful memory throughput (CPU mode): assume memory-bound, the usual case for Inductor's Triton kernels")
            return Analysis(summary.member, "memory-bound", ev)
        ev.append(f"memory throughput {mem:.1f}% of peak")
        if comp is not None:
            ev.append(f"compute throughput {comp:.1f}% of peak")
        if occ is not None:
            ev.append(f"achieved occupancy {occ:.1f}%")
        if per_sm is not None:
            ev.append(f"{per_sm:.2f} programs per SM")
        if mem >= NEAR_OPTIMAL_SOL:
            return Analysis(summary.member, "near-optimal", ev + [f">= {NEAR_OPTIMAL_SOL:.0f}% of the memory roof: little left to gain"])
        if per_sm is not None and per_sm < 1.0:
            return Analysis(summary.member, "underutilized", ev + ["fewer programs than SMs: the grid does not fill the GPU"])
        if comp is not None and comp >= COMPUTE_SOL and comp > mem:
            return Analysis(summary.member, "compute-bound", ev)
        if mem >= MEMORY_SOL:
            return Analysis(summary.member, "memory-bound", ev)
        return Analysis(summary.member, "underutilized", ev + [f"neither memory (< {MEMORY_SOL:.0f}%) nor compute is busy: latency-bound"])

    # -- planner ---------------------------------------------------------------------------
    def catalogue(self, bottleneck: str, params: transform.LaunchParams, contract: dict[str, Any]) -> list[tuple[str, str, dict[str, Any], str, str]]:
        """(name, kind, args, rationale, prediction) in preference order for this bottleneck."""
        cfg = params.config
        scal = {a["name"]: a.get("value") for a in contract["args"] if a["kind"] == "scalar"}
        xn = scal.get("xnumel") or 1
        rn = scal.get("r0_numel") or 1
        opts: dict[str, tuple[str, dict[str, Any], str, str]] = {}

        def launch(**kw: Any) -> dict[str, Any]:
            return {k: v for k, v in kw.items() if v is not None}

        if "XBLOCK" in cfg and cfg["XBLOCK"] * 2 <= xn and xn % (cfg["XBLOCK"] * 2) == 0:
            opts["bigger-xblock"] = ("launch", launch(config={"XBLOCK": cfg["XBLOCK"] * 2}), "more work per program: fewer, larger memory transactions", "a few % faster if the loads were short")
        if "XBLOCK" in cfg and cfg["XBLOCK"] >= 2:
            opts["smaller-xblock"] = ("launch", launch(config={"XBLOCK": cfg["XBLOCK"] // 2}), "twice the programs: fills more SMs", "faster if the grid was too small")
        if "R0_BLOCK" in cfg and cfg["R0_BLOCK"] * 2 <= max(rn, 1) * 2 and cfg["R0_BLOCK"] < 8192:
            opts["bigger-rblock"] = ("launch", launch(config={"R0_BLOCK": cfg["R0_BLOCK"] * 2}), "fewer loop trips in the reduction", "a few % faster on long rows")
        if "R0_BLOCK" in cfg and cfg["R0_BLOCK"] >= 64:
            opts["smaller-rblock"] = ("launch", launch(config={"R0_BLOCK": cfg["R0_BLOCK"] // 2}), "fewer registers per thread: more warps resident", "faster if occupancy was register-limited")
        w = params.num_warps
        if w is not None and w < 32:
            opts["more-warps"] = ("launch", launch(num_warps=w * 2), "more warps in flight to hide memory latency", "faster if stalls on memory dominate")
        if w is not None and w > 1:
            opts["fewer-warps"] = ("launch", launch(num_warps=w // 2), "less synchronisation per program, more programs per SM", "faster for small per-program work")
        s = params.num_stages
        if s is not None:
            opts["more-stages" if s < 3 else "fewer-stages"] = ("launch", launch(num_stages=s + 1 if s < 3 else s - 1), "software pipelining depth of the loads", "small change either way")
        opts["evict-first"] = ("eviction", {"policy": "evict_first", "only": None}, "stream through L2: data read once need not stay", "a few % on streaming kernels")
        order = {
            "memory-bound": ["bigger-xblock", "bigger-rblock", "more-warps", "evict-first", "more-stages", "fewer-warps", "smaller-rblock", "smaller-xblock", "fewer-stages"],
            "underutilized": ["smaller-xblock", "fewer-warps", "smaller-rblock", "more-warps", "more-stages", "bigger-rblock", "bigger-xblock", "evict-first", "fewer-stages"],
            "compute-bound": ["more-warps", "fewer-warps", "more-stages", "fewer-stages", "smaller-rblock", "bigger-xblock", "smaller-xblock", "bigger-rblock", "evict-first"],
            "near-optimal": [],
        }[bottleneck]
        return [(n, *opts[n]) for n in order if n in opts]

    def plan(self, iteration: int, beam: list[dict[str, Any]], analyses: dict[str, Analysis], contract: dict[str, Any], memory: Memory, width: int) -> Plan:
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
            params = transform.launch_params(m["source"])
            queues.append([(m, params, c) for c in self.catalogue(a.bottleneck, params, contract)])
        while len(directions) < width and any(queues):
            for q in queues:
                while q:
                    m, params, (name, kind, args, why, pred) = q.pop(0)
                    new_sig = self._result_signature(m["source"], kind, args)
                    if new_sig is None:
                        continue
                    if new_sig in seen:
                        diversity.append(f"skipped {name} on {m['id']}: leads to an already tried or planned configuration ({new_sig})")
                        continue
                    seen.add(new_sig)
                    directions.append(Direction(m["id"], kind, args, name, why, pred))
                    break
                if len(directions) >= width:
                    break
        stop = None if directions else "no untried direction left for any beam member"
        return Plan(iteration, directions, diversity, stop)

    @staticmethod
    def _result_signature(source: str, kind: str, args: dict[str, Any]) -> str | None:
        try:
            new = transform.apply(source, {"kind": kind, "args": args})
        except transform.TransformError:
            return None
        return signature(new)

    # -- executor --------------------------------------------------------------------------
    def execute(self, direction: Direction, source: str, contract: dict[str, Any]) -> str:
        new = transform.apply(source, {"kind": direction.kind, "args": direction.args})
        return transform.retitle(new, f"heuristic executor: {direction.name} on {direction.member} ({json.dumps(direction.args, sort_keys=True)})\n{direction.rationale}")

    # -- summarizer ------------------------------------------------------------------------
    def summarize(self, iteration: int, outcomes: list[dict[str, Any]], memory: Memory) -> tuple[Memory, str]:
        lines = [f"# iteration {iteration}", ""]
        for o in outcomes:
            memory.tried[o["signature"]] = {"iteration": iteration, "direction": o.get("direction"), "verdict": o["verdict"], "ratio": o.get("ratio")}
            r = o.get("ratio")
            lines.append(f"- {o.get('direction') or o['id']}: {o['verdict']}" + (f", time ratio vs Inductor {r:.4f}" if isinstance(r, float) else "") + (f" ({o['reason']})" if o.get("reason") else ""))
        best = min((o for o in outcomes if isinstance(o.get("ratio"), float)), key=lambda o: o["ratio"], default=None)
        if best:
            memory.notes.append(f"iteration {iteration}: best {best['id']} at {best['ratio']:.4f} of Inductor's time")
        lines += ["", "Memory carried forward:"] + [f"- {n}" for n in memory.notes[-10:]]
        return memory, "\n".join(lines) + "\n"


def signature(source: str) -> str:
    """Launch parameters + eviction policies of a candidate: what makes two candidates differ."""
    import ast

    p = transform.launch_params(source)
    ev = sorted({k.value.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "tl.load" for k in n.keywords if k.arg == "eviction_policy" and isinstance(k.value, ast.Constant)})
    return f"{transform.describe(p)}; eviction={','.join(ev) or 'default'}"
