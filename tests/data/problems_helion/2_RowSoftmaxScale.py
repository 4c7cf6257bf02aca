"""A Helion kernel with a row reduction (written for the tests): softmax over the last dim of
x * scale, four rows per tile, the whole row in one block."""

import helion
import helion.language as hl
import torch
import torch.nn as nn


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4), static_shapes=True)
def scaled_softmax(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    n, _m = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        values = x[tile_n, :] * scale[None, :]
        amax = torch.amax(values, dim=1, keepdim=True)
        e = torch.exp(values - amax)
        out[tile_n, :] = e / torch.sum(e, dim=1, keepdim=True)
    return out


class Model(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(cols) + 0.5)

    def forward(self, x):
        return scaled_softmax(x, self.scale)


def reference(model, x):
    return torch.softmax(x * model.scale, dim=-1)


def get_inputs():
    return [torch.randn(10, 48)]


def get_init_inputs():
    return [48]
