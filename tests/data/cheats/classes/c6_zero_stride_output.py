"""EXPECT gate 1 torch-compute
CLASS 6
LAYER judge
BENEATH gate 2 unwritten-output
Writes nothing and turns its output into a huge view of stride 0 (2^31 x 2^31 elements over the
same storage), which crashed the judge that took back the child's tensors.  Beneath the form the
judge reads the bytes of the slot it laid out, never the child's tensor: the output is simply
unwritten."""
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
    in_out_ptr0.as_strided_((2**31, 2**31), (0, 0))
