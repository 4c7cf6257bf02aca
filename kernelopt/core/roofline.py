"""Byte accounting and roofline math, in one place below search, select and report.

Bytes are what a unit must move: each tensor argument it reads read once, each it writes
written once, from its contract (an in-place argument Inductor's kernel only loads is read,
not written: ``loaded_only``).  A roofline figure is those bytes over a time, against the
copy bandwidth (``search.peak_bandwidth_gbs``; ``core/hardware.py``).  Where a kernel must read
rows again because a row does not fit on one SM (``reread_inputs``), the roof is lower:
``reread_roof_pct``.

The arithmetic on those figures is here too, so that search and report compute them alike:
``achieved_gbs`` and ``bandwidth_pct`` (bytes over a time, against the copy bandwidth),
``floor_ms`` (the least time bytes take under a roof) and ``roof_share_pct`` (a % of the copy
bandwidth as a % of a roof).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Collection
from pathlib import Path
from typing import Any

from .hardware import TARGET
from .records import Contract

DTYPE_BYTES = {
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float64": 8,
    "int64": 8,
    "int32": 4,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
}


def tensor_bytes(arg: dict[str, Any]) -> int:
    """Bytes of one tensor argument of a contract (an unknown dtype counts 4 bytes an element)."""
    return int(math.prod(arg.get("shape") or [1])) * DTYPE_BYTES.get(arg.get("dtype", ""), 4)


def read_written_bytes(contract: Contract, loaded_only: Collection[str] = ()) -> tuple[int, int]:
    """Bytes the unit must read and write: each input read once, each output written once; an
    in-place argument in ``loaded_only`` (``unit_loaded_only``) is read, never written."""
    tensors = [a for a in contract.args if a["kind"] == "tensor"]
    read = sum(tensor_bytes(a) for a in tensors if a.get("access") in ("read", "readwrite"))
    write = sum(
        tensor_bytes(a)
        for a in tensors
        if a.get("access") in ("write", "readwrite") and a.get("name") not in loaded_only
    )
    return read, write


def moved_bytes(contract: Contract, loaded_only: Collection[str] = ()) -> int:
    return sum(read_written_bytes(contract, loaded_only))


def loaded_only(kernel_source: str, kernel: str, contract: Contract) -> set[str]:
    """The in-place (``readwrite``) arguments Inductor's kernel only loads from: Inductor keeps
    the in/out name of a reused buffer whose store it dropped (conv + GroupNorm + tanh +
    LogSumExp: the biased convolution was needed only in registers), and counting a write of
    it doubled the unit's bytes (its roofline said 71 % of the copy roof where the kernel
    moved 35 %).  An allowlist: any use of the name but as ``tl.load``'s pointer counts as a
    write; no kernel of that name in the source, nothing."""
    try:
        fn = next(n for n in ast.parse(kernel_source).body if isinstance(n, ast.FunctionDef) and n.name == kernel)
    except (SyntaxError, StopIteration):
        return set()
    inplace = {a["name"] for a in contract.args if a.get("kind") == "tensor" and a.get("access") == "readwrite"}
    uses = [n.id for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in inplace]
    loads = [
        n.id
        for stmt in fn.body
        for call in ast.walk(stmt)
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "tl.load" and call.args
        for n in ast.walk(call.args[0])
        if isinstance(n, ast.Name) and n.id in inplace
    ]
    return {name for name in inplace if uses.count(name) == loads.count(name) > 0}


def unit_loaded_only(inductor_py: Path, contract: Contract) -> set[str]:
    """``loaded_only`` of a unit's ``inductor.py`` (nothing when the file is missing)."""
    if not inductor_py.exists():
        return set()
    return loaded_only(inductor_py.read_text(), contract.kernel, contract)


def achieved_gbs(nbytes: float, ms: float) -> float:
    """GB/s (10**9 bytes a second) of moving ``nbytes`` in ``ms`` milliseconds (``ms`` > 0)."""
    return nbytes / (ms * 1e-3) / 1e9


def bandwidth_pct(nbytes: float, ms: float, peak_gbs: float) -> float:
    """% of the copy bandwidth ``peak_gbs`` (GB/s) reached by moving ``nbytes`` in ``ms``
    milliseconds (``ms`` > 0)."""
    return 100.0 * achieved_gbs(nbytes, ms) / peak_gbs


def floor_ms(nbytes: float, roof_pct: float, peak_gbs: float) -> float:
    """The least time, in milliseconds, moving ``nbytes`` takes where the roof is ``roof_pct`` %
    of the copy bandwidth ``peak_gbs`` (GB/s): the bytes at the full bandwidth, times
    100 / ``roof_pct`` (a roof of 50 % is twice the traffic: ``reread_roof_pct``)."""
    return nbytes * 100.0 / roof_pct / (peak_gbs * 1e9) * 1e3


