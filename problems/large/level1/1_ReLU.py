import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU over a 4096 x 393216 fp32 tensor (6 GiB), KernelBench's elementwise size."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 4096
dim = 393216


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
