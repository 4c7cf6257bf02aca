import torch
import torch.nn as nn


class Model(nn.Module):
    """1-D max pooling over long sequences: windows of 4 with dilation 3, stride 2, padding 2."""

    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


batch_size = 64
channels = 128
length = 65536
kernel_size = 4
stride = 2
padding = 2
dilation = 3


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [kernel_size, stride, padding, dilation]
