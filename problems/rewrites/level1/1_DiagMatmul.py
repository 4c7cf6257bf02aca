import torch
import torch.nn as nn


class Model(nn.Module):
    """C = diag(A) @ B: the diagonal matrix is built inside the model, so C[i, j] = A[i] * B[i, j]
    (a row scaling, O(N*M)) although the compiled model materialises diag(A) (N x N) and runs an
    N x N x M GEMM (O(N^2 * M))."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.diag(A) @ B


N = 4096
M = 4096


def get_inputs():
    A = torch.randn(N)
    B = torch.randn(N, M)
    return [A, B]


def get_init_inputs():
    return []
