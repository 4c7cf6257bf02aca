import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Sum reduction over one dimension, keeping it (row sum for dim=1)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 4096
dim = 16384
reduce_dim = 1


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [reduce_dim]
