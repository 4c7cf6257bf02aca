"""Softmax over rows written as three hand-made Triton kernels: the row max, the row sum of
exp(x - max), then the normalized output (GPU size: 32768 x 8192 fp32, 1 GiB).  Headroom: the
row is read three times, and the blocks are the user's first guess."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, max_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")))
    tl.store(max_ptr + row, tl.max(m, 0))


@triton.jit
def row_sum_kernel(x_ptr, max_ptr, sum_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    mx = tl.load(max_ptr + row)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
        s += tl.exp(x - mx)
    tl.store(sum_ptr + row, tl.sum(s, 0))


@triton.jit
def normalize_kernel(x_ptr, max_ptr, sum_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    y = tl.exp(x - tl.load(max_ptr + row)) / tl.load(sum_ptr + row)
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)


class Model(nn.Module):
    def forward(self, x):
        rows, cols = x.shape
        mx = torch.empty(rows, device=x.device, dtype=torch.float32)
        sm = torch.empty(rows, device=x.device, dtype=torch.float32)
        out = torch.empty_like(x)
        row_max_kernel[(rows,)](x, mx, cols, BLOCK=512)
        row_sum_kernel[(rows,)](x, mx, sm, cols, BLOCK=512)
        normalize_kernel[(rows, triton.cdiv(cols, 256))](x, mx, sm, out, cols, BLOCK=256)
        return out


def reference(x):
    return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(32768, 8192)]


def get_init_inputs():
    return []
