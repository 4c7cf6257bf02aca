import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum over dim 1 of a 128 x 4096 x 4095 fp32 tensor (8 GiB), keeping the dimension."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 128
dim1 = 4096
dim2 = 4095
reduce_dim = 1


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
