import torch
import torch.nn as nn


class Model(nn.Module):
    """Scaled dot-product attention, Q, K, V of 32 x 32 x 512 x 1024 fp32 (2 GiB each)."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


batch_size = 32
num_heads = 32
seq_len = 512
head_dim = 1024


def get_inputs():
    return [torch.randn(batch_size, num_heads, seq_len, head_dim) for _ in range(3)]


def get_init_inputs():
    return []
