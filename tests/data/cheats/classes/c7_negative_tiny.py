"""EXPECT gate 2 error-profile
CLASS 7
LAYER profile
A softmax that writes -9e-5 wherever the answer is below 1e-6 (most of a row on the x10 inputs):
every error is inside allclose's 1e-3, but the reference and Inductor's kernel are never
negative there."""
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
    tl.store(out_ptr + row * n + cols, tl.where(p < 1e-6, -9e-5, p), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
