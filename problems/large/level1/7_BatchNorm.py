import torch
import torch.nn as nn


class Model(nn.Module):
    """BatchNorm2d (inference: running statistics) on 64 x 64 x 512 x 512 fp32 (4 GiB)."""

    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)
        with torch.no_grad():  # non-trivial running statistics, so the normalisation does something
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


batch_size = 64
features = 64
dim1 = 512
dim2 = 512


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
