"""EXPECT gate 2 error-profile: sets every probability below 1e-3 to zero (each within allclose's
absolute tolerance; the error profile sees the relative error on the small values)."""
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
    tl.store(out_ptr + row * n + cols, tl.where(p < 1e-3, 0.0, p), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
