"""The optimized model as a ``torch.nn.Module``: what ``kernelopt.load`` returns, and what an
exported directory's ``loader.py`` is (this file, copied by ``kernelopt export``).

The module is the problem's own ``Model`` (its class, its parameters: ``load_state_dict`` of
the user's model works, and the next call uses the loaded weights) whose ``forward`` runs the
deployed output code: the stitched wrapper module when the problem was optimized, Inductor's
captured one otherwise.  That code was compiled for one call signature (shapes, strides,
dtypes, devices, 16-byte alignment, inference, eval mode): every call is checked against it,
and a call that differs runs ``torch.compile``'s model instead (or eager, ``fallback="eager"``),
with one warning and a counter (``.kernelopt_stats``), never a silently wrong shape.

It imports nothing from kernelopt (torch and, on a GPU, Triton only), so an exported directory
loads where kernelopt is not installed; output code generated in CPU mode (Triton's
interpreter) needs kernelopt's interpreter shims and says so.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib.util
import itertools
import json
import os
import re
import sys
import warnings
from collections.abc import Mapping
from typing import Any

MANIFEST = "kernelopt_model.json"  # kernelopt/core/records.py ExportPaths.manifest (a test keeps them equal)
MANIFEST_SCHEMA = 1
_counter = itertools.count()


def signature_of(value: Any) -> list[Any]:
    """What the output code assumes about one argument: for a tensor its shape, strides, dtype,
    device, whether it requires grad and whether its data is 16-byte aligned; else its value."""
    import torch

    if isinstance(value, torch.Tensor):
        return [
            "tensor",
            list(value.shape),
            list(value.stride()),
            str(value.dtype).replace("torch.", ""),
            str(value.device),
            bool(value.requires_grad),
            value.data_ptr() % 16 == 0,
        ]
    return ["value", value if isinstance(value, (int, float, bool, str, type(None))) else repr(value)]


_FIELDS = ("kind", "shape", "stride", "dtype", "device", "requires_grad", "16-byte aligned")


def differs(name: str, want: list[Any], value: Any) -> str | None:
    """Why ``value`` does not fit the captured signature ``want`` (None when it does)."""
    got = signature_of(value)
    if got == want:
        return None
    if want[0] == "value" or got[0] != want[0]:
        g, w = (got[1] if got[0] == "value" else "a tensor"), (want[1] if want[0] == "value" else "a tensor")
        return f"{name} is {g}, captured {w}"
    for field, g, w in zip(_FIELDS, got, want):
        if g != w:
            return f"{name} has {field} {g}, captured {w}"
    return f"{name} differs from the captured signature"


def recorded_configs(launches: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each kernel's config as it first ran at capture (capture.json's launches)."""
    out: dict[str, dict[str, Any]] = {}
    for launch in launches:
        if launch.get("config"):
            out.setdefault(launch["kernel"], launch["config"])
    return out


def pin_configs(mod: Any, kernels: list[str], recorded: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Restrict each autotuned kernel object of ``mod`` to the config it ran with at capture
    (``recorded``: kernel -> kwargs, num_warps, num_stages), so that every load of a wrapper
    runs what the gates judged and timed; what happened to each kernel.

    On a GPU the wrapper's import precompiles every config into a launcher (and drops
    ``configs``): the launcher of the recorded config is kept alone, compiled if the capture's
    coordinate descent found a config that is not among them, and marked as found by it, so the
    first call neither benchmarks the configs nor descends from one again."""
    status: dict[str, str] = {}
    for name in kernels:
        obj = getattr(mod, name, None)
        if obj is None or getattr(obj, "kernelopt_candidate", None):
            continue
        launchers = list(getattr(obj, "launchers", None) or [])
        configs = getattr(obj, "configs", None)
        if not launchers and configs is None:
            continue  # not an autotuned Triton kernel
        want = recorded.get(name)
        if want is None:
            status[name] = "unpinned: no recorded config"
        elif launchers:
            status[name] = _pin_launcher(obj, launchers, want)
        elif len(configs) <= 1:
            status[name] = "single"
        else:
            match = [c for c in configs if _same_config(c, want)]
            if match:
                obj.configs = [match[0]]
                status[name] = "pinned"
            else:
                status[name] = "unpinned: recorded config not among the kernel's configs"
    return status


def _same_config(cfg: Any, want: dict[str, Any]) -> bool:
    return (
        dict(getattr(cfg, "kwargs", {}) or {}) == want.get("kwargs", {})
        and getattr(cfg, "num_warps", None) == want.get("num_warps", getattr(cfg, "num_warps", None))
        and getattr(cfg, "num_stages", None) == want.get("num_stages", getattr(cfg, "num_stages", None))
    )


def _pin_launcher(obj: Any, launchers: list[Any], want: dict[str, Any]) -> str:
    """``obj.launchers`` reduced to the recorded config's launcher (see ``pin_configs``)."""
    match = [launcher for launcher in launchers if _same_config(getattr(launcher, "config", None), want)]
    how = "pinned"
    if match:
        chosen = match[0]
    else:
        try:
            import triton

            cfg = triton.Config(
                dict(want.get("kwargs", {})),
                **{k: want[k] for k in ("num_warps", "num_stages", "num_ctas", "maxnreg") if want.get(k) is not None},
            )
            chosen = obj._precompile_config(cfg).make_launcher()
        except Exception as e:  # noqa: BLE001 - Inductor's private API: say so, keep its autotuning
            return f"unpinned: the recorded config did not compile ({type(e).__name__}: {str(e)[:200]})"
        how = "pinned (the recorded config compiled: the capture's coordinate descent found it)"
    chosen.config.found_by_coordesc = True
    obj.launchers = [chosen]
    return how


