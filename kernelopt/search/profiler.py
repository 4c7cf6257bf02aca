"""Profiling of one candidate: Nsight Compute where it works, else timings + a roofline
estimate (bytes each tensor argument moves, from the contract), saying which it did.

NCU: ``ncu --clock-control none`` (never touch the GPU's clocks) on a harness process that
launches only the candidate (``python -m kernelopt.search.profile_harness``), kernel-name filter,
a few launches, sections from config; the ``.ncu-rep`` is kept and parsed with
``ncu --import ... --csv --page raw`` into typed metrics.
"""

from __future__ import annotations

import ast
import csv
import io
import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

# NCU raw metric -> our name
NCU_METRICS = {
    "gpu__time_duration.sum": "duration_us",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "memory_sol_pct",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "memory_sol_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "compute_sol_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "launch__registers_per_thread": "registers_per_thread",
    "launch__grid_size": "grid_size",
    "launch__block_size": "block_size",
    "launch__occupancy_limit_registers": "occupancy_limit_registers",
    "sm__sass_inst_executed_op_local_ld.sum": "local_loads",
    "dram__bytes_read.sum": "dram_bytes_read",
    "dram__bytes_write.sum": "dram_bytes_write",
    "derived__local_spilling_requests": "local_spill_requests",
}


STALL_PREFIX = "smsp__average_warps_issue_stalled_"
STALL_SUFFIX = "_per_issue_active.ratio"


def top_stalls(metrics: dict[str, Any], n: int = 3) -> list[tuple[str, float]]:
    """The n largest warp-stall reasons (cycles per issued instruction), largest first."""
    st = [
        (k[len("stall_") :], v)
        for k, v in metrics.items()
        if k.startswith("stall_") and isinstance(v, (int, float)) and k not in ("stall_selected",)
    ]
    return sorted(st, key=lambda kv: -kv[1])[:n]


def tensor_bytes(arg: dict[str, Any]) -> int:
    size = {
        "float32": 4,
        "float16": 2,
        "bfloat16": 2,
        "float64": 8,
        "int64": 8,
        "int32": 4,
        "int8": 1,
        "uint8": 1,
        "bool": 1,
    }.get(arg.get("dtype", ""), 4)
    return int(math.prod(arg.get("shape") or [1])) * size


def read_written_bytes(contract: dict[str, Any]) -> tuple[int, int]:
    """Bytes the unit must read and write: each input read once, each output written once."""
    tensors = [a for a in contract["args"] if a["kind"] == "tensor"]
    read = sum(tensor_bytes(a) for a in tensors if a.get("access") in ("read", "readwrite"))
    write = sum(tensor_bytes(a) for a in tensors if a.get("access") in ("write", "readwrite"))
    return read, write


def moved_bytes(contract: dict[str, Any]) -> int:
    return sum(read_written_bytes(contract))


# One Hopper SM's on-chip memory: 228 KiB of shared memory and a 256 KiB register file.  A row
# larger than this cannot be held by one program between computing its statistic (max, sum,
# mean) and using it, so a kernel reads it from memory a second time.
ON_CHIP_BYTES = (228 + 256) * 1024


def reread_inputs(kernel_source: str, kernel: str, contract: dict[str, Any]) -> list[dict[str, Any]]:
    """The tensor arguments Inductor's kernel loads in more than one of its loops (a looped
    reduction that reads its row again once the statistic is known), each with the loops that
    load it, the extra bytes of one more read (two passes always suffice: a third loop is
    Inductor's choice, not a need), the row's size and whether it fits on one SM.  Gathers
    (a pointer indexed by a loaded value, ``tmp*``) are not counted: they read a few elements."""
    try:
        fn = next(n for n in ast.parse(kernel_source).body if isinstance(n, ast.FunctionDef) and n.name == kernel)
    except (SyntaxError, StopIteration):
        return []
    args = {a["name"]: a for a in contract.get("args", []) if a.get("kind") == "tensor"}
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
        for a in contract.get("args", [])
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


def unit_rereads(inductor_py: Path, contract: dict[str, Any]) -> list[dict[str, Any]]:
    """``reread_inputs`` of a unit's ``inductor.py`` (none when the file is missing)."""
    if not inductor_py.exists():
        return []
    return reread_inputs(inductor_py.read_text(), contract.get("kernel", ""), contract)


