"""out = x * 1.5 + 0.25 with a poor launch: 32 elements per program over 256 Mi elements
(1 GiB fp32): millions of tiny programs.  The search may change BLOCK; the grid follows
(inferred as cdiv(n, BLOCK))."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 1.5 + 0.25, mask=mask)


class Model(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        scale_shift_kernel[(triton.cdiv(n, 32),)](x, out, n, BLOCK=32)
        return out


def reference(x):
    return x * 1.5 + 0.25


def get_inputs():
    return [torch.randn(16384, 16384)]


def get_init_inputs():
    return []
