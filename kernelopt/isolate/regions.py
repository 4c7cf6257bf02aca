"""Regions as units, the isolate half (``capture/regions.py`` finds them): a region's launch
contract (its input buffers, then its output buffers, named as in the wrapper), its baseline
(Inductor's kernels launched in order, the intermediates allocated inside ``launch``), and its
reference (the FX subgraph from the inputs to the outputs, cut at capture).
"""

from __future__ import annotations

from typing import Any

from ..core.records import Contract
from ..runner.regionio import region_uses
from .inductor import launcher_lines, strip_heuristics_decorator


def _spec_of(region: dict[str, Any], members: list[Contract], buf: str, writer: bool) -> dict[str, Any]:
    """The launch record's argument spec of ``buf`` at its first reader/writer member."""
    m, i = region_uses(region, buf, writer)[0]
    return dict(members[m].args[i])


def region_contract(members: list[Contract], region: dict[str, Any], unit: str) -> Contract:
    """``members``: each member kernel's own contract (isolate/contract.py), in launch order."""
    args = []
    for buf in region["inputs"]:
        args.append({**_spec_of(region, members, buf, False), "name": buf, "access": "read", "buffer": buf})
    for buf in region["outputs"]:
        args.append({**_spec_of(region, members, buf, True), "name": buf, "access": "write", "buffer": buf})
    taken = ("args", "unit", "reference", "aten_ops", "fx_origins", "share")
    return Contract.from_dict(
        {
            **{k: v for k, v in members[-1].as_dict().items() if k not in taken},
            "unit": unit,
            "args": args,
            "aten_ops": region["reference"].get("aten_ops", []),
            "fx_origins": list(dict.fromkeys(o for m in members for o in m.fx_origins)),
            "reference": {"region": True, **region["reference"]},
            "region": {
                **{k: region[k] for k in ("function", "members", "member_units", "inputs", "outputs", "intermediates")},
                "calls": region["calls"],
                "kind": region.get("kind", "split"),
                "intermediate_specs": {b: _spec_of(region, members, b, True) for b in region["intermediates"]},
                "member_contracts": [m.as_dict() for m in members],
            },
        }
    )


def render_region(contract: Contract, sources: list[str]) -> str:
    """The region's baseline: Inductor's kernels launched one after the other with the configs
    Inductor chose, as the wrapper launches them; ``launch`` takes the region's inputs and
    outputs and allocates the intermediates."""
    r = contract.region
    names = [a["name"] for a in contract.args]
    lines = [
        f'"""Inductor\'s kernels for the region {contract.unit}: {", ".join(r["members"])},',
        "launched one after the other with the configs Inductor chose, as the wrapper launches them.",
        f"This is the baseline the region's candidates are timed against.  launch({', '.join(names)})",
        f"takes the region's input buffers, then its output buffers; the intermediates {r['intermediates']}",
        "are allocated inside it (nothing after the region reads them).",
        '"""',
        "import torch",
        "",
    ]
    for k, src in zip(r["members"], sources):
        lines += [strip_heuristics_decorator(src, k).rstrip(), "", ""]
    for i, (k, mc) in enumerate(zip(r["members"], r["member_contracts"])):
        lines += [*launcher_lines(k, Contract.from_dict(mc), f"M{i}_", f"m{i}_"), "", ""]
    lines.append(f"def launch({', '.join(names)}):")
    for b, spec in r["intermediate_specs"].items():
        lines.append(
            f"    {b} = torch.empty_strided({tuple(spec['shape'])}, {tuple(spec['stride'])}, "
            f"dtype=torch.{spec['dtype']}, device={names[0]}.device)"
        )
    for i, call in enumerate(r["calls"]):
        vals = [a["buffer"] if "buffer" in a else repr(a["value"]) for a in call["args"]]
        lines.append(f"    m{i}_launch({', '.join(vals)})")
    return "\n".join(lines) + "\n"
