"""Wrong: x + y without the ReLU (negative sums pass through)."""
import triton
import triton.language as tl


@triton.jit
def add_only(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)


def launch(x, y, out, _grid_0, _grid_1, _grid_2):
    n = x.numel()
    add_only[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
