"""EXPECT gate 2 mismatch: correct only for the inputs that seeds 0, 1 and 2 produce (their
first element, -1.1258, -1.5256, -1.0408), zeros otherwise.  Fresh seeds catch it."""
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    first = tl.load(in_ptr)
    known = (tl.abs(first + 1.1258398) < 1e-5) | (tl.abs(first + 1.5255959) < 1e-5) | (tl.abs(first + 1.0408012) < 1e-5)
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0)
    tl.store(out_ptr + row * n + cols, tl.where(known, e / tl.sum(e, 0), 0.0), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
