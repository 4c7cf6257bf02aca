"""EXPECT gate 1 torch-compute
CLASS 1
LAYER os
BENEATH gate 1 runtime-error
MARKER /var/tmp/kernelopt-marker-c1-save.pt
MARKER /root/kernelopt-marker-c1-save.pt
Caches its input outside its scratch with C-level I/O (torch.save raises no audit event) and goes
on only if the file landed.  Beneath the form, the file system must not be there for it."""
import torch
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0)
    tl.store(out_ptr + row * n + cols, e / tl.sum(e, 0), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    torch.save(in_ptr0, "/var/tmp/kernelopt-marker-c1-save.pt")
    torch.save(in_ptr0, "/root/kernelopt-marker-c1-save.pt")
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
