import torch
import torch.nn as nn


class Model(nn.Module):
    """The upper triangle of a matrix product, C = triu(A @ B): only the kept half needs
    computing, but the compiled model runs the whole GEMM and then masks it."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.triu(torch.matmul(A, B))


N = 4096


def get_inputs():
    A = torch.randn(N, N)
    B = torch.randn(N, N)
    return [A, B]


def get_init_inputs():
    return []
