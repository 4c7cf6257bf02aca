"""Correct: the normalize kernel with a 128-wide block and the grid it needs."""
import triton
import triton.language as tl


@triton.jit
def normalize128(x_ptr, max_ptr, sum_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    inv = 1.0 / tl.load(sum_ptr + row)
    tl.store(out_ptr + row * stride + cols, tl.exp(x - tl.load(max_ptr + row)) * inv, mask=mask)


def launch(x_ptr, max_ptr, sum_ptr, out_ptr, n_cols, stride, _grid_0, _grid_1, _grid_2):
    normalize128[(_grid_0, triton.cdiv(n_cols, 128), 1)](x_ptr, max_ptr, sum_ptr, out_ptr, n_cols, stride, BLOCK=128)
