"""A residual add and an RMSNorm as two hand-made Triton kernels (unfused: the sum makes a
round trip through memory), 16384 x 4096 fp32 inputs (256 MiB each)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, r_ptr, h_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(h_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(r_ptr + offs, mask=mask), mask=mask)


@triton.jit
def rmsnorm_kernel(h_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        h = tl.load(h_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        acc += h * h
    inv = 1.0 / tl.sqrt(tl.sum(acc, 0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        h = tl.load(h_ptr + row * n_cols + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * n_cols + cols, h * inv * w, mask=mask)


class Model(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(cols) + 0.5)

    def forward(self, x, r):
        h = torch.empty_like(x)
        out = torch.empty_like(x)
        n = x.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, r, h, n, BLOCK=1024)
        rmsnorm_kernel[(x.shape[0],)](h, self.weight, out, x.shape[1], 1e-6, BLOCK=256)
        return out


def reference(model, x, r):
    h = x + r
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * model.weight


def get_inputs():
    return [torch.randn(16384, 4096), torch.randn(16384, 4096)]


def get_init_inputs():
    return [4096]