def roof_share_pct(pct: float, roof_pct: float) -> float:
    """% of its roof reached by a kernel at ``pct`` % of the copy bandwidth, the roof being
    ``roof_pct`` % of it (100, or ``reread_roof_pct``)."""
    return 100.0 * pct / roof_pct


# One SM's on-chip memory (the H200's: 228 KiB of shared memory and a 256 KiB register file).  A
# row larger than this cannot be held by one program between computing its statistic (max, sum,
# mean) and using it, so a kernel reads it from memory a second time.
ON_CHIP_BYTES = TARGET.on_chip_bytes


def reread_inputs(kernel_source: str, kernel: str, contract: Contract) -> list[dict[str, Any]]:
    """The tensor arguments Inductor's kernel loads in more than one of its loops (a looped
    reduction that reads its row again once the statistic is known), each with the loops that
    load it, the extra bytes of one more read (two passes always suffice: a third loop is
    Inductor's choice, not a need), the row's size and whether it fits on one SM.  Gathers
    (a pointer indexed by a loaded value, ``tmp*``) are not counted: they read a few elements."""
    try:
        fn = next(n for n in ast.parse(kernel_source).body if isinstance(n, ast.FunctionDef) and n.name == kernel)
    except (SyntaxError, StopIteration):
        return []
    args = {a["name"]: a for a in contract.args if a.get("kind") == "tensor"}
    loops: dict[str, int] = {}
    for stmt in fn.body:
        if not isinstance(stmt, ast.For):
            continue
        loaded = set()
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "tl.load" and node.args:
                names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
                if not any(n.startswith("tmp") for n in names):
                    loaded |= names & set(args)
        for name in loaded:
            loops[name] = loops.get(name, 0) + 1
    row = math.prod(
        int(a.get("value") or 1)
        for a in contract.args
        if a.get("kind") == "scalar" and str(a.get("name", "")).startswith("r") and a["name"].endswith("numel")
    )
    out = []
    for name, n in sorted(loops.items()):
        if n < 2 or args[name].get("access") == "write":
            continue
        a = args[name]
        numel = max(math.prod(int(d) for d in a.get("shape", [])), 1)
        row_bytes = row * tensor_bytes(a) // numel
        out.append(
            {
                "arg": name,
                "loops": n,
                "extra_bytes": tensor_bytes(a),
                "row_elements": row,
                "row_bytes": row_bytes,
                "row_fits_on_chip": row_bytes <= ON_CHIP_BYTES,
            }
        )
    return out


def unit_rereads(inductor_py: Path, contract: Contract) -> list[dict[str, Any]]:
    """``reread_inputs`` of a unit's ``inductor.py`` (none when the file is missing)."""
    if not inductor_py.exists():
        return []
    return reread_inputs(inductor_py.read_text(), contract.kernel, contract)


def reread_roof_pct(
    contract: Contract, rereads: list[dict[str, Any]], loaded_only: Collection[str] = ()
) -> float | None:
    """% of the copy bandwidth a kernel reaches at best when it reads those rows twice, as a
    kernel must whose rows do not fit on one SM (unless it splits a row over several SMs and
    keeps it on chip: an estimate, not a bound); None when no row needs reading again."""
    if not rereads or any(r["row_fits_on_chip"] for r in rereads):
        return None
    nbytes = moved_bytes(contract, loaded_only)
    return 100.0 * nbytes / (nbytes + sum(r["extra_bytes"] for r in rereads))


def estimate(
    contract: Contract, time_ms: float, device: str, peak_gbs: float, sms: int, loaded_only: Collection[str] = ()
) -> dict[str, Any]:
    """The roofline estimate of one timed unit: the bytes it must move (each input read once,
    each output written once) over its time, against ``peak_gbs``, and its programs per SM."""
    read, write = read_written_bytes(contract, loaded_only)
    grid = contract.grid or [1, 1, 1]
    programs = int(math.prod(grid))
    gbs = achieved_gbs(read + write, time_ms) if time_ms > 0 else 0.0
    return {
        "bytes_read": read,
        "bytes_written": write,
        "time_ms": time_ms,
        "achieved_gbs": gbs,
        "memory_sol_pct": 100.0 * gbs / peak_gbs if device == "cuda" else None,
        "programs": programs,
        "programs_per_sm": programs / sms if sms else None,
        "meaningful": device == "cuda",
    }
