"""Small copies of problems/rewrites/ for the CPU mode (the Triton interpreter): the same Model
code with the module-level shape constants replaced (issue 16's CPU checks).

    python3 bench/rewrites_small.py OUT_DIR      # writes OUT_DIR/level{1,2}/*.py

Tests import ``write_small``; the table below is the one place the small shapes live.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "problems" / "rewrites"

_SQ = {"N": 16}
SMALL: dict[str, dict[str, int]] = {
    "level1/1_DiagMatmul": {"N": 16, "M": 8},
    "level1/2_MatmulDiagRight": {"N": 8, "M": 16},
    "level1/3_SoftmaxSingletonDim": {"batch_size": 8, "dim": 32},
    "level1/4_LogSumExpSingletonDim": {"batch_size": 8, "dim": 32},
    "level1/5_TriuMatmul": _SQ,
    "level1/6_TrilMatmulOperands": _SQ,
    "level1/7_SymmetricMatmul": _SQ,
    "level1/8_BroadcastThenSum": {"batch_size": 4, "n": 16, "m": 8},
    "level2/1_Linear_Sum_Max_Mean_LogSumExp": {"batch_size": 8, "in_features": 32, "out_features": 16},
    "level2/2_Matmul_DoubleTranspose_Cancel": {"M": 16, "K": 8, "N": 16},
}


def small_source(name: str) -> str:
    """The problem's source with its shape constants replaced by the small ones (every one must
    be found, so a renamed constant fails loudly instead of leaving a big shape)."""
    src = (SUITE / f"{name}.py").read_text()
    for const, value in SMALL[name].items():
        src, n = re.subn(rf"^{re.escape(const)} = \d+$", f"{const} = {value}", src, flags=re.M)
        if n != 1:
            raise ValueError(f"{name}: no single module-level `{const} = <int>` to shrink")
    return src


def write_small(out: Path, names: list[str] | None = None) -> list[Path]:
    written = []
    for name in names or sorted(SMALL):
        p = out / f"{name}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(small_source(name))
        written.append(p)
    return written


if __name__ == "__main__":
    for p in write_small(Path(sys.argv[1])):
        print(p)
