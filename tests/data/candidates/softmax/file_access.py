"""WRONG (expected: gate 1, file-access): reads a file."""
import triton
import triton.language as tl


@triton.jit
def unused(x_ptr):
    pass


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    open("/etc/hostname").read()
