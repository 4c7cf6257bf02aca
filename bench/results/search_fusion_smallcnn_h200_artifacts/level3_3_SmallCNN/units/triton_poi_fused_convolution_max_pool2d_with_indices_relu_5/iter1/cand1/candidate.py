# kernelopt: heuristic executor: more-warps on inductor ({"num_warps": 8})
# kernelopt: more warps in flight to hide memory latency
"""Inductor's kernel for unit triton_poi_fused_convolution_max_pool2d_with_indices_relu_5 (pointwise), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_poi_fused_convolution_max_pool2d_with_indices_relu_5.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused_convolution_max_pool2d_with_indices_relu_5(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 25690112
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x0 = (xindex % 128)
    tmp0 = tl.load(in_out_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr0 + (x0), None, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(in_out_ptr0 + (x2), tmp4, None)

CONFIG = {'XBLOCK': 1024}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 8
NUM_STAGES = 1


def grid(in_out_ptr0, in_ptr0, xnumel):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_out_ptr0, in_ptr0, xnumel):
    triton_poi_fused_convolution_max_pool2d_with_indices_relu_5[grid(in_out_ptr0, in_ptr0, xnumel)](in_out_ptr0, in_ptr0, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
