"""kernelopt: dispatch-aware optimisation of the Triton kernels that torch.compile generates."""

__version__ = "0.1.0"


def load(run_dir, problem_id, fallback="compile"):
    """The optimized model of ``problem_id`` in the run directory ``run_dir``: a ``torch.nn.Module``
    (the problem's ``Model`` with its parameters) whose calls run the deployed output code when
    they match the captured signature, and ``torch.compile``'s model (``fallback="eager"``:
    eager) otherwise, with one warning (docs/use.md)."""
    from .deploy.export import load as _load

    return _load(run_dir, problem_id, fallback)
