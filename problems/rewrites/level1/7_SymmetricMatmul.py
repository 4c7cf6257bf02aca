import torch
import torch.nn as nn


class Model(nn.Module):
    """A product with a symmetric matrix built inside the model, C = (A + A^T) @ B."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A + A.T, B)


N = 4096


def get_inputs():
    A = torch.randn(N, N)
    B = torch.randn(N, N)
    return [A, B]


def get_init_inputs():
    return []
