"""Inductor's kernel for unit triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6 (reduction), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 51200
    r0_numel = 126
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x1 = ((xindex // 128) % 25)
    x0 = (xindex % 128)
    x2 = xindex // 3200
    _tmp13 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x4 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_3 = r0_index
        tmp0 = r0_3 + 126*x1
        tmp1 = tl.full([1, 1], 3136, tl.int32)
        tmp2 = tmp0 < tmp1
        tmp3 = tl.load(in_ptr0 + (x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_last', other=0.0)
        tmp4 = tl.load(in_ptr0 + (128 + x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_last', other=0.0)
        tmp5 = triton_helpers.maximum(tmp3, tmp4)
        tmp6 = tl.load(in_ptr0 + (14336 + x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_last', other=0.0)
        tmp7 = triton_helpers.maximum(tmp5, tmp6)
        tmp8 = tl.load(in_ptr0 + (14464 + x0 + 256*(((r0_3 + 126*x1) % 56)) + 28672*((((r0_3 + 126*x1) // 56) % 56)) + 1605632*x2), r0_mask & tmp2 & xmask, eviction_policy='evict_first', other=0.0)
        tmp9 = triton_helpers.maximum(tmp7, tmp8)
        tmp10 = tl.full(tmp9.shape, 0, tmp9.dtype)
        tmp11 = tl.where(tmp2, tmp9, tmp10)
        tmp12 = tl.broadcast_to(tmp11, [XBLOCK, R0_BLOCK])
        tmp14 = _tmp13 + tmp12
        _tmp13 = tl.where(r0_mask & xmask, tmp14, _tmp13)
    tmp13 = tl.sum(_tmp13, 1)[:, None]
    tl.store(out_ptr0 + (x4), tmp13, xmask)

CONFIG = {'XBLOCK': 128, 'R0_BLOCK': 4}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 8
NUM_STAGES = 1


def grid(in_ptr0, out_ptr0, xnumel, r0_numel):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']; R0_BLOCK = CONFIG['R0_BLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_ptr0, out_ptr0, xnumel, r0_numel):
    triton_red_fused_convolution_max_pool2d_with_indices_mean_relu_6[grid(in_ptr0, out_ptr0, xnumel, r0_numel)](in_ptr0, out_ptr0, xnumel, r0_numel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
