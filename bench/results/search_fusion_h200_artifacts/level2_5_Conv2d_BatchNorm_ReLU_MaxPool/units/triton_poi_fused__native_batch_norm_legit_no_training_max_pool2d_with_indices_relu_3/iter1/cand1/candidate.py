# kernelopt: heuristic executor: more-warps on inductor ({"num_warps": 8})
# kernelopt: more warps in flight to hide memory latency
"""Inductor's kernel for unit triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3 (pointwise), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 50176
    xnumel = 64
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = tl.full([YBLOCK], True, tl.int1)[:, None]
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x3 = xindex
    y0 = (yindex % 56)
    y4 = yindex // 56
    y2 = yindex // 3136
    y5 = (yindex % 3136)
    tmp0 = tl.load(in_ptr0 + (x3 + 128*y0 + 14336*y4), xmask, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr0 + (64 + x3 + 128*y0 + 14336*y4), xmask, eviction_policy='evict_last')
    tmp3 = tl.load(in_ptr0 + (7168 + x3 + 128*y0 + 14336*y4), xmask, eviction_policy='evict_last')
    tmp5 = tl.load(in_ptr0 + (7232 + x3 + 128*y0 + 14336*y4), xmask, eviction_policy='evict_last')
    tmp2 = triton_helpers.maximum(tmp0, tmp1)
    tmp4 = triton_helpers.maximum(tmp2, tmp3)
    tmp6 = triton_helpers.maximum(tmp4, tmp5)
    tl.store(out_ptr0 + (y5 + 3136*x3 + 200704*y2), tmp6, xmask)

CONFIG = {'XBLOCK': 64, 'YBLOCK': 16}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 8
NUM_STAGES = 1


def grid(in_ptr0, out_ptr0, ynumel, xnumel):
    # Inductor's grid for grid_type 'Grid2D'
    XBLOCK = CONFIG['XBLOCK']; YBLOCK = CONFIG['YBLOCK']
    return (-((xnumel) // -(XBLOCK)), -((ynumel) // -(YBLOCK)), 1)


def launch(in_ptr0, out_ptr0, ynumel, xnumel):
    triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3[grid(in_ptr0, out_ptr0, ynumel, xnumel)](in_ptr0, out_ptr0, ynumel, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
