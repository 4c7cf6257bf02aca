"""Wrong: the row sum without subtracting the row max first (exp overflows differently; on
normal inputs the sum is off by the factor exp(max))."""
import triton
import triton.language as tl


@triton.jit
def stats_no_shift(x_ptr, max_ptr, sum_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
    tl.store(max_ptr + row, tl.max(x, 0))
    tl.store(sum_ptr + row, tl.sum(tl.exp(x), 0))


def launch(x_ptr, max_ptr, sum_ptr, n_cols, stride, _grid_0, _grid_1, _grid_2):
    stats_no_shift[(_grid_0,)](x_ptr, max_ptr, sum_ptr, n_cols, stride, BLOCK=triton.next_power_of_2(n_cols))
