import torch
import torch.nn as nn


class Model(nn.Module):
    """GroupNorm with 8 groups over 64 channels of 256 x 256 maps (1 M elements per group)."""

    def __init__(self, groups: int, channels: int):
        super().__init__()
        self.gn = nn.GroupNorm(groups, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gn(x)


batch_size = 32
channels = 64
groups = 8
height = width = 256


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [groups, channels]
