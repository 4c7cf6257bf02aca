"""WRONG (expected: gate 1, torch-compute at run time): torch work hidden behind operators,
which no static rule sees."""
import triton
import triton.language as tl


@triton.jit
def unused(x_ptr):
    pass


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    e = (in_ptr0 - in_ptr0.amax(-1, keepdim=True)).exp() if False else None
    t = in_ptr0 * 1.0
    in_out_ptr0[...] = t
