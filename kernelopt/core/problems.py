"""KernelBench-format problems: discovery, ids, loading and instantiation.

A problem is a .py file with ``class Model(nn.Module)``, ``get_inputs()`` and
``get_init_inputs()``; a file of any name (``my_model.py``) will do, and one without
``get_init_inputs()`` builds ``Model()`` with no arguments.  Its id is ``<level>_<file stem>``
(the level is the name of the directory holding the file), sanitised so that it is a safe
Snakemake wildcard value.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .errors import ConfigError, ProblemError
from .records import Capture, problem_set

_ID_BAD = re.compile(r"[^A-Za-z0-9_]+")
_HAS_MODEL = re.compile(r"^class\s+Model\b", re.M)
_HAS_INPUTS = re.compile(r"^def\s+get_inputs\s*\(", re.M)


def sanitize(text: str) -> str:
    return _ID_BAD.sub("_", text).strip("_") or "x"


def problem_id(path: Path) -> str:
    """``level1/23_Softmax.py`` -> ``level1_23_Softmax``."""
    path = Path(path)
    return sanitize(f"{path.parent.name}_{path.stem}")


def _looks_like_problem(path: Path) -> bool:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return False
    # Either marker is enough: a file with get_inputs() but no Model is a broken problem
    # to report, not a helper module to skip.
    return bool(_HAS_MODEL.search(text) or _HAS_INPUTS.search(text))


def write_problem_set(workdir: str | Path, problems: dict[str, Path]) -> str:
    """``<workdir>/problem_set.json``: the ids of the run's current problems, rewritten only
    when they change (its time then says the set changed; paths are left out, so a fresh
    checkout elsewhere does not count as a change).  Returns its path."""
    import json

    path = problem_set(workdir)
    text = json.dumps({"problems": sorted(problems)}, indent=1) + "\n"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(path)
    return str(path)


def _files_of(p: Path) -> list[Path]:
    if p.is_file():
        return [p]
    return sorted(f for f in p.rglob("*.py") if f.name != "__init__.py" and _looks_like_problem(f))


def discover(problems: str | list[str], base: Path | None = None) -> dict[str, Path]:
    """Map problem id -> file for a directory (recursive), or a list of files and directories.

    A directory keeps the files that define ``class Model`` or ``get_inputs`` (a file with
    only one of them is kept, and reported as broken later); a file named explicitly is
    always kept.
    """
    base = Path(base) if base else Path.cwd()
    found: list[Path] = []
    if isinstance(problems, str):
        root = Path(problems)
        root = root if root.is_absolute() else base / root
        if not (root.is_file() or root.is_dir()):
            raise ConfigError(
                f"config key 'problems': {root} is neither a directory nor a file; "
                "point it at a KernelBench-style directory"
            )
        found = _files_of(root)
    else:
        for item in problems:
            p = Path(item)
            p = p if p.is_absolute() else base / p
            if not (p.is_file() or p.is_dir()):
                raise ConfigError(f"config key 'problems': {p} does not exist; fix the path in the problems list")
            found.extend(_files_of(p))
    ids: dict[str, Path] = {}
    for p in found:
        pid = problem_id(p)
        if pid in ids:
            raise ConfigError(f"problems {ids[pid]} and {p} both map to id '{pid}'; rename one of them")
        ids[pid] = p.resolve()
    if not ids:
        raise ConfigError(
            f"config key 'problems': no KernelBench-format .py files (class Model + get_inputs) under {problems}"
        )
    return dict(sorted(ids.items()))


@dataclass
class Problem:
    path: Path
    module: ModuleType

    @property
    def id(self) -> str:
        return problem_id(self.path)


def load(path: str | Path) -> Problem:
    """Import a problem file under a private module name; ProblemError on any failure."""
    path = Path(path).resolve()
    name = f"kernelopt_problem_{sanitize(str(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ProblemError(str(path), "import", "not a loadable Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        sys.modules[name] = module
        with _user_kernels_loadable():
            spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - any error in user code is reported the same way
        sys.modules.pop(name, None)
        raise ProblemError(str(path), "import", f"{type(e).__name__}: {e}\n{_tail(e)}") from e
    from . import helion_input

    helion_input.install_stand_ins(module)  # Helion kernels become their generated Triton code
    missing = [n for n in ("Model", "get_inputs") if not hasattr(module, n)]
    if missing:
        raise ProblemError(
            str(path),
            "import",
            f"missing {', '.join(missing)}; "
            "a KernelBench problem defines class Model, get_inputs() and get_init_inputs()",
        )
    if not hasattr(module, "get_init_inputs"):  # a user's own module: Model() takes no arguments
        module.get_init_inputs = no_init_inputs
    return Problem(path=path, module=module)


def no_init_inputs() -> list[Any]:
    """The ``get_init_inputs()`` of a problem that defines none: ``Model()``."""
    return []


def has_user_kernels(capture: Capture) -> bool:
    """Whether the compiled model launches the user's own kernels (a kernel of the capture
    record's graphs marked ``user``)."""
    return any(k.get("user") for g in capture.graphs for k in (g.get("kernels") or {}).values())


