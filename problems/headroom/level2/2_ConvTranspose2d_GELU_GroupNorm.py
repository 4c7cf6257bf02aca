import torch
import torch.nn as nn


class Model(nn.Module):
    """A stride-2 transposed convolution, GELU and GroupNorm."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, groups: int):
        super().__init__()
        self.conv_t = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride)
        self.gn = nn.GroupNorm(groups, out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gn(torch.nn.functional.gelu(self.conv_t(x)))


batch_size = 32
in_channels = 32
out_channels = 64
height = width = 128
kernel_size = 4
stride = 2
groups = 8


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, groups]
