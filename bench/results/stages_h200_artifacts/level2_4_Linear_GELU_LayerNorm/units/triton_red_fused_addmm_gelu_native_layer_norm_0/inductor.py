"""Inductor's kernel for unit triton_red_fused_addmm_gelu_native_layer_norm_0 (reduction), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_red_fused_addmm_gelu_native_layer_norm_0.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_red_fused_addmm_gelu_native_layer_norm_0(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 2048
    r0_numel = 4096
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    tmp12_mean = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp12_m2 = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp12_weight = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0)
        tmp1 = tl.load(in_out_ptr0 + (r0_1 + 4096*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
        tmp2 = tmp0 + tmp1
        tmp3 = tl.full([1, 1], 0.5, tl.float32)
        tmp4 = tmp2 * tmp3
        tmp5 = tl.full([1, 1], 0.7071067811865476, tl.float32)
        tmp6 = tmp2 * tmp5
        tmp7 = libdevice.erf(tmp6)
        tmp8 = tl.full([1, 1], 1.0, tl.float32)
        tmp9 = tmp7 + tmp8
        tmp10 = tmp4 * tmp9
        tmp11 = tl.broadcast_to(tmp10, [XBLOCK, R0_BLOCK])
        tmp12_mean_next, tmp12_m2_next, tmp12_weight_next = triton_helpers.welford_reduce(
            tmp11, tmp12_mean, tmp12_m2, tmp12_weight, roffset == 0
        )
        tmp12_mean = tl.where(r0_mask & xmask, tmp12_mean_next, tmp12_mean)
        tmp12_m2 = tl.where(r0_mask & xmask, tmp12_m2_next, tmp12_m2)
        tmp12_weight = tl.where(r0_mask & xmask, tmp12_weight_next, tmp12_weight)
    tmp13, tmp14, tmp15 = triton_helpers.welford(tmp12_mean, tmp12_m2, tmp12_weight, 1)
    tmp12 = tmp13[:, None]
    tmp16 = tmp14[:, None]
    tmp17 = tmp15[:, None]
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp18 = tl.load(in_ptr0 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0)
        tmp19 = tl.load(in_out_ptr0 + (r0_1 + 4096*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp36 = tl.load(in_ptr1 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0)
        tmp38 = tl.load(in_ptr2 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0)
        tmp20 = tmp18 + tmp19
        tmp21 = tl.full([1, 1], 0.5, tl.float32)
        tmp22 = tmp20 * tmp21
        tmp23 = tl.full([1, 1], 0.7071067811865476, tl.float32)
        tmp24 = tmp20 * tmp23
        tmp25 = libdevice.erf(tmp24)
        tmp26 = tl.full([1, 1], 1.0, tl.float32)
        tmp27 = tmp25 + tmp26
        tmp28 = tmp22 * tmp27
        tmp29 = tmp28 - tmp12
        tmp30 = tl.full([1, 1], 4096.0, tl.float32)
        tmp31 = (tmp16 / tmp30)
        tmp32 = tl.full([1, 1], 1e-05, tl.float32)
        tmp33 = tmp31 + tmp32
        tmp34 = libdevice.rsqrt(tmp33)
        tmp35 = tmp29 * tmp34
        tmp37 = tmp35 * tmp36
        tmp39 = tmp37 + tmp38
        tl.store(in_out_ptr0 + (r0_1 + 4096*x0), tmp39, r0_mask & xmask)

CONFIG = {'XBLOCK': 1, 'R0_BLOCK': 4096}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 16
NUM_STAGES = 1


def grid(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']; R0_BLOCK = CONFIG['R0_BLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel):
    triton_red_fused_addmm_gelu_native_layer_norm_0[grid(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel)](in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
