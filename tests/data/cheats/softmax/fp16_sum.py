"""EXPECT gate 2 error-profile: accumulates the row sum in float16 (its largest error is far
above Inductor's on the same inputs, inside allclose's 1e-3)."""
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0).to(tl.float16)
    s = tl.sum(e, 0)
    tl.store(out_ptr + row * n + cols, (e / s).to(tl.float32), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
