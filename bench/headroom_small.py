"""Small copies of problems/headroom/ for the CPU mode (the Triton interpreter): the same Model
code with the module-level shape constants replaced (issue 13's CPU checks).

    python3 bench/headroom_small.py OUT_DIR      # writes OUT_DIR/level{1,2,3}/*.py

Tests import ``write_small``; the table below is the one place the small shapes live.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "problems" / "headroom"

_IMG = {"batch_size": 2, "channels": 4, "height = width": 8}
_ROW = {"batch_size": 8, "length": 256}
SMALL: dict[str, dict[str, int]] = {
    "level1/1_MaxPool2d_Dilated": {"batch_size": 2, "channels": 3, "height = width": 12},
    "level1/2_MaxPool2d_2x2": {"batch_size": 2, "channels": 3, "height = width": 16},
    "level1/3_AvgPool2d": {"batch_size": 2, "channels": 3, "height = width": 12},
    "level1/4_AvgPool3d": {"batch_size": 2, "channels": 2, "depth": 6, "height = width": 8},
    "level1/5_MaxPool3d": {"batch_size": 2, "channels": 2, "depth": 6, "height = width": 7},
    "level1/6_MaxPool1d_Dilated": {"batch_size": 2, "channels": 3, "length": 64},
    "level1/7_L1Norm_Row": {"batch_size": 8, "dim": 256},
    "level1/8_L1Norm_MiddleDim": {"batch_size": 4, "channels": 16, "features": 32},
    "level1/9_LayerNorm_Last2": _IMG,
    "level1/10_LayerNorm_Last3_NoAffine": _IMG,
    "level1/11_InstanceNorm2d": _IMG,
    "level1/12_InstanceNorm2d_Affine": _IMG,
    "level1/13_GroupNorm": {"batch_size": 2, "channels": 8, "groups": 4, "height = width": 8},
    "level1/14_Cumsum": _ROW,
    "level1/15_Cumsum_Reverse": _ROW,
    "level1/16_Cumsum_Exclusive": _ROW,
    "level1/17_Cumsum_Masked": _ROW,
    "level1/18_Argmax_Dim1": {"batch_size": 4, "dim1": 16, "dim2": 32},
    "level1/19_Argmin_LastDim": _ROW,
    "level1/20_Min_Dim1": {"batch_size": 4, "dim1": 32, "dim2": 16},
    "level1/21_MSELoss": _ROW,
    "level1/22_HuberLoss": _ROW,
    "level1/23_KLDivLoss": _ROW,
    "level1/24_HingeLoss": _ROW,
    "level2/1_Conv2d_GroupNorm_Scale_LogSumExp": {
        "batch_size": 2,
        "in_channels": 3,
        "out_channels": 8,
        "height = width": 10,
        "groups": 4,
    },
    "level2/2_ConvTranspose2d_GELU_GroupNorm": {
        "batch_size": 2,
        "in_channels": 3,
        "out_channels": 8,
        "height = width": 5,
        "groups": 4,
    },
    "level2/3_Conv2d_InstanceNorm_ReLU": {"batch_size": 2, "in_channels": 3, "out_channels": 8, "height = width": 8},
    "level3/1_CausalSelfAttention": {"batch_size": 2, "seq_len": 16, "n_embd": 32, "n_head": 4},
    "level3/2_Attention_Residual_LayerNorm": {"batch_size": 2, "seq_len": 16, "d_model": 32, "n_head": 4},
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
