"""Two hand-written Triton kernels, the second reading the buffer it writes: out = 2 * x, then
out += bias (per column), launched with a 1-d grid the user computes from the block size.  Its ``reference`` is wrong on
purpose (the bias added twice): the user's kernels are the oracle, so gate 3 passes a stitched
model that matches them and no worse against reference() than they are, and says by how much
the user's own kernels miss it."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_bias_kernel(out_ptr, bias_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(out_ptr + offs, mask=mask)
    b = tl.load(bias_ptr + offs % cols, mask=mask)
    tl.store(out_ptr + offs, acc + b, mask=mask)


class Model(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(cols))

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        scale_kernel[(triton.cdiv(n, 32),)](x, out, n, BLOCK=32)
        add_bias_kernel[(triton.cdiv(n, 128),)](out, self.bias, n, x.shape[-1], BLOCK=128)
        return out


def reference(model, x):
    # a first parameter named ``model`` gets the model (its parameters); the bias is added twice
    return 2.0 * x + 2.0 * model.bias.to(x.dtype)


def get_inputs():
    return [torch.randn(6, 70)]


def get_init_inputs():
    return [70]
