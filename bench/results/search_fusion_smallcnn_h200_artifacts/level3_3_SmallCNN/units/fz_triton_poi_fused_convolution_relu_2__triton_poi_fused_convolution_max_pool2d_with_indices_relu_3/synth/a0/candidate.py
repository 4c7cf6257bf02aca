"""Neighbour fusion of unit fz_triton_poi_fused_convolution_relu_2__triton_poi_fused_convolution_max_pool2d_with_indices_relu_3 (kernelopt, heuristic backend): triton_poi_fused_convolution_relu_2 inlined into
triton_poi_fused_convolution_max_pool2d_with_indices_relu_3 at each load of buf3, so buf3 is neither written nor re-read.  launch(*args)
takes triton_poi_fused_convolution_max_pool2d_with_indices_relu_3's arguments, then triton_poi_fused_convolution_relu_2's other inputs (p_*); config: the consumer's.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()


# kernelopt neighbour fusion: triton_poi_fused_convolution_relu_2 (pointwise, writes buf3) inlined at each of the
# 4 load(s) of in_ptr0 in triton_poi_fused_convolution_max_pool2d_with_indices_relu_3; buf3 is neither written nor needed afterwards.
@triton.jit
def triton_poi_fused_convolution_max_pool2d_with_indices_relu_3(in_ptr0, out_ptr0, xnumel, p_in_ptr0, XBLOCK: tl.constexpr):
    xnumel = 12845056
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex % 64
    x1 = xindex // 64 % 112
    x2 = xindex // 7168
    x3 = xindex
    _p0_xindex = x0 + 128 * x1 + 28672 * x2
    _p0_x2 = _p0_xindex
    _p0_x0 = _p0_xindex % 64
    _p0_tmp0 = tl.load(in_ptr0 + _p0_x2, None)
    _p0_tmp1 = tl.load(p_in_ptr0 + _p0_x0, None, eviction_policy='evict_last')
    _p0_tmp2 = _p0_tmp0 + _p0_tmp1
    _p0_tmp3 = tl.full([1], 0, tl.int32)
    _p0_tmp4 = triton_helpers.maximum(_p0_tmp3, _p0_tmp2)
    tmp0 = _p0_tmp4.to(in_ptr0.dtype.element_ty)
    _p1_xindex = 64 + x0 + 128 * x1 + 28672 * x2
    _p1_x2 = _p1_xindex
    _p1_x0 = _p1_xindex % 64
    _p1_tmp0 = tl.load(in_ptr0 + _p1_x2, None)
    _p1_tmp1 = tl.load(p_in_ptr0 + _p1_x0, None, eviction_policy='evict_last')
    _p1_tmp2 = _p1_tmp0 + _p1_tmp1
    _p1_tmp3 = tl.full([1], 0, tl.int32)
    _p1_tmp4 = triton_helpers.maximum(_p1_tmp3, _p1_tmp2)
    tmp1 = _p1_tmp4.to(in_ptr0.dtype.element_ty)
    _p2_xindex = 14336 + x0 + 128 * x1 + 28672 * x2
    _p2_x2 = _p2_xindex
    _p2_x0 = _p2_xindex % 64
    _p2_tmp0 = tl.load(in_ptr0 + _p2_x2, None)
    _p2_tmp1 = tl.load(p_in_ptr0 + _p2_x0, None, eviction_policy='evict_last')
    _p2_tmp2 = _p2_tmp0 + _p2_tmp1
    _p2_tmp3 = tl.full([1], 0, tl.int32)
    _p2_tmp4 = triton_helpers.maximum(_p2_tmp3, _p2_tmp2)
    tmp3 = _p2_tmp4.to(in_ptr0.dtype.element_ty)
    _p3_xindex = 14400 + x0 + 128 * x1 + 28672 * x2
    _p3_x2 = _p3_xindex
    _p3_x0 = _p3_xindex % 64
    _p3_tmp0 = tl.load(in_ptr0 + _p3_x2, None)
    _p3_tmp1 = tl.load(p_in_ptr0 + _p3_x0, None, eviction_policy='evict_last')
    _p3_tmp2 = _p3_tmp0 + _p3_tmp1
    _p3_tmp3 = tl.full([1], 0, tl.int32)
    _p3_tmp4 = triton_helpers.maximum(_p3_tmp3, _p3_tmp2)
    tmp5 = _p3_tmp4.to(in_ptr0.dtype.element_ty)
    tmp2 = triton_helpers.maximum(tmp0, tmp1)
    tmp4 = triton_helpers.maximum(tmp2, tmp3)
    tmp6 = triton_helpers.maximum(tmp4, tmp5)
    tl.store(out_ptr0 + x3, tmp6, None)

CONFIG = {'XBLOCK': 512}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 4
NUM_STAGES = 1


def grid(in_ptr0, out_ptr0, xnumel, p_in_ptr0):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_ptr0, out_ptr0, xnumel, p_in_ptr0):
    triton_poi_fused_convolution_max_pool2d_with_indices_relu_3[grid(in_ptr0, out_ptr0, xnumel, p_in_ptr0)](in_ptr0, out_ptr0, xnumel, p_in_ptr0, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
