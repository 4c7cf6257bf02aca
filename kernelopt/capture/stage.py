"""Stage 1, capture: compile the problem once with max-autotune and save everything
later stages need, so that nothing downstream ever recompiles.

Artifacts (``<workdir>/<problem>/capture/``, docs/architecture.md):
  output_code.py          the wrapper module Inductor wrote (graph 0; more graphs: _g<k>)
  fx_graph_post_grad*.py  the post-grad FX graph each wrapper was lowered from
  kernels/<name>.py       each Triton kernel's source; kernels/<name>.reference.py its
                          eager reference cut from the FX graph (see fxref.py)
  capture.json            call-argument map, kernel <-> buffer maps, every launch
  profile.json            per-launch-site device time (classify's input)
  baseline.json           eager and compiled times, compile seconds, environment
"""

from __future__ import annotations

import re
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import gpulock, gpumem, measure, outputcode, outputs, problems, runtime
from ..core.callargs import build_call_args, map_call_args, match_outputs
from ..core.errors import JobFault, ProblemError, looks_like_oom
from ..core.instrument import LaunchRecorder, instrumented
from ..core.records import Baseline, Capture, CaptureProfile, ProblemPaths
from . import fxref, graphunits, regions, rewrites
from .hooks import CompileHooks, GraphCapture, KernelSite
from .profiling import profile_compiled, profile_sites


# --------------------------------------------------------------------------- references
def _node_finder(cap: GraphCapture) -> Callable[[str], Any]:
    """buffer name -> the FX node whose value it holds (a graph input is its placeholder)."""
    if cap.gm is None:
        raise fxref.ReferenceUnavailable("the post-grad graph was not captured")
    nodes = {n.name: n for n in cap.gm.graph.nodes}

    def node_of(buf: str) -> Any:
        name = buf if buf in nodes and nodes[buf].op == "placeholder" else cap.buffer_origin.get(buf)
        if name is None or name not in nodes:
            raise fxref.ReferenceUnavailable(f"buffer {buf} has no origin FX node")
        return nodes[name]

    return node_of


RAW_CONV = re.compile(r"^\s*(buf\d+) = extern_kernels\.convolution\((\w+), (\w+),[^\n]*\bbias=None\)", re.M)


KERNEL_RUN = re.compile(r"^\s*(triton_\w+)\.run\((\w+), (buf\d+), [^\n]*\)$", re.M)
PURE_COPY = re.compile(
    r"def \w+\(in_ptr0, out_ptr0, [^)]*\):.*?\n\s*(tmp\d+) = tl\.load\(in_ptr0 \+ [^\n]*\n"
    r"\s*tl\.store\(out_ptr0 \+ \([^\n]*\), \1, [^\n]*\)\s*$",
    re.S,
)


def layout_copies(source: str, kernel_sources: dict[str, str]) -> dict[str, str]:
    """``{buffer: the buffer it copies}`` for the kernels that only copy one buffer into another
    (one load, that value stored, nothing else): on the GPU Inductor copies a convolution's input
    and weight to the layout the library wants before calling it, and the copies hold no FX
    node's value of their own."""
    out = {}
    for kernel, src, dst in KERNEL_RUN.findall(source):
        body = kernel_sources.get(kernel, "")
        if PURE_COPY.search(body) and body.count("tl.load(") == 1 and body.count("tl.store(") == 1:
            out[dst] = src
    return out


def raw_convolutions(
    source: str, node_of: Callable[[str], Any], copies: dict[str, str] | None = None
) -> dict[str, tuple[Any, Any]]:
    """Buffers holding a convolution's value without its bias (``{buffer: (the convolution's FX
    node, its bias's)}``): on the GPU Inductor may call the library with ``bias=None`` and add the
    bias in the Triton kernels after it, so the call's buffer holds no FX node's value and a
    region starting there had no reference.  Only a call whose input and weight buffers map to
    the FX convolution's, one such node with a bias, is taken; an input or weight that is a layout
    copy (``copies``, from `layout_copies`) maps through to what it copies."""
    import torch

    copies = copies or {}
    out = {}
    for buf, x, w in RAW_CONV.findall(source):
        try:
            xn, wn = node_of(copies.get(x, x)), node_of(copies.get(w, w))
        except fxref.ReferenceUnavailable:
            continue
        convs = [
            n
            for n in xn.users
            if n.target is torch.ops.aten.convolution.default
            and len(n.args) > 2
            and n.args[:2] == (xn, wn)
            and n.args[2] is not None
        ]
        if len(convs) == 1:
            out[buf] = (convs[0], convs[0].args[2])
    return out


