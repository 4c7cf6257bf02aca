"""EXPECT gate 1 harness-tampering
CLASS 3
LAYER form
Does the unit's work with torch reached through Inductor's runtime helpers
(triton_heuristics.torch), an allowed import, and launches a Triton kernel for show."""
import triton
import triton.language as tl
from torch._inductor.runtime import triton_heuristics


@triton.jit
def touch(out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(out_ptr + cols, mask=cols < n)
    tl.store(out_ptr + cols, x, mask=cols < n)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    triton_heuristics.torch.softmax(in_ptr0, -1, out=in_out_ptr0)
    touch[(1,)](in_out_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
