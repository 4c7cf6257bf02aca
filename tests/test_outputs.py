"""The one output flattener and error metric (kernelopt/core/outputs.py) that capture, gate 2 and
gate 3 share: nested structures, and what must fail before any value is compared."""

import math
from collections import OrderedDict
from dataclasses import dataclass

import torch

from kernelopt.core import outputs


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


def test_a_user_kernels_output_that_already_held_its_result_is_still_written():
    """CI, test_user_kernels: a Helion add + ReLU's `torch.empty` output reused the memory of the
    compiled run's identical result, so its launch changed nothing and capture recorded the
    output as read-only (gates 1-2 then failed the right candidates for writing it).  A user
    kernel's unchanged arguments are probed on copies filled with a pattern."""
    import torch

    from kernelopt.core.instrument import LaunchRecorder

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