def region_references(
    cap: GraphCapture, source: str, kernels: dict[str, Any], kernel_sources: dict[str, str], paths: ProblemPaths
) -> dict[str, Any]:
    """Regions (capture/regions.py) of graph 0 that start at a kernel with no reference of its
    own (``split``) or drop a round trip through memory between kernels that have one
    (``fusible``), each with the eager reference of the FX subgraph from its inputs to its outputs
    (``kernels/<region>.reference.py``); the refused starts with their reasons."""
    own = {k: e.get("reference") for k, e in kernels.items() if not e.get("user")}  # None: not cut
    starts = [k for k, ref in own.items() if "error" in (ref or {})]
    fusible = [k for k, ref in own.items() if ref and "error" not in ref]
    if not (starts or fusible) or cap.gm is None:
        return {"found": [], "refused": []}
    node_of = _node_finder(cap)

    def mappable(buf: str) -> bool:
        try:
            return fxref.numel(node_of(buf)) is not None
        except fxref.ReferenceUnavailable:
            return False

    found, refused = regions.find_regions(
        source,
        kernel_sources,
        {k: e.get("heuristic") for k, e in kernels.items()},
        starts,
        mappable,
        fusible,
        absorb=True,
    )
    try:
        raw = raw_convolutions(source, node_of, layout_copies(source, kernel_sources))
    except Exception:  # noqa: BLE001 - an optional start: without it such regions stay refused, said why
        raw = {}
    out = []
    for r in found:
        rid = regions.region_id(r["members"])
        try:
            named = {b: r.get("read_as", {}).get(b, b) for b in r["inputs"]}  # the name its FX node has
            starts = {b: raw[n] for b, n in named.items() if n in raw and n not in cap.buffer_origin}
            ins = {b: starts[b][0] if b in starts else node_of(named[b]) for b in r["inputs"]}
            biases = {b: bias for b, (_, bias) in starts.items()}
            ref = fxref.build(cap.gm, ins, {b: node_of(b) for b in r["outputs"]}, raw=biases)
        except Exception as e:  # noqa: BLE001 - this region has no reference, said why; the others go on
            why = f"the region {' -> '.join(r['members'])} has no reference: {type(e).__name__}: {e}"
            refused.append({"start": r["members"][0], "function": r["function"], "reason": why})
            continue
        out.append({**r, "id": rid, "reference": save_reference(paths, rid, ref)})
    return {"found": out, "refused": refused}


def save_reference(paths: ProblemPaths, stem: str, ref: fxref.ReferenceCode) -> dict[str, Any]:
    """``kernels/<stem>.reference.py`` (and its constants); the record capture.json keeps."""
    paths.kernel_reference(stem).write_text(fxref.render(stem, ref))
    if ref.constants:
        import torch

        torch.save(
            {k: v.detach().cpu() for k, v in ref.constants.items()},
            paths.kernel_reference_constants(stem),
        )
    return {
        "file": paths.kernel_reference(stem).relative_to(paths.capture).as_posix(),
        "inputs": ref.input_nodes,
        "outputs": ref.output_nodes,
        "aten_ops": ref.aten_ops,
    }


def kernel_reference(
    cap: GraphCapture, site: KernelSite, source: str | None = None
) -> tuple[fxref.ReferenceCode, dict[str, Any]]:
    """Map the kernel's argument buffers to FX nodes and cut the subgraph between them.

    Returns the reference and notes: ``write_only`` lists in-place arguments whose
    incoming buffer the kernel computes itself (reused memory, never read), and
    ``layout_copy`` is set when the output is a re-laid-out copy of the single input
    (Inductor's stride conversions for extern kernels have no FX node of their own).
    An in-place argument the kernel's ``source`` only loads from is an input, not an output:
    Inductor keeps the in/out name of a reused buffer whose store it dropped (the value was
    only needed in registers), and the FX node the buffer was meant for is then not written.
    """
    node_of = _node_finder(cap)
    computed = set(site.computed)

    inputs: dict[str, Any] = {}
    out_bufs: dict[str, str] = {}
    notes: dict[str, Any] = {"write_only": [], "layout_copy": False}
    unmapped: list[str] = []
    for inner in site.argdefs:
        if inner in site.inplace:
            bufs = site.inplace[inner]
            if bufs[0] in computed:
                notes["write_only"].append(inner)
            else:
                try:
                    inputs[inner] = node_of(bufs[0])
                except fxref.ReferenceUnavailable:
                    unmapped.append(bufs[0])
            if source is None or outputcode.stores_to(source, inner):
                out_bufs[inner] = bufs[-1]
    for outer, inner in site.inputs.items():
        if inner not in site.inplace:
            try:
                inputs[inner] = node_of(outer)
            except fxref.ReferenceUnavailable:
                unmapped.append(outer)
    for outer, inner in site.outputs.items():
        if inner not in site.inplace:
            out_bufs[inner] = outer
    outputs: dict[str, Any] = {}
    for inner, buf in out_bufs.items():
        try:
            outputs[inner] = node_of(buf)
        except fxref.ReferenceUnavailable:
            only = next(iter(inputs.values())) if len(inputs) == 1 else None
            if (
                only is not None
                and len(out_bufs) == 1
                and not unmapped
                and cap.buffer_numel.get(buf) == fxref.numel(only)
            ):
                outputs[inner] = only  # same values in another layout (e.g. channels-last for a conv)
                notes["layout_copy"] = True
            else:
                raise fxref.ReferenceUnavailable(
                    f"output buffer {buf} holds no FX node's value (e.g. the partial sums of a split reduction)"
                ) from None
    if unmapped:
        notes["graph_level_because"] = f"input buffer(s) {', '.join(unmapped)} hold no FX node's value"
        return fxref.build(cap.gm, None, outputs), notes
    return fxref.build(cap.gm, inputs, outputs), notes


