"""CPU mode: run Inductor-generated Triton kernels in Triton's interpreter.

There is no Triton CPU driver in this environment (``triton.runtime.driver.active``
raises "0 active drivers"), but Triton ships an interpreter (``TRITON_INTERPRET=1``)
that executes ``@triton.jit`` functions block-by-block with numpy.  Inductor has a
Triton CPU backend (``torch._inductor.config.cpu_backend = "triton"``) that emits
Triton kernels for CPU tensors.  Put together, ``torch.compile(model,
mode="max-autotune")`` can generate real Triton kernels and run them on CPU --
once a handful of gaps are papered over.  This module does exactly that.

Usage (once per process, before compiling anything)::

    from kernelopt.core import cpu_mode
    cpu_mode.install()
    with torch.no_grad():
        out = torch.compile(model, mode="max-autotune")(x)

Every patch below is applied by a small function registered in ``_PATCHES``.
Each checks that the attributes it needs exist and otherwise raises
:class:`CpuModePatchError` naming the patch, so a torch/triton upgrade fails
with a clear message instead of a cryptic traceback deep inside Inductor.

Patches, in application order (``patch_descriptions()`` gives the one-line reasons):

* ``interpret_env`` -- set ``TRITON_INTERPRET=1`` and ``triton.knobs.runtime.interpret``;
  if triton was imported earlier (``import torch._inductor.config`` does that), turn
  the ``JITFunction`` s already created in ``triton.language.*`` and Inductor's
  ``triton_helpers`` into ``InterpretedFunction`` s.
* ``cpu_driver`` -- ``triton_helpers.set_driver_to_cpu()`` (run by every generated
  kernel module) warns "Generated kernels will not be executable!": not true here.
* ``backend_hash`` -- ``torch.utils._triton.triton_hash_with_backend`` asks
  ``driver.active`` for its target ("0 active drivers"); use a constant
  interpreter hash (still keyed on the Triton source hash).
* ``raw_stream`` -- the multi-line CPU ``get_raw_stream`` definition breaks the
  dedented benchmark-kernel template (IndentationError) whenever Inductor generates
  a kernel for benchmarking (``benchmark_kernel``, fusion benchmarking); one line.
* ``libdevice`` -- ``triton.language.extra.libdevice`` only holds stubs and the
  interpreter's ``create_extern_elementwise`` raises.  Route calls to ``tl.math``
  (resolved at call time, i.e. the interpreter's own builtins) or through the CUDA
  libdevice wrappers (Triton's dtype dispatch) into numpy / torch implementations.
* ``reduce_fast_paths`` -- combine functions other than ``tl.sum``/``tl.max``...
  (``triton_helpers.maximum`` behind every softmax, ``welford_combine``,
  ``maximum_with_index``...) go through the interpreter's per-element
  ``generic_reduce``; use numpy for max/min(+index), a vectorised tree otherwise.
* ``scan_fast_paths`` -- same for ``tl.associative_scan`` (cumsum, cummax...): a
  vectorised Hillis-Steele scan instead of the per-element ``generic_scan``.
* ``interpret_config`` -- in interpret mode Inductor launches ``configs[0]``; launch
  the config needing the fewest interpreted block-programs instead (it is moved to
  ``configs[0]``, so "configs[0] is what ran" still holds after a launch).
* ``user_kernels`` -- user-written ``@triton.jit`` kernels (standalone Triton problems) on the
  CPU: Dynamo wraps a kernel only if ``has_triton()`` (false without a GPU), Inductor asks the
  CPU device interface for a Triton 'cpu' backend and the backend-option names of the target,
  and ``CachingAutotuner.run`` in interpret mode cannot bind a user kernel's constexprs and
  fixed grid.  Answer those for Dynamo's builder only, name options from a CUDA target, and
  launch user kernels through the interpreter with their recorded constants and grid.
  :func:`user_jit` makes a problem file's ``@triton.jit`` a ``JITFunction`` (so Dynamo sees a
  Triton kernel) whose eager launch runs in the interpreter.
* ``inductor_config`` -- ``cpu_backend="triton"``, ATen-only GEMM/conv autotuning,
  no epilogue-fusion benchmarking, one compile thread (see ``inductor_config()``).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "CpuModePatchError",
    "install",
    "installed",
    "inductor_config",
    "patch_descriptions",
    "run_user_kernel_interpreted",
    "user_jit",
    "user_jit_class",
]


class CpuModePatchError(RuntimeError):
    """A CPU-mode patch could not be applied (usually a torch/triton version drift)."""

    def __init__(self, patch: str, detail: str) -> None:
        super().__init__(f"kernelopt.cpu_mode patch {patch!r} failed: {detail}")
        self.patch = patch


# Inductor config overrides for CPU mode (exposed via inductor_config() so that
# callers can record exactly what was applied).
_INDUCTOR_CONFIG: dict[str, object] = {
    # Emit Triton kernels (instead of C++/OpenMP) for CPU tensors.
    "cpu_backend": "triton",
    # There are no Triton GEMM/conv templates for CPU; keep autotuning on ATen.
    "max_autotune_gemm_backends": "ATEN",
    "max_autotune_conv_backends": "ATEN",
    # Epilogue-fusion benchmarking compiles/benchmarks template variants, which
    # don't exist on CPU (and benchmarking in the interpreter is meaningless).
    "benchmark_epilogue_fusion": False,
    # Interpret-mode kernels are loaded in-process anyway (async_compile.triton
    # short-circuits); a compile-worker pool would only cost startup time and
    # memory, and worker processes would not carry these patches.
    "compile_threads": 1,
}

# Inductor's Triton helper library (combine functions, set_driver_to_cpu...).
_HELPERS_MODULE = "torch._inductor.runtime.triton_helpers"

_lock = threading.RLock()
_installed = False
_applied: list[str] = []


def inductor_config() -> dict[str, object]:
    """Return the ``torch._inductor.config`` overrides that :func:`install` applies."""
    return dict(_INDUCTOR_CONFIG)


def installed() -> bool:
    """Whether :func:`install` has completed in this process."""
    return _installed


def _require(patch: str, obj: Any, *attrs: str) -> None:
    """Raise a :class:`CpuModePatchError` unless ``obj`` has all ``attrs``."""
    for attr in attrs:
        if not hasattr(obj, attr):
            name = getattr(obj, "__name__", type(obj).__name__)
            raise CpuModePatchError(patch, f"{name} has no attribute {attr!r} (torch/triton version drift?)")


def _mark(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn.__kernelopt_cpu_mode__ = True  # type: ignore[attr-defined]
    return fn


def _is_ours(fn: Any) -> bool:
    return getattr(fn, "__kernelopt_cpu_mode__", False)


# ---------------------------------------------------------------------------
# interpret_env
# ---------------------------------------------------------------------------


def _patch_interpret_env() -> None:
    """Turn on Triton's interpreter, even if triton was already imported."""
    os.environ["TRITON_INTERPRET"] = "1"
    import triton

    # triton.knobs reads the env lazily, but an explicit knob value wins over the
    # env (and someone may have set it to False): set it explicitly.
    knobs = getattr(triton, "knobs", None)
    if knobs is None or not hasattr(knobs, "runtime"):
        raise CpuModePatchError("interpret_env", "triton.knobs.runtime is missing (triton version drift?)")
    knobs.runtime.interpret = True
    _convert_existing_jit_functions()


