"""A Helion softmax over rows (32768 x 4096 fp32), one row per tile, 4 warps."""

import helion
import helion.language as hl
import torch
import torch.nn as nn


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4), static_shapes=True)
def softmax(x: torch.Tensor) -> torch.Tensor:
    n, _m = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        values = x[tile_n, :]
        amax = torch.amax(values, dim=1, keepdim=True)
        e = torch.exp(values - amax)
        out[tile_n, :] = e / torch.sum(e, dim=1, keepdim=True)
    return out


class Model(nn.Module):
    def forward(self, x):
        return softmax(x)


def reference(x):
    return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(32768, 4096)]


def get_init_inputs():
    return []
