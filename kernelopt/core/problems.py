"""KernelBench-format problems: discovery, ids, loading and instantiation.

A problem is a .py file with ``class Model(nn.Module)``, ``get_inputs()`` and
``get_init_inputs()``.  Its id is ``<level>_<file stem>`` (the level is the name of the
directory holding the file), sanitised so that it is a safe Snakemake wildcard value.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .errors import ConfigError, ProblemError

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

    path = Path(workdir) / "problem_set.json"
    text = json.dumps({"problems": sorted(problems)}, indent=1) + "\n"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(path)
    return str(path)


def discover(problems: str | list[str], base: Path | None = None) -> dict[str, Path]:
    """Map problem id -> file for a directory (recursive) or an explicit list of files.

    A directory keeps the files that define ``class Model`` or ``get_inputs`` (a file with
    only one of them is kept, and reported as broken later); a file named explicitly is
    always kept.
    """
    base = Path(base) if base else Path.cwd()
    found: list[Path] = []
    if isinstance(problems, str):
        root = Path(problems)
        root = root if root.is_absolute() else base / root
        if root.is_file():
            found = [root]
        elif root.is_dir():
            found = sorted(p for p in root.rglob("*.py") if p.name != "__init__.py" and _looks_like_problem(p))
        else:
            raise ConfigError(
                f"config key 'problems': {root} is neither a directory nor a file; "
                "point it at a KernelBench-style directory"
            )
    else:
        for item in problems:
            p = Path(item)
            p = p if p.is_absolute() else base / p
            if not p.is_file():
                raise ConfigError(f"config key 'problems': {p} does not exist; fix the path in the problems list")
            found.append(p)
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
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - any error in user code is reported the same way
        sys.modules.pop(name, None)
        raise ProblemError(str(path), "import", f"{type(e).__name__}: {e}\n{_tail(e)}") from e
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if not hasattr(module, n)]
    if missing:
        raise ProblemError(
            str(path),
            "import",
            f"missing {', '.join(missing)}; "
            "a KernelBench problem defines class Model, get_inputs() and get_init_inputs()",
        )
    return Problem(path=path, module=module)


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


def build_model(problem: Problem, device: str, seed: int) -> Any:
    """The model from ``get_init_inputs()`` on a fixed seed, on ``device``, in eval mode."""
    import torch

    try:
        torch.manual_seed(seed)
        init = problem.module.get_init_inputs()
        model = problem.module.Model(*init)
        return model.to(device).eval()
    except Exception as e:  # noqa: BLE001
        raise ProblemError(
            str(problem.path), "build", f"Model(*get_init_inputs()) failed: {type(e).__name__}: {e}\n{_tail(e)}"
        ) from e


def make_inputs(problem: Problem, device: str, seed: int) -> list[Any]:
    """``get_inputs()`` under ``seed``, moved to ``device``."""
    import torch

    try:
        torch.manual_seed(seed)
        inputs = problem.module.get_inputs()
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
