import torch
import torch.nn as nn


class Model(nn.Module):
    """A tanh-GELU written with torch.pow, times a cube and a square root (aten.pow chains)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gelu = 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3.0))))
        return gelu + torch.pow(torch.abs(x) + 1.0, 0.5) * torch.pow(x, 2)


batch_size = 16
dim = 256


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
