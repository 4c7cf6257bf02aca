"""kernelopt: dispatch-aware optimisation of the Triton kernels that torch.compile generates."""

__version__ = "0.1.0"
