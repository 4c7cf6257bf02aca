"""EXPECT gate 1 file-access
CLASS 5
LAYER form
Counts its calls in an environment variable (process-wide state that no module-level rule sees)
and goes wrong after more calls than a gate makes."""
import os

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
    n = int(os.environ.get("KC_CALLS", "0")) + 1
    os.environ["KC_CALLS"] = str(n)
    if n < 40:
        rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
