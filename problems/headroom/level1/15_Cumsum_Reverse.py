import torch
import torch.nn as nn


class Model(nn.Module):
    """Suffix sums: a prefix sum from the end of each row (flip, cumsum, flip)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


batch_size = 8192
length = 32768
dim = 1


def get_inputs():
    return [torch.randn(batch_size, length)]


def get_init_inputs():
    return [dim]
