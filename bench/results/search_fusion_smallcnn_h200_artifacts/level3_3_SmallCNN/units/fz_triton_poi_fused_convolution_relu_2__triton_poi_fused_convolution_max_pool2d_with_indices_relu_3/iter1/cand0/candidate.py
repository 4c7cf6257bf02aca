# kernelopt: heuristic executor: bigger-xblock on inductor ({"config": {"XBLOCK": 1024}})
# kernelopt: more work per program: fewer, larger memory transactions
"""Inductor's kernels for the fused unit fz_triton_poi_fused_convolution_relu_2__triton_poi_fused_convolution_max_pool2d_with_indices_relu_3: triton_poi_fused_convolution_relu_2 then triton_poi_fused_convolution_max_pool2d_with_indices_relu_3,
launched one after the other with the configs Inductor chose, as the wrapper launches them.
This is the baseline the fused candidates are timed against.  launch(*args) takes triton_poi_fused_convolution_max_pool2d_with_indices_relu_3's
arguments followed by triton_poi_fused_convolution_relu_2's other inputs (p_*).
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused_convolution_relu_2(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 51380224
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x0 = (xindex % 64)
    tmp0 = tl.load(in_out_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr0 + (x0), None, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(in_out_ptr0 + (x2), tmp4, None)

import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused_convolution_max_pool2d_with_indices_relu_3(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 12845056
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 64)
    x1 = ((xindex // 64) % 112)
    x2 = xindex // 7168
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 128*x1 + 28672*x2), None)
    tmp1 = tl.load(in_ptr0 + (64 + x0 + 128*x1 + 28672*x2), None)
    tmp3 = tl.load(in_ptr0 + (14336 + x0 + 128*x1 + 28672*x2), None)
    tmp5 = tl.load(in_ptr0 + (14400 + x0 + 128*x1 + 28672*x2), None)
    tmp2 = triton_helpers.maximum(tmp0, tmp1)
    tmp4 = triton_helpers.maximum(tmp2, tmp3)
    tmp6 = triton_helpers.maximum(tmp4, tmp5)
    tl.store(out_ptr0 + (x3), tmp6, None)


P_CONFIG = {'XBLOCK': 1024}
P_NUM_WARPS = 4
P_NUM_STAGES = 1


def P_grid(in_out_ptr0, in_ptr0, xnumel):
    XBLOCK = P_CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def P_launch(in_out_ptr0, in_ptr0, xnumel):
    triton_poi_fused_convolution_relu_2[P_grid(in_out_ptr0, in_ptr0, xnumel)](in_out_ptr0, in_ptr0, xnumel, **P_CONFIG, num_warps=P_NUM_WARPS, num_stages=P_NUM_STAGES)


CONFIG = {'XBLOCK': 1024}
NUM_WARPS = 4
NUM_STAGES = 1


def C_grid(in_ptr0, out_ptr0, xnumel):
    XBLOCK = CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def C_launch(in_ptr0, out_ptr0, xnumel):
    triton_poi_fused_convolution_max_pool2d_with_indices_relu_3[C_grid(in_ptr0, out_ptr0, xnumel)](in_ptr0, out_ptr0, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)


def launch(in_ptr0, out_ptr0, xnumel, p_in_ptr0):
    P_launch(in_ptr0, p_in_ptr0, 51380224)
    C_launch(in_ptr0, out_ptr0, xnumel)
