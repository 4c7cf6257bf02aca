"""Inductor as a second synthesizer: the unit's eager reference (its FX subgraph) lowered through
Inductor again, with other choices than the capture's compile made (``VARIANTS``: no split
reductions, looped instead of persistent reductions, ...), turned into a candidate.

How: the reference is traced with fake tensors of the contract's shapes and strides (no device
memory is used: nothing runs), compiled with ``compile_fx`` under the variant's config patch, and
the wrapper Inductor writes is read (``core/outputcode.py``).  Only a wrapper that launches
exactly one Triton kernel (a region's: several), whose tensor arguments are the reference's
inputs and the buffers it returns, laid out as the unit's arguments, becomes a candidate: the
kernel (Inductor's name with a ``relowered_`` prefix), the first config of its heuristics,
Inductor's grid, and a ``launch`` with the unit's argument names that passes them on (the
kernel's size arguments as constants).
Everything else is answered with ``CannotSynthesize`` and the reason (several kernels, a
library call, a constant the unit's kernel does not get, another output layout, or the unit's
own Inductor kernels again: the variant changed nothing but the config, which is the search's
work).

This runs in the synthesize job (the generator is kernelopt's code, not a candidate's); on CUDA
the codegen needs the device's properties, so the job starts a CUDA context (no tensors).

A region (capture/regions.py) may take several kernels: they are launched in the wrapper's
order, and the buffers Inductor allocates between them are allocated inside ``launch``.  A unit
that writes an argument in place (Inductor's ``in_out_ptr``, a norm over a library call's
output) takes one pointwise or (persistent or looped) reduction kernel only (``IN_PLACE``).
"""

from __future__ import annotations

import ast
import contextlib
import math
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.records import INDUCTOR_FILE, Contract, unit_reference, unit_reference_constants
from .ops import CannotSynthesize

# (name, Inductor config patch) per variant, in the order the attempts use them; ``split_scale``
# is not a config key: the split factor Inductor picks for a split reduction, scaled
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("looped-reductions", {"triton.persistent_reductions": False, "split_reductions": False}),
    ("no-split-reductions", {"split_reductions": False}),
    ("max-tiles-3", {"triton.max_tiles": 3, "split_reductions": False}),
    ("default", {}),
]
# a region (capture/regions.py) is mostly a split reduction and what reads its result: other
# split factors first, then no split at all (a cooperative reduction is not a variant: on CUDA
# Inductor zeroes its semaphores with a tensor op, which a candidate may not do)
REGION_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("split-x2", {"split_scale": 2.0}),
    ("split-x0.5", {"split_scale": 0.5}),
    ("split-x4", {"split_scale": 4.0}),
    ("no-split-reductions", {"split_reductions": False}),
]


def variants(contract: Contract) -> list[tuple[str, dict[str, Any]]]:
    return REGION_VARIANTS if contract.region else VARIANTS


def _scaled_splits(scale: float) -> Any:
    """Inductor's heuristics, with the split factor of every split reduction scaled."""
    from torch._inductor.choices import InductorChoices

    class ScaledSplits(InductorChoices):
        def reduction_split_factor(self, *args: Any, **kwargs: Any) -> int:
            base = super().reduction_split_factor(*args, **kwargs)
            return base if base <= 1 else max(2, round(base * scale))

    return ScaledSplits()


