"""WRONG (expected: gate 1, signature): the launcher's arguments differ from the contract."""
import triton
import triton.language as tl


@triton.jit
def unused(x_ptr):
    pass


def launch(out, inp):
    pass
