import torch
import torch.nn as nn


class Model(nn.Module):
    """Cross-entropy loss of 32768 x 4096 logits (512 MiB) against integer targets."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(predictions, targets)


batch_size = 32768
num_classes = 4096


def get_inputs():
    return [torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
