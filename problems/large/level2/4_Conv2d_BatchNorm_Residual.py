import torch
import torch.nn as nn


class Model(nn.Module):
    """A residual block's tail: 3x3 convolution, BatchNorm (inference), a scale, the input added
    back and ReLU; 128 images of 64 x 128 x 128."""

    def __init__(self, channels: int, kernel_size: int, scale: float):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.5, 1.5)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(self.conv(x)) * self.scale + x)


batch_size = 128
channels = 64
height = width = 128
kernel_size = 3
scale = 0.7


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels, kernel_size, scale]
