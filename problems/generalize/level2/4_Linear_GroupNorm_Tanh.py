import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer, a group norm over its features (2-d input: groups of channels) and a tanh."""

    def __init__(self, in_features=64, out_features=48, groups=6):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(groups, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.norm(self.fc(x)))


batch_size, in_features, out_features, groups = 16, 64, 48, 6


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, groups]
