"""A region's inputs and outputs as the wrapper's run hands them to its member kernels
(``RegionIO``), for a region unit's harness; ``region_uses`` says where a buffer is used."""

from __future__ import annotations

from typing import Any

from ..core.instrument import Observer
from ..core.records import Contract

WRITTEN = ("out_ptr", "in_out_ptr")  # the prefixes of the parameters a kernel writes


def region_uses(region: dict[str, Any], buf: str, writes: bool = False) -> list[tuple[int, int]]:
    """(member index, argument index) of each launch argument that passes ``buf`` (only the
    written ones with ``writes``), in launch order."""
    return [
        (m, i)
        for m, call in enumerate(region["calls"])
        for i, a in enumerate(call["args"])
        if a.get("buffer") == buf and (not writes or a["param"].startswith(WRITTEN))
    ]


class RegionIO(Observer):
    """Observes the wrapper's run and keeps, of the region's buffers only, each input as its
    first reader received it, each output before its first writer and after its last (clones
    of nothing else: at 6 GiB per buffer, the members' other arguments would not fit twice)."""

    def __init__(self, contract: Contract):
        r = contract.region
        self.kernels, self.contract = r["members"], contract
        self.take: dict[str, list[tuple[str, int, tuple[str, str]]]] = {k: [] for k in self.kernels}
        for a in contract.args:
            b = a["name"]
            if a["access"] == "read":
                m, i = region_uses(r, b)[0]
                self.take[self.kernels[m]].append(("before", i, ("in", b)))
            else:
                writes = region_uses(r, b, writes=True)
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
        for a in self.contract.args:
            if a["access"] == "read":
                v = self.vals[("in", a["name"])]
                before.append(v)
                after.append(v)
            else:
                before.append(self.vals[("out-before", a["name"])])
                after.append(self.vals[("out-after", a["name"])])
        return before, after
