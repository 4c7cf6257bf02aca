"""Wrong: keeps the user's grid (cdiv(cols, 64) blocks) but uses 32-wide blocks, so half of
every row is never written."""
import triton
import triton.language as tl


@triton.jit
def normalize32(x_ptr, max_ptr, sum_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, tl.exp(x - tl.load(max_ptr + row)) / tl.load(sum_ptr + row), mask=mask)


def launch(x_ptr, max_ptr, sum_ptr, out_ptr, n_cols, stride, _grid_0, _grid_1, _grid_2):
    normalize32[(_grid_0, _grid_1, _grid_2)](x_ptr, max_ptr, sum_ptr, out_ptr, n_cols, stride, BLOCK=32)
