"""Synthesised by kernelopt (heuristic backend, attempt 0) from the unit's eager reference:
32768 independent rows of 4096 elements, ROWS rows per program, each row whole in registers
(1 reduction(s) over the last dimension; padding columns hold the neutral element).
"""
import triton
import triton.language as tl


@triton.jit
def synth_rows(in_ptr0, in_ptr1, out_ptr1, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * ROWS + tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    rmask = rows < 32768
    cmask = cols < 4096
    mask = rmask & cmask
    v0 = tl.load(in_ptr0 + (rows * 4096 + cols), mask=mask, other=0.0).to(tl.float32)
    t1 = (v0 * v0)
    t2 = tl.sum(t1, 1)[:, None]
    t3 = t2 / 4096.0
    t4 = (t3 + 1e-06)
    t5 = (1.0 / tl.sqrt(t4))
    t6 = (v0 * t5)
    v1 = tl.load(in_ptr1 + (cols), mask=cmask, other=0.0).to(tl.float32)
    t7 = (t6 * v1)
    tl.store(out_ptr1 + (rows * 4096 + cols), (t7).to(out_ptr1.dtype.element_ty), mask=mask)


CONFIG = {'ROWS': 2, 'BLOCK_N': 4096}
NUM_WARPS = 16
NUM_STAGES = 1


def launch(in_ptr0, in_ptr1, out_ptr1, xnumel, r0_numel):
    synth_rows[(triton.cdiv(32768, CONFIG['ROWS']),)](in_ptr0, in_ptr1, out_ptr1, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
