# kernelopt: heuristic executor: bigger-xblock on synth/a0 ({"config": {"ROWS": 32}})
# kernelopt: more work per program: fewer, larger memory transactions
"""Synthesised by kernelopt (heuristic backend, attempt 0) from the unit's eager reference:
49152 independent rows of 512 elements, ROWS rows per program, each row whole in registers
(2 reduction(s) over the last dimension; padding columns hold the neutral element).
"""
import triton
import triton.language as tl


@triton.jit
def synth_rows(in_out_ptr0, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * ROWS + tl.arange(0, ROWS)[:, None]
    rmask = rows < 49152
    cols = tl.arange(0, BLOCK_N)[None, :]
    cmask = cols < 512
    mask = rmask & cmask
    v0 = tl.load(in_out_ptr0 + (rows * 512 + cols), mask=mask, other=0.0).to(tl.float32)
    t1 = (v0 * 1.0)
    t2 = tl.max(t1, 1)[:, None]
    t3 = (t1 - t2)
    t4 = (t3 / 8.0)
    t5 = tl.exp(t4)
    t6 = tl.sum(t5, 1)[:, None]
    t7 = (t5 / t6)
    tl.store(in_out_ptr0 + (rows * 512 + cols), (t7).to(in_out_ptr0.dtype.element_ty), mask=mask)


CONFIG = {'ROWS': 32, 'BLOCK_N': 512}
NUM_WARPS = 16
NUM_STAGES = 1


def launch(in_out_ptr0, xnumel, r0_numel):
    synth_rows[(triton.cdiv(49152, CONFIG['ROWS']),)](in_out_ptr0, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
