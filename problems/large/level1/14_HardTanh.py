import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """HardTanh (clamp to [-1, 1]) on 4096 x 393216 fp32 (6 GiB)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(x, min_val=-1.0, max_val=1.0)


batch_size = 4096
dim = 393216


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
