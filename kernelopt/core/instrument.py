"""Stand-ins installed into a loaded wrapper module's globals to observe what it launches.

The wrapper's ``call`` looks kernels (and ``extern_kernels`` / ``aten``) up in module
globals at every call, so replacing those globals observes every launch without touching
the generated code.  Launch sites are identified by their line number in the module.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .outputcode import OutputCode


def tensor_meta(t: Any) -> dict[str, Any]:
    import torch

    if isinstance(t, torch.Tensor):
        return {
            "kind": "tensor",
            "shape": list(t.shape),
            "stride": list(t.stride()),
            "storage_offset": int(t.storage_offset()),
            "dtype": str(t.dtype).replace("torch.", ""),
            "device": str(t.device.type),
        }
    if isinstance(t, bool) or isinstance(t, (int, float)):
        return {"kind": "scalar", "value": t, "type": type(t).__name__}
    return {"kind": "other", "repr": repr(t)[:80]}


# an argument at least this large is kept on the host while its launch runs (``snapshot``):
# a 6 GiB output's copy would otherwise sit beside it on the GPU
SNAPSHOT_HOST_BYTES = 256 * 2**20


def snapshot(t: Any) -> Any:
    """A copy of ``t`` as it is now, to compare it with after a launch: on the host when it is
    large (``SNAPSHOT_HOST_BYTES``), else on its own device."""
    if t.numel() * t.element_size() >= SNAPSHOT_HOST_BYTES:
        return t.detach().to("cpu", copy=True)
    return t.clone()


@dataclass
class Launch:
    seq: int
    lineno: int
    kernel: str
    args: list[dict[str, Any]]
    kwargs: list[str]
    written: list[int] = field(default_factory=list)
    config: dict[str, Any] | None = None
    grid: list[int] | None = None
    grid_expr: dict[str, Any] | None = None
    aliases: list[list[int]] = field(default_factory=list)  # tensor arguments sharing memory


class Observer:
    """Override the hooks you need; each receives the call and must perform it."""

    def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
        return inner.run(*args, **kwargs)

    def on_extern(self, target: str, fn: Callable, lineno: int, args: tuple, kwargs: dict) -> Any:
        return fn(*args, **kwargs)


class _KernelProbe:
    def __init__(self, name: str, inner: Any, observer: Observer):
        self._name, self._inner, self._observer = name, inner, observer

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self._observer.on_kernel(self._name, self._inner, sys._getframe(1).f_lineno, args, kwargs)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)


class _CallableProxy:
    def __init__(self, target: str, inner: Any, observer: Observer):
        self._target, self._inner, self._observer = target, inner, observer

    def __getattr__(self, attr: str) -> Any:
        return _CallableProxy(f"{self._target}.{attr}", getattr(self._inner, attr), self._observer)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._observer.on_extern(self._target, self._inner, sys._getframe(1).f_lineno, args, kwargs)


class _TorchProxy:
    """The wrapper's ``torch`` with ``torch.ops.aten.<op>.<overload>(...)`` (a fallback: an op
    Inductor did not lower) observed as a library call; every other attribute is torch's own."""

    def __init__(self, inner: Any, observer: Observer):
        self._inner, self._observer = inner, observer

    def __getattr__(self, attr: str) -> Any:
        if attr == "ops":
            return _OpsProxy(self._inner.ops, self._observer)
        return getattr(self._inner, attr)


class _OpsProxy:
    def __init__(self, inner: Any, observer: Observer):
        self._inner, self._observer = inner, observer

    def __getattr__(self, attr: str) -> Any:
        if attr == "aten":
            return _CallableProxy("torch.ops.aten", self._inner.aten, self._observer)
        return getattr(self._inner, attr)


@contextlib.contextmanager
def instrumented(mod: ModuleType, oc: OutputCode, observer: Observer, fallbacks: bool = False) -> Iterator[None]:
    """The wrapper module ``mod`` with its launches reported to ``observer``: its Triton kernels,
    ``extern_kernels`` and ``aten`` calls; with ``fallbacks``, ``torch.ops.aten.*`` calls too."""
    saved: dict[str, Any] = {}
    # the baseline's kernels, and a stitched module's candidates defined under names of their own
    # (a graph-level unit of library calls alone: stitch/splice.py)
    own = [k for k, v in vars(mod).items() if isinstance(getattr(v, "kernelopt_candidate", None), str)]
    for name in dict.fromkeys([*oc.kernels, *own]):
        if hasattr(mod, name):
            saved[name] = getattr(mod, name)
            setattr(mod, name, _KernelProbe(name, saved[name], observer))
    for glob in ("extern_kernels", "aten"):
        if hasattr(mod, glob):
            saved[glob] = getattr(mod, glob)
            setattr(mod, glob, _CallableProxy(glob, saved[glob], observer))
    if fallbacks and hasattr(mod, "torch"):
        saved["torch"] = mod.torch
        mod.torch = _TorchProxy(saved["torch"], observer)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(mod, k, v)


