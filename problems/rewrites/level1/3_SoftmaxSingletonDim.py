import torch
import torch.nn as nn


class Model(nn.Module):
    """A softmax over a dimension of size 1 (a per-token gate over one expert, say): every output
    is exp(x - x) / exp(x - x) = 1 whatever x holds (finite), yet the compiled model reads x."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1) * x


batch_size = 4096
experts = 1
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, experts, dim)]


def get_init_inputs():
    return []
