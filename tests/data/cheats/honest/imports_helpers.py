"""An honest softmax that imports Inductor runtime helpers the child has not loaded yet
(Inductor's own kernels do): loading them compiles their source when no .pyc is cached,
which the sandbox must allow because the import itself was vetted."""
import triton
import triton.language as tl
from torch._inductor.runtime import debug_utils  # noqa: F401 - not loaded before the sandbox
from torch._inductor.runtime import halide_helpers  # noqa: F401


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
