"""WRONG (expected: gate 1, timer-tampering): touches the clock used for timing."""
import time

import triton
import triton.language as tl


@triton.jit
def unused(x_ptr):
    pass


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    time.sleep(0)
