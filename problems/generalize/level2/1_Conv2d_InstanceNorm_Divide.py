import torch
import torch.nn as nn


class Model(nn.Module):
    """A convolution, an instance norm and a division by a constant."""

    def __init__(self, in_channels=3, out_channels=8, kernel_size=3, divide_by=2.0):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.norm = nn.InstanceNorm2d(out_channels)
        self.divide_by = divide_by

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.conv(x)) / self.divide_by


batch_size = 2
in_channels, out_channels, kernel_size = 3, 8, 3
height = width = 10


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, 2.0]
