"""EXPECT gate 1 timeout: spins forever inside its kernel (a loop whose condition is always true
but rests on volatile loads the compiler may not drop, so nothing static can see it; on the
H200 a loop on a plain loaded value was compiled away); the sandbox's wall clock kills it, and
Inductor's own kernel run the same way shows it is the candidate's fault."""
import triton
import triton.language as tl


@triton.jit
def rows(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    while tl.load(in_ptr + row * n, volatile=True) == tl.load(in_ptr + row * n, volatile=True):
        tl.debug_barrier()
    x = tl.load(in_ptr + row * n + cols, mask=mask, other=float("-inf"))
    e = tl.where(mask, tl.exp(x - tl.max(x, 0)), 0.0)
    tl.store(out_ptr + row * n + cols, e / tl.sum(e, 0), mask=mask)


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    rows[(xnumel,)](in_out_ptr0, in_ptr0, r0_numel, BLOCK=triton.next_power_of_2(r0_numel))
