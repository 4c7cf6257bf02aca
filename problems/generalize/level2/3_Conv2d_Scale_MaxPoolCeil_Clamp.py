import torch
import torch.nn as nn


class Model(nn.Module):
    """A convolution, a learned per-channel scale, a 2x2 max pool with ceil_mode (odd sizes: the
    last window hangs over the edge), then a clamp."""

    def __init__(self, in_channels=3, out_channels=8, kernel_size=3):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.scale = nn.Parameter(torch.randn(out_channels, 1, 1))
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2, ceil_mode=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(self.pool(self.conv(x) * self.scale), min=-1.0, max=1.0)


batch_size = 2
in_channels, out_channels, kernel_size = 3, 8, 3
height, width = 11, 9


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
