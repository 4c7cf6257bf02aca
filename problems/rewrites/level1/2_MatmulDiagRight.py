import torch
import torch.nn as nn


class Model(nn.Module):
    """C = B @ diag(a): a column scaling, C[i, j] = B[i, j] * a[j], written as a GEMM with a
    diagonal matrix built inside the model."""

    def __init__(self):
        super().__init__()

    def forward(self, B: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        return torch.matmul(B, torch.diag(a))


N = 4096
M = 4096


def get_inputs():
    B = torch.randn(N, M)
    a = torch.randn(M)
    return [B, a]


def get_init_inputs():
    return []
