import torch
import torch.nn as nn


class Model(nn.Module):
    """A 3x3 convolution, GroupNorm (8 groups) and tanh; 64 images of 32 x 128 x 128."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)
        self.gn = nn.GroupNorm(groups, out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.gn(self.conv(x)))


batch_size = 64
in_channels = 32
out_channels = 64
height = width = 128
kernel_size = 3
groups = 8


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, groups]