def _save_helion(problem: problems.Problem, paths: ProblemPaths) -> dict[str, Any]:
    """Save the Triton code Helion generated for each of the problem's Helion kernels (during the
    eager run) under ``capture/helion/<kernel>.py``; the record per kernel for capture.json."""
    from ..core import helion_input

    out: dict[str, Any] = {}
    for name, g in helion_input.generated_code(problem.module).items():
        paths.helion_dir.mkdir(parents=True, exist_ok=True)
        (paths.helion_dir / f"{name}.py").write_text(g.code)
        out[name] = {
            "config": g.config,
            "config_dict": g.config_dict,
            "args": g.args,
            "code": f"helion/{name}.py",
            "triton_kernel": helion_input.triton_kernel_name(g.code),
        }
    return out


def _peak_mb(device: str, reserved: bool = False) -> float | None:
    """Peak GPU memory of this process so far (allocated, or reserved from the device)."""
    peak = gpumem.peak_mb(reserved) if device == "cuda" else None
    return None if peak is None else round(peak, 1)


# --------------------------------------------------------------------------- main
def _build(problem_path: Path, paths: ProblemPaths, device: str, seed: int) -> tuple[Any, Any, list[Any], Any]:
    """The problem, its model and inputs for ``seed``, and the model's parameter fingerprint."""
    problem = problems.load(problem_path)
    model = problems.build_model(problem, device, seed)
    inputs = problems.make_inputs(problem, device, seed)
    fingerprint = problems.param_fingerprint(model)
    print(
        f"[capture] {paths.problem}: device={device}, {sum(p.numel() for p in model.parameters())} parameters",
        flush=True,
    )
    return problem, model, inputs, fingerprint


def _eager_forward(problem_path: Path, model: Any, inputs: list[Any]) -> Any:
    """The model's eager outputs; a crash is the problem's fault (ProblemError)."""
    try:
        return model(*inputs)
    except Exception as e:  # noqa: BLE001
        raise ProblemError(
            str(problem_path),
            "forward",
            f"eager forward crashed: {type(e).__name__}: {e}\n{''.join(traceback.format_exception(e)[-3:])}",
        ) from e


def _check_eager(eager_out: Any) -> dict[str, Any] | None:
    """NaN and Inf among the eager outputs (``outputs.nonfinite``), with a warning in the log."""
    record = outputs.nonfinite(outputs.tensors(eager_out))
    if record:
        limit = f"{100 * outputs.NONFINITE_LIMIT:g} %"
        then = (
            f"past {limit} it cannot check a candidate: the problem's units are unit-not-checkable"
            if outputs.nonfinite_reason(record)
            else f"candidates are checked where it is finite (past {limit} its units would be unit-not-checkable)"
        )
        print(
            f"[capture] warning: the eager reference (the model's outputs) is {outputs.describe_nonfinite(record)}; "
            + then,
            flush=True,
        )
    return record


def _compile(
    problem_path: Path,
    model: Any,
    inputs: list[Any],
    device: str,
    paths: ProblemPaths,
    ccfg: dict[str, Any],
    eager: list[Any],
) -> tuple[CompileHooks, Any, list[Any], Any, float, float]:
    """Compile the model and run it once under the hooks that record every graph: the hooks,
    the compiled model, its outputs (cloned), their structure, the compile seconds and the
    outputs' largest error against the eager ones (``eager``: a one-item list, emptied once
    compared, so the eager outputs are not held beside the compiled outputs' clones)."""
    import torch

    # The compile holds the GPU lock shared while it works on the GPU (its autotuning
    # benchmarks, the compiled model's first runs), not during its minutes of CPU work
    # (lowering, code generation): compiles overlap one another and measurements, but no
    # measurement (exclusive) runs while one autotunes.
    hooks = CompileHooks()
    with hooks.active(), gpulock.CompileLease(device, f"compile {paths.problem}"):
        compiled = torch.compile(model, mode=ccfg["mode"])
        t0 = time.perf_counter()
        try:
            compiled_result = compiled(*inputs)
            runtime.sync(device)
            compile_s = time.perf_counter() - t0
            compiled_vs_eager = outputs.max_abs_error(outputs.tensors(compiled_result), outputs.tensors(eager[0]))
            eager.clear()
            # clone: CUDA-graph trees may reuse output memory on later calls
            compiled_out = [t.clone() for t in outputs.tensors(compiled_result)]
            output_structure = outputs.structure(compiled_result)
            del compiled_result
            runtime.sync(device)
        except Exception as e:  # noqa: BLE001
            raise ProblemError(
                str(problem_path),
                "compile",
                f"torch.compile(mode={ccfg['mode']!r}) failed: {type(e).__name__}: {str(e)[:2000]}",
            ) from e
    return hooks, compiled, compiled_out, output_structure, compile_s, compiled_vs_eager


def _give_back_cached(device: str) -> None:
    """Blocks the caching allocator keeps but no tensor holds go back to the device: a CUDA
    graph's private pool cannot reuse them, and other jobs on the GPU can."""
    if device == "cuda":
        import torch

        torch.cuda.empty_cache()


def _release_compiled(device: str) -> None:
    """Give back what the compiled model's CUDA graphs hold (their static input copies, memory
    pools and outputs) once it has been timed and profiled: the standalone checks that follow
    run the saved wrapper, not the compiled model, and would otherwise hold both (bench/README.md,
    "The capture's footprint")."""
    if device != "cuda":
        return
    import torch

    try:
        from torch._inductor import cudagraph_trees

        # Dynamo's cache of the compiled forward holds the graphs too
        torch._dynamo.reset()
        cudagraph_trees.reset_cudagraph_trees()
    except Exception as e:  # noqa: BLE001 - memory given back later is a cost, never a failure
        print(f"[capture] the compiled model's CUDA graphs were not released: {type(e).__name__}: {e}", flush=True)
    _give_back_cached(device)


