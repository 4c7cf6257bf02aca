# kernelopt: heuristic executor: evict-first on inductor ({"only": null, "policy": "evict_first"})
# kernelopt: stream through L2: data read once need not stay
"""Inductor's kernel for unit triton_tem_fused__unsafe_view_addmm_bmm_clone_transpose_view_3 (template), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``triton_tem_fused__unsafe_view_addmm_bmm_clone_transpose_view_3.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place.
"""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties

@triton.jit
def triton_tem_fused__unsafe_view_addmm_bmm_clone_transpose_view_3(arg_A, arg_B, out_ptr0):
    EVEN_K : tl.constexpr = True
    USE_FAST_ACCUM : tl.constexpr = False
    ACC_TYPE : tl.constexpr = tl.float32
    BLOCK_M : tl.constexpr = 64
    BLOCK_N : tl.constexpr = 64
    BLOCK_K : tl.constexpr = 32
    GROUP_M : tl.constexpr = 8
    ALLOW_TF32 : tl.constexpr = False
    INDEX_DTYPE : tl.constexpr = tl.int32
    A = arg_A
    B = arg_B

    M = 512
    N = 512
    K = 64

    stride_aq = 32768
    stride_am = 64
    stride_ak = 1

    stride_bq = 32768
    stride_bk = 512
    stride_bn = 1

    # based on triton.ops.matmul
    pid = tl.program_id(0).to(INDEX_DTYPE)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N

    # re-order program ID for better L2 performance
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if (stride_am == 1 and stride_ak == M) or (stride_am == K and stride_ak == 1):
        ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    else:
        ram = rm % M
    if (stride_bk == 1 and stride_bn == K) or (stride_bk == N and stride_bn == 1):
        rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    else:
        rbn = rn % N

    rk = tl.arange(0, BLOCK_K)

    idx_q = tl.program_id(1).to(INDEX_DTYPE)  # batch dimension for BMM
    A = A + (ram[:, None] * stride_am + rk[None, :] * stride_ak + idx_q*stride_aq)
    B = B + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn + idx_q*stride_bq)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k in range(K, 0, -BLOCK_K):
        if EVEN_K:
            a = tl.load(A, eviction_policy='evict_first')
            b = tl.load(B, eviction_policy='evict_first')
        else:
            a = tl.load(A, mask=rk[None, :] < k, other=0.0, eviction_policy='evict_first')
            b = tl.load(B, mask=rk[:, None] < k, other=0.0, eviction_policy='evict_first')
        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32)
        A += BLOCK_K * stride_ak
        B += BLOCK_K * stride_bk

    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    idx_q = tl.program_id(1).to(INDEX_DTYPE)  # batch dimension for BMM
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)

    # inductor generates a suffix
    xindex = idx_n + 512*idx_m + 262144*idx_q
    tl.store(out_ptr0 + (tl.broadcast_to(xindex, [BLOCK_M, BLOCK_N])), acc, mask)

CONFIG = {}  # constexpr block sizes chosen by Inductor
NUM_WARPS = 4
NUM_STAGES = 2


def grid(arg_A, arg_B, out_ptr0, _grid_0, _grid_1, _grid_2):
    # Inductor's grid for grid_type 'FixedGrid'
    pass
    return (_grid_0, _grid_1, _grid_2)


def launch(arg_A, arg_B, out_ptr0, _grid_0, _grid_1, _grid_2):
    triton_tem_fused__unsafe_view_addmm_bmm_clone_transpose_view_3[grid(arg_A, arg_B, out_ptr0, _grid_0, _grid_1, _grid_2)](arg_A, arg_B, out_ptr0, **CONFIG, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
