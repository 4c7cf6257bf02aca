"""Helion as a synthesizer for units Helion generated: the same Helion kernel, other configs.

A unit that came from a Helion kernel (capture.json ``helion``) is the Triton code Helion wrote
for one config.  Helion can write it for any other config of the kernel's config space; each
attempt takes the next config of a fixed list of neighbours of the chosen one (``variants``:
block sizes doubled or halved, one at a time and all together, more or fewer warps, one more
pipeline stage, Helion's default config) and turns the generated code into a candidate: the
``@triton.jit`` kernel (renamed after the unit's kernel) with the constexpr globals Helion puts
beside it, and a ``launch`` with the unit's argument names that launches it the way Helion's
host function does (its grid, its ``num_warps``/``num_stages``).  A variant whose host code
launches anything else, or whose kernel takes other arguments than the unit's, is refused.

The kernel is bound to tensors of the recorded argument metadata on the ``meta`` device (no
memory; a real allocation only if Helion refuses meta tensors).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from ...core.records import Capture, Contract, ProblemPaths
from .ops import CannotSynthesize


def variants(config: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Neighbouring configs of ``config`` (Helion's ``Config.config`` dict), named, in the fixed
    order attempts take them; the ones equal to ``config`` left out."""
    out: list[tuple[str, dict[str, Any]]] = []
    blocks = list(config.get("block_sizes") or [])
    warps = int(config.get("num_warps") or 4)
    stages = int(config.get("num_stages") or 1)

    def add(name: str, **change: Any) -> None:
        cand = {**config, **change}
        if cand != config and all(cand != c for _, c in out):
            out.append((name, cand))

    if blocks:
        add("blocks-x2", block_sizes=[min(b * 2, 4096) for b in blocks])
        add("blocks-half", block_sizes=[max(b // 2, 1) for b in blocks])
        for i in range(len(blocks)):
            add(f"block{i}-x2", block_sizes=[b * 2 if j == i else b for j, b in enumerate(blocks)])
            add(f"block{i}-half", block_sizes=[max(b // 2, 1) if j == i else b for j, b in enumerate(blocks)])
    add("warps-x2", num_warps=min(warps * 2, 32))
    add("warps-half", num_warps=max(warps // 2, 1))
    add("stages+1", num_stages=stages + 1)
    return out


def _bind(kernel: Any, args_meta: list[dict[str, Any]], device: str) -> Any:
    import torch

    def make(meta: dict[str, Any], on: str) -> Any:
        if meta["kind"] != "tensor":
            return meta.get("value")
        dtype = getattr(torch, meta["dtype"])
        return torch.empty_strided(meta["shape"], meta["stride"], dtype=dtype, device=on)

    try:
        return kernel.bind(tuple(make(m, "meta") for m in args_meta))
    except Exception:  # noqa: BLE001 - Helion may need real tensors on some backends
        return kernel.bind(tuple(make(m, device) for m in args_meta))


def _launch_call(tree: ast.Module, host: str) -> ast.Call:
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == host), None)
    if fn is None:
        raise CannotSynthesize(f"Helion's code has no host function {host}")
    calls = [
        n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_launcher"
    ]
    if len(calls) != 1:
        raise CannotSynthesize(f"Helion's host function launches {len(calls)} kernels (one is supported)")
    return calls[0]


def candidate_from_code(code: str, host: str, contract: Contract, title: str) -> str:
    """A candidate module from Helion's generated ``code`` (see the module doc)."""
    from ...core.helion_input import triton_kernel_name

    tree = ast.parse(code)
    jit = triton_kernel_name(code)
    if jit is None:
        raise CannotSynthesize("Helion's code has no @triton.jit kernel")
    call = _launch_call(tree, host)
    if len(call.args) < 2 or ast.unparse(call.args[0]) != jit:
        raise CannotSynthesize("Helion's host function launches something else than its kernel")
    grid = ast.unparse(call.args[1])
    passed = [ast.unparse(a) for a in call.args[2:]]
    names = [a["name"] for a in contract.args if not a["name"].startswith("_grid_")]
    if passed[: len(names)] != names:
        raise CannotSynthesize(f"this config's kernel takes {passed}, the unit's {names}")
    # constexpr arguments after the unit's (Helion passes e.g. _RDIM_SIZE_1=64 positionally)
    jit_def = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == jit)
    params = [a.arg for a in jit_def.args.args]
    host_fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == host)
    host_consts = {  # ``_RDIM_SIZE_1 = 64`` in the host function
        t.id: n.value
        for n in ast.walk(host_fn)
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    constexprs = []
    for pname, value in zip(params[len(names) :], call.args[2 + len(names) :]):
        if isinstance(value, ast.Name) and value.id in host_consts:
            value = host_consts[value.id]
        try:
            constexprs.append(f"{pname}={ast.literal_eval(value)!r}")
        except ValueError:
            raise CannotSynthesize(f"argument {pname}={ast.unparse(value)} of this config is not a constant") from None
    try:
        ast.literal_eval(grid)
    except ValueError:
        raise CannotSynthesize(f"the grid {grid} is not a constant (static shapes are needed)") from None
    opts = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    kernel = contract.kernel
    keep: list[str] = []
    lines = code.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == host:
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helion"):
            continue  # the host's launcher; the kernel itself needs nothing from helion
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        keep.append("\n".join(lines[start : node.end_lineno]))
    body = "\n\n".join(keep)
    body = body.replace(f"def {jit}(", f"def {kernel}(", 1)
    params_text = ", ".join(a["name"] for a in contract.args)
    extra = "".join(f", {c}" for c in constexprs)
    extra += "".join(f", {k}={k.upper()}" for k in ("num_warps", "num_stages") if k in opts)
    return "\n".join(
        [
            f'"""{title}',
            '"""',
            body,
            "",
            "CONFIG = {}  # Helion's block sizes are the constexpr globals above",
            f"NUM_WARPS = {opts.get('num_warps')!r}",
            f"NUM_STAGES = {opts.get('num_stages')!r}",
            "",
            "",
            f"def launch({params_text}):",
            f"    {kernel}[{grid}]({', '.join(names)}, **CONFIG{extra})",
            "",
        ]
    )


def synthesize_helion(contract: Contract, unit_dir: Path, index: int) -> tuple[str, str]:
    """(candidate source, variant name) for the ``index``-th neighbouring config of the unit's
    Helion kernel."""
    import helion

    from ...core import helion_input, problems

    info = contract.helion or {}
    options = variants(info.get("config_dict") or {})
    if index >= len(options):
        raise CannotSynthesize(f"only {len(options)} neighbouring Helion configs")
    name, config = options[index]
    capture = Capture.load(ProblemPaths.of_unit(unit_dir)[0].capture_record)
    module = problems.load(capture.path).module
    stand_in = getattr(module, info["kernel"], None)
    if not isinstance(stand_in, helion_input.HelionStandIn):
        raise CannotSynthesize(f"{info['kernel']} is no longer a Helion kernel of the problem file")
    bound = _bind(stand_in.kernel, info.get("args") or [], contract.device)
    try:
        code = helion_input.inline_helpers(bound.to_triton_code(helion.Config(**config)))
    except Exception as e:  # noqa: BLE001 - an invalid config for this kernel: the attempt says why
        raise CannotSynthesize(f"Helion refused config {name}: {type(e).__name__}: {str(e)[:300]}") from None
    title = (
        f"Helion's Triton code for unit {contract.unit} under config {name} "
        f"({helion.Config(**config)!r}), launched with the unit's arguments."
    )
    return candidate_from_code(code, stand_in.kernel.name, contract, title), name