def _call_args(tree: ast.Module, lineno: int, kernel: str) -> list[ast.expr]:
    """The positional arguments of ``<kernel>.run(...)`` at ``lineno`` of the wrapper (read from
    its AST: a launch site's text is cut for display)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and node.lineno == lineno
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run"
            and ast.unparse(node.func.value) == kernel
        ):
            return list(node.args)
    raise CannotSynthesize(f"no launch of {kernel} at line {lineno} of the re-lowered wrapper")


# What a unit that writes an argument in place may be re-lowered to: one kernel whose programs
# each own whole reduction groups (a row of a norm) and read an element of the group before they
# write it, as Inductor's own in-place kernel does.  Never several kernels (a later one could read
# what an earlier one overwrote) nor a cooperative reduction (programs share a group).
IN_PLACE = ("pointwise", "reduction", "persistent_reduction")


def _allocation(name: str, bufs: dict[str, Any], alias: dict[str, str]) -> str | None:
    """The allocation (or whole-buffer reinterpretation) ``name`` is, through plain renames
    (``buf2 = buf1; del buf1  # reuse``), or None."""
    seen = set()
    while name not in bufs and name in alias and name not in seen:
        seen.add(name)
        name = alias[name]
    return name if name in bufs else None


def _buffers(
    tree: ast.Module,
) -> tuple[dict[str, tuple[list[int], list[int], str]], list[str], dict[str, str]]:
    """(shape, stride, dtype) of each ``buf = empty_strided_<dev>(shape, stride, dtype)`` of the
    wrapper's ``call`` (and of its aliases and whole-buffer reinterpretations), the names it
    returns (anything else returned, e.g. a reinterpreted view, is refused), and each alias ->
    the allocation it is (names that alias nothing: ``.get(n, n)``)."""
    bufs: dict[str, tuple[list[int], list[int], str]] = {}
    alias: dict[str, str] = {}  # "buf3 = buf0; del buf0  # reuse"
    returned: list[str] | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "call":
            for st in ast.walk(node):
                if (
                    isinstance(st, ast.Assign)
                    and isinstance(st.value, ast.Call)
                    and isinstance(st.value.func, ast.Name)
                    and st.value.func.id.startswith("empty_strided")
                    and isinstance(st.targets[0], ast.Name)
                ):
                    shape, stride = (ast.literal_eval(a) for a in st.value.args[:2])
                    dtype = ast.unparse(st.value.args[2]) if len(st.value.args) > 2 else "torch.float32"
                    bufs[st.targets[0].id] = (list(shape), list(stride), dtype)
                if isinstance(st, ast.Assign) and isinstance(st.value, ast.Name):
                    alias[ast.unparse(st.targets[0])] = st.value.id
                if (  # "buf6 = reinterpret_tensor(buf4, shape, stride, 0); del buf4  # reuse"
                    isinstance(st, ast.Assign)
                    and isinstance(st.value, ast.Call)
                    and ast.unparse(st.value.func) == "reinterpret_tensor"
                    and isinstance(st.value.args[0], ast.Name)
                    and _allocation(st.value.args[0].id, bufs, alias) is not None
                    and ast.unparse(st.value.args[3]) == "0"
                ):
                    shape, stride = (ast.literal_eval(a) for a in st.value.args[1:3])
                    base = bufs[_allocation(st.value.args[0].id, bufs, alias)]  # type: ignore[index]
                    if math.prod(shape) == math.prod(base[0]):  # the whole buffer, another layout
                        bufs[ast.unparse(st.targets[0])] = (list(shape), list(stride), base[2])
                        alias.setdefault(ast.unparse(st.targets[0]), st.value.args[0].id)
                if isinstance(st, ast.Return) and st.value is not None:
                    vals = st.value.elts if isinstance(st.value, ast.Tuple) else [st.value]
                    if not all(isinstance(v, ast.Name) for v in vals):
                        raise CannotSynthesize("the re-lowered graph returns views of its buffers")
                    returned = [v.id for v in vals]  # type: ignore[attr-defined]
    roots = {}
    for name, base in alias.items():
        while base in alias:
            base = alias[base]
        roots[name] = base
        if base in bufs:
            bufs.setdefault(name, bufs[base])
    if returned is None:
        raise CannotSynthesize("no call() in the re-lowered wrapper")
    return bufs, returned, roots


def _kernel_object(src: str, name: str, directory: Path) -> Any:
    """Inductor's kernel object (its heuristics decorator applied; nothing is compiled), imported
    from a file in ``directory``: ``triton.jit`` reads its function's source from the file (the
    interpreter does not, so an ``exec`` of the text runs on the CPU but fails on the GPU with
    "@jit functions should be defined in a Python file")."""
    from ...runner.harness import load_module

    path = Path(directory) / f"{name}.py"
    path.write_text(src)
    return getattr(load_module(path, f"kernelopt_relowered_{name}"), name)


def _compile(contract: Contract, ref: Any, patch: dict[str, Any]) -> str:
    """The wrapper source Inductor writes for the unit's reference module ``ref`` under ``patch``."""
    import torch
    import torch._inductor.config as ic
    import torch._inductor.inductor_prims  # noqa: F401 - registers prims Inductor's graphs use
    from torch._inductor.compile_fx import compile_fx
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx

    from ...capture.hooks import CompileHooks

    args = {a["name"]: a for a in contract.args}
    with FakeTensorMode():
        ins = []
        for n in ref.INPUTS:
            a = args[n]
            if a.get("storage_offset", 0):
                raise CannotSynthesize(f"argument {n} starts at an offset into its buffer")
            ins.append(
                torch.empty_strided(a["shape"], a["stride"], dtype=getattr(torch, a["dtype"]), device=a["device"])
            )

    def forward(*xs: Any) -> Any:
        xs = tuple(x.reshape(ref.SHAPES[n]) if list(x.shape) != ref.SHAPES[n] else x for x, n in zip(xs, ref.INPUTS))
        outs = ref.Reference()(*xs)
        # each output written in the unit's layout: Inductor fuses the copy into the kernel
        placed = []
        for val, n in zip(outs, ref.OUTPUTS):
            a = args[n]
            if list(val.shape) != list(a["shape"]):
                val = val.reshape(a["shape"])
            out = torch.empty_strided(a["shape"], a["stride"], dtype=getattr(torch, a["dtype"]), device=a["device"])
            placed.append(out.copy_(val))
        return tuple(placed)

    gm = make_fx(forward, tracing_mode="fake")(*ins)
    hooks = CompileHooks()
    patch = dict(patch)
    scale = patch.pop("split_scale", None)
    with contextlib.ExitStack() as stack:
        stack.enter_context(hooks.active())
        stack.enter_context(ic.patch({"fx_graph_cache": False, **patch}))
        if scale is not None:
            from torch._inductor.virtualized import V

            stack.enter_context(V.set_choices_handler(_scaled_splits(scale)))
        compile_fx(gm, ins)
    if not hooks.graphs:
        raise CannotSynthesize(
            "Inductor compiles no kernel for the reference (it computes nothing, e.g. a layout copy)"
        )
    if len(hooks.graphs) != 1 or not hooks.graphs[0].path:
        raise CannotSynthesize(f"the re-lowered reference gave {len(hooks.graphs)} graphs")
    return Path(hooks.graphs[0].path).read_text()


@dataclass
class _Wrapper:
    """The re-lowered wrapper, read: its AST, its kernels, its Triton launches in order, and its
    buffers (``_buffers``)."""

    tree: ast.Module
    oc: Any  # core.outputcode's parse of it
    sites: list[Any]
    bufs: dict[str, tuple[list[int], list[int], str]]
    returned: list[str]
    roots: dict[str, str]


def _relowered(contract: Contract, unit_dir: Path, vname: str, patch: dict[str, Any]) -> tuple[Any, _Wrapper]:
    """The unit's reference module, and the wrapper Inductor writes for it under ``patch``: only
    Triton kernels, each launched once, one of them unless the unit is a region."""
    from ...core import outputcode
    from ...runner.harness import load_module

    if unit_reference_constants(unit_dir).exists():
        raise CannotSynthesize("the reference holds constants the unit's kernel does not get as arguments")
    ref = load_module(unit_reference(unit_dir), "kernelopt_relower_reference")
    if getattr(ref, "LEVEL", "kernel") != "kernel":
        raise CannotSynthesize("the reference is graph-level (the kernel reads a buffer no FX node holds)")
    source = _compile(contract, ref, patch)
    tree = ast.parse(source)
    oc = outputcode.parse(source)
    sites = [s for s in oc.sites if s.kind == "triton"]
    if not sites or len(oc.sites) != len(sites):
        kinds = ", ".join(f"{s.kind} {s.target}" for s in oc.sites) or "nothing"
        raise CannotSynthesize(f"Inductor ({vname}) lowers the reference to {kinds}: only Triton kernels are used")
    if len({s.target for s in sites}) != len(sites):
        raise CannotSynthesize(f"Inductor ({vname}) launches one kernel twice")
    if len(sites) > 1 and not contract.region:
        kinds = ", ".join(f"{s.kind} {s.target}" for s in oc.sites)
        raise CannotSynthesize(
            f"Inductor ({vname}) lowers the reference to {kinds}: one Triton kernel per unit (several for a region)"
        )
    return ref, _Wrapper(tree, oc, sites, *_buffers(tree))


def _unit_names(contract: Contract, ref: Any, w: _Wrapper, vname: str) -> dict[str, str]:
    """Wrapper names -> the unit's argument names: the inputs, and each returned buffer (under
    every name of its memory) an output laid out as the unit's."""
    unit_args = {a["name"]: a for a in contract.args}
    names = dict(zip(w.oc.call_args, ref.INPUTS))
    if len(w.returned) != len(ref.OUTPUTS):
        raise CannotSynthesize(f"the re-lowered graph returns {len(w.returned)} values for {len(ref.OUTPUTS)} outputs")
    for buf, out in zip(w.returned, ref.OUTPUTS):
        if buf not in w.bufs:
            raise CannotSynthesize(f"the re-lowered graph returns {buf}, which is not a buffer it allocates")
        shape, stride, _ = w.bufs[buf]
        a = unit_args[out]
        if a.get("storage_offset", 0):
            raise CannotSynthesize(f"argument {out} starts at an offset into its buffer")
        if (list(a["shape"]), list(a["stride"])) != (shape, stride):
            raise CannotSynthesize(
                f"Inductor ({vname}) writes {out} as {shape} with strides {stride}; "
                f"the unit's is {a['shape']} with strides {a['stride']}"
            )
        if out in ref.INPUTS and (len(w.sites) > 1 or w.oc.kernels[w.sites[0].target].heuristic not in IN_PLACE):
            raise CannotSynthesize(
                f"the unit writes {out} in place and the re-lowered code is not one pointwise or reduction kernel"
            )
        names[buf] = out
    # every other name of a returned buffer's memory (Inductor's "buf6 = buf3; del buf3  # reuse"
    # between two kernels) is that output too: the earlier kernel must write into it
    for name in w.bufs:
        owner = next((b for b in w.returned if w.roots.get(b, b) == w.roots.get(name, name)), None)
        if owner is not None and name not in names:
            names[name] = names[owner]
    return names


def _kernel_args(
    w: _Wrapper, knames: list[str], launch_args: list[ast.expr], names: dict[str, str], scratch: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """A launch's arguments as the kernel's (name, kind) and what ``launch`` passes for each: a
    unit's argument, a region's intermediate (allocated in ``launch``, added to ``scratch``) or
    a numeric constant."""
    kargs, passed = [], []
    for kn, node in zip(knames, launch_args):
        text = ast.unparse(node)
        if isinstance(node, ast.Name) and node.id in names:
            passed.append(names[node.id])
            kargs.append({"name": kn, "kind": "tensor"})
        elif isinstance(node, ast.Name) and node.id in w.bufs and len(w.sites) > 1:
            # an intermediate of the region's re-lowering: one tensor per allocation,
            # whatever name (alias) a kernel gets it under
            root = w.roots.get(node.id, node.id)
            scratch[root] = w.bufs.get(root, w.bufs[node.id])
            passed.append(f"_{root}")
            kargs.append({"name": kn, "kind": "tensor"})
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            passed.append(repr(node.value))
            kargs.append({"name": kn, "kind": "scalar", "value": node.value})
        else:
            raise CannotSynthesize(
                f"the re-lowered kernel's argument {kn} is {text}: not an input or output of the unit"
            )
    return kargs, passed


def reads_before_writes(source: str, params: list[str]) -> bool:
    """Whether the kernel ``source`` uses ``params`` (pointers to one memory) only as
    ``tl.load(p ...)`` and ``tl.store(p ...)``, every load written before the first store: a
    program then reads each element of a group before it writes it, in every loop (a load after
    a store, e.g. a later loop over the row, would read what the store overwrote in place)."""
    body = source[source.index(")", source.index("def ")) :]
    loads, stores = [], []
    for m in re.finditer(rf"\b({'|'.join(map(re.escape, params))})\b", body):
        before = body[: m.start()].rstrip()
        if before.endswith("tl.load("):
            loads.append(m.start())
        elif before.endswith("tl.store("):
            stores.append(m.start())
        else:
            return False  # a pointer used otherwise (arithmetic kept in a name, a block pointer)
    return not loads or not stores or max(loads) < min(stores)


def _site_launch(
    w: _Wrapper, i: int, names: dict[str, str], scratch: dict[str, Any], tmp: str, in_place: set[str]
) -> tuple[list[str], list[str], str]:
    """The ``i``-th launch as the candidate's: the kernel renamed, its launcher (the first config
    of its heuristics, Inductor's grid) and the line of ``launch`` that calls it."""
    from ...core import instrument
    from ...isolate.inductor import launcher_lines, strip_heuristics_decorator

    site = w.sites[i]
    prefix = "relowered_" if len(w.sites) == 1 else f"relowered{i}_"
    kname = site.target
    kd = w.oc.kernels[kname]
    launch_args = _call_args(w.tree, site.lineno, kname)
    inner = _kernel_object(kd.source, kname, tmp)
    configs = list(getattr(inner, "configs", None) or [])
    if not configs:
        raise CannotSynthesize(f"Inductor's {kname} has no configs")
    config = instrument.config_dict(configs[0])
    knames = instrument.arg_names(inner, len(launch_args))
    kargs, passed = _kernel_args(w, knames, launch_args, names, scratch)
    for arg in in_place:
        params = [kn for kn, p in zip(knames, passed) if p == arg]
        if params and not reads_before_writes(kd.source, params):
            raise CannotSynthesize(f"the unit writes {arg} in place and Inductor's {kname} reads it after writing it")
    new = f"{prefix}{kname}"
    pseudo = Contract(args=kargs, launch_config=config, grid_expr=instrument.grid_expr(inner, config))
    kernel_src = strip_heuristics_decorator(kd.source, kname)
    kernel = [re.sub(rf"\bdef {kname}\(", f"def {new}(", kernel_src).strip(), ""]
    cfg_prefix = "" if len(w.sites) == 1 else f"K{i}_"
    launcher = [*launcher_lines(new, pseudo, cfg_prefix=cfg_prefix, fn_prefix=prefix), "", ""]
    return kernel, launcher, f"    {prefix}launch({', '.join(passed)})"


class OwnKernels(CannotSynthesize):
    """The variant re-lowered the unit to its Inductor kernel(s) again."""


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def _kernel_bodies(source: str) -> list[str]:
    """The Triton kernels of a module, each without its decorators and name (a re-lowered
    kernel is renamed ``relowered*_``), in their order; none when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            out.append(ast.unparse(ast.FunctionDef(**{**node.__dict__, "name": "k", "decorator_list": []})))
    return out


def relower(contract: Contract, unit_dir: Path, attempt: int, variant: int) -> str:
    vname, patch = variants(contract)[variant % len(variants(contract))]
    ref, w = _relowered(contract, Path(unit_dir), vname, patch)
    names = _unit_names(contract, ref, w, vname)
    kernels, launchers, calls, scratch = [], [], [], {}
    with tempfile.TemporaryDirectory(prefix="kernelopt-relower-") as tmp:
        for i in range(len(w.sites)):
            kernel, launcher, call = _site_launch(w, i, names, scratch, tmp, set(ref.INPUTS) & set(ref.OUTPUTS))
            kernels += kernel
            launchers += launcher
            calls.append(call)
    if _kernel_bodies("\n".join(kernels)) == _kernel_bodies(_read(Path(unit_dir) / INDUCTOR_FILE)):
        # the same kernels with their heuristics' first config, not the capture's autotuned one:
        # a slower copy of Inductor's (an argmax over dim 1 on the H100: XBLOCK 2 for 64, 3.2x
        # its time); choosing configs is the search's work on Inductor's own kernel
        raise OwnKernels(f"variant {vname} lowers the unit to Inductor's own kernel(s): nothing new to try")
    where = ", ".join(f"{k}={v!r}" for k, v in patch.items()) or "the capture's settings"
    params = [a["name"] for a in contract.args]
    first_tensor = next(a["name"] for a in contract.args if a.get("kind") == "tensor")
    alloc = [
        f"    _{b} = torch.empty_strided({tuple(shape)}, {tuple(stride)}, dtype={dtype}, device={first_tensor}.device)"
        for b, (shape, stride, dtype) in scratch.items()
    ]
    n = len(w.sites)
    what = "its heuristics' first config" if n == 1 else f"{n} kernels, each with its first config"
    return "\n".join(
        [
            f'"""Synthesised by kernelopt (Inductor re-lowering, variant {vname}, attempt {attempt}): Inductor\'s',
            f"own lowering of the unit's eager reference with {where}, {what}.",
            '"""',
            *(["import torch", ""] if scratch else []),
            *kernels,
            "",
            *launchers,
            f"def launch({', '.join(params)}):",
            *alloc,
            *calls,
            "",
        ]
    )
