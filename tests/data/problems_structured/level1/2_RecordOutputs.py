from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Output:
    """A record output, as HuggingFace models return (``ModelOutput``)."""

    hidden: torch.Tensor
    gate: torch.Tensor


class Model(nn.Module):
    """A dataclass output with two fields: tanh(x) + 1 and sigmoid(x) * x."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> Output:
        return Output(hidden=torch.tanh(x) + 1.0, gate=torch.sigmoid(x) * x)


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return []
