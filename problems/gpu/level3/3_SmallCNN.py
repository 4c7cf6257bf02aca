import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Small CNN: (conv3x3-ReLU-maxpool2) x2, adaptive avg pool, flatten, linear."""

    def __init__(self, in_channels: int, channels1: int, channels2: int, num_classes: int):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, channels1, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(channels1, channels2, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels2, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


batch_size = 16
in_channels = 3
height = 224
width = 224
channels1 = 64
channels2 = 128
num_classes = 1000


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, channels1, channels2, num_classes]