def launch_config(inner: Any) -> dict[str, Any] | None:
    """The config Inductor's autotuner settled on for a kernel object (after a launch)."""
    launchers = getattr(inner, "launchers", None) or []
    cfg = getattr(launchers[0], "config", None) if len(launchers) == 1 else None
    if cfg is None:
        configs = getattr(inner, "configs", None) or []
        # In the Triton interpreter (CPU mode) Inductor launches configs[0] without autotuning.
        interpret = bool(getattr(inner, "triton_interpret", False))
        cfg = configs[0] if configs and (len(configs) == 1 or interpret) else None
    if cfg is None:
        return None
    out = config_dict(cfg)
    if getattr(inner, "custom_kernel", False):
        # a user kernel's own constexpr arguments (BLOCK=64 at the user's launch) are compiled in
        # as constants, not config kwargs: a standalone launch must pass them like block sizes
        meta = getattr(inner, "triton_meta", {}) or {}
        sig = meta.get("signature", {}) or {}
        consts = {
            k: v
            for k, v in (meta.get("constants", {}) or {}).items()
            if sig.get(k) == "constexpr" and isinstance(v, (bool, int, float, str))
        }
        out["kwargs"] = {**consts, **out["kwargs"]}
    return out


def config_dict(cfg: Any) -> dict[str, Any]:
    """A ``triton.Config`` as plain data: its block sizes (``kwargs``) and launch settings."""
    out: dict[str, Any] = {"kwargs": dict(getattr(cfg, "kwargs", {}) or {})}
    for attr in ("num_warps", "num_stages", "num_ctas", "maxnreg"):
        val = getattr(cfg, attr, None)
        if val is not None:
            out[attr] = val
    return out


def arg_names(inner: Any, nargs: int) -> list[str]:
    """Positional argument names of ``kernel.run(...)``: non-constexpr signature + extra launcher args."""
    meta = getattr(inner, "triton_meta", {}) or {}
    sig = meta.get("signature", {}) or {}
    names = [n for n, t in sig.items() if t != "constexpr"]
    extra = list((getattr(inner, "inductor_meta", {}) or {}).get("extra_launcher_args", []) or [])
    names += extra
    if len(names) != nargs:
        # Inductor specializes a size of 1 as a constant (``xnumel = 1``: constexpr in the
        # signature) but still passes it: the kernel function's own parameters, less those
        # annotated constexpr in its source, are the positional arguments then
        names = _runtime_params(getattr(inner, "fn", None)) + extra
    if len(names) != nargs:
        return [f"arg{i}" for i in range(nargs)]
    return names


def _runtime_params(jit_fn: Any) -> list[str]:
    """A ``@triton.jit`` function's parameters not annotated ``tl.constexpr`` in its source (the
    raw Python function: a JITFunction's or, under TRITON_INTERPRET, an InterpretedFunction's)."""
    import inspect

    raw = getattr(jit_fn, "fn", None)
    if raw is None:
        return []
    try:
        params = inspect.signature(raw).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if "constexpr" not in str(p.annotation)]


def grid_expr(inner: Any, config: dict[str, Any] | None) -> dict[str, Any] | None:
    """Inductor's grid as Python expressions of the launch arguments and block sizes."""
    try:
        from torch._inductor.runtime.triton_heuristics import GridExpr

        meta = getattr(inner, "inductor_meta", {}) or {}
        kwargs = dict((config or {}).get("kwargs", {}))
        try:
            g = GridExpr.from_meta(meta, {k: k for k in kwargs})  # symbolic in the block sizes
        except Exception:  # noqa: BLE001 - e.g. precomputed grids need the concrete values
            g = GridExpr.from_meta(meta, kwargs)
        return {
            "type": meta.get("grid_type"),
            "prefix": list(g.prefix),
            "x": str(g.x_grid),
            "y": str(g.y_grid),
            "z": str(g.z_grid),
        }
    except Exception:  # noqa: BLE001
        return None


def grid_of(inner: Any, config: dict[str, Any] | None, named_args: dict[str, Any]) -> list[int] | None:
    try:
        from torch._inductor.runtime.triton_heuristics import GridExpr

        meta = dict((config or {}).get("kwargs", {}))
        g = GridExpr.from_meta(inner.inductor_meta, meta)
        scope = {k: v for k, v in named_args.items() if isinstance(v, (int, float))}
        return [int(x) for x in g.eval_slow({**meta, **scope})]
    except Exception:  # noqa: BLE001 - informational only
        return None


def aliased(args: tuple[Any, ...]) -> list[list[int]]:
    """Pairs of tensor arguments whose memory overlaps (a user's in-place launch passes one
    tensor twice; a standalone launch on separate copies cannot reproduce it)."""
    import torch

    spans = []
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor) and a.numel():
            lo = a.data_ptr()
            hi = lo + (1 + sum((n - 1) * st for n, st in zip(a.shape, a.stride()) if n)) * a.element_size()
            spans.append((i, lo, hi))
    return [[i, j] for k, (i, lo, hi) in enumerate(spans) for j, lo2, hi2 in spans[k + 1 :] if lo < hi2 and lo2 < hi]


