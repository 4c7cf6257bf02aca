"""EXPECT gate 1 runtime-error
CLASS 6
LAYER judge
Computes nothing and fails every call with the words of a CUDA out-of-memory error, to be
recorded as the machine's fault (infrastructure, retried, never a fail).  In the form: an assert
with a message.  The judge runs Inductor's kernel the same way, which gets through: the failure
is the candidate's."""
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0)
    tl.store(out_ptr + row * n + cols, e / tl.sum(e, 0), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    assert xnumel < 0, "CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 79.19 GiB total capacity)"
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
