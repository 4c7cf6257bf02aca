"""The class of a unit, read from its eager reference (the ATen ops of Inductor's post-grad graph),
and what a synthesized candidate says it is: the vocabulary the planner, the prompts and the
report share (issue 13: which class, which template produced the winner).

Classes, first match wins: ``pooling`` (max/avg pools), ``scan`` (prefix sums and the other
cumulative ops), ``index reduction`` (argmax/argmin), ``norm`` (layer/group/instance/batch
norms, var_mean), ``softmax`` (softmax, log-softmax, logsumexp, or their decomposition: a max,
exponentials and their sum), ``full reduction`` (a sum/mean
over every element: a loss), ``row reduction`` (sum/mean/amax/amin over some dims), ``pointwise``
(none of these), ``graph`` (a reference that recomputes from the graph's inputs).
"""

from __future__ import annotations

import re

from .argreduce import is_argreduce
from .fullreduce import OVER_EVERY_ELEMENT
from .pool import is_pool
from .scan import is_scan

NORM_OPS = ("native_layer_norm", "native_group_norm", "_native_batch_norm_legit", "var_mean", "native_batch_norm")
SOFTMAX_OPS = ("_softmax", "_log_softmax", "prepare_softmax_online", "logsumexp")
FULL_REDUCTION = re.compile(r"aten\.(sum|mean|amax|amin)" + OVER_EVERY_ELEMENT)
ROW_REDUCTION = re.compile(r"aten\.(sum|mean|amax|amin|max|min|prod)\.(dim|dim_IntList|default)\(")


def unit_class(reference_src: str) -> str:
    if "LEVEL = 'graph'" in reference_src:
        return "graph"
    if is_pool(reference_src):
        return "pooling"
    if is_scan(reference_src):
        return "scan"
    if is_argreduce(reference_src):
        return "index reduction"
    if any(f".{op}." in reference_src for op in NORM_OPS):
        return "norm"
    if any(f".{op}." in reference_src for op in SOFTMAX_OPS) or all(
        f"aten.{op}." in reference_src for op in ("amax", "exp", "sum")
    ):
        return "softmax"  # as the op, or decomposed: a max, the exponentials and their sum
    if FULL_REDUCTION.search(reference_src):
        return "full reduction"
    if ROW_REDUCTION.search(reference_src):
        return "row reduction"
    return "pointwise"


def candidate_what(src: str) -> str:
    """The line a synthesized candidate's docstring opens its description with (what it computes and
    how: ``a 2-d max pool ... Tiles of BH x BW outputs``), '' for another candidate."""
    m = re.match(r'\s*"""Synthesised by kernelopt[^\n]*\n(.*?)"""', src, flags=re.S)
    return " ".join(m.group(1).split()) if m else ""
