import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x @ torch.randn(3, 3)  # shape mismatch on purpose: (4, 8) @ (3, 3)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