def reread_roof_pct(contract: dict[str, Any], rereads: list[dict[str, Any]]) -> float | None:
    """% of the copy bandwidth a kernel reaches at best when it reads those rows twice, as a
    kernel must whose rows do not fit on one SM (unless it splits a row over several SMs and
    keeps it on chip: an estimate, not a bound); None when no row needs reading again."""
    if not rereads or any(r["row_fits_on_chip"] for r in rereads):
        return None
    nbytes = moved_bytes(contract)
    return 100.0 * nbytes / (nbytes + sum(r["extra_bytes"] for r in rereads))


def roofline(contract: dict[str, Any], time_ms: float, device: str, peak_gbs: float, sms: int) -> dict[str, Any]:
    """Bytes the unit must move (each input read once, each output written once) over time."""
    read, write = read_written_bytes(contract)
    grid = contract.get("grid") or [1, 1, 1]
    programs = int(math.prod(grid))
    gbs = (read + write) / (time_ms * 1e-3) / 1e9 if time_ms > 0 else 0.0
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


def ncu_available() -> bool:
    return shutil.which("ncu") is not None


def ncu_command(kernel_regex: str, out_rep: str, sections: list[str], launches: int = 3) -> list[str]:
    """NCU's command line, to which the profiled process's is appended: only the candidate's
    launches (its kernel names, inside the child's NVTX range), the clocks left alone."""
    cmd = [
        shutil.which("ncu") or "ncu",
        "--clock-control",
        "none",
        "--target-processes",
        "all",
        "--nvtx",
        "--nvtx-include",
        "kernelopt_profile/",
        "--kernel-name",
        f"regex:{kernel_regex}",
        "--launch-count",
        str(launches),
        "-f",
        "-o",
        str(out_rep).removesuffix(".ncu-rep"),
    ]
    for s in sections:
        cmd += ["--section", s]
    return cmd


def read_ncu(report: Path, timeout: int = 300) -> dict[str, Any]:
    """The metrics of an NCU report (``ncu --import ... --csv --page raw``).  The report was
    written inside a sandbox: it is parsed as data, and what it says guides the search only."""
    if not report.exists():
        return {"ok": False, "stderr": "no report"}
    raw = subprocess.run(
        ["ncu", "--import", str(report), "--csv", "--page", "raw"], capture_output=True, text=True, timeout=timeout
    )
    return {"ok": raw.returncode == 0, "metrics": parse_raw_csv(raw.stdout), "report": str(report)}


def jit_kernel_names(source: str) -> list[str]:
    import ast

    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(
            ast.unparse(d).split("(")[0] in ("triton.jit", "jit") for d in node.decorator_list
        ):
            names.append(node.name)
    return names


def parse_raw_csv(text: str) -> dict[str, Any]:
    """``ncu --csv --page raw``: a header row, a units row, one row per profiled kernel.
    Returns our metric names -> the median over the profiled launches (typed floats)."""
    rows = list(csv.reader(io.StringIO(text)))
    rows = [r for r in rows if r and not r[0].startswith("==")]
    if len(rows) < 3:
        return {}
    header, units, data = rows[0], rows[1], rows[2:]
    out: dict[str, Any] = {}

    def median(i: int) -> float | None:
        vals = []
        for r in data:
            try:
                vals.append(float(r[i].replace(",", "")))
            except (ValueError, IndexError):
                pass
        return sorted(vals)[len(vals) // 2] if vals else None

    # warp-stall reasons (WarpStateStats): cycles stalled per issued instruction, by reason
    for i, name in enumerate(header):
        if name.startswith(STALL_PREFIX) and name.endswith(STALL_SUFFIX):
            v = median(i)
            if v is not None:
                out[f"stall_{name[len(STALL_PREFIX) : -len(STALL_SUFFIX)]}"] = v
    for raw_name, ours in NCU_METRICS.items():
        if raw_name not in header:
            continue
        i = header.index(raw_name)
        v = median(i)
        if v is not None:
            unit = units[i] if i < len(units) else ""
            if ours == "duration_us":
                v = v / 1000.0 if unit == "nsecond" else (v * 1000.0 if unit == "msecond" else v)
            out.setdefault(ours, v)
    return out
