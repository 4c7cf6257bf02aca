"""Issue 16's arithmetic-only rewrites inside a kernel-level unit's reference
(``search/synth/simplify.py``): reductions over size-1 dims and cancelling ops are dropped before
the hand-written generator runs, and the candidate from the simplified reference is in the checked
form and matches the original reference under the interpreter, NaN and infinities included."""

from __future__ import annotations

import textwrap

import pytest
from conftest import load_candidate

from kernelopt.capture.fxref import REFERENCE_TEMPLATE
from kernelopt.core.records import Contract
from kernelopt.search.synth.generate import _handwritten
from kernelopt.search.synth.simplify import simplify

# the post-grad FX code Inductor gives problems/rewrites' level1/3, level1/4 (CPU mode), and the
# pointwise kernel after the GEMM of level2/2 (its reference's forward)
SOFTMAX = """
def forward(self, arg0_1):
    amax = torch.ops.aten.amax.default(arg0_1, [1], True)
    sub = torch.ops.aten.sub.Tensor(arg0_1, amax);  amax = None
    exp = torch.ops.aten.exp.default(sub);  sub = None
    sum_1 = torch.ops.aten.sum.dim_IntList(exp, [1], True)
    div = torch.ops.aten.div.Tensor(exp, sum_1);  exp = sum_1 = None
    mul = torch.ops.aten.mul.Tensor(div, arg0_1);  div = arg0_1 = None
    return (mul,)
"""
LOGSUMEXP = """
def forward(self, arg0_1):
    amax = torch.ops.aten.amax.default(arg0_1, [1], True)
    abs_1 = torch.ops.aten.abs.default(amax)
    eq = torch.ops.aten.eq.Scalar(abs_1, inf);  abs_1 = None
    full_default = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, device = device(type='cpu'))
    where = torch.ops.aten.where.self(eq, full_default, amax);  eq = full_default = amax = None
    sub = torch.ops.aten.sub.Tensor(arg0_1, where)
    exp = torch.ops.aten.exp.default(sub);  sub = None
    sum_1 = torch.ops.aten.sum.dim_IntList(exp, [1], True);  exp = None
    log = torch.ops.aten.log.default(sum_1);  sum_1 = None
    add = torch.ops.aten.add.Tensor(log, where);  log = where = None
    amax_1 = torch.ops.aten.amax.default(arg0_1, [1], True);  arg0_1 = None
    add_1 = torch.ops.aten.add.Tensor(add, amax_1);  add = amax_1 = None
    return (add_1,)
"""
CANCEL = """
def forward(self, buf0):
    neg = torch.ops.aten.neg.default(buf0)
    neg_1 = torch.ops.aten.neg.default(neg);  neg = None
    relu = torch.ops.aten.relu.default(neg_1);  neg_1 = None
    relu_1 = torch.ops.aten.relu.default(relu);  relu = None
    return (relu_1,)
"""
# a size-1 dim kept by a reduction over another dim: not an identity, left alone
NOT_SINGLETON = """
def forward(self, arg0_1):
    sum_1 = torch.ops.aten.sum.dim_IntList(arg0_1, [2], True)
    return (sum_1,)
"""


def _reference(code: str, inp: str, shape: list[int], out_shape: list[int]) -> str:
    # a reference's forward takes the kernel's inputs as x0, x1, ... (capture/fxref.py)
    body = textwrap.indent(code.strip("\n").replace(inp, "x0"), "    ")
    return REFERENCE_TEMPLATE.format(
        unit="u", ops="", level="kernel", inputs=[inp], outputs=["out_ptr0"], shapes={inp: shape},
        out_shapes={"out_ptr0": out_shape}, body=body,
    )  # fmt: skip


def _contract(inp: str, shape: list[int], stride: list[int], out_shape: list[int]) -> Contract:
    def arg(name, shp, strd, access):
        return {"kind": "tensor", "name": name, "shape": shp, "stride": strd, "dtype": "float32", "access": access}

    outs = [1] * len(out_shape)
    for d in range(len(out_shape) - 2, -1, -1):
        outs[d] = outs[d + 1] * out_shape[d + 1]
    return Contract(args=[arg(inp, shape, stride, "read"), arg("out_ptr0", out_shape, outs, "write")])


CASES = {
    "softmax": (SOFTMAX, "arg0_1", [6, 1, 40], [6, 1, 40], ["singleton-reduction"] * 2),
    "logsumexp": (LOGSUMEXP, "arg0_1", [6, 1, 40], [6, 1, 40], ["singleton-reduction"] * 3),
    "cancelling": (CANCEL, "buf0", [12, 20], [12, 20], ["cancelling"] * 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_simplified_reference_gives_a_candidate_that_matches_the_original(case):
    import torch

    code, inp, shape, out_shape, kinds = CASES[case]
    ref_src = _reference(code, inp, shape, out_shape)
    simpler, applied = simplify(ref_src)
    assert [a.split(":")[0] for a in applied] == kinds
    assert "amax" not in simpler.split("class Reference", 1)[1].split("def reference", 1)[0]
    assert "sum.dim_IntList" not in simpler and "neg.default(neg)" not in simpler
    from kernelopt.gates.form import static_problems

    stride = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        stride[d] = stride[d + 1] * shape[d + 1]
    contract = _contract(inp, shape, stride, out_shape)
    src, source = _handwritten(contract, ref_src, 0)
    assert source.startswith("handwritten, simplified: ") and static_problems(src, contract) == []
    mod = load_candidate(src, f"simplify_{case}")
    ns: dict = {}
    exec(compile(ref_src, "<reference>", "exec"), ns)  # noqa: S102 - the test's own reference
    ref = ns["Reference"]()
    for seed in (1, 2):
        torch.manual_seed(seed)
        x = torch.randn(shape) * 3
        x.view(-1)[:4] = torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0])
        out = torch.full(out_shape, 12345.0)
        mod.launch(x, out)
        torch.testing.assert_close(out, ref(x)[0], rtol=1e-5, atol=1e-5, equal_nan=True)


def test_a_reduction_over_a_dim_of_more_than_one_element_is_left():
    ref_src = _reference(NOT_SINGLETON, "arg0_1", [4, 1, 8], [4, 1, 1])
    assert simplify(ref_src) == (ref_src, [])
