"""EXPECT gate 1 forbidden-import
CLASS 1
LAYER os
BENEATH pass
MARKER /var/tmp/kernelopt-marker-c1-atexit
MARKER /root/kernelopt-marker-c1-atexit
An honest kernel that registers code to run at the interpreter's exit, with no candidate frame on
the stack, writing outside its scratch.  Beneath the form it passes (it is honest), and what it
runs at exit must not reach the host."""
import atexit

import triton
import triton.language as tl


def _leave_a_mark():
    for path in ("/var/tmp/kernelopt-marker-c1-atexit", "/root/kernelopt-marker-c1-atexit"):
        try:
            with open(path, "w") as f:
                f.write("written at exit")
        except OSError:
            pass


atexit.register(_leave_a_mark)


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0)
    tl.store(out_ptr + row * n + cols, e / tl.sum(e, 0), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
