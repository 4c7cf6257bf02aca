"""Gates 1 and 2 of one candidate, judged here from one sandboxed child run.

Gate 1: the candidate form (``form.py``), then the candidate imported and run once (call 0) in
its jailed child (``sandbox.py``) on the real inputs of a fresh seed, without an exception.  The
ATen ops and Triton launches the child watched are recorded as evidence (``advisory``), never a
condition: the child could forge them, and the form already leaves host code no torch compute.

Gate 2, on the same child's further calls (``gates.calls`` of them at least, in random order,
Inductor's kernel launched before each):

* inputs: the unit's real arguments for fresh seeds (``gates.fresh_seeds``, drawn per run and
  recorded), plus the model's floating inputs scaled x10, x0.01 and made non-negative
  (``gates.distributions``) where Inductor's own kernel still matches the reference there;
* outputs poisoned before each call, with NaN on some calls and a random finite pattern on
  others, so that reading an output buffer never helps; an element left as the random pattern
  poisoned it is reported as unwritten, a NaN under the NaN poison (unwritten, or written so)
  as a mismatch, never as a small error;
* every call compared in this process, which the candidate never runs in, on the bytes of the
  slots this process laid out (``runner/wire.py``): ``allclose(rtol, atol)`` against the eager
  reference (NaN only where the reference has NaN), read-only inputs unchanged, a guard against
  systematic precision loss (the mean relative error over elements with |reference| > 1e-6 at
  most ``rel_error_ratio`` x Inductor's own kernel's on the same inputs, or ``rel_error_floor``),
  and the error profile of ``errprofile.py`` (the largest error, the error on small values and
  the reference's structure, each against Inductor's own kernel on the same inputs);
* a graph-level reference that Inductor's own kernel misses too gets the bounded fallback of
  ``UnitHarness.compare_outputs``.

A fault is not a verdict about the candidate, and the child's words are not a fault: a child
that hangs, dies, or reports an exception whose text reads like running out of memory is blamed
only after Inductor's own kernel, run the same way (the control run), gets through; when the
control fails too, ``InfrastructureFault`` is raised for the stage to retry.
"""

from __future__ import annotations

import math
import random
import re
import secrets
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core import gpumem
from ..core.outputs import CHUNK, same_values
from ..core.phases import timed
from ..core.records import ProblemPaths, Scratch
from ..runner import sandbox
from ..runner.harness import UnitHarness, poison
from ..runner.watch import ATEN_ALLOWED
from . import errprofile
from .faults import InfrastructureFault, looks_like_fault, suspect
from .verdict import FAIL, PASS, SKIPPED, GateVerdict

REL_THRESHOLD = 1e-6
# gate 2's rules, most serious first: when calls fail for different reasons the verdict names the first
GATE2_RULES = [
    "runtime-error",
    "out-of-bounds",
    "wrote-input",
    "unwritten-output",
    "mismatch",
    "error-profile",
    "precision",
]  # |reference| above which an element counts for the relative-error guard


def fresh_seeds(n: int) -> list[int]:
    """Seeds no candidate can know in advance: drawn per run, recorded in the verdict."""
    return [secrets.randbelow(2**31 - 1) for _ in range(n)]


def _rel_error(got: Any, ref: Any) -> float | None:
    """Mean |got - ref| / |ref| over the elements with |ref| > REL_THRESHOLD (finite ones)."""
    import torch

    from ..core.outputs import float64_chunks

    if got.numel() != ref.numel():
        return math.inf
    total, count = 0.0, 0
    for g, r in float64_chunks(got, ref):
        keep = torch.isfinite(r) & (r.abs() > REL_THRESHOLD)
        err = (g[keep] - r[keep]).abs() / r[keep].abs()
        err = torch.where(torch.isfinite(err), err, torch.full_like(err, math.inf))
        total += float(err.sum())
        count += int(keep.sum())
    return total / count if count else None