def _convert_existing_jit_functions() -> None:
    """Swap ``JITFunction`` s created before the interpreter was enabled.

    ``@triton.jit`` picks ``JITFunction`` vs ``InterpretedFunction`` at decoration
    time.  ``import torch._inductor.config`` (or ``torch._dynamo``) already imports
    triton, so if :func:`install` runs after that, ``tl.standard`` (``tl.sum``,
    ``tl.cumsum``...), ``tl.random`` and Inductor's ``triton_helpers`` hold real
    ``JITFunction`` s, which fail inside the interpreter with "Cannot call
    @triton.jit'd outside of the scope of a kernel".  Rebind them (module
    attributes and ``tl.tensor`` member functions) to ``InterpretedFunction`` s,
    one per underlying Python function so identity checks (``combine_fn is
    tl.standard._sum_combine``) keep working.
    """
    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    converted: dict[int, Any] = {}

    def convert(jf: Any) -> Any:
        key = id(jf.fn)
        if key not in converted:
            converted[key] = InterpretedFunction(jf.fn)
        return converted[key]

    for mod_name, mod in list(sys.modules.items()):
        if not (
            mod_name == "triton.language" or mod_name.startswith("triton.language.") or mod_name == _HELPERS_MODULE
        ):
            continue
        namespace = getattr(mod, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for attr, value in list(namespace.items()):
            if isinstance(value, JITFunction):
                namespace[attr] = convert(value)

    # ``@_tensor_member_fn`` installed JITFunctions as tl.tensor methods; in
    # interpret mode it installs a plain forwarding function instead.
    for attr, value in list(vars(tl.core.tensor).items()):
        if isinstance(value, JITFunction):
            target = convert(value)

            def member(*args: Any, _target: Any = target, **kwargs: Any) -> Any:
                return _target(*args, **kwargs)

            member.__name__ = attr
            setattr(tl.core.tensor, attr, member)


# ---------------------------------------------------------------------------
# backend_hash
# ---------------------------------------------------------------------------


@functools.cache
def _interpreter_backend_hash() -> str:
    import hashlib

    from torch._inductor.runtime.triton_compat import triton_key

    key = f"{triton_key()}-kernelopt-triton-interpreter"
    # Upper case like the original so that it cannot form a Python keyword.
    return hashlib.sha256(key.encode("utf-8")).hexdigest().upper()


def _patch_backend_hash() -> None:
    """``triton_hash_with_backend`` asks the (absent) active driver for its target."""
    import torch.utils._triton as ut

    _require("backend_hash", ut, "triton_hash_with_backend", "triton_backend")
    hashed = _mark(lambda: _interpreter_backend_hash())
    hashed.__name__ = "triton_hash_with_backend"
    ut.triton_hash_with_backend = hashed
    # Also rebind anywhere it was imported by name (none in torch 2.13, where all
    # users go through ``torch.utils._triton.<name>``, but be robust).
    for mod in list(sys.modules.values()):
        # vars(): some torch pseudo-modules (torch.classes) have a throwing __getattr__.
        namespace = getattr(mod, "__dict__", None)
        if not isinstance(namespace, dict) or mod is ut:
            continue
        if not str(namespace.get("__name__", "")).startswith("torch"):
            continue
        current = namespace.get("triton_hash_with_backend")
        if current is not None and not _is_ours(current):
            namespace["triton_hash_with_backend"] = hashed


# ---------------------------------------------------------------------------
# cpu_driver
# ---------------------------------------------------------------------------


def _patch_cpu_driver() -> None:
    """Silence ``triton_helpers.set_driver_to_cpu`` in interpret mode.

    Every generated CPU kernel module calls it at import; without a triton-cpu
    backend it warns "Generated kernels will not be executable!", which is false
    under the interpreter (no driver is needed) and would mislead readers.
    """
    from torch._inductor.runtime import triton_helpers

    _require("cpu_driver", triton_helpers, "set_driver_to_cpu")

    def set_driver_to_cpu() -> None:
        import triton

        if "cpu" in getattr(triton.backends, "backends", {}):  # a real triton-cpu: keep stock behaviour
            return original()
        return None

    original = triton_helpers.set_driver_to_cpu
    if not _is_ours(original):
        triton_helpers.set_driver_to_cpu = _mark(set_driver_to_cpu)


# ---------------------------------------------------------------------------
# raw_stream
# ---------------------------------------------------------------------------


def _patch_raw_stream() -> None:
    """Make the CPU ``get_raw_stream`` definition a single line.

    ``TritonKernel.imports_for_benchmark_kernel`` splices the definition into an
    indented template and then ``textwrap.dedent``s it; the stock multi-line,
    column-0 ``def`` defeats the dedent and the benchmark module fails to import
    with an IndentationError.  The template is used whenever Inductor generates a
    kernel for benchmarking: ``config.benchmark_kernel`` (TORCHINDUCTOR_BENCHMARK_KERNEL=1),
    fusion / mix-order-reduction benchmarking, combo kernels.
    """
    from torch._inductor.codegen import cpu_device_op_overrides as m

    _require("raw_stream", m, "CpuDeviceOpOverrides")
    _require("raw_stream", m.CpuDeviceOpOverrides, "import_get_raw_stream_as")

    def import_get_raw_stream_as(self: Any, name: str) -> str:
        return f"def {name}(_): return 0"

    m.CpuDeviceOpOverrides.import_get_raw_stream_as = _mark(import_get_raw_stream_as)


# ---------------------------------------------------------------------------
# libdevice
# ---------------------------------------------------------------------------


def _np() -> Any:
    import numpy

    return numpy


def _torch_unary(fn_name: str) -> Callable[[Any], Any]:
    """A numpy->numpy wrapper around a torch elementwise function (for what numpy lacks)."""

    def run(x: Any) -> Any:
        import torch

        np = _np()
        t = torch.from_numpy(np.ascontiguousarray(x))
        fn: Any = torch
        for part in fn_name.split("."):
            fn = getattr(fn, part)
        return fn(t).numpy()

    return run


def _round_half_away(x: Any) -> Any:
    np = _np()
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def _gamma(x: Any) -> Any:
    np = _np()

    def one(v: float) -> float:
        try:
            return math.gamma(v)
        except (ValueError, OverflowError):
            return math.inf if v == 0 or v > 0 else math.nan

    return np.vectorize(one, otypes=[np.float64])(x)


def _ilogb(x: Any) -> Any:
    np = _np()
    return np.frexp(x)[1] - 1


_ROUNDINGS = ("rn", "rz", "rd", "ru")  # libdevice's rounding-mode variants, one numpy op for all four

# libdevice name -> numpy function of that name (``np.<value>``)
_NUMPY_OPS: dict[str, str] = {
    # exp / log family
    "exp": "exp",
    "fast_expf": "exp",
    "exp2": "exp2",
    "expm1": "expm1",
    "log": "log",
    "fast_logf": "log",
    "log2": "log2",
    "fast_log2f": "log2",
    "log10": "log10",
    "fast_log10f": "log10",
    "log1p": "log1p",
    # powers / roots
    "pow": "power",
    "fast_powf": "power",
    "sqrt": "sqrt",
    **{f"sqrt_{r}": "sqrt" for r in _ROUNDINGS},
    "cbrt": "cbrt",
    "hypot": "hypot",
    # trig / hyperbolic
    "sin": "sin",
    "fast_sinf": "sin",
    "cos": "cos",
    "fast_cosf": "cos",
    "tan": "tan",
    "fast_tanf": "tan",
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "atan2": "arctan2",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "fast_tanhf": "tanh",
    "asinh": "arcsinh",
    "acosh": "arccosh",
    "atanh": "arctanh",
    # rounding
    "floor": "floor",
    "ceil": "ceil",
    "trunc": "trunc",
    "rint": "rint",
    "nearbyint": "rint",
    "llrint": "rint",
    # classification
    "isnan": "isnan",
    "isinf": "isinf",
    "finitef": "isfinite",
    "isfinited": "isfinite",
    "signbit": "signbit",
    # misc binary float ops
    "fmod": "fmod",
    "copysign": "copysign",
    "nextafter": "nextafter",
    "abs": "abs",
    **{f"add_{r}": "add" for r in _ROUNDINGS},
    **{f"sub_{r}": "subtract" for r in _ROUNDINGS},
    **{f"mul_{r}": "multiply" for r in _ROUNDINGS},
}

# special functions numpy lacks: libdevice name -> torch function (``torch.<value>``), which also
# makes them bit-compatible with eager
_TORCH_OPS: dict[str, str] = {
    "erf": "special.erf",
    "erfc": "special.erfc",
    "erfinv": "special.erfinv",
    "erfcx": "special.erfcx",
    "normcdf": "special.ndtr",
    "normcdfinv": "special.ndtri",
    "lgamma": "lgamma",
    "j0": "special.bessel_j0",
    "j1": "special.bessel_j1",
    "y0": "special.bessel_y0",
    "y1": "special.bessel_y1",
    "cyl_bessel_i0": "special.i0",
    "cyl_bessel_i1": "special.i1",
}


def _composite_ops(np: Any) -> dict[str, Callable[..., Any]]:
    """libdevice functions that are a formula over numpy (or torch) ones."""
    rcp = lambda x: 1.0 / x  # noqa: E731
    div = lambda a, b: a / b  # noqa: E731
    fma = lambda a, b, c: a * b + c  # noqa: E731
    ldexp = lambda a, b: np.ldexp(a, b.astype(np.int32))  # noqa: E731
    return {
        "exp10": lambda x: np.power(10.0, x),
        "fast_exp10f": lambda x: np.power(10.0, x),
        "logb": lambda x: np.floor(np.log2(np.abs(x))),
        "ilogb": _ilogb,
        "rsqrt": lambda x: 1.0 / np.sqrt(x),
        "rsqrt_rn": lambda x: 1.0 / np.sqrt(x),
        "rcbrt": lambda x: 1.0 / np.cbrt(x),
        "rhypot": lambda a, b: 1.0 / np.hypot(a, b),
        "norm3d": lambda a, b, c: np.sqrt(a * a + b * b + c * c),
        "rnorm3d": lambda a, b, c: 1.0 / np.sqrt(a * a + b * b + c * c),
        "norm4d": lambda a, b, c, d: np.sqrt(a * a + b * b + c * c + d * d),
        "rnorm4d": lambda a, b, c, d: 1.0 / np.sqrt(a * a + b * b + c * c + d * d),
        "sinpi": lambda x: np.sin(np.pi * x),
        "cospi": lambda x: np.cos(np.pi * x),
        "erfcinv": lambda x: _torch_unary("special.erfinv")(1.0 - x),
        "tgamma": _gamma,
        "round": _round_half_away,
        "llround": _round_half_away,
        "remainder": lambda a, b: a - np.rint(a / b) * b,
        "fdim": lambda a, b: np.where(a > b, a - b, np.where(np.isnan(a) | np.isnan(b), a + b, 0)),
        "ldexp": ldexp,
        "scalbn": ldexp,
        "saturatef": lambda x: np.clip(x, 0.0, 1.0),
        "fma": fma,
        **{f"fma_{r}": fma for r in _ROUNDINGS},
        **{f"div_{r}": div for r in _ROUNDINGS},
        "fast_dividef": div,
        **{f"rcp_{r}": rcp for r in _ROUNDINGS},
        # integer helpers
        "hadd": lambda a, b: (a.astype(np.int64) + b) >> 1,
        "rhadd": lambda a, b: (a.astype(np.int64) + b + 1) >> 1,
        "mul24": lambda a, b: a * b,
        "sad": lambda a, b, c: np.abs(a.astype(np.int64) - b) + c,
    }


def _build_libdevice_numpy_table() -> dict[str, Callable[..., Any]]:
    """libdevice function name -> numpy-array implementation.

    Inputs arrive already broadcast and typed by Triton's own ``extern_elementwise``
    dispatch; the result is cast to the libdevice return type by the caller.
    Functions numpy lacks (erfinv, lgamma, Bessel...) go through torch, which
    also makes them bit-compatible with eager.
    """
    np = _np()
    table: dict[str, Callable[..., Any]] = {name: getattr(np, fn) for name, fn in _NUMPY_OPS.items()}
    table.update({name: _torch_unary(fn) for name, fn in _TORCH_OPS.items()})
    table.update(_composite_ops(np))
    return table


def _convert_impl(name: str) -> Callable[..., Any] | None:
    """Implement libdevice's ``<src>2<dst>_<rounding>`` conversions and bit casts."""
    np = _np()
    if "_as_" in name:  # float_as_int, int_as_float, double_as_longlong, ...
        return lambda x: x  # reinterpretation is done by the caller (view)
    if "2" in name and name.rsplit("_", 1)[-1] in ("rn", "rz", "rd", "ru"):
        mode = name.rsplit("_", 1)[-1]
        rounder = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[mode]
        return lambda x: rounder(x) if np.issubdtype(x.dtype, np.floating) else x
    return None


@functools.cache
def _libdevice_symbols() -> dict[str, str]:
    """Map CUDA libdevice symbols (``__nv_tanhf``) to function names (``tanh``).

    Parsed from ``triton/language/extra/cuda/libdevice.py`` so that we reuse
    Triton's own per-dtype dispatch tables instead of duplicating them.
    """
    from triton.language.extra.cuda import libdevice as cuda_ld

    tree = ast.parse(inspect.getsource(cuda_ld))
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value.startswith("__"):
                    out[sub.value] = node.name
    return out


def _extern_elementwise(interp: Any) -> Callable[..., Any]:
    """``InterpreterBuilder.create_extern_elementwise`` with numpy/torch: the libdevice symbol's
    function from the table (or a conversion), its result cast (or reinterpreted) to the return
    type."""
    np = _np()
    table = _build_libdevice_numpy_table()
    symbols = _libdevice_symbols()

    def create_extern_elementwise(
        self: Any, libName: str, libPath: str, symbol: str, argList: list[Any], retType: Any, isPure: bool
    ) -> Any:
        name = symbols.get(symbol, symbol)
        impl = table.get(name) or _convert_impl(name)
        if impl is None:
            raise NotImplementedError(
                f"kernelopt.cpu_mode: libdevice.{name} ({symbol}) has no interpreter implementation"
            )
        ret_ty = getattr(retType, "element_ty", retType)
        ret_np = interp._get_np_dtype(ret_ty)
        datas = [a.data if isinstance(a, interp.TensorHandle) else np.asarray(a) for a in argList]
        with np.errstate(all="ignore"):
            out = np.asarray(impl(*datas))
        if "_as_" in name:
            out = np.ascontiguousarray(out).view(ret_np)
        else:
            out = out.astype(ret_np)
        return interp.TensorHandle(out, ret_ty)

    return create_extern_elementwise


def _libdevice_wrapper(name: str, math_builtins: set[str], cuda_ld: Any, interp: Any) -> Callable[..., Any]:
    """The stub ``libdevice.<name>`` replaced: ``tl.math.<name>`` looked up at call time if it is
    a math builtin, else the CUDA libdevice wrapper called with the interpreter semantic."""
    import triton.language as tl
    from triton.language.extra import libdevice as stub_ld

    if name in math_builtins:

        def fn(*args: Any, **kwargs: Any) -> Any:
            kwargs.pop("_semantic", None)
            # Looked up at call time: inside a running kernel this is the
            # interpreter-patched builtin.
            return getattr(tl.math, name)(*args, **kwargs)

    else:
        target = getattr(cuda_ld, name, None)

        def fn(*args: Any, **kwargs: Any) -> Any:
            if target is None:
                raise NotImplementedError(f"kernelopt.cpu_mode: libdevice.{name} is not available")
            kwargs["_semantic"] = interp.interpreter_semantic
            return target(*args, **kwargs)

    fn.__name__ = name
    fn.__qualname__ = name
    # Keep Triton's JIT dependency hasher treating these as libdevice stubs.
    fn.__module__ = stub_ld.__name__
    return _mark(fn)


def _patch_libdevice() -> None:
    """Make ``libdevice.<fn>`` callable inside the interpreter.

    ``triton.language.extra.libdevice`` (what Inductor kernels and
    ``triton_helpers`` import as ``libdevice``) only contains ``...`` stubs that
    the real compiler redirects to a backend library; the interpreter does no
    such redirection and its ``create_extern_elementwise`` raises.  We

    * replace each stub with a lazily-resolving wrapper: names in ``tl.math``
      call ``tl.math.<name>`` *at call time* (the interpreter patches ``tl.math``
      builtins only while a kernel runs), the rest call the CUDA libdevice
      wrapper (for dtype dispatch/broadcasting) with the interpreter semantic;
    * implement ``InterpreterBuilder.create_extern_elementwise`` with numpy/torch.
    """
    import triton.language as tl
    from triton.language.extra import libdevice as stub_ld
    from triton.runtime import interpreter as interp

    try:
        from triton.language.extra.cuda import libdevice as cuda_ld
    except ImportError as e:  # pragma: no cover
        raise CpuModePatchError("libdevice", f"cannot import triton.language.extra.cuda.libdevice: {e}") from e
    _require("libdevice", interp, "InterpreterBuilder", "interpreter_semantic", "TensorHandle", "_get_np_dtype")
    _require("libdevice", interp.InterpreterBuilder, "create_extern_elementwise")

    interp.InterpreterBuilder.create_extern_elementwise = _mark(_extern_elementwise(interp))

    math_builtins = {n for n, v in inspect.getmembers(tl.math) if tl.core.is_builtin(v)}
    for name, stub in inspect.getmembers(stub_ld, inspect.isfunction):
        if _is_ours(stub):
            continue
        setattr(stub_ld, name, _libdevice_wrapper(name, math_builtins, cuda_ld, interp))


# ---------------------------------------------------------------------------
# reduce_fast_paths / scan_fast_paths
# ---------------------------------------------------------------------------


def _combine_name(combine_fn: Any) -> str | None:
    """Name of an Inductor ``triton_helpers`` combine function, else None."""
    fn = getattr(combine_fn, "fn", combine_fn)
    if getattr(fn, "__module__", None) == _HELPERS_MODULE:
        return getattr(fn, "__name__", None)
    return None


def _call_combine(self: Any, lhs: list[Any], rhs: list[Any], dtypes: list[Any]) -> list[Any]:
    """Apply the combine function to whole numpy slices at once.

    The interpreter's ``generic_reduce``/``generic_scan`` call ``combine_fn.fn``
    with one-element tensors; the function is elementwise, so calling it with
    equally-shaped blocks computes all those combinations in one go.
    Results are cast back to the input dtypes, as the generic code does.
    """
    import triton.language as tl

    np = _np()
    shape = lhs[0].shape
    size = int(lhs[0].size)
    # Interpreter tensors must have power-of-2 block shapes, which slices of a
    # scan (n - offset) are not: flatten and pad (edge values; results dropped).
    padded = 1 << max(size - 1, 0).bit_length()

    def prep(a: Any) -> Any:
        flat = np.ascontiguousarray(a).reshape(-1)
        return np.pad(flat, (0, padded - size), mode="edge") if padded != size else flat

    args = [self.to_tensor(prep(a), dt) for a, dt in zip(lhs + rhs, dtypes + dtypes)]
    ret = self.combine_fn.fn(*args)
    ret = ret if isinstance(ret, tuple) else (ret,)
    if len(ret) != len(lhs):
        raise ValueError("combine function returned an unexpected number of values")
    out = []
    for r, a in zip(ret, lhs):
        data = r.handle.data if isinstance(r, tl.core.tensor) else np.asarray(getattr(r, "value", r))
        data = np.broadcast_to(data, (padded,))[:size].reshape(shape)
        out.append(data.astype(a.dtype, copy=False))
    return out


def _numpy_reduce(name: str, arrays: list[Any], axis: int) -> list[Any] | None:
    """Exact numpy versions of the hottest Inductor combine helpers."""
    np = _np()
    if name in ("maximum", "minimum") and len(arrays) == 1:
        # np.max/np.min propagate NaN, like triton_helpers.maximum/minimum.
        red = np.max if name == "maximum" else np.min
        return [red(arrays[0], axis=axis)]
    if name in ("maximum_with_index", "minimum_with_index") and len(arrays) == 2:
        val, idx = arrays
        red = np.max if name == "maximum_with_index" else np.min
        best = red(val, axis=axis, keepdims=True)
        hit = val == best
        if np.issubdtype(val.dtype, np.floating):
            hit |= np.isnan(val) & np.isnan(best)  # the helper treats NaNs as equal
        # Among equal values the helper keeps the lowest index.
        big = np.iinfo(idx.dtype).max if np.issubdtype(idx.dtype, np.integer) else np.inf
        return [np.squeeze(best, axis=axis), np.min(np.where(hit, idx, big), axis=axis).astype(idx.dtype)]
    return None


def _tree_reduce(self: Any, arrays: list[Any], dtypes: list[Any], axis: int) -> list[Any]:
    """Pairwise (tree) reduction: log2(n) vectorised combine calls.

    Valid because Triton requires combine functions to be associative (the GPU
    compiler reduces in a tree too); left/right operand order is preserved.
    """
    np = _np()
    cur = [np.moveaxis(a, axis, -1) for a in arrays]
    while cur[0].shape[-1] > 1:
        n = cur[0].shape[-1]
        even = n - (n % 2)
        res = _call_combine(self, [c[..., 0:even:2] for c in cur], [c[..., 1:even:2] for c in cur], dtypes)
        if n % 2:
            res = [np.concatenate([r, c[..., -1:]], axis=-1) for r, c in zip(res, cur)]
        cur = res
    return [c[..., 0] for c in cur]


def _patch_reduce_fast_paths() -> None:
    """Vectorise ``tl.reduce`` with non-standard combine functions.

    The interpreter only special-cases ``tl.sum``/``tl.max``/``tl.argmax``...;
    any other combine function (``triton_helpers.maximum`` behind ``max2`` in every
    softmax, ``welford_combine``, ``maximum_with_index``, ``prod``, ``any``...) runs
    through ``ReduceOps.generic_reduce``, which calls the interpreted combine
    function once per element, far slower than numpy on the whole block (docs/gpu.md,
    "CPU mode").
    We replace ``generic_reduce`` with exact numpy versions of max/min(+index)
    and a vectorised tree reduction for every other combine function; if that
    raises, the original per-element code runs.
    """
    from triton.runtime import interpreter as interp

    _require("reduce_fast_paths", interp, "ReduceOps")
    _require("reduce_fast_paths", interp.ReduceOps, "generic_reduce", "unravel", "to_tensor")
    orig = interp.ReduceOps.generic_reduce
    if _is_ours(orig):
        return
    np = _np()

    def generic_reduce(self: Any, input: tuple[Any, ...]) -> Any:
        original_axis = self.axis
        try:
            inputs, axis = self.unravel(input, self.axis)
            arrays = [t.handle.data for t in inputs]
            dtypes = [t.dtype for t in inputs]
            if arrays[0].shape[axis] == 0:
                return orig(self, input)
            with np.errstate(all="ignore"):
                name = _combine_name(self.combine_fn)
                out = _numpy_reduce(name, arrays, axis) if name else None
                if out is None:
                    out = _tree_reduce(self, arrays, dtypes, axis)
        except Exception:
            return orig(self, input)
        # Shape the outputs exactly like generic_reduce does.
        ret = []
        for data, dtype in zip(out, dtypes):
            data = np.asarray(data)
            if self.keep_dims:
                if original_axis is not None:
                    data = np.expand_dims(data, axis)
                else:
                    for _ in range(arrays[0].ndim):
                        data = np.expand_dims(data, 0)
            elif original_axis is None:
                data = data.item()
            ret.append(self.to_tensor(data, dtype))
        return ret

    generic_reduce.__wrapped__ = orig  # type: ignore[attr-defined]
    interp.ReduceOps.generic_reduce = _mark(generic_reduce)


def _patch_scan_fast_paths() -> None:
    """Vectorise ``tl.associative_scan`` with non-standard combine functions.

    Inductor's scans (cumsum, cumprod, cummax...) pass combine functions that it
    generates into the kernel source (``_triton_helper_fn_add0``...), which the
    interpreter does not recognise, so ``ScanOps.generic_scan`` calls them once
    per element.  We run a Hillis-Steele scan instead: log2(n) vectorised combine
    calls (associativity is required by Triton anyway).  ``reverse`` is handled
    by the caller (``ScanOps.apply_impl``) as before.
    """
    from triton.runtime import interpreter as interp

    _require("scan_fast_paths", interp, "ScanOps")
    _require("scan_fast_paths", interp.ScanOps, "generic_scan", "to_tensor")
    orig = interp.ScanOps.generic_scan
    if _is_ours(orig):
        return
    np = _np()

    def generic_scan(self: Any, input: Any) -> Any:
        try:
            arrays = [t.handle.data for t in input]
            dtypes = [t.dtype for t in input]
            axis = self.axis
            cur = [np.moveaxis(a, axis, -1).copy() for a in arrays]
            n = cur[0].shape[-1]
            offset = 1
            with np.errstate(all="ignore"):
                while offset < n:
                    res = _call_combine(
                        self, [c[..., : n - offset] for c in cur], [c[..., offset:] for c in cur], dtypes
                    )
                    nxt = [c.copy() for c in cur]
                    for dst, r in zip(nxt, res):
                        dst[..., offset:] = r
                    cur = nxt
                    offset *= 2
            return [self.to_tensor(np.ascontiguousarray(np.moveaxis(c, -1, axis)), dt) for c, dt in zip(cur, dtypes)]
        except Exception:
            return orig(self, input)

    generic_scan.__wrapped__ = orig  # type: ignore[attr-defined]
    interp.ScanOps.generic_scan = _mark(generic_scan)


# ---------------------------------------------------------------------------
# interpret_config
# ---------------------------------------------------------------------------


def _config_cost(self: Any, args: tuple[Any, ...], cfg: Any) -> tuple[int, int]:
    """(interpreted block-programs incl. reduction-loop trips, block elements)."""
    _, grid = self._interpret_args_grid(args, cfg)
    programs = 1
    for g in grid:
        programs *= max(int(g), 1)
    kwargs = dict(getattr(cfg, "kwargs", {}) or {})
    names = [n for n in self.triton_meta.get("signature", {}) if n not in kwargs]
    bound = dict(zip(names, args))
    elems = 1
    for key, block in kwargs.items():
        if not (isinstance(key, str) and key.endswith("BLOCK") and isinstance(block, int)):
            continue
        elems *= max(block, 1)
        # Reduction loop trips: R0_BLOCK -> r0_numel; x/y/z are already in the grid.
        if key.startswith("R"):
            numel = bound.get(key[: -len("BLOCK")].lower() + "numel")
            if isinstance(numel, int) and numel > 0:
                programs *= -(-numel // block)
    return programs, elems


def _patch_interpret_config() -> None:
    """Pick the launch config in interpret mode instead of blindly ``configs[0]``.

    ``CachingAutotuner.run`` in interpret mode launches ``self.configs[0]``,
    frequently ``XBLOCK=1``: one Python-level program per row, very slow.  Each
    interpreted program costs a roughly constant Python overhead, so choose the
    config with the fewest programs (ties: the smallest block, less masked work)
    and move it to the front of ``configs`` before delegating to the original.
    """
    from torch._inductor.runtime import triton_heuristics as th

    _require("interpret_config", th, "CachingAutotuner")
    _require("interpret_config", th.CachingAutotuner, "run", "_interpret_args_grid")
    orig = th.CachingAutotuner.run
    if _is_ours(orig):
        return

    @functools.wraps(orig)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(self, "triton_interpret", False) and getattr(self, "custom_kernel", False):
            return run_user_kernel_interpreted(self, args, kwargs)  # a user's own kernel
        configs = getattr(self, "configs", None)
        if getattr(self, "triton_interpret", False) and configs and len(configs) > 1:
            key = tuple(a for a in args if isinstance(a, int) and not isinstance(a, bool))
            cache = self.__dict__.setdefault("_kernelopt_cfg_choice", {})
            best = cache.get(key)
            if best is None:
                try:
                    best = min(configs, key=lambda c: _config_cost(self, args, c))
                except Exception:  # cost model failed: keep Inductor's choice
                    best = configs[0]
                cache[key] = best
            if configs[0] is not best:
                self.configs = [best] + [c for c in configs if c is not best]
        return orig(self, *args, **kwargs)

    th.CachingAutotuner.run = _mark(run)


# ---------------------------------------------------------------------------
# user_kernels
# ---------------------------------------------------------------------------

_DYNAMO_ASKS = ("torch._dynamo.variables.builder",)


def _patch_user_kernels() -> None:
    """Let Dynamo and Inductor take user-written Triton kernels on the CPU (see the module doc)."""
    import torch.utils._triton as tu
    from torch._dynamo import device_interface as di
    from torch._inductor.runtime import triton_helpers as thelp
    from torch._inductor.runtime import triton_heuristics as th

    _require("user_kernels", tu, "has_triton")
    _require("user_kernels", di, "CpuInterface")
    _require("user_kernels", thelp, "get_backend_options_for_target")
    _require("user_kernels", th, "CachingAutotuner", "GridExpr")
    orig_has = tu.has_triton
    if not _is_ours(orig_has):

        @functools.wraps(orig_has)
        def has_triton() -> bool:
            # only Dynamo's variable builder is told yes: it then wraps a JITFunction as a
            # user Triton kernel instead of tracing into it; everything else sees the truth
            caller = sys._getframe(1).f_globals.get("__name__", "")
            return True if caller in _DYNAMO_ASKS else orig_has()

        tu.has_triton = _mark(has_triton)
    di.CpuInterface.raise_if_triton_unavailable = staticmethod(lambda device=None: None)
    orig_opts = thelp.get_backend_options_for_target
    if not _is_ours(orig_opts):

        @functools.wraps(orig_opts)
        def get_backend_options_for_target(target: Any, options: Any = None) -> Any:
            if getattr(target, "backend", None) == "cpu":  # option *names* only: any GPU target has them
                target = _TtirDriver().get_current_target()
            return orig_opts(target, options)

        thelp.get_backend_options_for_target = _mark(get_backend_options_for_target)
    # Inductor reads a user kernel's TTIR to learn which arguments it writes (else it assumes
    # all, with a warning and a traceback per kernel); TTIR needs a target, not a device
    import torch._higher_order_ops.triton_kernel_wrap as tkw

    _require("user_kernels", tkw, "generate_ttir")
    orig_ttir = tkw.generate_ttir
    if not _is_ours(orig_ttir):

        @functools.wraps(orig_ttir)
        def generate_ttir(*args: Any, **kwargs: Any) -> Any:
            import triton

            holder = triton.runtime.driver
            saved = holder._active
            holder._active = _TtirDriver()
            try:
                return orig_ttir(*args, **kwargs)
            finally:
                holder._active = saved

        tkw.generate_ttir = _mark(generate_ttir)


class _TtirDriver:
    """Answers the one question TTIR generation asks a driver: the target."""

    def get_current_target(self) -> Any:
        from triton.backends.compiler import GPUTarget

        return GPUTarget("cuda", 80, 32)


def run_user_kernel_interpreted(autotuner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Launch a user kernel's ``CachingAutotuner`` in the interpreter: positional arguments are
    the non-constexpr signature then the extra launcher arguments (a fixed grid's three numbers),
    constexprs come from the kernel's recorded constants and its first config."""
    from torch._inductor.runtime.triton_heuristics import GridExpr

    sig = autotuner.triton_meta.get("signature", {})
    consts = dict(autotuner.triton_meta.get("constants", {}) or {})
    cfg = autotuner.configs[0] if autotuner.configs else None
    cfg_kwargs = dict(getattr(cfg, "kwargs", {}) or {})
    names = [n for n, t in sig.items() if t != "constexpr"]
    extra = list(autotuner.inductor_meta.get("extra_launcher_args", ()) or ())
    if len(args) != len(names) + len(extra):
        raise TypeError(f"{autotuner.fn.__name__}: {len(args)} launch arguments for {names + extra}")
    bound = dict(zip(names + extra, args))
    grid = GridExpr.from_meta(autotuner.inductor_meta, cfg_kwargs, mode="python").eval_slow({**cfg_kwargs, **bound})
    fixed = {k: v for k, v in {**consts, **cfg_kwargs}.items() if k in sig and k not in names}
    kw = {k: v for k, v in kwargs.items() if k != "stream"}
    return autotuner.fn[grid](*args[: len(names)], **fixed, **kw)


_user_jit_cls: type | None = None


def user_jit_class() -> type:
    """A ``JITFunction`` subclass whose launches run in Triton's interpreter."""
    global _user_jit_cls
    if _user_jit_cls is not None:
        return _user_jit_cls
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    class InterpretedJIT(JITFunction):  # type: ignore[misc]
        """A user's ``@triton.jit`` kernel in CPU mode: a JITFunction, so Dynamo wraps it as a
        user-defined Triton kernel, launched eagerly through the interpreter."""

        def interpreted(self) -> Any:
            interp = self.__dict__.get("_kernelopt_interp")
            if interp is None:
                interp = self._kernelopt_interp = InterpretedFunction(self.fn)
            return interp

        def run(self, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
            return self.interpreted().run(*args, grid=grid, warmup=warmup, **kwargs)

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            # a @triton.jit helper called from inside an interpreted kernel
            return self.interpreted()(*args, **kwargs)

    _user_jit_cls = InterpretedJIT
    return InterpretedJIT


@contextlib.contextmanager
def user_jit() -> Iterator[None]:
    """While active (CPU mode), ``triton.jit`` makes :func:`user_jit_class` objects: used to
    import a problem file whose ``Model`` launches its own Triton kernels."""
    import triton
    from triton.runtime import jit as tjit

    cls = user_jit_class()
    orig = tjit.jit

    def jit(fn: Any = None, **options: Any) -> Any:
        def wrap(f: Any) -> Any:
            return cls(f, **options)

        return wrap(fn) if fn is not None else wrap

    tjit.jit = triton.jit = jit
    try:
        yield
    finally:
        tjit.jit = triton.jit = orig


# ---------------------------------------------------------------------------
# inductor_config
# ---------------------------------------------------------------------------


def _patch_inductor_config() -> None:
    """Apply :func:`inductor_config` to ``torch._inductor.config``."""
    import torch._inductor.config as cfg

    for key, value in _INDUCTOR_CONFIG.items():
        _require("inductor_config", cfg, key)
        setattr(cfg, key, value)


# ---------------------------------------------------------------------------
# install
# ---------------------------------------------------------------------------

_PATCHES: list[tuple[str, str, Callable[[], None]]] = [
    (
        "interpret_env",
        "no Triton CPU driver: run kernels in Triton's interpreter (env + knob; convert early JITFunctions)",
        _patch_interpret_env,
    ),
    (
        "cpu_driver",
        "set_driver_to_cpu() warns 'kernels will not be executable' though the interpreter needs no driver",
        _patch_cpu_driver,
    ),
    (
        "backend_hash",
        "triton_hash_with_backend() needs driver.active, which has 0 drivers; use a constant hash",
        _patch_backend_hash,
    ),
    (
        "raw_stream",
        "multi-line CPU get_raw_stream def breaks the dedented benchmark-kernel template",
        _patch_raw_stream,
    ),
    (
        "libdevice",
        "libdevice.* are compiler-only stubs; interpreter needs tl.math / numpy implementations",
        _patch_libdevice,
    ),
    (
        "reduce_fast_paths",
        "triton_helpers combine fns hit the per-element generic_reduce; numpy/tree-vectorised instead",
        _patch_reduce_fast_paths,
    ),
    (
        "scan_fast_paths",
        "Inductor's generated scan combine fns hit the per-element generic_scan; Hillis-Steele instead",
        _patch_scan_fast_paths,
    ),
    (
        "interpret_config",
        "interpret mode launches configs[0] (often XBLOCK=1); use the fewest-programs config",
        _patch_interpret_config,
    ),
    (
        "user_kernels",
        "user @triton.jit kernels: Dynamo wraps them, Inductor emits them, interpreter launches them",
        _patch_user_kernels,
    ),
    (
        "inductor_config",
        "cpu_backend='triton', ATen-only GEMM/conv autotune, no epilogue-fusion benchmarking",
        _patch_inductor_config,
    ),
]


def patch_descriptions() -> dict[str, str]:
    """Patch name -> one-line reason, in application order."""
    return {name: why for name, why, _ in _PATCHES}


def install() -> None:
    """Enable CPU mode in this process (idempotent).

    Sets ``TRITON_INTERPRET=1`` (env and triton knob), applies all monkeypatches
    and the Inductor config overrides.  Safe to call before or after
    ``import torch``.  Raises :class:`CpuModePatchError` naming the failing patch.
    """
    global _installed
    with _lock:
        if _installed:
            return
        # Must precede any import of triton-decorated modules.
        os.environ["TRITON_INTERPRET"] = "1"
        for name, _why, apply in _PATCHES:
            if name in _applied:
                continue
            try:
                apply()
            except CpuModePatchError:
                raise
            except Exception as e:  # attribute drift, import errors, ...
                raise CpuModePatchError(name, f"{type(e).__name__}: {e}") from e
            _applied.append(name)
        _installed = True
