"""Helion kernels as inputs: a problem whose ``Model.forward`` calls a ``@helion.kernel`` function.

Helion turns a kernel into Triton code for one config (``BoundKernel.to_triton_code``): a
``@triton.jit`` function and a host function that allocates the outputs and launches it.  That
code, for the config Helion chose (the kernel's own ``config=``/``configs=``, else what its
autotuner picks on the first call), is the problem's baseline.  Each module-level Helion
kernel of a problem file is replaced by a :class:`HelionStandIn`: on the first (eager) call it
binds the kernel to the arguments, takes the config, generates the Triton code and puts the
generated host function in the kernel's place in the problem module.  From then on the model
is a standalone Triton problem: ``torch.compile`` keeps the generated kernels as user kernels
and they become units like any user's kernel (isolate/user.py).

Capture always runs the model eagerly before compiling it, so the tracing sees the generated
host function, never Helion's code generation.  The generated code is kept on the stand-in
(``generated``) and saved by capture under ``capture/helion/``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import itertools
import os
import re
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_counter = itertools.count()


def is_helion_kernel(obj: Any) -> bool:
    cls = type(obj)
    return cls.__name__ == "Kernel" and cls.__module__.startswith("helion")


@dataclass
class Generated:
    """One specialization: the config Helion chose and the Triton code it generated for it."""

    kernel: str
    config: str
    code: str
    host: Any  # the generated host function (launches the @triton.jit kernel)
    config_dict: dict[str, Any] | None = None  # the config as data (helion.Config.config)
    args: list[dict[str, Any]] | None = None  # the kernel's arguments at that call (metadata)


def launcher(kernel: Any, grid: tuple[int, ...], *args: Any, **kwargs: Any) -> Any:
    """Helion's ``default_launcher`` in the form Dynamo wraps as a user Triton kernel launch."""
    return kernel[grid](*args, **kwargs)


class HelionStandIn:
    """Stands in for a Helion kernel in a problem module (see the module doc)."""

    def __init__(self, kernel: Any, module: types.ModuleType, attr: str):
        self.kernel, self.module, self.attr = kernel, module, attr
        self.generated: Generated | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import torch

        if torch.compiler.is_compiling():
            raise RuntimeError(
                f"Helion kernel {self.attr}: traced before its first eager call "
                "(kernelopt generates its Triton code on that call)"
            )
        if kwargs:
            raise TypeError(f"Helion kernel {self.attr}: call it with positional arguments (kernelopt's stand-in)")
        if self.generated is None:
            self.generated = generate(self.kernel, args, self.attr)
            host, name, expected = self.generated.host, self.attr, specialization(args)

            def call(*a: Any) -> Any:
                # the code is Helion's for one specialization (static shapes, these dtypes):
                # another call is refused, never run with the wrong sizes baked in
                if specialization(a) != expected:
                    raise ValueError(
                        f"Helion kernel {name} was generated for arguments {expected} and called with "
                        f"{specialization(a)}: kernelopt takes one specialization per Helion kernel"
                    )
                return host(*a, _launcher=launcher)

            call.__name__ = f"{self.attr}_helion_triton"
            call.kernelopt_helion = self.generated  # type: ignore[attr-defined]
            setattr(self.module, self.attr, call)
        return getattr(self.module, self.attr)(*args)


