import torch
import torch.nn as nn


class Model(nn.Module):
    """A 3x3 convolution, GroupNorm, a per-channel scale, a tanh, and a LogSumExp over channels."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.gn = nn.GroupNorm(groups, out_channels)
        self.scale = nn.Parameter(torch.randn(out_channels, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.gn(self.conv(x))
        x = torch.tanh(x * self.scale)
        return torch.logsumexp(x, dim=1, keepdim=True)


batch_size = 64
in_channels = 16
out_channels = 64
height = width = 256
kernel_size = 3
groups = 8


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, groups]
