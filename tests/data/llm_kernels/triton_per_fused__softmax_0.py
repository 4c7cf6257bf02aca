"""A single-pass row softmax, as the fake Messages API answers for the demo softmax unit (a free-form kernel: no CONFIG)."""
import triton
import triton.language as tl


@triton.jit
def softmax_rows(out_ptr, in_ptr, rnumel, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < rnumel
    x = tl.load(in_ptr + row * rnumel + cols, mask=mask, other=float("-inf"))
    m = tl.max(x, 0)
    e = tl.where(mask, tl.exp(x - m), 0.0)
    s = tl.sum(e, 0)
    tl.store(out_ptr + row * rnumel + cols, e / s, mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    softmax_rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
