"""Inductor's kernel for unit triton_poi_fused_add_gelu_mul_tanh_0 (pointwise), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_poi_fused_add_gelu_mul_tanh_0.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused_add_gelu_mul_tanh_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 67108864
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp9 = tl.load(in_ptr1 + (x0), None)
    tmp1 = tl.full([1], 0.5, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = tl.full([1], 0.7071067811865476, tl.float32)
    tmp4 = tmp0 * tmp3
    tmp5 = libdevice.erf(tmp4)
    tmp6 = tl.full([1], 1.0, tl.float32)
    tmp7 = tmp5 + tmp6
    tmp8 = tmp2 * tmp7
    tmp10 = tmp8 * tmp9
    tmp11 = tmp10 + tmp6
    tmp12 = libdevice.tanh(tmp11)
    tmp13 = tmp12 * tmp1
    tmp14 = tmp0 * tmp9
    tmp15 = tmp13 + tmp14
    tl.store(out_ptr0 + (x0), tmp15, None)

CONFIG = {'XBLOCK': 1024}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 4
NUM_STAGES = 1


def grid(in_ptr0, in_ptr1, out_ptr0, xnumel):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_ptr0, in_ptr1, out_ptr0, xnumel):
    triton_poi_fused_add_gelu_mul_tanh_0[grid(in_ptr0, in_ptr1, out_ptr0, xnumel)](in_ptr0, in_ptr1, out_ptr0, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
