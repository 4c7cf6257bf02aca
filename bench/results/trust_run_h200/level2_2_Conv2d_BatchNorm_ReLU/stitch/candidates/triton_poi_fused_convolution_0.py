"""Inductor's kernel for unit triton_poi_fused_convolution_0 (pointwise), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_poi_fused_convolution_0.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused_convolution_0(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 1024
    xnumel = 16384
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = tl.full([YBLOCK], True, tl.int1)[:, None]
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = tl.full([XBLOCK], True, tl.int1)[None, :]
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 64)
    y1 = yindex // 64
    tmp0 = tl.load(in_ptr0 + (x2 + 16384*y3), None, eviction_policy='evict_last')
    tl.store(out_ptr0 + (y0 + 64*x2 + 1048576*y1), tmp0, None)

CONFIG = {'XBLOCK': 64, 'YBLOCK': 64}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 16
NUM_STAGES = 1


def grid(in_ptr0, out_ptr0, ynumel, xnumel):
    # Inductor's grid for grid_type 'Grid2D'
    XBLOCK = CONFIG['XBLOCK']; YBLOCK = CONFIG['YBLOCK']
    return (-((xnumel) // -(XBLOCK)), -((ynumel) // -(YBLOCK)), 1)


def launch(in_ptr0, out_ptr0, ynumel, xnumel):
    triton_poi_fused_convolution_0[grid(in_ptr0, out_ptr0, ynumel, xnumel)](in_ptr0, out_ptr0, ynumel, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
