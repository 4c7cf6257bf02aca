"""EXPECT gate 2 mismatch: computes in bfloat16 throughout (probabilities off by ~0.4 %: inside
allclose's 1e-3 absolute tolerance on the usual inputs, where the relative-error guard sees it,
and outside it on the x10 inputs, where probabilities near 1 are off by more than 1e-3)."""
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf")).to(tl.bfloat16)
    m = tl.max(x, 0)
    e = tl.where(mask, tl.exp((x - m).to(tl.float32)).to(tl.bfloat16), 0.0)
    s = tl.sum(e.to(tl.float32), 0).to(tl.bfloat16)
    tl.store(out_ptr + row * n + cols, (e / s).to(tl.bfloat16).to(tl.float32), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
