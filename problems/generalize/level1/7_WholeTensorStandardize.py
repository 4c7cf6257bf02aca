import torch
import torch.nn as nn


class Model(nn.Module):
    """Standardize a whole tensor by its global mean and standard deviation (one reduction over
    every element: Inductor splits it into partial sums and a final combine)."""

    def __init__(self, eps: float = 1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - x.mean()) / (x.std() + self.eps)


rows, cols = 4, 8192


def get_inputs():
    return [torch.randn(rows, cols) * 3.0 + 1.5]


def get_init_inputs():
    return [1e-5]
