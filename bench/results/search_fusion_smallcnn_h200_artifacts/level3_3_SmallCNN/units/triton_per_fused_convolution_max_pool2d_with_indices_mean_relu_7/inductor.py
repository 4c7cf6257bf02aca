"""Inductor's kernel for unit triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7 (persistent_reduction), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7(in_out_ptr0, in_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 2048
    r0_numel = 25
    R0_BLOCK: tl.constexpr = 32
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_2 = r0_index
    x0 = (xindex % 128)
    x1 = xindex // 128
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_2 + 3200*x1), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tmp5 = tl.full([1, 1], 3136.0, tl.float32)
    tmp6 = (tmp4 / tmp5)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x3), tmp6, xmask)

CONFIG = {'XBLOCK': 8}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 2
NUM_STAGES = 1


def grid(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    triton_per_fused_convolution_max_pool2d_with_indices_mean_relu_7[grid(in_out_ptr0, in_ptr0, xnumel, r0_numel)](in_out_ptr0, in_ptr0, xnumel, r0_numel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
