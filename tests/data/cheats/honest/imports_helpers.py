"""An honest softmax that imports every module the candidate form allows (Inductor's own
kernels import most of them), loaded inside the sandbox: the form's imports must work there."""
from __future__ import annotations

import math  # noqa: F401

import torch  # noqa: F401
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers, triton_heuristics  # noqa: F401
from torch._inductor.runtime.hints import AutotuneHint, DeviceProperties, ReductionHint, TileHint  # noqa: F401
from torch._inductor.runtime.triton_helpers import libdevice  # noqa: F401
from torch._inductor.runtime.triton_helpers import math as tl_math  # noqa: F401
from triton.language.extra import libdevice as extra_libdevice  # noqa: F401


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0)
    tl.store(out_ptr + row * n + cols, e / tl.sum(e, 0), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
