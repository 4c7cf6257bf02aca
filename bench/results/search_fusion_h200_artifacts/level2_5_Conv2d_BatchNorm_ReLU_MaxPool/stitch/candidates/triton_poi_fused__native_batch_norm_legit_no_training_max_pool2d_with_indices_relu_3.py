"""Neighbour fusion of unit fz_triton_poi_fused__native_batch_norm_legit_no_training_relu_2__triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3 (kernelopt, heuristic backend): triton_poi_fused__native_batch_norm_legit_no_training_relu_2 inlined into
triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3 at each load of buf3, so buf3 is neither written nor re-read.  launch(*args)
takes triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3's arguments, then triton_poi_fused__native_batch_norm_legit_no_training_relu_2's other inputs (p_*); config: the consumer's.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()


# kernelopt neighbour fusion: triton_poi_fused__native_batch_norm_legit_no_training_relu_2 (pointwise, writes buf3) inlined at each of the
# 4 load(s) of in_ptr0 in triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3; buf3 is neither written nor needed afterwards.
@triton.jit
def triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3(in_ptr0, out_ptr0, ynumel, xnumel, p_in_ptr0, p_in_ptr1, p_in_ptr2, p_in_ptr3, YBLOCK: tl.constexpr, XBLOCK: tl.constexpr):
    ynumel = 50176
    xnumel = 64
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = tl.full([YBLOCK], True, tl.int1)[:, None]
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x3 = xindex
    y0 = yindex % 56
    y4 = yindex // 56
    y2 = yindex // 3136
    y5 = yindex % 3136
    _p0_xindex = x3 + 128 * y0 + 14336 * y4
    _p0_xmask = xmask
    _p0_x2 = _p0_xindex
    _p0_x0 = _p0_xindex % 64
    _p0_tmp0 = tl.load(in_ptr0 + _p0_x2, _p0_xmask)
    _p0_tmp1 = tl.load(p_in_ptr0 + _p0_x0, _p0_xmask, eviction_policy='evict_last')
    _p0_tmp3 = tl.load(p_in_ptr1 + _p0_x0, _p0_xmask, eviction_policy='evict_last')
    _p0_tmp12 = tl.load(p_in_ptr2 + _p0_x0, _p0_xmask, eviction_policy='evict_last')
    _p0_tmp14 = tl.load(p_in_ptr3 + _p0_x0, _p0_xmask, eviction_policy='evict_last')
    _p0_tmp2 = _p0_tmp0 - _p0_tmp1
    _p0_tmp4 = tl.full([1], 1e-05, tl.float32)
    _p0_tmp5 = _p0_tmp3 + _p0_tmp4
    _p0_tmp6 = tl.sqrt_rn(_p0_tmp5)
    _p0_tmp7 = tl.full([1], 1, tl.int32)
    _p0_tmp8 = _p0_tmp7 / _p0_tmp6
    _p0_tmp9 = tl.full([1], 1.0, tl.float32)
    _p0_tmp10 = _p0_tmp8 * _p0_tmp9
    _p0_tmp11 = _p0_tmp2 * _p0_tmp10
    _p0_tmp13 = _p0_tmp11 * _p0_tmp12
    _p0_tmp15 = _p0_tmp13 + _p0_tmp14
    _p0_tmp16 = tl.full([1], 0, tl.int32)
    _p0_tmp17 = triton_helpers.maximum(_p0_tmp16, _p0_tmp15)
    tmp0 = _p0_tmp17.to(in_ptr0.dtype.element_ty)
    _p1_xindex = 64 + x3 + 128 * y0 + 14336 * y4
    _p1_xmask = xmask
    _p1_x2 = _p1_xindex
    _p1_x0 = _p1_xindex % 64
    _p1_tmp0 = tl.load(in_ptr0 + _p1_x2, _p1_xmask)
    _p1_tmp1 = tl.load(p_in_ptr0 + _p1_x0, _p1_xmask, eviction_policy='evict_last')
    _p1_tmp3 = tl.load(p_in_ptr1 + _p1_x0, _p1_xmask, eviction_policy='evict_last')
    _p1_tmp12 = tl.load(p_in_ptr2 + _p1_x0, _p1_xmask, eviction_policy='evict_last')
    _p1_tmp14 = tl.load(p_in_ptr3 + _p1_x0, _p1_xmask, eviction_policy='evict_last')
    _p1_tmp2 = _p1_tmp0 - _p1_tmp1
    _p1_tmp4 = tl.full([1], 1e-05, tl.float32)
    _p1_tmp5 = _p1_tmp3 + _p1_tmp4
    _p1_tmp6 = tl.sqrt_rn(_p1_tmp5)
    _p1_tmp7 = tl.full([1], 1, tl.int32)
    _p1_tmp8 = _p1_tmp7 / _p1_tmp6
    _p1_tmp9 = tl.full([1], 1.0, tl.float32)
    _p1_tmp10 = _p1_tmp8 * _p1_tmp9
    _p1_tmp11 = _p1_tmp2 * _p1_tmp10
    _p1_tmp13 = _p1_tmp11 * _p1_tmp12
    _p1_tmp15 = _p1_tmp13 + _p1_tmp14
    _p1_tmp16 = tl.full([1], 0, tl.int32)
    _p1_tmp17 = triton_helpers.maximum(_p1_tmp16, _p1_tmp15)
    tmp1 = _p1_tmp17.to(in_ptr0.dtype.element_ty)
    _p2_xindex = 7168 + x3 + 128 * y0 + 14336 * y4
    _p2_xmask = xmask
    _p2_x2 = _p2_xindex
    _p2_x0 = _p2_xindex % 64
    _p2_tmp0 = tl.load(in_ptr0 + _p2_x2, _p2_xmask)
    _p2_tmp1 = tl.load(p_in_ptr0 + _p2_x0, _p2_xmask, eviction_policy='evict_last')
    _p2_tmp3 = tl.load(p_in_ptr1 + _p2_x0, _p2_xmask, eviction_policy='evict_last')
    _p2_tmp12 = tl.load(p_in_ptr2 + _p2_x0, _p2_xmask, eviction_policy='evict_last')
    _p2_tmp14 = tl.load(p_in_ptr3 + _p2_x0, _p2_xmask, eviction_policy='evict_last')
    _p2_tmp2 = _p2_tmp0 - _p2_tmp1
    _p2_tmp4 = tl.full([1], 1e-05, tl.float32)
    _p2_tmp5 = _p2_tmp3 + _p2_tmp4
    _p2_tmp6 = tl.sqrt_rn(_p2_tmp5)
    _p2_tmp7 = tl.full([1], 1, tl.int32)
    _p2_tmp8 = _p2_tmp7 / _p2_tmp6
    _p2_tmp9 = tl.full([1], 1.0, tl.float32)
    _p2_tmp10 = _p2_tmp8 * _p2_tmp9
    _p2_tmp11 = _p2_tmp2 * _p2_tmp10
    _p2_tmp13 = _p2_tmp11 * _p2_tmp12
    _p2_tmp15 = _p2_tmp13 + _p2_tmp14
    _p2_tmp16 = tl.full([1], 0, tl.int32)
    _p2_tmp17 = triton_helpers.maximum(_p2_tmp16, _p2_tmp15)
    tmp3 = _p2_tmp17.to(in_ptr0.dtype.element_ty)
    _p3_xindex = 7232 + x3 + 128 * y0 + 14336 * y4
    _p3_xmask = xmask
    _p3_x2 = _p3_xindex
    _p3_x0 = _p3_xindex % 64
    _p3_tmp0 = tl.load(in_ptr0 + _p3_x2, _p3_xmask)
    _p3_tmp1 = tl.load(p_in_ptr0 + _p3_x0, _p3_xmask, eviction_policy='evict_last')
    _p3_tmp3 = tl.load(p_in_ptr1 + _p3_x0, _p3_xmask, eviction_policy='evict_last')
    _p3_tmp12 = tl.load(p_in_ptr2 + _p3_x0, _p3_xmask, eviction_policy='evict_last')
    _p3_tmp14 = tl.load(p_in_ptr3 + _p3_x0, _p3_xmask, eviction_policy='evict_last')
    _p3_tmp2 = _p3_tmp0 - _p3_tmp1
    _p3_tmp4 = tl.full([1], 1e-05, tl.float32)
    _p3_tmp5 = _p3_tmp3 + _p3_tmp4
    _p3_tmp6 = tl.sqrt_rn(_p3_tmp5)
    _p3_tmp7 = tl.full([1], 1, tl.int32)
    _p3_tmp8 = _p3_tmp7 / _p3_tmp6
    _p3_tmp9 = tl.full([1], 1.0, tl.float32)
    _p3_tmp10 = _p3_tmp8 * _p3_tmp9
    _p3_tmp11 = _p3_tmp2 * _p3_tmp10
    _p3_tmp13 = _p3_tmp11 * _p3_tmp12
    _p3_tmp15 = _p3_tmp13 + _p3_tmp14
    _p3_tmp16 = tl.full([1], 0, tl.int32)
    _p3_tmp17 = triton_helpers.maximum(_p3_tmp16, _p3_tmp15)
    tmp5 = _p3_tmp17.to(in_ptr0.dtype.element_ty)
    tmp2 = triton_helpers.maximum(tmp0, tmp1)
    tmp4 = triton_helpers.maximum(tmp2, tmp3)
    tmp6 = triton_helpers.maximum(tmp4, tmp5)
    tl.store(out_ptr0 + (y5 + 3136 * x3 + 200704 * y2), tmp6, xmask)

CONFIG = {'XBLOCK': 64, 'YBLOCK': 16}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 4
NUM_STAGES = 1


def grid(in_ptr0, out_ptr0, ynumel, xnumel, p_in_ptr0, p_in_ptr1, p_in_ptr2, p_in_ptr3):
    # Inductor's grid for grid_type 'Grid2D'
    XBLOCK = CONFIG['XBLOCK']; YBLOCK = CONFIG['YBLOCK']
    return (-((xnumel) // -(XBLOCK)), -((ynumel) // -(YBLOCK)), 1)


def launch(in_ptr0, out_ptr0, ynumel, xnumel, p_in_ptr0, p_in_ptr1, p_in_ptr2, p_in_ptr3):
    triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3[grid(in_ptr0, out_ptr0, ynumel, xnumel, p_in_ptr0, p_in_ptr1, p_in_ptr2, p_in_ptr3)](in_ptr0, out_ptr0, ynumel, xnumel, p_in_ptr0, p_in_ptr1, p_in_ptr2, p_in_ptr3, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
