import torch
import torch.nn as nn


class Model(nn.Module):
    """Prefix sum of the elements a boolean mask keeps."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x * mask, dim=self.dim)


batch_size = 8192
length = 32768
dim = 1


def get_inputs():
    x = torch.randn(batch_size, length)
    mask = torch.randint(0, 2, (batch_size, length)).bool()
    return [x, mask]


def get_init_inputs():
    return [dim]
