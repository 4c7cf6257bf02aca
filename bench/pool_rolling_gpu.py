"""The pool template's kernels (kernelopt/search/synth/pool.py) on the GPU at the sizes of
problems/headroom's stride-1 pools (the dilated 3x3 max pool, the 3x3 average pool): every
attempt the synthesizer makes (rolling strips, flat blocks) generated from a reference like the
one Inductor's post-grad graph gives, checked against the eager pool, and timed (CUDA events,
median of 30 after 5 warm-up calls) against torch.compile's model of the same pool and the copy
roof (input read once, output written once, at the 4.3 TB/s of `core/hardware.py`).  Not gate 4:
a microbenchmark of one template.

    python3 bench/pool_rolling_gpu.py OUT.json      # on the GPU machine, the repo on PYTHONPATH
"""

from __future__ import annotations

import importlib.util
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernelopt.core import hardware  # noqa: E402
from kernelopt.search.synth import generate  # noqa: E402
from kernelopt.search.synth.ops import CannotSynthesize  # noqa: E402

SHAPE = [16, 64, 512, 512]  # problems/headroom/level1/{1_MaxPool2d_Dilated,3_AvgPool2d}.py
POOLS = {
    "max_dilated": ("max_pool2d_with_indices.default", "[3, 3], [1, 1], [1, 1], [2, 2], False", True),
    "avg_3x3": ("avg_pool2d.default", "[3, 3], [1, 1], [1, 1]", False),
}
REF = """
LEVEL = 'kernel'
INPUTS = ['in_ptr0']
OUTPUTS = ['out_ptr0']
SHAPES = {{'in_ptr0': {shape}}}
OUT_SHAPES = {{'out_ptr0': {out}}}


class Reference(torch.nn.Module):
    def forward(self, x0):
        pool = torch.ops.aten.{op}(x0, {params});  x0 = None
        {get}
        return (res,)
"""


def _time(fn) -> float:
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(30):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def _arg(name: str, shape: list[int], access: str) -> dict:
    stride = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    return {"name": name, "kind": "tensor", "shape": shape, "stride": stride, "dtype": "float32", "access": access}


def _load(src: str, name: str):
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _one(name: str, op: str, params: str, is_max: bool) -> dict:
    x = torch.randn(*SHAPE, device="cuda")
    nums = [list(map(int, g.strip(", [").split(","))) for g in params.split("]")[:-1]]
    if is_max:
        model = lambda t: torch.nn.functional.max_pool2d(t, nums[0], nums[1], nums[2], nums[3])  # noqa: E731
        get = "res = pool[0];  pool = None"
    else:
        model = lambda t: torch.nn.functional.avg_pool2d(t, nums[0], nums[1], nums[2])  # noqa: E731
        get = "res = torch.ops.aten.mul.Tensor(pool, 1.0);  pool = None"
    want = model(x)
    roof_ms = (x.numel() + want.numel()) * 4 / (hardware.H200.copy_gbs * 1e9) * 1e3
    compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")
    compiled(x)
    row: dict = {"shape": SHAPE, "out": list(want.shape), "roof_ms": round(roof_ms, 4)}
    row["inductor_ms"] = round(_time(lambda: compiled(x)), 4)
    row["eager_ms"] = round(_time(lambda: model(x)), 4)
    ref = REF.format(shape=SHAPE, out=list(want.shape), op=op, params=params, get=get)
    contract = {"args": [_arg("in_ptr0", SHAPE, "read"), _arg("out_ptr0", list(want.shape), "write")]}
    row["attempts"] = []
    for attempt in range(8):
        try:
            src = generate.generate(contract, ref, attempt)
        except CannotSynthesize as e:
            row["attempts"].append({"attempt": attempt, "refused": str(e)})
            continue
        mod = _load(src, f"{name}_{attempt}")
        out = torch.full_like(want, float("nan"))
        mod.launch(x, out)
        torch.cuda.synchronize()
        err = (out - want).abs().max().item()
        ms = _time(lambda: mod.launch(x, out))
        kind = "rolling" if "RH" in src else "tiled" if "BH" in src else "flat"
        row["attempts"].append(
            {"attempt": attempt, "kind": kind, "config": mod.CONFIG, "warps": mod.NUM_WARPS, "max_abs_err": err}
            | {
                "ms": round(ms, 4),
                "vs_inductor": round(row["inductor_ms"] / ms, 3),
                "roof_pct": round(100 * roof_ms / ms, 1),
            }
        )
        print(name, row["attempts"][-1], flush=True)
    row["inductor_roof_pct"] = round(100 * roof_ms / row["inductor_ms"], 1)
    torch.cuda.empty_cache()
    return row


def main() -> None:
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "pools": {}}
    for name, (op, params, is_max) in POOLS.items():
        out["pools"][name] = _one(name, op, params, is_max)
        print(name, {k: v for k, v in out["pools"][name].items() if k != "attempts"}, flush=True)
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
