import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Chain of pointwise ops on two inputs: tanh(gelu(x) * y + 1) * 0.5 + x * y."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        h = F.gelu(x) * y + 1.0
        return torch.tanh(h) * 0.5 + x * y


batch_size = 16
dim = 256


def get_inputs():
    x = torch.randn(batch_size, dim)
    y = torch.randn(batch_size, dim)
    return [x, y]


def get_init_inputs():
    return []
