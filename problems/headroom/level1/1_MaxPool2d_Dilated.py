import torch
import torch.nn as nn


class Model(nn.Module):
    """2-D max pooling with dilated 3 x 3 windows (stride 1, padding 1, dilation 2):
    each input element is read by nine windows."""

    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


batch_size = 16
channels = 64
height = width = 512
kernel_size = 3
stride = 1
padding = 1
dilation = 2


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [kernel_size, stride, padding, dilation]
