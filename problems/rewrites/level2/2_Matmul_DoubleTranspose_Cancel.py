import torch
import torch.nn as nn


class Model(nn.Module):
    """A chain with ops that cancel: a double transpose, a negation taken twice and a ReLU applied
    twice around a GEMM: relu(relu(neg(neg(A @ B.T.T))))."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        y = torch.matmul(A, B.transpose(0, 1).transpose(0, 1))
        return torch.relu(torch.relu(torch.neg(torch.neg(y))))


M = 4096
K = 4096
N = 4096


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
