"""Inductor's kernels for the fused unit fz_triton_poi_fused__native_batch_norm_legit_no_training_relu_2__triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3: triton_poi_fused__native_batch_norm_legit_no_training_relu_2 then triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3,
launched one after the other with the configs Inductor chose, as the wrapper launches them.
This is the baseline the fused candidates are timed against.  launch(*args) takes triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3's
arguments followed by triton_poi_fused__native_batch_norm_legit_no_training_relu_2's other inputs (p_*).
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused__native_batch_norm_legit_no_training_relu_2(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, xnumel, XBLOCK : tl.constexpr):
    xnumel = 12845056
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x0 = (xindex % 64)
    tmp0 = tl.load(in_out_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr0 + (x0), None, eviction_policy='evict_last')
    tmp3 = tl.load(in_ptr1 + (x0), None, eviction_policy='evict_last')
    tmp12 = tl.load(in_ptr2 + (x0), None, eviction_policy='evict_last')
    tmp14 = tl.load(in_ptr3 + (x0), None, eviction_policy='evict_last')
    tmp2 = tmp0 - tmp1
    tmp4 = tl.full([1], 1e-05, tl.float32)
    tmp5 = tmp3 + tmp4
    tmp6 = tl.sqrt_rn(tmp5)
    tmp7 = tl.full([1], 1, tl.int32)
    tmp8 = (tmp7 / tmp6)
    tmp9 = tl.full([1], 1.0, tl.float32)
    tmp10 = tmp8 * tmp9
    tmp11 = tmp2 * tmp10
    tmp13 = tmp11 * tmp12
    tmp15 = tmp13 + tmp14
    tmp16 = tl.full([1], 0, tl.int32)
    tmp17 = triton_helpers.maximum(tmp16, tmp15)
    tl.store(in_out_ptr0 + (x2), tmp17, None)

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


P_CONFIG = {'XBLOCK': 1024}
P_NUM_WARPS = 4
P_NUM_STAGES = 1


def P_grid(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, xnumel):
    XBLOCK = P_CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def P_launch(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, xnumel):
    triton_poi_fused__native_batch_norm_legit_no_training_relu_2[P_grid(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, xnumel)](in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, xnumel, **P_CONFIG, num_warps=P_NUM_WARPS, num_stages=P_NUM_STAGES)


CONFIG = {'XBLOCK': 64, 'YBLOCK': 16}
NUM_WARPS = 4
NUM_STAGES = 1


def C_grid(in_ptr0, out_ptr0, ynumel, xnumel):
    XBLOCK = CONFIG['XBLOCK']; YBLOCK = CONFIG['YBLOCK']
    return (-((xnumel) // -(XBLOCK)), -((ynumel) // -(YBLOCK)), 1)


def C_launch(in_ptr0, out_ptr0, ynumel, xnumel):
    triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3[C_grid(in_ptr0, out_ptr0, ynumel, xnumel)](in_ptr0, out_ptr0, ynumel, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)


def launch(in_ptr0, out_ptr0, ynumel, xnumel, p_in_ptr0, p_in_ptr1, p_in_ptr2, p_in_ptr3):
    P_launch(in_ptr0, p_in_ptr0, p_in_ptr1, p_in_ptr2, p_in_ptr3, 12845056)
    C_launch(in_ptr0, out_ptr0, ynumel, xnumel)
