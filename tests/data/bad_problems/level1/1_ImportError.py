import torch
import torch.nn as nn
import does_not_exist  # noqa: F401 - the import fails on purpose


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