def _kernel_entry(
    cap: GraphCapture, name: str, kd: Any, stem: str, paths: ProblemPaths, helion: dict[str, Any]
) -> dict[str, Any]:
    """Save one kernel's source (``kernels/<stem>.py``) and its reference; its capture.json record.
    A user's own kernel is its unit's oracle; an Inductor kernel gets the FX subgraph it computes."""
    src = kd.source.lstrip("\n")
    if kd.is_user:  # saved under the kernel's name, as every later stage expects
        src = outputcode.rename_function(src, kd.function, name)
    paths.kernel_source(stem).write_text(src)
    sites = cap.kernel_sites.get(name, [])
    entry: dict[str, Any] = {
        "heuristic": kd.heuristic,
        "source": paths.kernel_source(stem).relative_to(paths.capture).as_posix(),
        "sites": [s.__dict__ for s in sites],
    }
    if kd.is_user:
        # the user's own kernel is its unit's oracle (isolate writes that reference)
        entry.update(user=True, function=kd.function)
        source_of = next((h for h, rec in helion.items() if rec["triton_kernel"] == kd.function), None)
        if source_of:
            entry["helion"] = source_of  # generated by Helion for that kernel's config
        entry["reference"] = {"user": True, "aten_ops": []}
    elif sites:
        try:
            ref, notes = kernel_reference(cap, sites[0], src)
            entry["reference"] = {**save_reference(paths, stem, ref), **notes}
        except fxref.ReferenceUnavailable as e:
            entry["reference"] = {"error": str(e)}
    else:
        entry["reference"] = {"error": "define_kernel hook did not see this kernel"}
    return entry


def _save_graph_code(cap: GraphCapture, paths: ProblemPaths) -> tuple[Path, str]:
    """Write one graph's wrapper module and its post-grad FX graph; the wrapper's path and source."""
    out_path = paths.graph_output_code(cap.index)
    source = Path(cap.path).read_text() if cap.path else ""
    out_path.write_text(source)
    if cap.gm is not None:
        paths.fx_graph(cap.index).write_text(
            cap.gm.print_readable(print_output=False) if hasattr(cap.gm, "print_readable") else str(cap.gm.graph)
        )
    return out_path, source


def graph_rewrites(cap: GraphCapture, source: str, kernels: dict[str, Any], paths: ProblemPaths) -> dict[str, Any]:
    """Rewrites above the kernel (capture/rewrites.py) of graph 0: every finding, and for each one
    with a candidate generator the graph-level unit that computes its node in the wrapper
    (capture/graphunits.py) with the eager reference of the FX subgraph from the unit's graph
    inputs to its output (``kernels/<unit>.reference.py``); the refused ones with the reason.

    Where no buffer holds the finding's node alone (Inductor fused it with the elementwise ops
    after it into one kernel: a sum over a linear layer's outputs followed by size-1 reductions),
    the unit extends to the first node of the finding's ``roles.epilogue`` that a buffer holds:
    its reference and candidate compute the epilogue too (``roles.output_node`` names the node
    the unit's output holds, ``extended`` says why)."""
    if cap.gm is None:
        return {"findings": [], "units": [], "refused": []}
    findings = rewrites.analyse(cap.gm)
    nodes = {n.name: n for n in cap.gm.graph.nodes}
    sources = {k: (paths.capture / e["source"]).read_text() for k, e in kernels.items()}
    units, refused = [], []
    for f in findings:
        if not f["candidate"]:
            continue
        whys: list[str] = []
        ends = [f["node"]] + [e["node"] for e in f["roles"].get("epilogue", [])]
        for end in ends:
            # a pool's library call's own result first (the unit is the call), then copies of it
            calls = cap.fallback_origin if f["rewrite"] == "library-pool" else {}
            bufs = [b for b, n in [*calls.items(), *cap.buffer_origin.items()] if n == end]
            if end == f["node"] and not bufs:
                whys.append(f"no buffer holds {end}'s value")
            unit = _graph_unit(cap, f, end, bufs, source, sources, nodes, paths, whys)
            if unit is not None:
                if end != f["node"]:
                    unit["extended"] = (
                        f"no buffer holds {f['node']} alone ({'; '.join(whys)}): the unit extends to "
                        f"{end}, computed from it elementwise"
                    )
                units.append(unit)
                break
        else:
            refused.append({"rewrite": f["rewrite"], "node": f["node"], "reason": "; ".join(whys)})
    return {"findings": findings, "units": units, "refused": refused}


