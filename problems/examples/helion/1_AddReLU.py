"""A Helion kernel as the problem: out = relu(x + y), tiled in 2-d with a fixed config."""

import helion
import helion.language as hl
import torch
import torch.nn as nn


@helion.kernel(config=helion.Config(block_sizes=[32, 32], num_warps=4), static_shapes=True)
def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(out.size()):
        out[tile] = torch.relu(x[tile] + y[tile])
    return out


class Model(nn.Module):
    def forward(self, x, y):
        return add_relu(x, y)


def reference(x, y):
    return torch.relu(x + y)


def get_inputs():
    return [torch.randn(100, 70), torch.randn(100, 70)]


def get_init_inputs():
    return []
