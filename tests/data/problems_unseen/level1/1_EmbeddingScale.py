import torch
import torch.nn as nn


class Model(nn.Module):
    """Embedding lookup (int64 indices) scaled by a per-row weight: an integer input."""

    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.table = nn.Parameter(torch.randn(vocab, dim))

    def forward(self, idx: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return self.table[idx] * w.unsqueeze(-1)


vocab, dim, n = 64, 32, 48


def get_inputs():
    return [torch.randint(0, vocab, (n,)), torch.rand(n)]


def get_init_inputs():
    return [vocab, dim]
