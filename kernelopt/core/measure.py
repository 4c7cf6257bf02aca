"""The measurement protocol (docs/architecture.md, "Measurement"), used by capture, search,
select and gate 4.

GPU: CUDA events around each repetition, an L2 flush (a write over a buffer larger than
L2) before every repetition, warm-up, and baseline/candidate interleaved in rounds whose
order alternates (A B, B A, ...).  Each round gives one ratio of medians; the decision uses
the median ratio and a bootstrap 95% confidence interval over rounds.  CPU (the Triton
interpreter): the same procedure with a wall clock, marked ``meaningful: false``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

L2_FLUSH_BYTES = 256 * 1024 * 1024  # KernelBench's flush size, 4x the H200's 60 MiB L2 (core/hardware.py)


@dataclass
class Protocol:
    rounds: int = 10
    reps: int = 20
    warmup: int = 5
    flush_l2: bool = True
    bootstrap: int = 2000
    confidence: float = 0.95
    seed: int = 0

    @classmethod
    def from_config(cls, cfg: dict[str, Any]) -> Protocol:
        return cls(**{k: cfg[k] for k in ("rounds", "reps", "warmup", "flush_l2") if k in cfg})


@dataclass
class Comparison:
    """B relative to A: ratio = time(B) / time(A); < 1 means B is faster."""

    a_ms: float
    b_ms: float
    ratio: float
    ci_low: float
    ci_high: float
    rounds: int
    reps: int
    method: str
    meaningful: bool
    round_ratios: list[float] = field(default_factory=list)
    a_round_ms: list[float] = field(default_factory=list)
    b_round_ms: list[float] = field(default_factory=list)
    # the slowest round over the fastest, less one, of each side (``_spread``); whether both are
    # within ``UNSTABLE_SPREAD``; the larger spread of each comparison measured again before it
    spread_a: float = 0.0
    spread_b: float = 0.0
    stable: bool = True
    spreads_before: list[float] = field(default_factory=list)

    @property
    def speedup(self) -> float:
        return 1.0 / self.ratio if self.ratio > 0 else float("inf")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["speedup"] = self.speedup
        d["noise_band"] = [self.ci_low, self.ci_high]
        return d


class _Flusher:
    def __init__(self, device: str, enabled: bool):
        self.buf = None
        if device == "cuda" and enabled:
            import torch

            self.buf = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.float32, device="cuda")

    def __call__(self) -> None:
        if self.buf is not None:
            self.buf.zero_()


def _rep_times(fn: Callable[[], Any], device: str, reps: int, flush: _Flusher) -> list[float]:
    out: list[float] = []
    if device == "cuda":
        import torch

        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for i in range(reps):
            flush()
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def bootstrap_ci(values: list[float], n: int, confidence: float, seed: int) -> tuple[float, float]:
    if len(values) < 2:
        v = values[0] if values else float("nan")
        return v, v
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(n))
    lo = meds[int((1 - confidence) / 2 * n)]
    hi = meds[min(n - 1, int((1 + confidence) / 2 * n))]
    return lo, hi


def compare(
    fn_a: Callable[[], Any], fn_b: Callable[[], Any], device: str, protocol: Protocol | None = None
) -> Comparison:
    """Interleaved A/B timing; returns B's time relative to A's with a confidence interval.  On
    the GPU a comparison whose rounds of either side spread more than ``UNSTABLE_SPREAD`` is
    measured again, ``REMEASURES`` times at most, and the steadiest kept (chosen by spread, never
    by ratio): interleaving cancels a slow stretch in the ratio's median, not in the times
    reported beside it (on the H100, 2026-12-06, a suffix sum's baseline ran in rounds from 2.0 to
    4.3 ms in gate 4, the candidate at 0.798 ms in every round, and the capture had timed that
    baseline at 1.57 ms: a 1.97x speedup reported as 3.02x)."""
    kept, before = _steadiest(
        lambda: _compare_once(fn_a, fn_b, device, protocol),
        lambda c: max(_spread(c.a_round_ms), _spread(c.b_round_ms)),
        device,
    )
    kept.spreads_before = before
    return kept


def _compare_once(
    fn_a: Callable[[], Any], fn_b: Callable[[], Any], device: str, protocol: Protocol | None = None
) -> Comparison:
    p = protocol or Protocol()
    flush = _Flusher(device, p.flush_l2)
    for _ in range(p.warmup):
        fn_a()
        fn_b()
    if device == "cuda":
        import torch

        torch.cuda.synchronize()
    a_meds: list[float] = []
    b_meds: list[float] = []
    for r in range(p.rounds):
        order = ((fn_a, a_meds), (fn_b, b_meds)) if r % 2 == 0 else ((fn_b, b_meds), (fn_a, a_meds))
        for fn, sink in order:
            sink.append(statistics.median(_rep_times(fn, device, p.reps, flush)))
    ratios = [b / a if a > 0 else float("inf") for a, b in zip(a_meds, b_meds)]
    lo, hi = bootstrap_ci(ratios, p.bootstrap, p.confidence, p.seed)
    return Comparison(
        a_ms=statistics.median(a_meds),
        b_ms=statistics.median(b_meds),
        ratio=statistics.median(ratios),
        ci_low=lo,
        ci_high=hi,
        rounds=p.rounds,
        reps=p.reps,
        method=(
            "CUDA events, L2 flush before each rep, " if device == "cuda" else "wall clock (CPU, Triton interpreter), "
        )
        + f"{p.rounds} interleaved rounds (ABBA) x {p.reps} reps, median per round, ratio of medians, "
        f"bootstrap {int(p.confidence * 100)}% CI over rounds",
        meaningful=device == "cuda",
        round_ratios=ratios,
        a_round_ms=a_meds,
        b_round_ms=b_meds,
        spread_a=round(_spread(a_meds), 4),
        spread_b=round(_spread(b_meds), 4),
        stable=max(_spread(a_meds), _spread(b_meds)) <= UNSTABLE_SPREAD,
    )


T = TypeVar("T")
UNSTABLE_SPREAD = 0.10  # a time whose slowest round is this much above its fastest is measured again
REMEASURES = 2


def time_one(fn: Callable[[], Any], device: str, protocol: Protocol | None = None) -> dict[str, Any]:
    """Median time of one function by the same protocol (no comparison).  On the GPU a time
    whose round medians spread more than ``UNSTABLE_SPREAD`` (slowest over fastest) is measured
    again, ``REMEASURES`` times at most, and the steadiest measurement kept: an absolute time
    has no interleaved partner to cancel a slow stretch (on the H100, a capture's wrapper time
    ran in rounds from 1.85 to 3.36 ms, median 2.23, where the same kernel's run beside it took
    1.39 in every round).  ``spread`` says how steady the kept one was, ``stable`` whether it is
    within the bound, ``spreads_before`` the ones measured again."""
    p = protocol or Protocol()
    flush = _Flusher(device, p.flush_l2)
    for _ in range(p.warmup):
        fn()
    meds, before = _steadiest(
        lambda: [statistics.median(_rep_times(fn, device, p.reps, flush)) for _ in range(p.rounds)], _spread, device
    )
    return {
        "median_ms": statistics.median(meds),
        "min_round_ms": min(meds),
        "max_round_ms": max(meds),
        "round_ms": meds,
        "spread": round(_spread(meds), 4),
        "stable": _spread(meds) <= UNSTABLE_SPREAD,
        "spreads_before": before,
        "meaningful": device == "cuda",
        "rounds": p.rounds,
        "reps": p.reps,
        "method": (
            "CUDA events, L2 flush before each rep, " if device == "cuda" else "wall clock (CPU, Triton interpreter), "
        )
        + f"median of {p.rounds} round medians x {p.reps} reps",
    }


def _steadiest(once: Callable[[], T], spread: Callable[[T], float], device: str) -> tuple[T, list[float]]:
    """``once()``'s measurement, taken again while its spread is above ``UNSTABLE_SPREAD`` (on the
    GPU, ``REMEASURES`` times at most): the steadiest, and the others' spreads (rounded)."""
    tries: list[T] = []
    for _ in range(1 + (REMEASURES if device == "cuda" else 0)):
        tries.append(once())
        if spread(tries[-1]) <= UNSTABLE_SPREAD:
            break
    kept = min(tries, key=spread)
    return kept, [round(spread(t), 4) for t in tries if t is not kept]