def _graph_unit(
    cap: GraphCapture,
    f: dict[str, Any],
    end: str,
    bufs: list[str],
    source: str,
    sources: dict[str, str],
    nodes: dict[str, Any],
    paths: ProblemPaths,
    whys: list[str],
) -> dict[str, Any] | None:
    """The unit of finding ``f`` whose output is the first of ``bufs`` (the buffers holding node
    ``end``) that derives; None (each buffer's reason added to ``whys``) if none does."""
    node_of = _node_finder(cap)
    for buf in bufs:
        for inputs in _input_choices(cap, f):
            try:
                u = graphunits.derive_in_wrapper(source, sources, inputs, buf)
                _node_dtype(u["output_specs"][buf], nodes[end])
                _not_a_kernel_unit_again(f, u)
                ref = fxref.build(cap.gm, {b: node_of(b) for b in u["inputs"]}, {buf: nodes[end]})
                specs = {b: _input_spec(u, b, node_of(b)) for b in u["inputs"]}
            except Exception as e:  # noqa: BLE001 - this finding forms no unit, said why; the others go on
                whys.append(f"{buf}: {type(e).__name__}: {e}")
                continue
            uid = graphunits.unit_id(f["rewrite"], buf)
            rec = {**f, "roles": {**f["roles"], "output_node": end}} if end != f["node"] else f
            return {**u, "id": uid, "rewrite": rec, "input_specs": specs, "reference": save_reference(paths, uid, ref)}
    return None


def _input_choices(cap: GraphCapture, f: dict[str, Any]) -> list[list[str]]:
    """The wrapper names a finding's unit may take as inputs: its graph inputs; for a pool of a
    node's value (``library-pool`` after a convolution), each buffer holding that value (the unit
    starts after the library call that wrote it)."""
    ins = [i for i in f["inputs"] if i in cap.graph_inputs]
    inner = [i for i in f["inputs"] if i not in cap.graph_inputs]
    if f["rewrite"] != "library-pool" or len(inner) != 1:
        return [ins]
    return [ins + [b] for b, n in cap.buffer_origin.items() if n == inner[0]] or [ins]


def _input_spec(u: dict[str, Any], b: str, node: Any) -> dict[str, Any]:
    """An input's layout: a buffer the wrapper made before the unit has the layout the wrapper
    gave it (its dtype the node's); a graph input, its node's."""
    spec = _spec(node)
    have = u.get("input_layouts", {}).get(b)
    if have is None:
        return spec
    if have["shape"] != spec["shape"] or (have["dtype"] or spec["dtype"]) != spec["dtype"]:
        raise graphunits.NotAGraphUnit(f"the wrapper's {b} ({have}) is not its node's value ({spec})")
    return {**have, "dtype": spec["dtype"]}


def _not_a_kernel_unit_again(f: dict[str, Any], u: dict[str, Any]) -> None:
    """A library-pool unit is the ATen call Inductor left: where it lowered the pool to a Triton
    kernel, that kernel's own unit (searched with the same pooling templates) covers it, and a
    second unit of the same kernel would only search it twice."""
    if f["rewrite"] == "library-pool" and not any(m["kind"] == "fallback" for m in u["members"]):
        raise graphunits.NotAGraphUnit(
            f"Inductor lowered the pool to {', '.join(u['kernels'])}: its kernel-level unit covers it"
        )


def _node_dtype(spec: dict[str, Any], node: Any) -> None:
    """A layout a GPU's wrapper asserts without a dtype (``assert_size_stride`` after a library
    call) takes the graph node's; the shapes must agree."""
    if spec["dtype"] is not None:
        return
    val = _spec(node)
    if spec["shape"] != val["shape"]:
        raise graphunits.NotAGraphUnit(f"the wrapper's layout {spec['shape']} is not the node's {val['shape']}")
    spec["dtype"] = val["dtype"]


def _spec(node: Any) -> dict[str, Any]:
    val = node.meta["val"]
    return {"shape": list(val.shape), "stride": list(val.stride()), "dtype": str(val.dtype).split(".")[-1]}


def _graph_regions(cap: GraphCapture, source: str, kernels: dict[str, Any], paths: ProblemPaths) -> dict[str, Any]:
    """Graph 0's regions; a failure to find them leaves none (said why), the kernels stay units."""
    kernel_sources = {k: (paths.capture / e["source"]).read_text() for k, e in kernels.items()}
    try:
        return region_references(cap, source, kernels, kernel_sources, paths)
    except Exception as e:  # noqa: BLE001 - no regions, said why; the kernels stay units
        return {"found": [], "refused": [], "error": f"{type(e).__name__}: {e}"}


@dataclass(frozen=True)
class _Compiled:
    """The compiled problem each graph's saved wrapper is checked against: the model and its
    inputs, the compiled model's outputs, the device, the capture settings, how many graphs."""

    model: Any
    inputs: list[Any]
    compiled_out: Any
    device: str
    ccfg: dict[str, Any]
    n_graphs: int