def specialization(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """What Helion's generated code is specialized on: each tensor's shape, stride, dtype and
    device; other arguments by value."""
    import torch

    return tuple(
        (tuple(a.shape), tuple(a.stride()), str(a.dtype), a.device.type) if isinstance(a, torch.Tensor) else a
        for a in args
    )


def generate(kernel: Any, args: tuple[Any, ...], name: str) -> Generated:
    """Bind, settle the config (the kernel's own, else Helion autotunes as it would), generate
    the Triton code and import it (in CPU mode, with the user-kernel ``triton.jit``)."""
    from . import cpu_mode

    if cpu_mode.installed():
        _jit_helpers_for_dynamo()
    bound = kernel.bind(args)
    bound.ensure_config_exists(args)
    config = bound._config  # noqa: SLF001 - the config Helion settled on
    code = inline_helpers(bound.to_triton_code(config))
    # Triton reads a kernel's source from its file: the code goes to a file named by its hash
    digest = hashlib.sha256(code.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / "kernelopt-helion" / f"{name}_{digest}.py"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(code)
        tmp.replace(path)
    spec = importlib.util.spec_from_file_location(f"kernelopt_helion_{name}_{next(_counter)}", path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[mod.__name__] = mod
    with cpu_mode.user_jit() if cpu_mode.installed() else contextlib.nullcontext():
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    host = getattr(mod, kernel.name)
    from .instrument import tensor_meta

    return Generated(
        kernel=name,
        config=repr(config),
        code=code,
        host=host,
        config_dict=dict(getattr(config, "config", {}) or {}),
        args=[tensor_meta(a) for a in args],
    )


def _jit_helpers_for_dynamo() -> None:
    """CPU mode: Helion's ``@triton.jit`` helpers (``helion.runtime.triton.helpers``) were made
    ``InterpretedFunction`` s at import; Inductor follows a user kernel's calls into them and
    accepts only ``JITFunction`` s: make them the interpreter-backed JITFunctions of user kernels."""
    from helion.runtime.triton import helpers
    from triton.runtime.interpreter import InterpretedFunction

    from . import cpu_mode

    cls = cpu_mode.user_jit_class()
    for attr, value in list(vars(helpers).items()):
        if isinstance(value, InterpretedFunction):
            setattr(helpers, attr, cls(value.fn))


def inline_helpers(code: str) -> str:
    """Helion's code with its ``@triton.jit`` helpers copied in: ``from helion... import helpers
    as h`` and ``h.max_propagate_nan(...)`` become the helper's own source (and the helpers it
    calls) and ``max_propagate_nan(...)``.  Inductor copies a user kernel's unqualified
    JITFunction globals into its output code, not module attributes (the compiled model failed
    with "name 'h' is not defined"), and a candidate may import nothing from helion."""
    import ast
    import importlib

    tree = ast.parse(code)
    aliases: dict[str, Any] = {}
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helion"):
            modules = {}
            for a in node.names:
                try:
                    modules[a.asname or a.name] = importlib.import_module(f"{node.module}.{a.name}")
                except ImportError:
                    pass  # not a module (e.g. the default launcher): the line stays
            aliases.update(modules)
            if len(modules) == len(node.names):
                drop.add(node.lineno)
    if not aliases:
        return code
    used: list[Any] = []  # JITFunctions, callees first

    def need(fn: Any) -> None:
        if any(fn is u for u in used):
            return
        for name in fn.fn.__code__.co_names:  # helpers the helper calls, from its own module
            dep = fn.fn.__globals__.get(name)
            if _is_jit(dep) and dep is not fn:
                need(dep)
        used.append(fn)

    text = code
    for alias, mod in aliases.items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == alias
                and _is_jit(getattr(mod, node.attr, None))
            ):
                need(getattr(mod, node.attr))
        text = re.sub(rf"\b{re.escape(alias)}\.", "", text)
    lines = [l for i, l in enumerate(text.splitlines(), 1) if i not in drop]
    at = next(
        i for i, l in enumerate(lines) if l.startswith(("@triton.jit", "_BLOCK_SIZE", "@")) or " = tl.constexpr(" in l
    )
    helpers = [f"@triton.jit\n{_jit_source(fn)}\n\n" for fn in used]
    return "\n".join(lines[:at] + ["# helion's triton helpers, copied in by kernelopt", *helpers] + lines[at:]) + "\n"


def _is_jit(obj: Any) -> bool:
    """A ``@triton.jit`` function (a JITFunction, or in CPU mode an InterpretedFunction)."""
    return obj is not None and type(obj).__name__ in ("JITFunction", "InterpretedFunction", "InterpretedJIT")


def _jit_source(fn: Any) -> str:
    """A jit function's ``def`` (no decorator), as written."""
    import inspect
    import textwrap

    lines = textwrap.dedent(inspect.getsource(fn.fn)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    return "\n".join(lines[start:]).strip()


def triton_kernel_name(code: str) -> str | None:
    """The ``@triton.jit`` kernel Helion's host function launches (``_launcher(kernel, ...)``)."""
    import ast

    for node in ast.walk(ast.parse(code)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_launcher"
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            return node.args[0].id
    return None


def install_stand_ins(module: types.ModuleType) -> list[str]:
    """Replace each module-level Helion kernel by a stand-in; the names replaced."""
    names = [k for k, v in vars(module).items() if is_helion_kernel(v)]
    for k in names:
        setattr(module, k, HelionStandIn(getattr(module, k), module, k))
    return names


def generated_code(module: types.ModuleType) -> dict[str, Generated]:
    """The Triton code generated so far for the problem module's Helion kernels, by name."""
    out: dict[str, Generated] = {}
    for k, v in vars(module).items():
        g = getattr(v, "kernelopt_helion", None) or getattr(v, "generated", None)
        if isinstance(g, Generated):
            out[k] = g
    return out