def _spread(meds: list[float]) -> float:
    """The slowest round over the fastest, less one (0 for one round or a zero time)."""
    return max(meds) / min(meds) - 1.0 if meds and min(meds) > 0 else 0.0


def warm(fn: Callable[[], Any], device: str) -> None:
    """One launch, waited for: the JIT compile and first-launch costs, outside any timing."""
    fn()
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def for_device(settings: dict[str, Any], device: str) -> Protocol:
    """The configured protocol (``measure`` or ``capture.timing``) on the GPU; a token one in
    CPU mode, where times mean nothing and every interpreted launch costs tens of milliseconds."""
    if device == "cuda":
        return Protocol.from_config(settings)
    return Protocol(rounds=2, reps=1, warmup=0, flush_l2=False)


def graphed(fn: Callable[[], Any], device: str) -> Callable[[], Any]:
    """The whole forward captured in one CUDA graph (after eager warm-up, so every kernel's
    first launch and JIT compile happen outside the capture).  Identical for baseline and
    stitched; CPU: the function itself."""
    if device != "cuda":
        return fn
    import torch

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = fn()
    _GRAPH_OUTPUTS.append(static_out)  # outputs live as long as the graph

    def replay() -> Any:
        graph.replay()
        return static_out

    replay.graph = graph  # type: ignore[attr-defined]
    return replay


_GRAPH_OUTPUTS: list[Any] = []


def time_graphed(fn: Callable[[], Any], device: str, protocol: Protocol | None = None) -> dict[str, Any]:
    """``time_one`` of ``fn`` replayed in one CUDA graph built as gate 4 builds it (``graphed``),
    the graph and its outputs released afterwards; CPU: ``time_one`` of the function itself."""
    replay = graphed(fn, device)
    try:
        t = time_one(replay, device, protocol)
    finally:
        if device == "cuda":
            import torch

            out = _GRAPH_OUTPUTS.pop()
            del out, replay
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
    t["method"] = ("one CUDA graph replayed, " if device == "cuda" else "") + t["method"]
    return t
