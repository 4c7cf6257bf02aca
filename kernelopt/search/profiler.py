"""Nsight Compute: running it around one candidate and reading its report.  Where NCU does not
work, the profile is timings and a roofline estimate (``core/roofline.py``), saying which it is.

NCU: ``ncu --clock-control none`` (never touch the GPU's clocks) around the sandboxed child that
launches only the candidate (``search/stage.py: _ncu``), kernel-name filter, a few launches,
sections from config; the ``.ncu-rep`` is kept and parsed with ``ncu --import ... --csv --page
raw`` into typed metrics.
"""

from __future__ import annotations

import csv
import io
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
