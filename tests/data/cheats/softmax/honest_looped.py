"""EXPECT pass: an honest looped softmax (online max and sum over chunks of the row)."""
import triton
import triton.language as tl


@triton.jit
def looped(out_ptr, in_ptr, n, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.full([CHUNK], float("-inf"), tl.float32)
    s = tl.zeros([CHUNK], tl.float32)
    for start in range(0, n, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        x = tl.load(in_ptr + row * n + cols, mask=cols < n, other=float("-inf"))
        new_m = tl.maximum(m, x)
        s = s * tl.exp(m - new_m) + tl.where(cols < n, tl.exp(x - new_m), 0.0)
        m = new_m
    big = tl.max(m, 0)
    total = tl.sum(s * tl.exp(m - big), 0)
    for start in range(0, n, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        x = tl.load(in_ptr + row * n + cols, mask=cols < n, other=0.0)
        tl.store(out_ptr + row * n + cols, tl.exp(x - big) / total, mask=cols < n)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    looped[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, CHUNK=64)
