"""x += y in place through a user kernel whose input and output pointers alias (written from a
review finding): the unit must say it cannot be checked standalone, and the run goes on."""
import torch, torch.nn as nn, triton, triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=m) + tl.load(b_ptr + offs, mask=m), mask=m)


class Model(nn.Module):
    def forward(self, x, y):
        x = x * 2.0
        n = x.numel()
        add_kernel[(triton.cdiv(n, 64),)](x, y, x, n, BLOCK=64)   # in place: out aliases a
        return x


def reference(x, y):
    return 2 * x + y


def get_inputs():
    return [torch.randn(300), torch.randn(300)]


def get_init_inputs():
    return []