def _graph_record(
    cap: GraphCapture,
    paths: ProblemPaths,
    helion: dict[str, Any],
    all_kernels: set[str],
    saved_all: dict[str, Any],
    run: _Compiled,
) -> dict[str, Any]:
    """Save one graph (wrapper, FX graph, kernels, references, constants) and check that its
    wrapper runs standalone; its capture.json record.  Adds the graph's kernels to
    ``all_kernels`` and its saved call arguments to ``saved_all``."""
    import torch

    g = cap.index
    out_path, source = _save_graph_code(cap, paths)
    oc = outputcode.parse(source, out_path)
    kernels: dict[str, Any] = {}
    for name, kd in oc.kernels.items():
        all_kernels.add(name)
        kernels[name] = _kernel_entry(cap, name, kd, name if g == 0 else f"g{g}_{name}", paths, helion)
    if g == 0:
        found_regions = _graph_regions(cap, source, kernels, paths)
    rec: dict[str, Any] = {
        "index": g,
        "output_code": out_path.name,
        "aot_id": oc.aot_id,
        "graph_inputs": cap.graph_inputs,
        "codegen_s": cap.codegen_s,
        "kernels": kernels,
        "constants": sorted(cap.constants),
        "sites": [s.to_dict() for s in oc.sites],
    }
    if g == 0:
        rec["regions"] = found_regions
        try:
            rec["rewrites"] = graph_rewrites(cap, source, kernels, paths)
        except Exception as e:  # noqa: BLE001 - no graph-level units, said why; the kernels stay units
            rec["rewrites"] = {"findings": [], "units": [], "refused": [], "error": f"{type(e).__name__}: {e}"}
    if cap.constants:
        torch.save(
            {k: v.detach().cpu() for k, v in cap.constants.items() if isinstance(v, torch.Tensor)},
            paths.graph_constants(g),
        )
    if cap.call_args is None:
        rec["call_args"] = None
        rec["standalone"] = {"ok": False, "reason": "the wrapper's call() was never invoked"}
    else:
        mapping, saved = map_call_args(cap.call_args, run.model, run.inputs)
        rec["call_args"] = mapping
        saved_all.update({f"g{g}.{k}": v for k, v in saved.items()})
        rec["standalone"] = _standalone_check(out_path, oc, cap, mapping, saved, run)
    return rec


def _compiled_profile(
    paths: ProblemPaths, call: Callable[[], Any], kernels: set[str], device: str, ccfg: dict[str, Any]
) -> dict[str, Any]:
    """The compiled model's own profile (with its CUDA graphs), taken before they are released."""
    import torch

    with torch.no_grad(), gpulock.exclusive(device, f"profile {paths.problem}"):
        return profile_compiled(call, kernels, device, ccfg["profile_reps"])


def _write_profile(paths: ProblemPaths, graphs_rec: list[dict[str, Any]], compiled: dict[str, Any]) -> None:
    """profile.json: each graph's site profile (taken out of its standalone record) and the
    compiled model's own profile."""
    profile = {"graphs": [r.get("standalone", {}).pop("profile", None) for r in graphs_rec], "compiled": compiled}
    CaptureProfile.from_dict(profile).save(paths.profile)


def _baseline(
    paths: ProblemPaths,
    device: str,
    ccfg: dict[str, Any],
    compile_s: float,
    graphs_rec: list[dict[str, Any]],
    times: tuple[dict[str, Any], dict[str, Any], Any],
) -> dict[str, Any]:
    """baseline.json: eager and compiled times (``times``: eager, compiled, and the compiled
    outputs' error against eager), the wrapper's own time, compile seconds, environment."""
    eager_t, compiled_t, compiled_vs_eager = times
    return {
        "problem": paths.problem,
        "device": device,
        "mode": ccfg["mode"],
        "compile_s": compile_s,
        "graphs": len(graphs_rec),
        "eager": eager_t,
        "compiled": compiled_t,
        # the output code alone in one CUDA graph (gate 4's way, no input copies); one graph only
        "wrapper": (graphs_rec[0].get("standalone") or {}).get("wrapper_time") if len(graphs_rec) == 1 else None,
        "speedup_compiled_vs_eager": eager_t["median_ms"] / compiled_t["median_ms"]
        if compiled_t["median_ms"] > 0
        else None,
        "compiled_vs_eager_max_abs": compiled_vs_eager,
        "environment": runtime.environment(device),
        "inductor_config": _inductor_config(device),
    }


@dataclass
class _Ran:
    """What running the eager and the compiled model gave: the hooks' graphs, the compiled
    outputs (cloned), their structure, the eager outputs' NaN/Inf, the times, the compile
    seconds, the compiled outputs' error against eager, the compiled model's profile and the
    memory the phases took."""

    hooks: CompileHooks
    compiled_out: list[Any]
    output_structure: Any
    eager_nonfinite: dict[str, Any] | None
    eager_t: dict[str, Any]
    compiled_t: dict[str, Any]
    compile_s: float
    compiled_vs_eager: float
    compiled_profile: dict[str, Any]
    memory: dict[str, Any]


def _run_models(
    problem_path: Path,
    paths: ProblemPaths,
    model: Any,
    inputs: list[Any],
    device: str,
    ccfg: dict[str, Any],
) -> _Ran:
    """Run, time and compare the eager model, then compile, run, time and profile the compiled
    one.  The compiled model is not returned: its CUDA graphs (static input copies, memory pools)
    can be released before the standalone wrappers run."""
    import torch

    with torch.no_grad():
        eager = [_eager_forward(problem_path, model, inputs)]
        runtime.sync(device)
        memory = {"eager_peak_mb": _peak_mb(device)}
        eager_nonfinite = _check_eager(eager[0])
        with gpulock.exclusive(device, f"eager timing {paths.problem}"):
            eager_t = measure.time_one(lambda: model(*inputs), device, measure.for_device(ccfg["timing"], device))
        gpumem.mark("eager model")
        hooks, compiled, compiled_out, output_structure, compile_s, compiled_vs_eager = _compile(
            problem_path, model, inputs, device, paths, ccfg, eager
        )
        memory["compile_peak_mb"] = _peak_mb(device)
        print(f"[capture] compiled in {compile_s:.1f} s, {len(hooks.graphs)} graph(s)", flush=True)
        with gpulock.exclusive(device, f"compiled timing {paths.problem}"):
            compiled_t = measure.time_one(lambda: compiled(*inputs), device, measure.for_device(ccfg["timing"], device))
    if not hooks.graphs:
        raise ProblemError(
            str(problem_path),
            "compile",
            "torch.compile produced no Inductor graph (the forward has no tensor work, or Dynamo fell back to eager)",
        )
    # the kernels' names as _graph_record reads them from each saved wrapper, read here already
    kernels = {k for cap in hooks.graphs if cap.path for k in outputcode.parse(Path(cap.path).read_text()).kernels}
    profile = _compiled_profile(paths, lambda: compiled(*inputs), kernels, device, ccfg)
    gpumem.mark("compiled model (compile, timing, profile)")
    return _Ran(
        hooks,
        compiled_out,
        output_structure,
        eager_nonfinite,
        eager_t,
        compiled_t,
        compile_s,
        compiled_vs_eager,
        profile,
        memory,
    )