class UnitCheck:
    """The plan of one gates-1-2 check: fresh inputs, their references, the calls to make."""

    def __init__(self, harness: UnitHarness, cfg: dict[str, Any], rng: random.Random | None = None):
        gc = cfg["gates"]
        self.h, self.cfg, self.gc = harness, cfg, gc
        self.rng = rng or random.Random(secrets.randbits(64))
        self.seeds = fresh_seeds(1 + int(gc["fresh_seeds"]))
        self.notes: list[str] = []
        # input sets: seed, distribution, usable, error profiles; their tensors (before, after,
        # expected) are drawn again when a call needs them (deterministic from the seed), one
        # set at a time
        self.sets: list[dict[str, Any]] = []
        self._cached: tuple[int, dict[str, Any]] | None = None
        self._add(self.seeds[0], "normal")  # gate 1's run
        for s in self.seeds[1:]:
            self._add(s, "normal")
        for dist in gc["distributions"]:
            self._add(self.seeds[1], dist)
        usable = [i for i, st in enumerate(self.sets) if i > 0 and st["usable"]]
        if not usable:
            raise InfrastructureFault(
                "unit-not-checkable: Inductor's own kernel misses the eager reference on every fresh input"
            )
        order = list(usable)
        while len(order) < int(gc["calls"]):
            order.append(self.rng.choice(usable))
        self.rng.shuffle(order)
        self.calls = [0, *order]  # call 0 is gate 1's
        # poison per call, NaN or a random finite pattern at random, both at least once
        self.poison = ["nan"] + [self.rng.choice(["nan", "random"]) for _ in order]
        if "random" not in self.poison[1:]:
            self.poison[1] = "random"
        if "nan" not in self.poison[1:]:
            self.poison[-1] = "nan"

    def _draw(self, seed: int, distribution: str) -> dict[str, Any]:
        self._cached = None  # the previous set's tensors go before the next ones are drawn
        with timed("draw an input set (the captured wrapper up to the unit)", quiet=True):
            before, after = self.h.inputs(seed, distribution)
        with timed("the eager reference of an input set", quiet=True):
            expected = self.h.expected(before, seed, distribution)
        return {"before": self._layouts_of_outputs(before), "after": after, "expected": expected}

    def _layouts_of_outputs(self, before: list[Any]) -> list[Any]:
        """``before`` with each write-only output's tensor (what its buffer held before Inductor's
        kernel ran: nothing a call uses, every call poisons it) replaced by its layout alone, a
        tensor on the ``meta`` device: an input set then holds no copy of its outputs' old bytes."""
        import torch

        specs = self.h.contract.args
        out = list(before)
        for i, a in enumerate(before):
            if isinstance(a, torch.Tensor) and i < len(specs) and specs[i].get("access") == "write":
                storage = torch.empty(a.untyped_storage().nbytes() // a.element_size(), dtype=a.dtype, device="meta")
                out[i] = storage.as_strided(a.shape, a.stride(), a.storage_offset())
        return out

    def tensors(self, i: int) -> dict[str, Any]:
        """Set ``i``'s tensors: the unit's arguments before and after Inductor's kernel ran, and
        the reference outputs (only the last set drawn is kept)."""
        if self._cached is None or self._cached[0] != i:
            drawn = self._draw(self.sets[i]["seed"], self.sets[i]["distribution"])
            self._cached = (i, drawn)
        return self._cached[1]

    def _add(self, seed: int, distribution: str) -> None:
        drawn = self._draw(seed, distribution)
        after, expected = drawn["after"], drawn["expected"]
        usable, why = True, ""
        if getattr(self.h.reference, "LEVEL", "kernel") != "graph":
            base = self.h.compare_outputs(self.h.written(after), expected, after, self.gc["rtol"], self.gc["atol"])
            if not all(c["ok"] for c in base):
                usable = False
                why = f"seed {seed}, {distribution}: Inductor's own kernel misses the reference there; not used"
                self.notes.append(why)
        profiles: dict[str, Any] = {}
        if usable and getattr(self.h.reference, "LEVEL", "kernel") != "graph":
            base = self.h.written(after)
            with timed("the error profile of an input set", quiet=True):
                for name in self.h.reference.OUTPUTS:
                    if name in base and name in expected:
                        profiles[name] = errprofile.derive(expected[name], base[name])
        self.sets.append({"seed": seed, "distribution": distribution, "usable": usable, "profiles": profiles})
        self._cached = (len(self.sets) - 1, drawn)

    def call_args(self, k: int, slots: sandbox.Slots | None = None, copies: bool = True) -> list[Any]:
        """The arguments of call ``k``, write-only outputs poisoned: for the child, in the slots
        it shares with this process (the same memory for every call); without ``slots``
        (judging), fresh copies of the written arguments poisoned the same way, the read-only
        ones the input set's own tensors (one unit's worth less memory).  ``copies=False``
        (judging a call under the NaN poison, which no comparison reads back): no copies, the
        written arguments None."""
        import torch

        specs = self.h.contract.args
        before = self.tensors(self.calls[k])["before"]
        read_only = [i < len(specs) and specs[i].get("access") == "read" for i in range(len(before))]
        if slots is not None:
            # a write-only output (a layout on ``meta``) gets its slot as it is: poisoned below
            args = [
                (slots.empty_like(("arg", i), a) if a.is_meta else slots.put(("arg", i), a))
                if isinstance(a, torch.Tensor)
                else a
                for i, a in enumerate(before)
            ]
        elif not copies:
            return [None if isinstance(a, torch.Tensor) and not ro else a for a, ro in zip(before, read_only)]
        else:
            device = self.h.rt.device
            args = [
                (torch.empty_like(a, device=device) if a.is_meta else a.clone())
                if isinstance(a, torch.Tensor) and not ro
                else a
                for a, ro in zip(before, read_only)
            ]
        for i, (spec, a) in enumerate(zip(specs, args)):
            if spec.get("access") == "write" and isinstance(a, torch.Tensor):
                poison(a, self.poison[k], seed=self.seeds[0] + 7919 * k + i)
        return args

    def job(self, candidate: Path) -> tuple[dict[str, Any], dict[str, Path]]:
        """The child's job and the files bound into its sandbox; its calls are streamed
        (``CallStream``)."""
        job = {
            "kind": "unit",
            "device": self.h.rt.device,
            "candidate": Scratch.CANDIDATE,
            "inductor": Scratch.INDUCTOR,
            "point": "gate12",
            # the arguments Inductor's kernel only reads: its runs beside the candidate's use them
            # as they are, not copies (``runner/child.py: _clone``)
            "read_only": [i for i, a in enumerate(self.h.contract.args) if a.get("access") == "read"],
        }
        return job, {Scratch.CANDIDATE: Path(candidate), Scratch.INDUCTOR: self.h.paths.inductor_kernel(self.h.unit)}

    def budget_s(self) -> float:
        kernel_ms = self.h.kernel_ms()
        # every call also launches Inductor's kernel once, and its launcher ops are recorded once
        return sandbox.budget_s(self.gc["timeout_s"], self.gc["timeout_factor"], kernel_ms, 2 * len(self.calls) + 1)


class CallStream(sandbox.Stream):
    """Gates 1-2's calls handed to the child one at a time, each judged as its result comes
    back (its tensors compared here, then dropped), so that a unit of GiB-sized tensors holds
    one call's arguments, one input set and the comparison's temporaries at a time, not those of
    every call at once.  The child is one process for all calls."""

    def __init__(self, plan: UnitCheck, tol: dict[str, Any]):
        self.plan, self.tol = plan, tol
        self.calls = len(plan.calls)
        self.judged: dict[int, dict[str, Any]] = {}  # call -> comparisons and read-only args it changed

    def send(self, k: int, slots: sandbox.Slots) -> dict[str, Any]:
        return {"args": self.plan.call_args(k, slots), "interleave": k > 0}

    def receive(self, k: int, result: dict[str, Any], sent: dict[str, Any]) -> bool:
        if result.get("error") is not None or k == 0:
            return result.get("error") is None
        import torch

        specs = self.plan.h.contract.args
        # the written arguments copied out of the shared slots before anything is judged: the
        # judge believes bytes it holds, not memory the child can still reach
        args = [
            a.clone() if isinstance(a, torch.Tensor) and i < len(specs) and specs[i].get("access") != "read" else a
            for i, a in enumerate(result["args"])
        ]
        with timed("judge a call's outputs", quiet=True):
            self.judged[k] = _judge_call(self.plan, k, args, self.tol)
        self.judged[k]["trampled"] = [str(t) for t in result.get("trampled") or []]
        return True


def _judge_call(plan: UnitCheck, k: int, args: list[Any], tol: dict[str, Any]) -> dict[str, Any]:
    """Call k's outputs against the reference (and Inductor's, for the precision rule), the
    poison left in write-only outputs, and the read-only arguments it changed."""
    import torch

    h = plan.h
    st = plan.tensors(plan.calls[k])
    profiles = plan.sets[plan.calls[k]].get("profiles", {})
    # the poisoned copies of the written arguments are compared with only under the random
    # pattern (``_unwritten``); under NaN they would be a unit's worth of memory for nothing
    poisoned = plan.call_args(k, copies=plan.poison[k] != "nan")
    wrote = [
        spec["name"]
        for spec, was, now in zip(h.contract.args, poisoned, args)
        if spec.get("access") == "read" and isinstance(now, torch.Tensor) and not same_values(now, was)
    ]
    got = h.written(args)
    comps = h.compare_outputs(got, st["expected"], st["after"], tol["rtol"], tol["atol"])
    for c, name in zip(comps, h.reference.OUTPUTS):
        if name not in got:
            continue
        left = _unwritten(got[name], poisoned, h, name, st["expected"][name], plan.poison[k], tol)
        # under the NaN poison a NaN may be unwritten or written as NaN; the random pattern tells
        c["nan_where_finite" if plan.poison[k] == "nan" else "unwritten"] = left
        mine = _rel_error(got[name], st["expected"][name])
        base = _rel_error(h.written(st["after"])[name], st["expected"][name])
        limit = max(tol["rel_error_ratio"] * (base or 0.0), tol["rel_error_floor"])
        c.update(mean_rel_error=mine, inductor_mean_rel_error=base, rel_error_limit=limit)
        c["precision_ok"] = mine is None or mine <= limit
        prof = profiles.get(name)
        if prof is not None and c["ok"] and not c.get("unwritten") and not c.get("nan_where_finite"):
            c["error_profile"] = prof.to_dict()
            limits = (tol["error_ratio"], tol["error_floor_ulps"], tol["small_rel_floor"])
            c["profile_violations"] = errprofile.violations(got[name], st["expected"][name], prof, *limits)
    return {"comps": comps, "wrote_input": wrote}


def _error_verdict(
    gate: int, err: dict[str, str], candidate: Path, control: Any, device: str, *, importing: bool = False, **kw: Any
) -> GateVerdict:
    """The candidate's reported exception as its failure.  Its text decides nothing: where it
    reads like a fault (out of memory), Inductor's own kernel is run the same way
    (``control()``: None when it gets through, else what failed), and only its failing makes
    a fault."""
    note = suspect(err, device, control, "gates 1-2") if looks_like_fault(err) else ""
    what = "importing the candidate failed" if importing else "launch() raised"
    rule = "import-error" if importing else "runtime-error"
    return GateVerdict(
        gate,
        FAIL,
        f"rule {rule}: {what}: {err['type']}: {err['message'][:500]}{note}",
        rule=rule,
        numbers={"traceback": err["traceback"][-1500:]},
        candidate=str(candidate),
        **kw,
    )


def _advisory(reply: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
    """What the child says it watched in a call: evidence for the record, never a condition
    (the child could forge it; the form leaves host code no torch compute anyway)."""
    launcher = set(reply.get("launcher_ops") or [])
    ops = [str(o) for o in (call.get("ops") or [])][:50]
    return {
        "aten_ops": ops,
        "torch_compute": sorted(o for o in set(ops) - launcher if o.split(".")[0] not in ATEN_ALLOWED)[:20],
        "foreign_launches": [str(f) for f in (call.get("foreign_launches") or [])][:20],
        "launches": call.get("launches") if isinstance(call.get("launches"), int) else None,
    }


def _tolerances(gc: dict[str, Any]) -> dict[str, Any]:
    """Gate 2's tolerances, recorded with its verdict."""
    keys = ("rtol", "atol", "rel_error_ratio", "rel_error_floor", "error_ratio", "error_floor_ulps", "small_rel_floor")
    return {k: gc[k] for k in keys}


def _sandbox_failure(
    outcome: Any, control: Callable[[], str | None], plan: UnitCheck, candidate: Path, budget: float
) -> tuple[GateVerdict, GateVerdict]:
    """A child that hung or died: the candidate's failure at the gate of the call it was on,
    unless Inductor's own kernel run the same way fails too (then InfrastructureFault)."""
    failed = control()
    if failed:
        raise InfrastructureFault(
            f"the sandboxed child {outcome.status} ({outcome.detail}), and so did Inductor's own kernel "
            f"run the same way ({failed})"
        )
    seeds1 = [plan.seeds[0]]
    call = _last_call(outcome.log_tail)
    gate = 1 if call in (None, 0) else 2
    rule = "timeout" if outcome.status == "timeout" else "crash"
    why = (
        f"rule timeout: the candidate ran past its budget of {budget:.0f} s ({outcome.detail})"
        if rule == "timeout"
        else f"rule crash: the candidate crashed its sandboxed process ({outcome.detail})"
    )
    v = GateVerdict(gate, FAIL, why, rule=rule, candidate=str(candidate), seeds=seeds1 if gate == 1 else plan.seeds)
    if gate == 1:
        return v, GateVerdict(2, SKIPPED, "gate 1 did not pass")
    return GateVerdict(
        1,
        PASS,
        "static checks passed; ran once without error (gate 2's run then failed)",
        seeds=seeds1,
        candidate=str(candidate),
    ), v


def _gate1_failure(
    reply: dict[str, Any], candidate: Path, control: Callable[[], str | None], plan: UnitCheck
) -> GateVerdict | None:
    """Gate 1's failure (the import or call 0 raised), or None; no answer at all is a fault."""
    if reply.get("import_error"):
        return _error_verdict(1, reply["import_error"], candidate, control, plan.h.rt.device, importing=True)
    if not reply.get("calls"):
        raise InfrastructureFault("the sandboxed child answered no call")
    first = reply["calls"][0]
    if first["error"]:
        return _error_verdict(1, first["error"], candidate, control, plan.h.rt.device, seeds=[plan.seeds[0]])
    return None


def _output_finding(c: dict[str, Any], where: str, plan: UnitCheck, gc: dict[str, Any]) -> tuple[str, str] | None:
    """The rule one output of one call broke, and why (the most serious first), or None."""
    if c.get("unwritten"):
        return (
            "unwritten-output",
            f"{where}: output {c['name']}: {c['unwritten']} of {c['numel']} elements left as poisoned (never written)",
        )
    if c.get("nan_where_finite"):
        return (
            "mismatch",
            f"{where}: output {c['name']}: {c['nan_where_finite']} of {c['numel']} elements NaN where "
            "the reference is finite (written as NaN, or left unwritten under the NaN poison)",
        )
    if not c["ok"]:
        note = f"; {c['note']}" if c.get("note") else ""
        return (
            "mismatch",
            f"{where}: output {c['name']} differs from {_oracle(plan)}: {c['mismatched']}/{c['numel']} "
            f"elements outside rtol={gc['rtol']}, atol={gc['atol']} (max abs {c['max_abs']:.3g}; "
            f"{c.get('nonfinite', 0)} non-finite){note}",
        )
    if c.get("profile_violations"):
        return "error-profile", f"{where}: output {c['name']}: " + "; ".join(c["profile_violations"][:3])
    if not c.get("precision_ok", True):
        return (
            "precision",
            f"{where}: output {c['name']}: mean relative error {c['mean_rel_error']:.3g} > "
            f"{c['rel_error_limit']:.3g} ({gc['rel_error_ratio']:g} x Inductor's own "
            f"{c['inductor_mean_rel_error'] or 0:.3g}, at least {gc['rel_error_floor']:g}): "
            "systematic precision loss",
        )
    return None


def _slot_name(key: str, plan: UnitCheck) -> str:
    """The contract's name of an argument slot's key (``"('arg', 2)"``), else the key."""
    m = re.fullmatch(r"\('arg', (\d+)\)", key)
    args = plan.h.contract.args
    return f"argument {args[int(m.group(1))]['name']}" if m and int(m.group(1)) < len(args) else f"slot {key}"


def _gate2_findings(
    plan: UnitCheck, reply: dict[str, Any], stream: CallStream, candidate: Path, control: Callable[[], str | None]
) -> tuple[list[dict[str, Any]], dict[str, GateVerdict]]:
    """Every further call's record, and the first failure found per rule over all calls (so that
    the verdict does not depend on the random order of the calls)."""
    gc = plan.gc
    per_call = []
    findings: dict[str, GateVerdict] = {}

    def found(rule: str, why: str) -> None:
        if rule not in findings:
            findings[rule] = GateVerdict(
                2, FAIL, f"rule {rule}: {why}", rule=rule, seeds=plan.seeds, candidate=str(candidate)
            )

    for k in range(1, len(plan.calls)):
        st = plan.sets[plan.calls[k]]
        where = f"call {k} (seed {st['seed']}, {st['distribution']} inputs, {plan.poison[k]} poison)"
        if k >= len(reply["calls"]):
            break
        call = reply["calls"][k]
        if call["error"]:
            v = _error_verdict(2, call["error"], candidate, control, plan.h.rt.device, seeds=plan.seeds)
            v = replace(v, reason=f"{where}: {v.reason}")
            findings.setdefault(v.rule or "runtime-error", v)
            break
        if k not in stream.judged:  # its result never came back (the child died after it): a fault
            break
        for key in stream.judged[k].get("trampled", []):
            found(
                "out-of-bounds",
                f"{where}: launch() wrote outside the bytes of {_slot_name(key, plan)} (the guard bytes "
                "the judge put before and after it changed)",
            )
        for name in stream.judged[k]["wrote_input"]:
            found("wrote-input", f"{where}: launch() modified read-only argument {name}")
        comps = stream.judged[k]["comps"]
        per_call.append(
            {
                "call": k,
                "seed": st["seed"],
                "distribution": st["distribution"],
                "poison": plan.poison[k],
                "outputs": comps,
                "advisory": _advisory(reply, call),
            }
        )
        for c in comps:
            finding = _output_finding(c, where, plan, gc)
            if finding:
                found(*finding)
    return per_call, findings


def _gate2_verdict(
    plan: UnitCheck,
    per_call: list[dict[str, Any]],
    findings: dict[str, GateVerdict],
    sandbox_numbers: Any,
    tol: dict[str, Any],
    candidate: Path,
) -> GateVerdict:
    """Gate 2's verdict: the most serious finding, else a pass once every call was answered."""
    verdict = next((findings[r] for r in GATE2_RULES if r in findings), None)
    if verdict is None and findings:
        verdict = next(iter(findings.values()))
    numbers = {
        "calls": len(plan.calls) - 1,
        "per_call": per_call,
        "inputs": [{"seed": s["seed"], "distribution": s["distribution"], "used": s["usable"]} for s in plan.sets[1:]],
        "notes": plan.notes,
        "max_abs": max((o["max_abs"] for c in per_call for o in c["outputs"]), default=0.0),
        "graph_level_fallback": sorted({o["name"] for c in per_call for o in c["outputs"] if o.get("fallback")}),
        "sandbox": sandbox_numbers,
    }
    if verdict is None and len(per_call) < len(plan.calls) - 1:
        raise InfrastructureFault(f"the sandboxed child answered {len(per_call)} of {len(plan.calls) - 1} calls")
    if verdict is not None:
        return replace(verdict, numbers={**numbers, **verdict.numbers}, tolerances=tol)
    fb = numbers["graph_level_fallback"]
    how = (
        f"; outputs {fb} by the graph-level fallback (error <= 2x Inductor's, and matches Inductor's output)"
        if fb
        else ""
    )
    dists = sorted({s["distribution"] for s in plan.sets[1:] if s["usable"]})
    return GateVerdict(
        2,
        PASS,
        f"matches {_oracle(plan)} on {len(plan.calls) - 1} calls in random order "
        f"(fresh seeds {plan.seeds[1:]}, inputs {', '.join(dists)}; NaN and random poison; "
        f"max abs error {numbers['max_abs']:.3g}){how}",
        numbers=numbers,
        tolerances=tol,
        seeds=plan.seeds,
        candidate=str(candidate),
    )


def check_unit(
    paths: ProblemPaths, unit: str, candidate: Path, cfg: dict[str, Any], harness: UnitHarness
) -> tuple[GateVerdict, GateVerdict]:
    """The run of gates 1 and 2 of ``candidate`` (which passed the static rules): (gate 1's
    verdict, gate 2's).  InfrastructureFault when the machine, not the candidate, failed."""

    tol = _tolerances(cfg["gates"])
    skipped = GateVerdict(2, SKIPPED, "gate 1 did not pass")
    gpumem.mark("the problem rebuilt, the unit's harness ready")
    with timed("plan: draw and check every input set"):
        plan = UnitCheck(harness, cfg)
    gpumem.mark("plan: every input set drawn and checked")
    stream = CallStream(plan, tol)
    budget = plan.budget_s()
    job, files = plan.job(candidate)
    with timed("the sandboxed run of the candidate (child and judging)"):
        outcome = sandbox.run(job, budget, cache=paths.cache, stream=stream, files=files, hidden=[paths.root.parent])
    gpumem.mark("the candidate run in its child and judged")

    def control() -> str | None:
        return _control_failure(paths, plan, budget)

    if outcome.status != "ok":
        return _sandbox_failure(outcome, control, plan, candidate, budget)
    reply = outcome.reply
    sandbox_numbers = sandbox.boundary()
    failed = _gate1_failure(reply, candidate, control, plan)
    if failed is not None:
        return failed, skipped
    v1 = GateVerdict(
        1,
        PASS,
        "in the candidate form; imported and ran once in its jailed child without an exception",
        numbers={"advisory": _advisory(reply, reply["calls"][0]), "sandbox": sandbox_numbers},
        seeds=[plan.seeds[0]],
        candidate=str(candidate),
    )
    per_call, findings = _gate2_findings(plan, reply, stream, candidate, control)
    return v1, _gate2_verdict(plan, per_call, findings, sandbox_numbers, tol, candidate)


def _unwritten(
    out: Any, poisoned_args: list[Any], h: UnitHarness, name: str, ref: Any, pattern: str, tol: dict[str, Any]
) -> int:
    """Elements of a write-only output still holding their poison where they also miss the
    reference at the gate's tolerance (for the NaN poison: NaN where the reference is not,
    whether written so or left).  An element that holds a right value is not unwritten, whatever
    it equals; counted a chunk at a time (no full-size temporaries of a GiB-sized output)."""
    import torch

    spec = next(s for s in h.contract.args if s["name"] == name)
    if spec.get("access") != "write":
        return 0
    was = poisoned_args[[s["name"] for s in h.contract.args].index(name)]
    r = ref.reshape(out.shape) if ref.numel() == out.numel() else None
    o_all = out.reshape(-1)
    w_all = was.reshape(-1) if pattern != "nan" else None  # the NaN poison is told by isnan alone
    r_all = r.reshape(-1) if r is not None else None
    n = 0
    for i in range(0, o_all.numel(), CHUNK):
        o = o_all[i : i + CHUNK]
        rc = r_all[i : i + CHUNK].to(out.device) if r_all is not None else None
        if pattern == "nan":
            if not o.is_floating_point():
                continue
            left = o.isnan()
            if rc is not None:
                left &= ~rc.isnan()
        else:
            left = o == w_all[i : i + CHUNK].to(o.device)
            if rc is not None:
                if o.is_floating_point():
                    left &= ~torch.isclose(o, rc.to(o.dtype), rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
                else:
                    left &= o != rc.to(o.dtype)
        n += int(left.sum())
    return n


def _last_call(log: str) -> int | None:

    calls = re.findall(r"\[kernelopt-call (\d+)\]", log)
    return int(calls[-1]) if calls else None


class _ControlStream(CallStream):
    """The same calls as the candidate's run, streamed the same way, unjudged (the control run)."""

    def receive(self, k: int, result: dict[str, Any], sent: dict[str, Any]) -> bool:
        return result.get("error") is None


def _control_failure(paths: ProblemPaths, plan: UnitCheck, budget: float) -> str | None:
    """Inductor's own kernel run as the candidate was (the same calls on the same inputs,
    streamed to one jailed child with the same budget): None when it gets through, else what
    failed.  Only this decides that a child's trouble is the machine's."""
    h = plan.h
    job, files = plan.job(h.paths.inductor_kernel(h.unit))
    with timed("the control run (Inductor's kernel, the same calls)"):
        control = sandbox.run(
            job | {"point": "control"},
            budget,
            cache=paths.cache,
            stream=_ControlStream(plan, {}),
            files=files,
            hidden=[paths.root.parent],
        )
    failed = control.detail if control.status != "ok" else None
    if control.reply is not None:
        err = control.reply.get("import_error") or next(
            (c["error"] for c in control.reply.get("calls", []) if c.get("error")), None
        )
        failed = failed or (f"{err['type']}: {err['message'][:200]}" if err else None)
    elif control.status == "ok":
        failed = "no reply"
    return failed


def _oracle(plan: Any) -> str:
    """What a unit's candidates are checked against, in words."""
    level = getattr(plan.h.reference, "LEVEL", "kernel")
    if level == "user":
        return "the user's own kernel (the unit's oracle)"
    if plan.h.float64_reference:  # UnitHarness.expected: a graph-level rewrite's
        return "the eager reference run in float64"
    return "the eager reference"
