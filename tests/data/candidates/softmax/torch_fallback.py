"""WRONG (expected: gate 1, torch-compute): does the work with torch, not Triton."""
import torch
import triton
import triton.language as tl


@triton.jit
def unused(x_ptr):
    pass


def launch(in_out_ptr0, in_ptr0, xnumel, r0_numel):
    in_out_ptr0.copy_(torch.softmax(in_ptr0, dim=-1))
