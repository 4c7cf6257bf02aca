"""Hand-written candidate for the softmax of problems/gpu/level1/1_Softmax.py (4096 x 16384).

Inductor's max-autotune kernel is an online softmax in two loops: the first reads the row
to get max and sum, the second reads it again to normalise (the re-read mostly hits L2, but
not all of it).  A row is 64 KB, so one program can hold it in registers (32 warps x 32
lanes x 16 floats): one read, one write, nothing re-read.  Prediction: ~512 MB moved at
~4.2 TB/s = ~0.122 ms against Inductor's 0.142 ms (measured on the H200): ~1.15x.
"""

import triton
import triton.language as tl


@triton.jit
def softmax_row_in_registers(in_ptr, out_ptr, rnumel, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < rnumel
    x = tl.load(in_ptr + row * rnumel + cols, mask=mask, other=float("-inf"), eviction_policy="evict_first")
    m = tl.max(x, 0)
    e = tl.exp(x - m)
    e = tl.where(mask, e, 0.0)
    s = tl.sum(e, 0)
    tl.store(out_ptr + row * rnumel + cols, e / s, mask=mask)


def launch(in_ptr0, out_ptr2, xnumel, r0_numel):
    block = triton.next_power_of_2(r0_numel)
    warps = 32 if block >= 8192 else (8 if block >= 2048 else 4)
    softmax_row_in_registers[(xnumel,)](in_ptr0, out_ptr2, r0_numel, BLOCK=block, num_warps=warps)
