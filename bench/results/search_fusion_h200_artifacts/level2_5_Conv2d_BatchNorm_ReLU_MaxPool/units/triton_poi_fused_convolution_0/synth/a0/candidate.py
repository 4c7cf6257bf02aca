"""Synthesised by kernelopt (heuristic backend, attempt 0) from the unit's eager reference:
a pointwise chain over 6422528 elements, one flat index, broadcasts through the contract's strides.
"""
import triton
import triton.language as tl


@triton.jit
def synth_pointwise(in_ptr0, out_ptr0, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < 6422528
    i0 = (offs) // 401408
    i1 = (offs % 401408) // 12544
    i2 = (offs % 12544) // 112
    i3 = offs % 112
    v0 = tl.load(in_ptr0 + (i0 * 401408 + i1 * 12544 + i2 * 112 + i3), mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr0 + (i0 * 401408 + i1 + i2 * 3584 + i3 * 32), (v0).to(out_ptr0.dtype.element_ty), mask=mask)


CONFIG = {'BLOCK': 1024}
NUM_WARPS = 4
NUM_STAGES = 1


def launch(in_ptr0, out_ptr0, ynumel, xnumel):
    synth_pointwise[(triton.cdiv(6422528, CONFIG['BLOCK']),)](in_ptr0, out_ptr0, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
