"""``inductor.py``: Inductor's kernel for a unit, runnable standalone with the config its
autotuner chose at capture (``launch(*args)`` takes the positional arguments of ``K.run(...)``
in the wrapper).  It is the baseline candidate (slot ``c0``), and the launcher form every
candidate shares (module-level CONFIG / NUM_WARPS / NUM_STAGES, ``grid``, ``launch``).
"""

from __future__ import annotations

import ast

from ..core.records import Contract

DRIVER_CALLS = ("triton_helpers.set_driver_to_cpu", "triton_helpers.set_driver_to_gpu")


def strip_heuristics_decorator(source: str, kernel: str) -> str:
    """Inductor's kernel source in the candidate form (``gates/form.py``): without the
    ``@triton_heuristics.<kind>(...)`` decorator above the kernel and without the module-level
    ``triton_helpers.set_driver_to_cpu/gpu()`` call (the process that loads a candidate has its
    driver set already; the form has no module-level code).  Located through the AST."""
    tree = ast.parse(source)
    lines = source.splitlines()
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            if ast.unparse(node.value.func) in DRIVER_CALLS and not node.value.args:
                drop.update(range(node.lineno - 1, node.end_lineno or node.lineno))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            for dec in node.decorator_list:
                text = ast.get_source_segment(source, dec) or ""
                if text.startswith("triton_heuristics."):
                    drop.update(range(dec.lineno - 1, (dec.end_lineno or dec.lineno)))
                    # the '@' sits on the decorator's first line
            return "\n".join(l for i, l in enumerate(lines) if i not in drop) + "\n"
    raise ValueError(f"kernel {kernel} not found in its source")


INDUCTOR_TITLE = """Inductor's kernel for unit {unit} ({heuristic}), as Inductor wrote it, with the launch
configuration its autotuner chose at capture.  Runnable standalone: ``launch(*args)``
takes the positional arguments of ``{kernel}.run(...)`` in the wrapper
(capture/output_code.py) and writes the outputs in place."""


def launcher_lines(kernel: str, contract: Contract, cfg_prefix: str = "", fn_prefix: str = "") -> list[str]:
    """``inductor.py`` form: CONFIG / NUM_WARPS / NUM_STAGES, ``grid(...)`` and ``launch(...)``
    for ``kernel`` with the config and grid recorded in ``contract`` (the prefixes name a second
    kernel's copies, as in a fused unit's pair)."""
    cfg = contract.launch_config or {}
    kwargs = dict(cfg.get("kwargs", {}))
    g = contract.grid_expr or {}
    if not g:
        raise RuntimeError(f"no grid expression was recorded for {kernel}")
    params = ", ".join(a["name"] for a in contract.args)
    call = ", ".join(a["name"] for a in contract.args if not a["name"].startswith("_grid_"))
    unpack = "; ".join(f"{k} = {cfg_prefix}CONFIG[{k!r}]" for k in kwargs) or "pass"
    extra = "".join(f", {k}={cfg_prefix}{k.upper()}" for k in ("num_warps", "num_stages") if cfg.get(k) is not None)
    return [
        f"{cfg_prefix}CONFIG = {kwargs!r}  # constexpr block sizes chosen by Inductor",
        f"{cfg_prefix}NUM_WARPS = {cfg.get('num_warps')!r}",
        f"{cfg_prefix}NUM_STAGES = {cfg.get('num_stages')!r}",
        "",
        "",
        f"def {fn_prefix}grid({params}):",
        f"    # Inductor's grid for grid_type {g.get('type')!r}",
        f"    {unpack}",
        *(f"    {line}" for line in g.get("prefix", [])),
        f"    return ({g.get('x', 1)}, {g.get('y', 1)}, {g.get('z', 1)})",
        "",
        "",
        f"def {fn_prefix}launch({params}):",
        f"    {kernel}[{fn_prefix}grid({params})]({call}, **{cfg_prefix}CONFIG{extra})",
    ]


def render_inductor(contract: Contract, kernel_source: str, title: str | None = None) -> str:
    kernel = contract.kernel
    title = title or INDUCTOR_TITLE.format(unit=contract.unit, heuristic=contract.heuristic, kernel=kernel)
    return "\n".join(
        [
            f'"""{title}',
            '"""',
            strip_heuristics_decorator(kernel_source, kernel).rstrip(),
            "",
            *launcher_lines(kernel, contract),
            "",
        ]
    )
