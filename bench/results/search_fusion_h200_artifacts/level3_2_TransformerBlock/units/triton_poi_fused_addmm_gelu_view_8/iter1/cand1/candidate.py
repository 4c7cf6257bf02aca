# kernelopt: heuristic executor: smaller-xblock on synth/a0 ({"config": {"ROWS": 1}})
# kernelopt: twice the programs: fills more SMs
"""Synthesised by kernelopt (heuristic backend, attempt 0) from the unit's eager reference:
4096 independent rows of 3072 elements, ROWS rows per program, each row whole in registers
(0 reduction(s) over the last dimension; padding columns hold the neutral element).
"""
import triton
import triton.language as tl


@triton.jit
def synth_rows(in_out_ptr0, in_ptr0, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * ROWS + tl.arange(0, ROWS)[:, None]
    rmask = rows < 4096
    cols = tl.arange(0, BLOCK_N)[None, :]
    cmask = cols < 3072
    mask = rmask & cmask
    v0 = tl.load(in_ptr0 + (cols), mask=cmask, other=0.0).to(tl.float32)
    v1 = tl.load(in_out_ptr0 + (rows * 3072 + cols), mask=mask, other=0.0).to(tl.float32)
    t1 = (v0 + v1)
    t2 = (t1 * 0.7071067811865476)
    t3 = tl.math.erf(t2)
    t4 = (t3 + 1.0)
    t5 = (t1 * 0.5)
    t6 = (t5 * t4)
    tl.store(in_out_ptr0 + (rows * 3072 + cols), (t6).to(in_out_ptr0.dtype.element_ty), mask=mask)


CONFIG = {'ROWS': 1, 'BLOCK_N': 4096}
NUM_WARPS = 16
NUM_STAGES = 1


def launch(in_out_ptr0, in_ptr0, xnumel):
    synth_rows[(triton.cdiv(4096, CONFIG['ROWS']),)](in_out_ptr0, in_ptr0, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