def user_reference(problem: Problem, capture: Capture, model: Any) -> Any:
    """A standalone Triton problem's ``reference(*inputs)`` (plain PyTorch) as a function of the
    inputs, or None.  A reference whose first parameter is named ``model`` is given the model
    too (its parameters; under FP64 a float64 copy).  Only for problems whose compiled model
    launches the user's own kernels (``has_user_kernels``), so a KernelBench file's unrelated
    helper named ``reference`` is never taken for an oracle."""
    import copy
    import inspect

    fn = getattr(problem.module, "reference", None)
    if not (callable(fn) and has_user_kernels(capture)):
        return None
    params = list(inspect.signature(fn).parameters)
    if not params or params[0] != "model":
        return fn
    model64: list[Any] = []

    def with_model(*inputs: Any) -> Any:
        import torch

        if any(isinstance(t, torch.Tensor) and t.dtype == torch.float64 for t in inputs):
            if not model64:
                model64.append(copy.deepcopy(model).double())
            return fn(model64[0], *inputs)
        return fn(model, *inputs)

    return with_model


def _user_kernels_loadable() -> Any:
    """In CPU mode a problem's own ``@triton.jit`` kernels must be ``JITFunction`` s (Dynamo wraps
    only those as user Triton kernels) that still launch in the interpreter (core/cpu_mode.py)."""
    from . import cpu_mode

    return cpu_mode.user_jit() if cpu_mode.installed() else contextlib.nullcontext()


def _tail(e: BaseException) -> str:
    return "".join(traceback.format_exception(type(e), e, e.__traceback__)[-3:]).rstrip()


def _to_device(obj: Any, device: Any) -> Any:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def _on_device(device: str, seed: int, make: Any) -> Any:
    """``make()`` under ``seed`` with ``device`` as the default device: a GPU problem's GiB-sized
    inputs and parameters are drawn on the GPU itself, never staged in host memory (16 jobs each
    holding a 6 GiB host copy exhaust the machine) and never written to disk: any job
    regenerates them from the seed.  Code that cannot run that way (it calls ``.numpy()``, say)
    is drawn on the CPU as before; either way the same path is taken on every call."""
    import torch

    torch.manual_seed(seed)
    if device == "cpu":
        return make()
    try:
        with torch.device(device):
            return make()
    except Exception:  # noqa: BLE001 - the problem's code needs the CPU: draw it there
        torch.manual_seed(seed)
        return make()


def build_model(problem: Problem, device: str, seed: int) -> Any:
    """The model from ``get_init_inputs()`` on a fixed seed, built on ``device``, in eval mode."""
    try:
        mod = problem.module
        return _on_device(device, seed, lambda: mod.Model(*mod.get_init_inputs())).to(device).eval()
    except Exception as e:  # noqa: BLE001
        raise ProblemError(
            str(problem.path), "build", f"Model(*get_init_inputs()) failed: {type(e).__name__}: {e}\n{_tail(e)}"
        ) from e


def make_inputs(problem: Problem, device: str, seed: int) -> list[Any]:
    """``get_inputs()`` under ``seed``, drawn on ``device`` (or moved there)."""
    try:
        inputs = _on_device(device, seed, problem.module.get_inputs)
    except Exception as e:  # noqa: BLE001
        raise ProblemError(
            str(problem.path), "inputs", f"get_inputs() failed: {type(e).__name__}: {e}\n{_tail(e)}"
        ) from e
    return list(_to_device(list(inputs), device))


def param_fingerprint(model: Any) -> str:
    """A cheap hash of every parameter and buffer, to prove a rebuilt model is the same one."""
    import hashlib

    import torch

    h = hashlib.sha256()
    with torch.no_grad():
        for name, t in list(model.named_parameters()) + list(model.named_buffers()):
            h.update(name.encode())
            h.update(str(tuple(t.shape)).encode())
            if t.numel():
                x = t.detach().double()
                h.update(f"{x.sum().item():.10e}|{x.abs().sum().item():.10e}".encode())
    return h.hexdigest()[:16]
