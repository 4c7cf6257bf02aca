"""The error profile: what ``allclose`` lets through, measured against Inductor's own kernel.

``allclose(1e-3)`` admits an error of 1e-3 everywhere, which is enormous next to a probability
of 1e-7: a softmax that writes -9e-5 where the answer is ~1e-7 passes it.  So beside
``allclose`` every output of every call is held to what Inductor's own kernel does on the same
inputs against the same reference:

* **tail**: the largest absolute error at most ``error_ratio`` x Inductor's, or ``error_floor_ulps``
  units in the last place of the output's dtype at the reference's largest magnitude;
* **small values**: the largest relative error over the elements whose reference is small
  (a normal number, at most 1e-3 x the largest) at most ``error_ratio`` x Inductor's there, or
  ``small_rel_floor`` (1 %: far above what fast-math exponentials of honest kernels are off by
  there, far below the 100 % of writing 0, a floor or the wrong sign; bench/README.md,
  "Isolation that holds");
* **structure**: a property the reference has on the drawn inputs (every value >= 0; every value
  in [0, 1]; sums of 1 along a dimension) is kept, where Inductor's own output keeps it on the
  same inputs too (so an honest kernel is never rejected for rounding that Inductor shares):
  non-negativity and [0, 1] exactly, the sums within ``error_ratio`` x Inductor's deviation or
  ``error_floor_ulps`` x eps x log2(n).

The properties are derived from the reference's outputs on the drawn inputs, never from the
op's name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

SMALL = 1e-3  # "small" reference values: |ref| <= SMALL x max |ref|
UNIT_SUM_TOL = 1e-4  # the reference sums to 1 along a dimension within this


@dataclass
class Stats:
    tail: float  # max |got - ref| over finite reference elements (inf where got is not finite there)
    small_rel: float  # max |got - ref| / |ref| over 0 < |ref| <= SMALL * ref_max
    got_min: float
    got_max: float
    ref_min: float
    ref_max_abs: float
    ref_finite: bool


def stats(got: Any, ref: Any) -> Stats:
    """The statistics of ``got`` against ``ref`` (same number of elements), a chunk at a time."""
    import torch

    from ..core.outputs import float64_chunks

    if ref.numel() != got.numel():
        return Stats(math.inf, math.inf, math.nan, math.nan, math.nan, math.nan, False)
    ref_max_abs = 0.0
    finite = True
    for _, r in float64_chunks(got, ref):
        ok = torch.isfinite(r)
        finite &= bool(ok.all())
        if ok.any():
            ref_max_abs = max(ref_max_abs, float(r[ok].abs().max()))
    tail = small = 0.0
    gmin, gmax, rmin = math.inf, -math.inf, math.inf
    small_cut = SMALL * ref_max_abs
    # below the smallest normal number of the output's dtype a value has no relative precision
    # to hold (a GPU flushes such results to zero): left to the tail
    tiny = float(torch.finfo(got.dtype).tiny) if got.is_floating_point() else 0.0
    for g, r in float64_chunks(got, ref):
        ok = torch.isfinite(r)
        if not ok.any():
            continue
        g, r = g[ok], r[ok]
        if g.numel() == 0:
            continue
        diff = (g - r).abs()
        diff = torch.where(torch.isfinite(diff), diff, torch.full_like(diff, math.inf))
        tail = max(tail, float(diff.max()))
        keep = (r.abs() >= tiny) & (r != 0) & (r.abs() <= small_cut)
        if keep.any():
            small = max(small, float((diff[keep] / r[keep].abs()).max()))
        gfin = g[torch.isfinite(g)]
        if gfin.numel():
            gmin, gmax = min(gmin, float(gfin.min())), max(gmax, float(gfin.max()))
        if not bool(torch.isfinite(g).all()):
            gmin, gmax = -math.inf, math.inf
        rmin = min(rmin, float(r.min()))
    return Stats(tail, small, gmin, gmax, rmin, ref_max_abs, finite)


def _eps(dtype: Any) -> float:
    import torch

    return float(torch.finfo(dtype).eps) if dtype.is_floating_point else 0.0


@dataclass
class Profile:
    """What one output's reference is, and what Inductor's own kernel does against it, on one
    input set."""

    eps: float
    ref_max_abs: float
    base_tail: float
    base_small_rel: float
    nonneg: bool
    unit_interval: bool
    sums: dict[int, float] = field(default_factory=dict)  # dim -> Inductor's max |sum - 1|
    floating: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "inductor_max_abs": self.base_tail,
            "inductor_small_rel": self.base_small_rel,
            "reference_max_abs": self.ref_max_abs,
            "kept": [
                *(["non-negative"] if self.nonneg else []),
                *(["within [0, 1]"] if self.unit_interval else []),
                *(f"sums to 1 along dim {d}" for d in sorted(self.sums)),
            ],
        }


def _unit_sum_dev(t: Any, dim: int) -> float:
    return float((t.sum(dim) - 1).abs().max())


def derive(ref: Any, base: Any) -> Profile | None:
    """The profile of one output (``ref``: the reference, ``base``: Inductor's own output on the
    same inputs, shaped as the argument); None for a non-floating output."""
    if not base.is_floating_point():
        return None
    r = ref.reshape(base.shape).to(base.device) if ref.numel() == base.numel() else ref
    s = stats(base, r)
    prof = Profile(_eps(base.dtype), s.ref_max_abs, s.tail, s.small_rel, False, False)
    if not s.ref_finite or r.numel() != base.numel() or r.numel() == 0:
        return prof
    prof.nonneg = s.ref_min >= 0 and s.got_min >= 0
    prof.unit_interval = prof.nonneg and s.ref_max_abs <= 1 and s.got_max <= 1
    if prof.nonneg:
        for d, n in enumerate(base.shape):
            if n < 2:
                continue
            if _unit_sum_dev(r.to(base.dtype), d) <= UNIT_SUM_TOL:
                prof.sums[d] = _unit_sum_dev(base, d)
    return prof


def violations(
    got: Any, ref: Any, prof: Profile | None, ratio: float, floor_ulps: float, rel_floor: float
) -> list[str]:
    """Why ``got`` falls outside the profile (empty when it does not)."""
    if prof is None or not got.is_floating_point():
        return []
    r = ref.reshape(got.shape).to(got.device) if ref.numel() == got.numel() else ref
    s = stats(got, r)
    out = []
    tail_limit = max(ratio * prof.base_tail, floor_ulps * prof.eps * prof.ref_max_abs)
    if s.tail > tail_limit:
        out.append(
            f"largest error {s.tail:.3g} > {tail_limit:.3g} ({ratio:g} x Inductor's {prof.base_tail:.3g}, "
            f"at least {floor_ulps:g} ulp at the reference's magnitude {prof.ref_max_abs:.3g})"
        )
    small_limit = max(ratio * prof.base_small_rel, rel_floor)
    if s.small_rel > small_limit:
        out.append(
            f"relative error {s.small_rel:.3g} on small values (|ref| <= {SMALL:g} x max) > {small_limit:.3g} "
            f"({ratio:g} x Inductor's {prof.base_small_rel:.3g}, at least {rel_floor:g})"
        )
    if prof.nonneg and s.got_min < 0:
        out.append(f"a value {s.got_min:.3g} < 0 where the reference and Inductor's output are all >= 0")
    if prof.unit_interval and s.got_max > 1:
        out.append(f"a value {s.got_max:.3g} > 1 where the reference and Inductor's output are all within [0, 1]")
    for d, base_dev in prof.sums.items():
        n = got.shape[d]
        limit = max(ratio * base_dev, floor_ulps * prof.eps * math.log2(max(n, 2)))
        dev = _unit_sum_dev(got, d)
        if not dev <= limit:
            out.append(
                f"sums along dim {d} are off 1 by {dev:.3g} > {limit:.3g} (the reference sums to 1 there; "
                f"Inductor's output is off by {base_dev:.3g})"
            )
    return out
