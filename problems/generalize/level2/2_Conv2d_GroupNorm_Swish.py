import torch
import torch.nn as nn


class Model(nn.Module):
    """A convolution, a group norm and a swish (x * sigmoid(x))."""

    def __init__(self, in_channels=3, out_channels=8, kernel_size=3, groups=4):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.norm = nn.GroupNorm(groups, out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.conv(x))
        return y * torch.sigmoid(y)


batch_size = 2
in_channels, out_channels, kernel_size, groups = 3, 8, 3, 4
height = width = 10


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, groups]
