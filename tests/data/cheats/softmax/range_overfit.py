"""EXPECT gate 2 mismatch: correct while every input is within randn's usual range (|x| < 6),
garbage beyond it.  The x10 input distribution catches it."""
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0)
    p = e / tl.sum(e, 0)
    wild = tl.max(tl.where(mask, tl.abs(x), 0.0), 0) > 6.0
    tl.store(out_ptr + row * n + cols, tl.where(wild, 0.5, p), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
