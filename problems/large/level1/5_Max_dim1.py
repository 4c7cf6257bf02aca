import torch
import torch.nn as nn


class Model(nn.Module):
    """Max over dim 1 of a 128 x 4096 x 4095 fp32 tensor (8 GiB)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=self.dim)[0]


batch_size = 128
dim1 = 4096
dim2 = 4095


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [1]
