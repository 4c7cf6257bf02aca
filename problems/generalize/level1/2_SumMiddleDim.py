import torch
import torch.nn as nn


class Model(nn.Module):
    """A sum over the middle dimension of a 3-d tensor (not the last: strided rows)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1)


batch_size = 8
rows = 64
cols = 24


def get_inputs():
    return [torch.randn(batch_size, rows, cols)]


def get_init_inputs():
    return []
