import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Plain matrix multiplication C = A @ B (library GEMM, nothing to fuse)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 32
K = 64
N = 32


def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(K, N)
    return [A, B]


def get_init_inputs():
    return []