def run(problem_path: Path, paths: ProblemPaths, cfg: dict[str, Any]) -> dict[str, Any]:
    """Capture one problem.  Raises ProblemError for faults in the problem itself."""
    device = runtime.prepare(cfg["device"], paths.cache, fresh=True)
    import torch

    ccfg = cfg["capture"]
    seed = int(cfg["seed"])
    paths.capture.mkdir(parents=True, exist_ok=True)
    problem, model, inputs, fingerprint = _build(problem_path, paths, device, seed)

    ran = _run_models(problem_path, paths, model, inputs, device, ccfg)
    # the compiled model (a local of _run_models) is gone: what its CUDA graphs held goes back
    _release_compiled(device)
    hooks, compiled_out, memory = ran.hooks, ran.compiled_out, ran.memory

    helion = _save_helion(problem, paths)
    saved_all: dict[str, Any] = {}
    all_kernels: set[str] = set()
    paths.kernels_dir.mkdir(parents=True, exist_ok=True)
    run = _Compiled(model, inputs, compiled_out, device, ccfg, len(hooks.graphs))
    graphs_rec = [_graph_record(cap, paths, helion, all_kernels, saved_all, run) for cap in hooks.graphs]
    gpumem.mark("standalone wrappers (launches, site profiles, timing)")

    if saved_all:
        torch.save(saved_all, paths.saved_call_args)
    _write_profile(paths, graphs_rec, ran.compiled_profile)

    memory.update(
        inputs_mb=round(gpumem.tensor_mb(inputs), 1),
        params_mb=round(gpumem.tensor_mb(list(model.parameters()) + list(model.buffers())), 1),
        outputs_mb=round(gpumem.tensor_mb(compiled_out), 1),
        job_peak_mb=_peak_mb(device, reserved=True),
        phases=list(gpumem.MARKS) or None,
    )
    capture_rec = {
        "problem": paths.problem,
        # GPU memory (MiB) this capture used: the later jobs of the problem declare their need
        # from job_peak_mb (core/gpumem.py); None on the CPU
        "memory": memory,
        "path": str(problem_path),
        "device": device,
        "seed": seed,
        "mode": ccfg["mode"],
        "param_fingerprint": fingerprint,
        "output_structure": ran.output_structure,
        # NaN/Inf among the eager outputs (None: all finite); past outputs.NONFINITE_LIMIT the
        # problem's units are unit-not-checkable (gates/stage.py)
        "eager_nonfinite": ran.eager_nonfinite,
        "graphs": graphs_rec,
        "hook_errors": hooks.errors,
        "helion": helion,
        "stitchable": len(graphs_rec) == 1 and bool(graphs_rec[0].get("standalone", {}).get("ok")),
    }
    Capture.from_dict(capture_rec).save(paths.capture_record)
    baseline = _baseline(
        paths, device, ccfg, ran.compile_s, graphs_rec, (ran.eager_t, ran.compiled_t, ran.compiled_vs_eager)
    )
    Baseline.from_dict(baseline).save(paths.baseline)
    print(
        f"[capture] eager {ran.eager_t['median_ms']:.4f} ms, compiled {ran.compiled_t['median_ms']:.4f} ms "
        f"({'meaningful' if ran.eager_t['meaningful'] else 'CPU mode: not meaningful'})",
        flush=True,
    )
    return baseline


def _inductor_config(device: str) -> dict[str, Any]:
    import torch._inductor as ind

    out = dict(ind.list_mode_options("max-autotune"))
    if device == "cpu":
        from ..core import cpu_mode

        out.update(cpu_mode.inductor_config())
    return {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)) for k, v in out.items()}


