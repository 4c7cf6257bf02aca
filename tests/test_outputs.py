"""The one output flattener and error metric (kernelopt/core/outputs.py) that capture, gate 2 and
gate 3 share: nested structures, and what must fail before any value is compared.

Gate 2's error profile (``kernelopt/gates/errprofile.py``): what allclose lets through,
held to what Inductor's own kernel does on the same inputs."""

import math
from collections import OrderedDict
from dataclasses import dataclass

import pytest
import torch

from kernelopt.core import outputs
from kernelopt.gates import errprofile


@dataclass
class Record:  # a dataclass output, like HuggingFace's ModelOutput records
    logits: torch.Tensor
    extra: tuple


class ModelOutputLike(OrderedDict):  # HuggingFace's ModelOutput is an OrderedDict subclass
    pass


def test_flatten_walks_dicts_records_and_sequences_in_order():
    a, b, c = torch.zeros(2), torch.ones(3), torch.full((1,), 2.0)
    out = {"x": a, "rec": Record(logits=b, extra=(c, None)), "n": 3}
    leaves = outputs.flatten(out)
    assert [leaf.path for leaf in leaves] == [
        "out['x']",
        "out['rec'].logits",
        "out['rec'].extra[0]",
        "out['rec'].extra[1]",
        "out['n']",
    ]
    assert outputs.tensors(out) == [a, b, c]
    mo = ModelOutputLike(last_hidden_state=a, pooler=b)
    assert [leaf.path for leaf in outputs.flatten(mo)] == ["out['last_hidden_state']", "out['pooler']"]


def test_a_broadcastable_wrong_shape_fails_on_structure_not_on_values():
    ref = torch.ones(4, 4)
    wrong = torch.ones(4, 1)  # broadcasts against the reference: allclose alone is fooled
    assert torch.allclose(wrong, ref)
    check = outputs.check_outputs(wrong, ref, 1e-4, 1e-4)
    assert not check.ok and check.rule == outputs.STRUCTURE_RULE and "shape [4, 1]" in check.reason
    assert check.max_abs == math.inf


def test_count_dtype_and_structure_differences_are_named():
    t = torch.ones(3)
    cases = [
        ((t,), (t, t), "1 output leaves vs the reference's 2"),
        (t.double(), t, "is float64"),
        ({"a": t}, {"b": t}, "where the reference has"),
        ([t, 1], [t, 2], "is 1, the reference 2"),
        (None, t, "is a NoneType"),
    ]
    for got, ref, words in cases:
        check = outputs.check_outputs(got, ref, 1e-4, 1e-4)
        assert check.rule == outputs.STRUCTURE_RULE and words in check.reason, (got, ref, check.reason)


def test_values_compared_leaf_by_leaf_with_nan_only_where_the_reference_has_nan():
    ref = {"p": torch.tensor([1.0, float("nan"), 3.0]), "q": torch.zeros(2)}
    same = {"p": torch.tensor([1.0, float("nan"), 3.0]), "q": torch.zeros(2)}
    assert outputs.check_outputs(same, ref, 1e-4, 1e-4).ok
    off = {"p": torch.tensor([1.0, float("nan"), 3.0]), "q": torch.tensor([0.0, 1.0])}
    check = outputs.check_outputs(off, ref, 1e-4, 1e-4)
    assert check.rule == "mismatch" and check.leaves[1].mismatched == 1 and check.max_abs == 1.0


def test_an_unwritten_output_is_an_infinite_error_not_a_tiny_one():
    ref = torch.linspace(0, 1, 8)
    got = ref.clone()
    got[3] = float("nan")  # left unwritten (poisoned)
    c = outputs.compare("out", got, ref, 1e-3, 1e-3)
    assert not c.ok and c.mismatched == 1 and c.nonfinite == 1 and c.max_abs == math.inf
    assert outputs.max_abs_error([got], [ref]) == math.inf
    inf_ref = torch.tensor([float("inf"), 1.0])
    assert outputs.compare("out", inf_ref.clone(), inf_ref, 0.0, 0.0).max_abs == 0.0


def test_leaves_from_a_recorded_structure_catch_missing_and_extra_outputs():
    ref = {"a": torch.ones(2), "b": torch.ones(3)}
    described = outputs.structure(ref)
    got = outputs.leaves_from(described, [torch.ones(2), torch.ones(3)])
    assert outputs.check_leaves(got, outputs.flatten(ref), 0, 0).ok
    short = outputs.leaves_from(described, [torch.ones(2)])
    assert outputs.check_leaves(short, outputs.flatten(ref), 0, 0).rule == outputs.STRUCTURE_RULE
    extra = outputs.leaves_from(described, [torch.ones(2), torch.ones(3), torch.ones(1)])
    assert "3 output leaves vs the reference's 2" in outputs.check_leaves(extra, outputs.flatten(ref), 0, 0).reason


def test_gate2_may_compare_a_view_of_the_reference_value():
    ref = torch.arange(6.0)
    assert outputs.compare("o", ref.reshape(2, 3), ref, 0, 0, reshape=True).ok
    assert not outputs.compare("o", ref.reshape(2, 3), ref, 0, 0).ok


@pytest.mark.parametrize("host_bytes", [1 << 40, 0], ids=["snapshots-on-device", "snapshots-on-host"])
def test_a_user_kernels_output_that_already_held_its_result_is_still_written(monkeypatch, host_bytes):
    """CI, test_user_kernels: a Helion add + ReLU's `torch.empty` output reused the memory of the
    compiled run's identical result, so its launch changed nothing and capture recorded the
    output as read-only (gates 1-2 then failed the right candidates for writing it).  A user
    kernel's unchanged arguments are probed on copies filled with a pattern."""
    import torch

    from kernelopt.core import instrument
    from kernelopt.core.instrument import LaunchRecorder

    # large arguments are snapshot on the host (the capture's footprint); every size is here
    monkeypatch.setattr(instrument, "SNAPSHOT_HOST_BYTES", host_bytes)

    class Inner:  # a kernel object: out = relu(x + y); x, y read
        configs = []

        def run(self, x, y, out, **kwargs):
            out.copy_(torch.relu(x + y))

    x, y = torch.randn(64), torch.randn(64)
    out = torch.relu(x + y)  # already the result, as a reused allocation can be
    rec = LaunchRecorder(user={"k"})
    rec.on_kernel("k", Inner(), 1, (x, y, out), {})
    assert rec.launches[-1].written == [2]
    plain = LaunchRecorder()  # an Inductor kernel: its parameter names say what it writes
    plain.on_kernel("k", Inner(), 1, (x, y, out), {})
    assert plain.launches[-1].written == []
    # an output that changes is written, one whose NaN became a number too; inputs are not
    fresh = torch.full((64,), float("nan"))
    plain.on_kernel("k", Inner(), 1, (x, y, fresh), {})
    assert plain.launches[-1].written == [2] and torch.equal(fresh, out)
    snap = instrument.snapshot(x)
    assert snap is not x and torch.equal(snap, x)


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
