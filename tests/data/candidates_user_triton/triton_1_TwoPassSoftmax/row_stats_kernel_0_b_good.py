"""Correct: one pass over the row held in a single block (the row fits), max then sum."""
import triton
import triton.language as tl


@triton.jit
def stats_one_block(x_ptr, max_ptr, sum_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
    m = tl.max(x, 0)
    tl.store(max_ptr + row, m)
    tl.store(sum_ptr + row, tl.sum(tl.exp(x - m), 0))


def launch(x_ptr, max_ptr, sum_ptr, n_cols, stride, _grid_0, _grid_1, _grid_2):
    stats_one_block[(_grid_0,)](x_ptr, max_ptr, sum_ptr, n_cols, stride, BLOCK=triton.next_power_of_2(n_cols))