def _standalone_check(
    out_path: Path,
    oc: outputcode.OutputCode,
    cap: GraphCapture,
    mapping: list[dict[str, Any]],
    saved: dict[str, Any],
    run: _Compiled,
) -> dict[str, Any]:
    """Import the saved wrapper in this process, run it with the real arguments, and record
    every launch.  Proves the file on disk is a runnable copy of what the compile produced."""
    import torch

    try:
        mod = outputcode.load(out_path, cap.constants)
        args = build_call_args(mapping, run.model, run.inputs, saved, run.device)
        recorder = LaunchRecorder(user={k for k, kd in oc.kernels.items() if kd.is_user})
        with torch.no_grad(), gpulock.exclusive(run.device, "standalone run"), instrumented(mod, oc, recorder):
            outs = mod.call(list(args))
        runtime.sync(run.device)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        result: dict[str, Any] = {
            "ok": True,
            "launches": [l.__dict__ for l in recorder.launches],
            "externs": recorder.externs,
        }
        if run.n_graphs == 1:
            out_map = match_outputs(run.compiled_out, outs)
            result["outputs"] = out_map
            if any(o is None for o in out_map):
                result["ok"] = False
                result["reason"] = "a model output could not be found among the standalone wrapper's outputs"
        gpumem.mark(f"graph {cap.index}: the standalone wrapper run, every launch recorded")
        _give_back_cached(run.device)
        result["profile"] = _site_profile(mod, args, oc, run.device, run.ccfg)
        gpumem.mark(f"graph {cap.index}: its launch sites profiled")
        _give_back_cached(run.device)
        if run.n_graphs == 1 and result["ok"]:
            # the output code's own time, replayed in one CUDA graph as gate 4 times it: no
            # input copies (torch.compile's CUDA-graph trees copy each input into the graph's
            # static buffers on every call, which the compiled time above includes)
            del outs  # the graph holds outputs of its own
            try:
                with torch.no_grad(), gpulock.exclusive(run.device, "wrapper timing"):
                    result["wrapper_time"] = measure.time_graphed(
                        lambda: mod.call(list(args)), run.device, measure.for_device(run.ccfg["timing"], run.device)
                    )
            except Exception as e:  # noqa: BLE001 - a missing time (even out of memory) is recorded: the
                # result falls back on torch.compile's time; it never fails the capture
                result["wrapper_time"] = {"median_ms": None, "error": f"{type(e).__name__}: {e}"[:500]}
        return result
    except JobFault:
        raise
    except Exception as e:  # noqa: BLE001 - recorded; classify/isolate report it
        if looks_like_oom(f"{type(e).__name__}: {e}"):
            # the machine's fault (the wrapper's run, the write probe's second launch on copies, the
            # site profile), never the graph's "not stitchable": capture's own handling retries the
            # job on a GPU of its own, or records an infrastructure failure
            raise
        return {"ok": False, "reason": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-2000:]}


def _site_profile(mod: Any, args: list[Any], oc: outputcode.OutputCode, device: str, ccfg: dict[str, Any]) -> Any:
    """The wrapper's time per launch site, with the Triton sites whose time the profiler lost."""
    import torch

    with torch.no_grad(), gpulock.exclusive(device, "site profile"):
        # a profiler run can lose a kernel's events (a site's time comes back None);
        # profile again, and if a Triton site still has no time, say so: classify must not
        # derive a verdict from a missing time
        triton_sites = {s.lineno for s in oc.sites if s.kind == "triton"}
        for attempt in range(3):
            prof = profile_sites(lambda: mod.call(list(args)), mod, oc, device, ccfg["profile_reps"])
            lost = sorted(triton_sites - {int(k) for k in prof["site_ms"]})
            if not lost:
                break
            print(f"[capture] profile attempt {attempt + 1}: no time for Triton launch sites {lost}", flush=True)
        if lost and gpumem.retry_alone_ahead():
            # once more in a job of its own, alone on a GPU (Snakemake's retry); after that
            # the loss is recorded and classify reports it as an infrastructure error
            raise JobFault(f"the profiler lost the events of Triton launch sites {lost} in 3 runs")
        prof["lost_sites"] = lost
        return prof


def run_or_record_failure(problem_path: Path, paths: ProblemPaths, cfg: dict[str, Any]) -> dict[str, Any]:
    """``run``, but a fault of the problem itself (import, build, forward, compile) is recorded
    in every capture output (and so, later, in result.json) instead of failing the job, so downstream
    stages pass it through and the report names it; the other problems go on."""
    try:
        return run(problem_path, paths, cfg)
    except ProblemError as e:
        return _record_failure(problem_path, paths, e.stage, str(e), e)
    except JobFault:
        raise
    except Exception as e:  # noqa: BLE001 - an out-of-memory error anywhere in capture is handled; the rest raises
        if not looks_like_oom(f"{type(e).__name__}: {e}"):
            raise
        return _record_failure(problem_path, paths, "capture", f"{type(e).__name__}: {e}", e)


def _record_failure(
    problem_path: Path, paths: ProblemPaths, stage: str, message: str, cause: BaseException
) -> dict[str, Any]:
    if looks_like_oom(message):  # the machine's fault, not the problem's: never recorded as its verdict
        if gpumem.retry_alone_ahead():
            raise JobFault(
                f"{paths.problem}: out of GPU memory at {stage} (retried on a GPU of its own): "
                f"{message.splitlines()[0][:300]}"
            ) from cause
        message = f"infrastructure: out of GPU memory even on a GPU of its own, at {stage}: {message}"
    print(f"[capture] {paths.problem}: FAILED at {stage}: {message}", flush=True)
    failure = {
        "problem": paths.problem,
        "path": str(problem_path),
        "failed": True,
        "stage": stage,
        "error": message,
    }
    paths.capture.mkdir(parents=True, exist_ok=True)
    Capture.from_dict(failure).save(paths.capture_record)
    Baseline.from_dict(failure).save(paths.baseline)
    CaptureProfile.from_dict(failure).save(paths.profile)
    paths.output_code.write_text(f"# capture failed: {message.splitlines()[0]}\n")
    return failure
