"""Inductor's kernel for unit triton_poi_fused_addmm_clone_transpose_view_1 (pointwise), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_poi_fused_addmm_clone_transpose_view_1.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused_addmm_clone_transpose_view_1(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 3145728
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 64)
    x2 = ((xindex // 32768) % 12)
    x1 = ((xindex // 64) % 512)
    x3 = xindex // 393216
    x4 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 64*x2), None, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr1 + (x0 + 64*x2 + 768*x1 + 393216*x3), None)
    tmp2 = tmp0 + tmp1
    tl.store(out_ptr0 + (x4), tmp2, None)

CONFIG = {'XBLOCK': 512}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 8
NUM_STAGES = 1


def grid(in_ptr0, in_ptr1, out_ptr0, xnumel):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_ptr0, in_ptr1, out_ptr0, xnumel):
    triton_poi_fused_addmm_clone_transpose_view_1[grid(in_ptr0, in_ptr1, out_ptr0, xnumel)](in_ptr0, in_ptr1, out_ptr0, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
