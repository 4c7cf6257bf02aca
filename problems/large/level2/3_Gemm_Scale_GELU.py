import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer (8192 x 8192 by 8192 x 8192), scaled and passed through GELU."""

    def __init__(self, in_features: int, out_features: int, scale: float):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(self.linear(x) * self.scale)


batch_size = 8192
in_features = 8192
out_features = 8192
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scale]
