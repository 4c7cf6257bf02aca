"""The heuristic synthesizer's full reductions (kernelopt/search/synth/fullreduce.py: a loss), run
under the Triton interpreter against PyTorch's own losses, with the post-grad graphs Inductor wrote
for problems/headroom's MSE, Huber, KL-divergence and hinge losses on the H200."""

import math

import pytest
import torch
import torch.nn.functional as F
from conftest import load_candidate

from kernelopt.search.synth import generate
from kernelopt.search.synth.ops import CannotSynthesize


def _arg(name, shape, access):
    stride = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    return {"name": name, "kind": "tensor", "shape": shape, "stride": stride, "dtype": "float32", "access": access}


FORWARDS = {
    "mse": """
        sub = torch.ops.aten.sub.Tensor(x0, x1);  x0 = x1 = None
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(sub, 2);  sub = None
        mean = torch.ops.aten.mean.default(pow_1);  pow_1 = None
        return (mean,)""",
    "huber": """
        sub = torch.ops.aten.sub.Tensor(x0, x1);  x0 = x1 = None
        abs_1 = torch.ops.aten.abs.default(sub);  sub = None
        lt = torch.ops.aten.lt.Scalar(abs_1, 0.5)
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(abs_1, 2)
        mul = torch.ops.aten.mul.Tensor(pow_1, 0.5);  pow_1 = None
        div = torch.ops.aten.div.Tensor(mul, 0.5);  mul = None
        sub_1 = torch.ops.aten.sub.Tensor(abs_1, 0.25);  abs_1 = None
        where = torch.ops.aten.where.self(lt, div, sub_1);  lt = div = sub_1 = None
        mean = torch.ops.aten.mean.default(where);  where = None
        return (mean,)""",
    "kl": """
        isnan = torch.ops.aten.isnan.default(x1)
        full_default_1 = torch.ops.aten.full.default([], nan, dtype = torch.float32, layout = torch.strided)
        eq = torch.ops.aten.eq.Scalar(x1, 0)
        full_default = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided)
        log_1 = torch.ops.aten.log.default(x1)
        mul_1 = torch.ops.aten.mul.Tensor(x1, log_1);  log_1 = None
        where = torch.ops.aten.where.self(eq, full_default, mul_1);  eq = full_default = mul_1 = None
        where_1 = torch.ops.aten.where.self(isnan, full_default_1, where);  isnan = full_default_1 = where = None
        log = torch.ops.aten.log.default(x0);  x0 = None
        mul = torch.ops.aten.mul.Tensor(x1, log);  x1 = log = None
        sub = torch.ops.aten.sub.Tensor(where_1, mul);  where_1 = mul = None
        sum_1 = torch.ops.aten.sum.default(sub);  sub = None
        div = torch.ops.aten.div.Tensor(sum_1, 6);  sum_1 = None
        return (div,)""",
    "hinge": """
        mul = torch.ops.aten.mul.Tensor(x0, x1);  x0 = x1 = None
        sub = torch.ops.aten.sub.Tensor(1, mul);  mul = None
        clamp_min = torch.ops.aten.clamp_min.default(sub, 0);  sub = None
        mean = torch.ops.aten.mean.default(clamp_min);  clamp_min = None
        return (mean,)""",
}


def _loss(kind, p, t):
    if kind == "mse":
        return torch.mean((p - t) ** 2)
    if kind == "huber":
        return F.smooth_l1_loss(p, t, beta=0.5)
    if kind == "kl":
        return F.kl_div(torch.log(p), t, reduction="batchmean")
    return torch.mean(torch.clamp(1 - p * t, min=0))


@pytest.mark.parametrize("attempt", [0, 3])
@pytest.mark.parametrize("kind", sorted(FORWARDS))
def test_losses_as_one_pass_and_an_ordered_sum_of_partials(kind, attempt):
    shape = [6, 1000]
    label = [6, 1] if kind == "hinge" else shape  # one label per row, broadcast
    torch.manual_seed(7)
    if kind == "kl":
        p, t = torch.randn(shape).softmax(-1), torch.randn(shape).softmax(-1)
    elif kind == "hinge":
        p, t = torch.randn(shape), torch.randint(0, 2, label).float() * 2 - 1
    else:
        p, t = torch.randn(shape), torch.randn(shape)
    ref = f"""
LEVEL = 'kernel'
INPUTS = ['in_ptr0', 'in_ptr1']
OUTPUTS = ['out_ptr0']
SHAPES = {{'in_ptr0': {shape!r}, 'in_ptr1': {label!r}}}
OUT_SHAPES = {{'out_ptr0': []}}


class Reference(torch.nn.Module):
    def forward(self, x0, x1):{FORWARDS[kind]}
"""
    contract = {"args": [_arg("in_ptr0", shape, "read"), _arg("in_ptr1", label, "read"), _arg("out_ptr0", [], "write")]}
    src = generate.generate(contract, ref, attempt)
    assert "synth_partial" in src and "synth_total" in src
    mod = load_candidate(src, f"loss_{kind}_{attempt}")
    out = torch.full((), float("nan"))
    mod.launch(p, t, out)
    torch.testing.assert_close(out, _loss(kind, p, t), rtol=1e-5, atol=1e-6)


def test_a_max_over_everything_and_a_kept_sum_are_refused():
    contract = {"args": [_arg("in_ptr0", [4, 8], "read"), _arg("out_ptr0", [], "write")]}
    ref = """
LEVEL = 'kernel'
INPUTS = ['in_ptr0']
OUTPUTS = ['out_ptr0']
SHAPES = {'in_ptr0': [4, 8]}
OUT_SHAPES = {'out_ptr0': []}


class Reference(torch.nn.Module):
    def forward(self, x0):
        amax = torch.ops.aten.amax.default(x0);  x0 = None
        return (amax,)
"""
    with pytest.raises(CannotSynthesize):
        generate.generate(
            contract, ref.replace("aten.amax.default(x0)", "aten.sum.default(x0)").replace("sum", "amax"), 0
        )
    from kernelopt.search.synth.fullreduce import synthesize_full_reduction

    with pytest.raises(CannotSynthesize, match="only a sum or mean over every element"):
        synthesize_full_reduction(contract, ref.replace("amax.default(x0)", "sum.dim_IntList(x0, [0, 1], True)"), 0)
