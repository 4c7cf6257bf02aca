import torch
import torch.nn as nn


class Model(nn.Module):
    """logsumexp over a dimension of size 1 is the identity (log(exp(x)) = x, for finite x),
    and a max over it as well: the model is x * 2 through two reductions."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.logsumexp(x, dim=1, keepdim=True)
        return y + torch.amax(x, dim=1, keepdim=True)


batch_size = 4096
heads = 1
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, heads, dim)]


def get_init_inputs():
    return []
