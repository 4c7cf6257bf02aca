"""WRONG (expected: gate 1, subprocess): shells out."""
import subprocess

import triton
import triton.language as tl


@triton.jit
def unused(x_ptr):
    pass


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    subprocess.run(["true"])
