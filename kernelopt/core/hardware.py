"""The GPU facts the code relies on, declared once (where each comes from: docs/gpu.md, "The
GPU machine").

``H200`` is the GPU this project runs on and tunes for (``TARGET``); the figures are what the
device reports about itself (``torch.cuda.get_device_properties``) and NVIDIA's data sheet,
except the copy bandwidth and the CUDA context size, which this project measured:

- L2: 60 MiB (62,914,560 bytes, the device's ``L2_cache_size``; 50 MB is the H100's figure).
- Shared memory: 228 KiB per SM, of which one block may opt in to 227 KiB; a 256 KiB register
  file (64 Ki 32-bit registers) per SM.  ``on_chip_bytes`` (484 KiB) is what one program can
  keep on one SM at most: a row larger than it is read from memory twice by a kernel that keeps
  a row to one SM (``core/roofline.py``).
- HBM3e: 4.8 TB/s by the data sheet; a copy reaches ~4.3 TB/s, the roof of the roofline
  estimate.  The roof itself is a setting (``search.peak_bandwidth_gbs``, whose default is
  ``H200.copy_gbs``: tests/test_roofline.py holds the two equal).
- 132 SMs.
- One more process on the GPU costs 500-900 MiB before it allocates anything (CUDA context,
  cuBLAS workspace, Triton's launcher): 1024 MiB is declared (``core/gpumem.py``).

``current(device)`` is the facts of the device a job runs on: on the GPU the table's entry for
its name (the H200's for a GPU not in the table) with what the device reports about itself
(SMs, L2, shared memory, registers) in place of the declared figures; on the CPU (the Triton
interpreter, which has no caches or SMs of its own to speak of) the H200's facts, as the CPU
mode stands in for the H200, with one SM (a roofline's programs per SM are then its programs).
Stages that do not run on the GPU (search's synthesize, the report) use ``TARGET``: they
reason about the target GPU from its declared figures, and must not start a CUDA context.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

KiB = 1024
MiB = 1024 * KiB


@dataclass(frozen=True)
class HardwareInfo:
    name: str
    sm_count: int
    l2_bytes: int
    smem_per_sm_bytes: int
    smem_per_block_bytes: int  # the opt-in maximum of one block
    registers_per_sm_bytes: int
    hbm_peak_gbs: float  # the data sheet's DRAM bandwidth
    copy_gbs: float  # what a copy reaches (measured): the roofline's roof
    cuda_context_mb: int  # what one more process on the GPU costs before it allocates anything
    measured: tuple[str, ...] = ()  # the fields the device reported (the rest are declared)

    @property
    def on_chip_bytes(self) -> int:
        """One SM's shared memory and register file: the most one program keeps on chip."""
        return self.smem_per_sm_bytes + self.registers_per_sm_bytes


H200 = HardwareInfo(
    name="NVIDIA H200",
    sm_count=132,
    l2_bytes=60 * MiB,
    smem_per_sm_bytes=228 * KiB,
    smem_per_block_bytes=227 * KiB,
    registers_per_sm_bytes=256 * KiB,
    hbm_peak_gbs=4800.0,
    copy_gbs=4300.0,
    cuda_context_mb=1024,
)
TARGET = H200
# The H100 (SXM, 80 GB HBM3) the device machine also lends: 3.35 TB/s by the data sheet; a 2-GiB
# copy reached 3,011-3,013 GB/s (bench/headroom_roof_gpu.py --copy, 2026-12-06).  The roofline's
# roof stays the setting ``search.peak_bandwidth_gbs`` (4,300 by default): set it to 3010 for runs
# on an H100 to read their percentages against this card.
H100 = dataclasses.replace(H200, name="NVIDIA H100", l2_bytes=50 * MiB, hbm_peak_gbs=3350.0, copy_gbs=3010.0)
DECLARED = {H200.name: H200, H100.name: H100}
CPU = dataclasses.replace(H200, name="cpu", sm_count=1)


def declared(name: str | None) -> HardwareInfo:
    """The table's facts for a device name (``torch.cuda.get_device_name``: "NVIDIA H200", or a
    variant such as "NVIDIA H200 NVL", matched by prefix); ``TARGET``'s for any other name."""
    for known, info in DECLARED.items():
        if name and name.startswith(known):
            return info
    return TARGET


# what torch reports about a device -> our field (and the factor to bytes)
_REPORTED = {
    "multi_processor_count": ("sm_count", 1),
    "L2_cache_size": ("l2_bytes", 1),
    "shared_memory_per_multiprocessor": ("smem_per_sm_bytes", 1),
    "shared_memory_per_block_optin": ("smem_per_block_bytes", 1),
    "regs_per_multiprocessor": ("registers_per_sm_bytes", 4),
}


@cache
def current(device: str) -> HardwareInfo:
    """The facts of the device a job runs on (the module's docstring): ``CPU`` unless
    ``device`` is "cuda"; on the GPU, what it reports over the table's figures for its name.
    Call it where the GPU is in use already: on the GPU it initializes CUDA."""
    if device != "cuda":
        return CPU
    import torch

    props = torch.cuda.get_device_properties(0)
    base = declared(props.name)
    seen = {}
    for attr, (field, factor) in _REPORTED.items():
        value = getattr(props, attr, None)
        if isinstance(value, int) and value > 0:
            seen[field] = value * factor
    return dataclasses.replace(base, name=props.name, measured=tuple(seen), **seen)


# what ``gpu_state`` asks nvidia-smi, and the names it records them under
_STATE = {
    "clocks.sm": "sm_mhz",
    "clocks.max.sm": "sm_max_mhz",
    "clocks.mem": "mem_mhz",
    "temperature.gpu": "temp_c",
    "power.draw": "power_w",
}


def gpu_state(device: str) -> dict[str, object] | None:
    """The GPU's state now, as ``nvidia-smi`` reads it: its SM and memory clocks, the SM clock's
    maximum, temperature and power draw (gate 4 records it before and after its timing: clocks
    are not locked where this runs; bench/README.md, "Rows split over a team").  None on the
    CPU; ``{"error": ...}`` when the query fails.  The GPU is the first of
    ``CUDA_VISIBLE_DEVICES`` (0 when unset)."""
    import os
    import shutil
    import subprocess

    if device != "cuda":
        return None
    gpu = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip() or "0"
    if not shutil.which("nvidia-smi"):
        return {"gpu": gpu, "error": "no nvidia-smi"}
    query = ["nvidia-smi", f"--query-gpu={','.join(_STATE)}", "--format=csv,noheader,nounits", "-i", gpu]
    try:
        r = subprocess.run(query, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"gpu": gpu, "error": str(e)[:200]}
    fields = [x.strip() for x in (r.stdout.strip().splitlines() or [""])[0].split(",")]
    if r.returncode != 0 or len(fields) != len(_STATE):
        return {"gpu": gpu, "error": (r.stderr or r.stdout).strip()[:200] or f"exit {r.returncode}"}
    state: dict[str, object] = {"gpu": gpu}
    for name, value in zip(_STATE.values(), fields):
        try:
            state[name] = float(value)
        except ValueError:
            state[name] = None  # "[N/A]" and the like
    return state
