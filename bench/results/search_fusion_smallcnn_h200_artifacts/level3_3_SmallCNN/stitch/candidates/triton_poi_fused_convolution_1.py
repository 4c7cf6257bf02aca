"""Synthesised by kernelopt (heuristic backend, attempt 0) from the unit's eager reference:
a pointwise chain over 1728 elements, one flat index, broadcasts through the contract's strides.
"""
import triton
import triton.language as tl


@triton.jit
def synth_pointwise(in_ptr0, out_ptr0, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < 1728
    i0 = (offs) // 27
    i1 = (offs % 27) // 9
    i2 = (offs % 9) // 3
    i3 = offs % 3
    v0 = tl.load(in_ptr0 + (i0 * 27 + i1 * 9 + i2 * 3 + i3), mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr0 + (i0 * 27 + i1 + i2 * 9 + i3 * 3), (v0).to(out_ptr0.dtype.element_ty), mask=mask)


CONFIG = {'BLOCK': 1024}
NUM_WARPS = 4
NUM_STAGES = 1


def launch(in_ptr0, out_ptr0, ynumel, xnumel):
    synth_pointwise[(triton.cdiv(1728, CONFIG['BLOCK']),)](in_ptr0, out_ptr0, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
