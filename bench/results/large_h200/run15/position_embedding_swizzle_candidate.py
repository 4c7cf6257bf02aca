# kernelopt: heuristic executor: broadcast-swizzle on inductor ({"rows": 64})
# kernelopt: in_ptr1 (4194304 elements) is read once per row of 4194304 outputs, 64 times, and one row's traffic (48 MiB) outgrows the L2 between two reads: re-order the blocks so that the programs in flight cover the same offset of all 64 rows and share each chunk of it from L2
"""Inductor's kernel for unit triton_poi_fused_add_tanh_0 (pointwise), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_poi_fused_add_tanh_0.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton.jit
def triton_poi_fused_add_tanh_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 268435456
    _kper = tl.cdiv(xnumel, XBLOCK) // 64  # blocks re-ordered: the programs in flight share one chunk of the broadcast operand (64 rows)
    _kp = tl.program_id(0)
    _kp = tl.where(_kp < _kper * 64, (_kp % 64) * _kper + _kp // 64, _kp)
    xoffset = _kp * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x0 = (xindex % 4194304)
    tmp0 = tl.load(in_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr1 + (x0), None, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = libdevice.tanh(tmp2)
    tl.store(out_ptr0 + (x2), tmp3, None)

CONFIG = {'XBLOCK': 2048}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 4
NUM_STAGES = 1


def grid(in_ptr0, in_ptr1, out_ptr0, xnumel):
    # Inductor's grid for grid_type 'Grid1D'
    XBLOCK = CONFIG['XBLOCK']
    return (-((xnumel) // -(XBLOCK)), 1, 1)


def launch(in_ptr0, in_ptr1, out_ptr0, xnumel):
    triton_poi_fused_add_tanh_0[grid(in_ptr0, in_ptr1, out_ptr0, xnumel)](in_ptr0, in_ptr1, out_ptr0, xnumel, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
