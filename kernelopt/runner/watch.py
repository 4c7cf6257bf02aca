"""What a candidate's ``launch()`` made the device do, seen from inside the sandboxed child.

* ``AtenWatch``: every ATen op torch dispatched (a Triton launch dispatches none; the Triton
  interpreter's own copies are subtracted by comparing with Inductor's kernel's launcher).
* ``LaunchWatch``: every Triton kernel launched (the JIT's ``run`` on the GPU, the interpreter's
  grid executor on the CPU), with the file its function was defined in: device work may only
  come from the candidate's own ``@triton.jit`` kernels.
"""

from __future__ import annotations

from typing import Any

from ..core.loader import is_candidate_code

# aten ops a launcher may run (allocation and metadata only); anything else is the unit's work done by torch
ATEN_ALLOWED = {
    "empty",
    "empty_strided",
    "empty_like",
    "as_strided",
    "view",
    "_reshape_alias",
    "detach",
    "alias",
    "lift_fresh",
    "sym_size",
    "sym_stride",
    "sym_numel",
    "sym_storage_offset",
    "is_contiguous",
    "stride",
    "size",
}


class AtenWatch:
    """Records the aten ops torch dispatches inside the block."""

    def __init__(self) -> None:
        from torch.utils._python_dispatch import TorchDispatchMode

        seen: set[str] = set()

        class Watch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
                seen.add(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        self.seen = seen
        self._mode = Watch()

    def __enter__(self) -> AtenWatch:
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._mode.__exit__(*exc)


class LaunchWatch:
    """Records every Triton kernel launch made inside the block: (kernel name, is candidate code)."""

    _installed = False
    _active: list[LaunchWatch] = []

    def __init__(self) -> None:
        self.launches: list[tuple[str, bool]] = []
        LaunchWatch._install()

    @classmethod
    def _record(cls, fn: Any) -> None:
        code = getattr(fn, "__code__", None)
        name = getattr(fn, "__name__", repr(fn))
        for w in cls._active:
            w.launches.append((name, bool(code is not None and is_candidate_code(code.co_filename))))

    @classmethod
    def _install(cls) -> None:
        if cls._installed:
            return
        cls._installed = True
        from triton.runtime import jit

        original_run = jit.JITFunction.run

        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not kwargs.get("warmup"):
                LaunchWatch._record(self.fn)
            return original_run(self, *args, **kwargs)

        jit.JITFunction.run = run
        try:
            from triton.runtime import interpreter

            original_call = interpreter.GridExecutor.__call__

            def call(self: Any, *args: Any, **kwargs: Any) -> Any:
                LaunchWatch._record(self.fn)
                return original_call(self, *args, **kwargs)

            interpreter.GridExecutor.__call__ = call
        except ImportError:
            pass

    def __enter__(self) -> LaunchWatch:
        LaunchWatch._active.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        LaunchWatch._active.remove(self)

    @property
    def foreign(self) -> list[str]:
        """Kernels launched that are not the candidate's own."""
        return sorted({name for name, own in self.launches if not own})
