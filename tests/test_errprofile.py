"""Gate 2's error profile (``kernelopt/gates/errprofile.py``): what allclose lets through,
held to what Inductor's own kernel does on the same inputs."""

from __future__ import annotations

import torch

from kernelopt.gates import errprofile

LIMITS = (10.0, 64, 1e-2)  # gates.error_ratio, error_floor_ulps, small_rel_floor


def _softmax(scale: float = 10.0, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(16, 256, generator=g) * scale
    ref = torch.softmax(x.double(), -1).float()
    base = torch.softmax(x, -1)  # Inductor's stand-in: float32 rounding of its own
    return x, ref, base


def test_a_softmax_keeps_its_structure_and_an_honest_one_passes():
    x, ref, base = _softmax()
    prof = errprofile.derive(ref, base)
    assert prof.nonneg and prof.unit_interval and set(prof.sums) == {1}
    honest = torch.exp(x - x.amax(-1, keepdim=True)) / torch.exp(x - x.amax(-1, keepdim=True)).sum(-1, keepdim=True)
    assert errprofile.violations(honest, ref, prof, *LIMITS) == []


def test_negative_values_where_the_answer_is_tiny_are_refused_though_allclose_passes():
    """The issue's cheat: -9e-5 wherever the answer is below 1e-6 (most of a row at x10)."""
    x, ref, base = _softmax()
    cheat = torch.where(base < 1e-6, torch.full_like(base, -9e-5), base)
    assert torch.allclose(cheat, ref, rtol=1e-3, atol=1e-3) and (cheat < 0).float().mean() > 0.5
    why = errprofile.violations(cheat, ref, errprofile.derive(ref, base), *LIMITS)
    assert any("< 0" in w for w in why) and any("small values" in w for w in why), why


def test_rows_that_no_longer_sum_to_one_are_refused():
    _, ref, base = _softmax()
    cheat = base * 1.0005
    assert torch.allclose(cheat, ref, rtol=1e-3, atol=1e-3)
    why = errprofile.violations(cheat, ref, errprofile.derive(ref, base), *LIMITS)
    assert any("sums along dim 1" in w for w in why), why


def test_a_floor_on_small_values_is_refused():
    _, ref, base = _softmax(scale=3.0)
    cheat = base.clamp_min(2e-4)
    why = errprofile.violations(cheat, ref, errprofile.derive(ref, base), *LIMITS)
    assert any("small values" in w for w in why), why


def test_a_property_inductor_does_not_keep_is_not_enforced():
    """An honest kernel is never refused for rounding Inductor shares: where Inductor's own
    output goes negative (x - mean, a tiny negative after rounding), non-negativity is not held."""
    ref = torch.tensor([0.0, 1e-9, 0.5, 1.0]).repeat(8, 1)
    base = ref.clone()
    base[0, 0] = -1e-9  # Inductor's own rounding
    prof = errprofile.derive(ref, base)
    assert not prof.nonneg
    other = ref.clone()
    other[1, 0] = -2e-9
    assert not any("< 0" in w for w in errprofile.violations(other, ref, prof, *LIMITS))


def test_the_tail_is_held_to_inductors_or_a_few_ulps():
    g = torch.Generator().manual_seed(1)
    ref = torch.randn(4096, generator=g) * 3
    base = ref + torch.randn(4096, generator=g) * 1e-7
    prof = errprofile.derive(ref, base)
    assert errprofile.violations(ref + 5e-7, ref, prof, *LIMITS) == []  # a different summation order
    spike = ref.clone()
    spike[17] += 5e-4  # one element off by 5e-4: inside allclose(1e-3)
    assert any("largest error" in w for w in errprofile.violations(spike, ref, prof, *LIMITS))


def test_integer_outputs_and_non_finite_references_are_left_to_the_other_rules():
    ints = torch.arange(10)
    assert errprofile.derive(ints, ints) is None
    ref = torch.tensor([1.0, float("nan"), 0.5])
    prof = errprofile.derive(ref, ref.clone())
    assert prof is not None and not prof.nonneg and not prof.sums
    assert errprofile.violations(torch.tensor([1.0, float("nan"), 0.5]), ref, prof, *LIMITS) == []
