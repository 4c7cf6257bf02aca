"""Unit classes (kernelopt/search/synth/classes.py) on the references Inductor's post-grad graph
gives the headroom suite's problems (captured on CPU, kept as the op lines here): the vocabulary
the LLM prompt and the report's "winner" column use."""

import pytest

from kernelopt.search.synth.classes import candidate_what, unit_class

CASES = {
    "pooling": "p = torch.ops.prims._low_memory_max_pool_with_offsets.default(x0, [3, 3], [1, 1], [1, 1], [2, 2])",
    "scan": "cumsum = torch.ops.aten.cumsum.default(x0, 1)",
    "index reduction": "argmin = torch.ops.aten.argmin.default(x0, -1)",
    "norm": "var_mean = torch.ops.aten.var_mean.correction(x0, [2, 3], correction = 0, keepdim = True)",
    "softmax": "amax = torch.ops.aten.amax.default(x0, [-1], True)\\nexp = torch.ops.aten.exp.default(amax)\\n"
    "sum_1 = torch.ops.aten.sum.dim_IntList(exp, [-1], True)",
    "full reduction": "mean = torch.ops.aten.mean.default(pow_1)",
    "row reduction": "sum_1 = torch.ops.aten.sum.dim_IntList(abs_1, [1], True)",
    "pointwise": "relu = torch.ops.aten.relu.default(x0)",
}


@pytest.mark.parametrize("klass", sorted(CASES))
def test_each_class_is_read_from_the_reference(klass):
    assert unit_class(f"LEVEL = 'kernel'\n{CASES[klass]}\n") == klass


def test_a_graph_level_reference_and_a_candidates_description():
    assert unit_class("LEVEL = 'graph'\nrelu = torch.ops.aten.relu.default(x0)") == "graph"
    src = '"""Synthesised by kernelopt (attempt 0) from the reference:\na prefix sum\n  over dim 1.\n"""\n'
    assert candidate_what(src) == "a prefix sum over dim 1."
    assert candidate_what("import triton\n") == ""
