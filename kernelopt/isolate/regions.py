"""Regions as units, the isolate half (``capture/regions.py`` finds them): a region's launch
contract (its input buffers, then its output buffers, named as in the wrapper), its baseline
(Inductor's kernels launched in order, the intermediates allocated inside ``launch``), and its
reference (the FX subgraph from the inputs to the outputs, cut at capture).
"""

from __future__ import annotations

from typing import Any

from ..core.instrument import Observer
from .inductor import launcher_lines, strip_heuristics_decorator

WRITTEN = ("out_ptr", "in_out_ptr")


def _uses(region: dict[str, Any], buf: str, writes: bool = False) -> list[tuple[int, int]]:
    """(member index, argument index) of each launch argument that passes ``buf`` (only the
    written ones with ``writes``), in launch order."""
    return [
        (m, i)
        for m, call in enumerate(region["calls"])
        for i, a in enumerate(call["args"])
        if a.get("buffer") == buf and (not writes or a["param"].startswith(WRITTEN))
    ]


def _spec_of(region: dict[str, Any], members: list[dict[str, Any]], buf: str, writer: bool) -> dict[str, Any]:
    """The launch record's argument spec of ``buf`` at its first reader/writer member."""
    m, i = _uses(region, buf, writer)[0]
    return dict(members[m]["args"][i])


def region_contract(members: list[dict[str, Any]], region: dict[str, Any], unit: str) -> dict[str, Any]:
    """``members``: each member kernel's own contract (isolate/contract.py), in launch order."""
    args = []
    for buf in region["inputs"]:
        args.append({**_spec_of(region, members, buf, False), "name": buf, "access": "read", "buffer": buf})
    for buf in region["outputs"]:
        args.append({**_spec_of(region, members, buf, True), "name": buf, "access": "write", "buffer": buf})
    last = members[-1]
    return {
        **{k: v for k, v in last.items() if k not in ("args", "unit", "reference", "aten_ops", "fx_origins", "share")},
        "unit": unit,
        "args": args,
        "aten_ops": region["reference"].get("aten_ops", []),
        "fx_origins": list(dict.fromkeys(o for m in members for o in m.get("fx_origins", []))),
        "reference": {"region": True, **region["reference"]},
        "region": {
            **{k: region[k] for k in ("function", "members", "member_units", "inputs", "outputs", "intermediates")},
            "calls": region["calls"],
            "kind": region.get("kind", "split"),
            "intermediate_specs": {b: _spec_of(region, members, b, True) for b in region["intermediates"]},
            "member_contracts": members,
        },
    }


def render_region(contract: dict[str, Any], sources: list[str]) -> str:
    """The region's baseline: Inductor's kernels launched one after the other with the configs
    Inductor chose, as the wrapper launches them; ``launch`` takes the region's inputs and
    outputs and allocates the intermediates."""
    r = contract["region"]
    names = [a["name"] for a in contract["args"]]
    lines = [
        f'"""Inductor\'s kernels for the region {contract["unit"]}: {", ".join(r["members"])},',
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
        lines += [*launcher_lines(k, mc, f"M{i}_", f"m{i}_"), "", ""]
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


class RegionIO(Observer):
    """Observes the wrapper's run and keeps, of the region's buffers only, each input as its
    first reader received it, each output before its first writer and after its last (clones
    of nothing else: at 6 GiB per buffer, the members' other arguments would not fit twice)."""

    def __init__(self, contract: dict[str, Any]):
        r = contract["region"]
        self.kernels, self.contract = r["members"], contract
        self.take: dict[str, list[tuple[str, int, tuple[str, str]]]] = {k: [] for k in self.kernels}
        for a in contract["args"]:
            b = a["name"]
            if a["access"] == "read":
                m, i = _uses(r, b)[0]
                self.take[self.kernels[m]].append(("before", i, ("in", b)))
            else:
                writes = _uses(r, b, writes=True)
                (m0, i0), (m1, i1) = writes[0], writes[-1]
                self.take[self.kernels[m0]].append(("before", i0, ("out-before", b)))
                self.take[self.kernels[m1]].append(("after", i1, ("out-after", b)))
        self.seen: set[str] = set()
        self.vals: dict[tuple[str, str], Any] = {}

    def on_kernel(self, name: str, inner: Any, lineno: int, args: tuple, kwargs: dict) -> Any:
        take = self.take.get(name, []) if name not in self.seen else []
        self.seen.add(name)
        for when, i, key in take:
            if when == "before":
                self.vals[key] = args[i].clone()
        result = inner.run(*args, **kwargs)
        for when, i, key in take:
            if when == "after":
                self.vals[key] = args[i].clone()
        return result

    def io(self) -> tuple[list[Any], list[Any]]:
        """(before, after) of the region's arguments, in the contract's order."""
        missing = [k for k in self.kernels if k not in self.seen]
        if missing:
            raise RuntimeError(f"the region's kernels {missing} were not launched by the wrapper")
        before, after = [], []
        for a in self.contract["args"]:
            if a["access"] == "read":
                v = self.vals[("in", a["name"])]
                before.append(v)
                after.append(v)
            else:
                before.append(self.vals[("out-before", a["name"])])
                after.append(self.vals[("out-after", a["name"])])
        return before, after
