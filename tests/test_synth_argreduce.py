"""The heuristic synthesizer's index reductions (kernelopt/search/synth/argreduce.py), run under the
Triton interpreter against torch.argmax/argmin: the first index of the best value, ties and NaNs
as PyTorch breaks them, a middle dimension through strides, rows longer than one chunk."""

import math

import pytest
import torch
from conftest import load_candidate

from kernelopt.search.synth import generate
from kernelopt.search.synth.ops import CannotSynthesize


def _arg(name, shape, access, dtype="float32"):
    stride = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    return {"name": name, "kind": "tensor", "shape": shape, "stride": stride, "dtype": dtype, "access": access}


def _ref(op: str, shape: list, dim: int, keep: bool, out_shape: list) -> str:
    return f"""
LEVEL = 'kernel'
INPUTS = ['in_ptr0']
OUTPUTS = ['out_ptr0']
SHAPES = {{'in_ptr0': {shape!r}}}
OUT_SHAPES = {{'out_ptr0': {out_shape!r}}}


class Reference(torch.nn.Module):
    def forward(self, x0):
        neg = torch.ops.aten.abs.default(x0);  x0 = None
        r = torch.ops.aten.{op}.default(neg, {dim}, {keep});  neg = None
        return (r,)
"""


@pytest.mark.parametrize("attempt", [0, 1])
@pytest.mark.parametrize(
    "op,shape,dim,keep",
    [("argmax", [4, 16, 32], 1, False), ("argmin", [6, 3000], -1, False), ("argmax", [3, 5000], 1, True)],
)
def test_index_reductions_match_torch_with_ties_and_nans(attempt, op, shape, dim, keep):
    torch.manual_seed(6)
    x = torch.randn(*shape).round(decimals=1)  # many ties: the first index must win
    x.view(-1)[7] = float("nan")  # one row with a NaN: its index wins
    want = getattr(torch, op)(x.abs(), dim, keepdim=keep)
    contract = {"args": [_arg("in_ptr0", shape, "read"), _arg("out_ptr0", list(want.shape), "write", "int64")]}
    src = generate.generate(contract, _ref(op, shape, dim, keep, list(want.shape)), attempt)
    mod = load_candidate(src, f"arg_{op}_{attempt}_{len(shape)}_{keep}")
    out = torch.full(want.shape, -1, dtype=torch.int64)
    mod.launch(x, out)
    assert torch.equal(out, want), (out, want)


def test_index_reduction_refuses_every_dimension_and_float_outputs():
    src = _ref("argmax", [4, 8], "None", False, [])
    contract = {"args": [_arg("in_ptr0", [4, 8], "read"), _arg("out_ptr0", [], "write", "int64")]}
    with pytest.raises(CannotSynthesize, match="every dimension"):
        generate.generate(contract, src, 0)
    contract = {"args": [_arg("in_ptr0", [4, 8], "read"), _arg("out_ptr0", [4], "write", "float32")]}
    with pytest.raises(CannotSynthesize, match="not the int64 index"):
        generate.generate(contract, _ref("argmax", [4, 8], 1, False, [4]), 0)