def _pattern(t: Any, seed: int) -> Any:
    """A copy of ``t``'s layout filled with values no kernel computes from its inputs by chance."""
    import torch

    g = torch.Generator(device=t.device).manual_seed(seed)
    out = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device)
    if t.is_floating_point():
        out.uniform_(-1e3, 1e3, generator=g)
    elif t.dtype == torch.bool:
        out.copy_(~t)
    else:
        out.random_(0, 127, generator=g)
    return out


def probe_writes(inner: Any, args: tuple, kwargs: dict, before: dict[int, Any], unchanged: list[int]) -> list[int]:
    """Which of the ``unchanged`` arguments a launch writes after all: an output whose memory
    already held the result (CPU, a user kernel's ``torch.empty`` output reusing the memory of
    an identical earlier computation: its launch was recorded as writing nothing, so the
    contract made the output read-only).  A second launch on copies (``before``: the arguments
    as they were), the unchanged ones filled with a random pattern first."""
    from .outputs import same_values

    probe = list(args)
    for i, b in before.items():
        # a fresh copy of the snapshot on the argument's device (the snapshot may be on the host)
        probe[i] = _pattern(args[i], 1000 + i) if i in unchanged else b.to(args[i].device, copy=True)
    inner.run(*probe, **kwargs)
    # the pattern drawn again, one argument at a time (not every copy held at once)
    return [i for i in unchanged if not same_values(probe[i], _pattern(args[i], 1000 + i))]


class LaunchRecorder(Observer):
    """Records every launch: argument metadata, which tensors it wrote, config and grid.  A user
    kernel's (``user``: their names) arguments it left unchanged are probed once more
    (``probe_writes``): Inductor's kernels say what they write in their parameters' names."""

    def __init__(self, check_writes: bool = True, user: set[str] | None = None):
        self.launches: list[Launch] = []
        self.externs: list[dict[str, Any]] = []
        self.check_writes = check_writes
        self.user = set(user or ())

    def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
        import torch

        from .outputs import same_values

        tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, torch.Tensor)] if self.check_writes else []
        before = {i: snapshot(a) for i, a in tensors}
        result = inner.run(*args, **kwargs)
        written = [i for i, b in before.items() if not same_values(args[i], b)]
        unchanged = [i for i in before if i not in written]
        if name in self.user and unchanged:
            written = sorted(written + probe_writes(inner, args, kwargs, before, unchanged))
        cfg = launch_config(inner)
        names = arg_names(inner, len(args))
        metas = []
        for n, a in zip(names, args):
            m = tensor_meta(a)
            m["name"] = n
            metas.append(m)
        self.launches.append(
            Launch(
                seq=len(self.launches) + len(self.externs),
                lineno=lineno,
                kernel=name,
                args=metas,
                kwargs=sorted(kwargs),
                written=written,
                config=cfg,
                grid=grid_of(inner, cfg, dict(zip(names, args))),
                grid_expr=grid_expr(inner, cfg),
                aliases=aliased(args),
            )
        )
        return result

    def on_extern(self, target: str, fn: Callable, lineno: int, args: tuple, kwargs: dict) -> Any:
        self.externs.append({"seq": len(self.launches) + len(self.externs), "lineno": lineno, "target": target})
        return fn(*args, **kwargs)


class SiteTimer(Observer):
    """Attributes time to launch sites: profiler ranges on the GPU, wall time on the CPU."""

    def __init__(self, device: str):
        self.device = device
        self.cpu_ms: dict[int, float] = {}

    def _timed(self, lineno: int, fn: Callable[[], Any]) -> Any:
        if self.device == "cuda":
            import torch

            with torch.profiler.record_function(f"ko_site:{lineno}"):
                return fn()
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            self.cpu_ms[lineno] = self.cpu_ms.get(lineno, 0.0) + (time.perf_counter() - t0) * 1e3

    def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
        return self._timed(lineno, lambda: inner.run(*args, **kwargs))

    def on_extern(self, target: str, fn: Callable, lineno: int, args: tuple, kwargs: dict) -> Any:
        return self._timed(lineno, lambda: fn(*args, **kwargs))


class IOCapture(Observer):
    """Clones the arguments of launch number ``index`` of ``kernel`` before and after it runs."""

    def __init__(self, kernel: str, index: int = 0):
        self.kernel, self.index = kernel, index
        self.seen = 0
        self.before: list[Any] | None = None
        self.after: list[Any] | None = None

    def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
        import torch

        if name != self.kernel:
            return inner.run(*args, **kwargs)
        hit = self.seen == self.index
        self.seen += 1
        if hit:
            self.before = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        result = inner.run(*args, **kwargs)
        if hit:
            from .outputs import same_values

            # an argument the kernel left as it was is the "before" copy itself: a GiB-sized
            # unit's read-only inputs are not held twice
            self.after = [
                (b if same_values(a, b) else a.clone()) if isinstance(a, torch.Tensor) else a
                for a, b in zip(args, self.before)
            ]
        return result
