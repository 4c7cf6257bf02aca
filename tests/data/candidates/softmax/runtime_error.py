"""WRONG (expected: gate 1, runtime-error): launches the kernel without its arguments."""
import triton
import triton.language as tl


@triton.jit
def k(out_ptr, in_ptr, rnumel, BLOCK: tl.constexpr):
    pass


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    k[(xnumel,)](in_out_ptr0, in_ptr0)