def import_file(path: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a loadable Python file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _prepare_device(device: str) -> None:
    if device != "cpu":
        return
    try:
        from kernelopt.core import cpu_mode
    except ImportError as e:
        raise RuntimeError(
            "this output code was generated in CPU mode (Triton's interpreter): loading it needs "
            "kernelopt installed (pip install kernelopt); output code from a GPU run does not"
        ) from e
    cpu_mode.install()


def load_wrapper(path: str, constants: dict[str, Any], device: str) -> Any:
    """The output code imported as a fresh module, the graph's lifted constants attached."""
    _prepare_device(device)
    mod = import_file(path, f"kernelopt_deployed_{next(_counter)}")
    for k, v in constants.items():
        setattr(mod, k, v.to(device))
    return mod


def fill(template: Any, tensors: list[Any]) -> Any:
    """``template`` (an output of the model) with its tensor leaves replaced by ``tensors`` in
    order (the order of kernelopt's output flattening: sequences by index, mappings and
    dataclasses by their own key order)."""
    import torch

    it = iter(tensors)

    def go(obj: Any) -> Any:
        if isinstance(obj, torch.Tensor):
            return next(it)
        if isinstance(obj, Mapping):
            out = copy.copy(obj)
            for k, v in obj.items():
                out[k] = go(v)
            return out
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return dataclasses.replace(obj, **{f.name: go(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            return type(obj)(*(go(v) for v in obj))
        if isinstance(obj, (list, tuple)):
            return type(obj)(go(v) for v in obj)
        return obj

    return go(template)


_INDEX = re.compile(r"out\[(\d+)\]$")


def simple_output(structure: list[dict[str, Any]], tensors: list[Any]) -> tuple[bool, Any]:
    """The output rebuilt from its recorded structure when it is one tensor or a flat tuple
    (True, output); (False, None) when it needs a template (dicts, dataclasses, nesting)."""
    if len(structure) == 1 and structure[0]["path"] == "out" and structure[0]["kind"] == "tensor":
        return True, tensors[0]
    if not all(_INDEX.match(d["path"]) and int(_INDEX.match(d["path"]).group(1)) == i for i, d in enumerate(structure)):
        return False, None
    it = iter(tensors)
    return True, tuple(next(it) if d["kind"] == "tensor" else d.get("value") for d in structure)


@dataclasses.dataclass
class _State:
    """What the deployed forward needs, kept out of the module's parameters and state dict."""

    spec: dict[str, Any]
    wrapper: Any
    saved: dict[str, Any]
    fallback: str
    base_forward: Any
    params_used: list[str]
    stats: dict[str, Any]
    compiled: Any = None
    template: Any = None


class Deployed:
    """Mixed into the problem's ``Model`` class by ``deploy``: ``forward`` runs the output code."""

    _kernelopt: _State

    @property
    def kernelopt_stats(self) -> dict[str, Any]:
        """Calls that ran the deployed code, calls that fell back, and why the first fell back."""
        return self._kernelopt.stats

    @property
    def kernelopt_info(self) -> dict[str, Any]:
        """What is deployed: the output code's kind (stitched or inductor), the category, the gate figures."""
        return {k: v for k, v in self._kernelopt.spec.items() if k in ("deployed", "problem", "result")}

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        st = self._kernelopt
        if st.wrapper is None:  # no output code stands in for this model: torch.compile's is deployed
            return self._kernelopt_fallback()(*inputs, **kwargs)
        why = "keyword arguments were passed" if kwargs else self._kernelopt_mismatch(inputs)
        if why is None:
            st.stats["deployed_calls"] += 1
            return self._kernelopt_run(inputs)
        st.stats["fallback_calls"] += 1
        if st.stats["first_fallback"] is None:
            st.stats["first_fallback"] = why
            warnings.warn(
                f"kernelopt: this call does not match the signature the output code was compiled for ({why}); "
                f"running {'torch.compile' if st.fallback == 'compile' else 'eager'}'s model instead "
                "(warned once; every fallback is counted in .kernelopt_stats)",
                stacklevel=2,
            )
        return self._kernelopt_fallback()(*inputs, **kwargs)

    def _kernelopt_mismatch(self, inputs: tuple[Any, ...]) -> str | None:
        import torch

        st = self._kernelopt
        if self.training:
            return "the module is in training mode (the output code was captured in eval mode)"
        want = st.spec["signature"]["inputs"]
        if len(inputs) != len(want):
            return f"{len(inputs)} inputs, captured {len(want)}"
        for i, (w, x) in enumerate(zip(want, inputs)):
            why = differs(f"input {i}", w, x)
            if why:
                return why
        state = self._kernelopt_tensors()
        for name in st.params_used:
            why = differs(f"parameter {name}", st.spec["signature"]["params"][name], state[name].detach())
            if why:
                return why
            if torch.is_grad_enabled() and state[name].requires_grad:
                return f"parameter {name} requires grad (the output code is inference only: no autograd)"
        return None

    def _kernelopt_tensors(self) -> dict[str, Any]:
        d = dict(self.named_parameters())
        d.update(dict(self.named_buffers()))
        return d

    def _kernelopt_run(self, inputs: tuple[Any, ...]) -> Any:
        st = self._kernelopt
        state = self._kernelopt_tensors()
        args: list[Any] = []
        for m in st.spec["call_args"]:
            src = m["source"]
            if src == "input":
                args.append(inputs[m["ref"]])
            elif src == "param":
                args.append(state[m["ref"]].detach())
            elif src == "saved":
                args.append(st.saved[m["ref"]])
            else:
                args.append(m["value"])
        outs = st.wrapper.call(args)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        tensors = [outs[i] for i in st.spec["out_idx"]]
        ok, out = simple_output(st.spec["output_structure"], tensors)
        if ok:
            return out
        if st.template is None:  # a nested output: its shape taken once from an eager call
            st.template = st.base_forward(self, *inputs)
        return fill(st.template, tensors)

    def _kernelopt_fallback(self) -> Any:
        st = self._kernelopt
        forward = functools.partial(st.base_forward, self)
        if st.fallback == "eager":
            return forward
        if st.compiled is None:
            import torch

            st.compiled = torch.compile(forward, mode=st.spec.get("mode"))
        return st.compiled


def deploy(
    model: Any, spec: dict[str, Any], wrapper_path: str | None, files: dict[str, Any], fallback: str = "compile"
) -> Any:
    """``model`` (the problem's ``Model``, built on the captured device) turned into the deployed
    module in place: its class gains ``Deployed``'s forward, its parameters stop requiring grad
    (the output code is inference only), and it is put in eval mode.  Without output code
    (``wrapper_path`` None: it cannot stand in for the model) every call runs the fallback."""
    import torch

    if fallback not in ("compile", "eager"):
        raise ValueError(f"fallback must be 'compile' or 'eager', got {fallback!r}")
    device = spec["device"]
    wrapper = None
    if wrapper_path is not None:
        wrapper = load_wrapper(wrapper_path, files.get("constants") or {}, device)
        pin_configs(wrapper, spec["kernels"], spec.get("configs") or {})
    else:
        warnings.warn(f"kernelopt: {spec['problem']}: {spec['deployed']['why']}", stacklevel=2)
    base = type(model)
    model.__class__ = type(f"Deployed{base.__name__}", (Deployed, base), {"__module__": base.__module__})
    model.requires_grad_(False)
    model.eval()
    with torch.no_grad():
        saved = {k: v.to(device) for k, v in (files.get("saved") or {}).items()}
    model._kernelopt = _State(
        spec=spec,
        wrapper=wrapper,
        saved=saved,
        fallback=fallback,
        base_forward=base.forward,
        params_used=[m["ref"] for m in spec["call_args"] if m["source"] == "param"],
        stats={"deployed_calls": 0, "fallback_calls": 0, "first_fallback": None},
    )
    return model


def load(directory: str | os.PathLike[str], fallback: str = "compile") -> Any:
    """The model an exported directory holds (``kernelopt export``): its ``Model`` built from
    the problem's source, its parameters from the state dict, the deployed output code."""
    import torch

    directory = os.fspath(directory)
    with open(os.path.join(directory, MANIFEST), encoding="utf-8") as f:
        spec = json.load(f)
    if spec.get("schema") != MANIFEST_SCHEMA:
        raise RuntimeError(f"{directory}: written by another kernelopt (manifest schema {spec.get('schema')})")
    files = {k: os.path.join(directory, v) for k, v in spec["files"].items() if v}
    problem = import_file(files["problem"], f"kernelopt_exported_problem_{next(_counter)}")
    device = spec["device"]
    torch.manual_seed(spec["seed"])
    init = problem.get_init_inputs() if hasattr(problem, "get_init_inputs") else []
    with torch.device(device):
        model = problem.Model(*init)
    model.load_state_dict(torch.load(files["state_dict"], map_location=device))
    tensors = {k: torch.load(files[k], map_location=device) if k in files else None for k in ("constants", "saved")}
    return deploy(model.to(device), spec, files.get("output_code"), tensors, fallback)
