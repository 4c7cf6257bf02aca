"""The hand-written templates on the GPU at the sizes of problems/headroom, one microbenchmark
per class (not gate 4): every attempt the synthesizer makes, generated from a reference like the
one Inductor's post-grad graph gives, checked against eager PyTorch, and timed (CUDA events,
median after warm-up calls) against torch.compile's model of the same op and the copy roof
(inputs read once, outputs written once, at ``core/hardware.py``'s copy bandwidth).

- ``pools``: the stride-1 pools (the dilated 3x3 max pool, the 3x3 average pool), rolling strips
  on even attempts, flat blocks on odd ones (synth/pool.py);
- ``rows``: the L1 norm of a row and InstanceNorm as rows of 65,536 (synth/rows.py: attempts 0
  and 2 split each row over a team of programs that read it once, 1 and 3 loop over it);
- ``losses``: the loss template (synth/fullreduce.py) from the post-grad graphs Inductor wrote
  (the references of tests/test_synth_reduce.py);
- ``more``: the templates fresh CPU problems asked for (2026-12-05): a prefix product (scan.py's
  cumprod), a product over a dimension (rows.py's last column of a running product), a
  LayerNorm over a transposed tensor's channels (rows.py through the permute);
- ``teams``, ``lse``, ``kernels``: the GroupNorm region's team/split sweep, the LogSumExp over
  channels, torch.compile's kernels of the level-2 problems by time;
- ``chain``: a norm's statistics then a LogSumExp as two row kernels (rows.py's chain): each
  first-stage variant, the second stage's attempts, the chain, against torch.compile;
- ``scan64``: prefix and suffix sums accumulated in float32 and in float64 (scan.py's
  ``SUM_ACC64``): error against a float64 scan, and time.

    python3 bench/templates_gpu.py OUT.json [pools,rows,losses,more]   # GPU machine, repo on PYTHONPATH

``KERNELOPT_BENCH_SMOKE=1`` runs ``more`` on the CPU at small sizes under the Triton interpreter
(no torch.compile timing): a check of the script itself, no number worth keeping.
"""

from __future__ import annotations

import importlib.util
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path
from unittest import mock

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from kernelopt.core import hardware  # noqa: E402
from kernelopt.core.records import Contract  # noqa: E402
from kernelopt.search.synth import generate  # noqa: E402
from kernelopt.search.synth.ops import CannotSynthesize  # noqa: E402


def _stub_test_imports() -> None:
    """The GPU machine has no pytest: the test module's references are read with stand-ins for
    what it imports at module level (its decorators and the candidate loader are not used here)."""
    import types

    try:
        import pytest  # noqa: F401
    except ImportError:
        mark = types.SimpleNamespace(parametrize=lambda *a, **k: lambda f: f, slow=lambda f: f)
        sys.modules["pytest"] = types.SimpleNamespace(mark=mark, raises=None)  # type: ignore[assignment]
    try:
        import conftest  # noqa: F401
    except Exception:  # pytest's stand-in lacks what conftest's fixtures use
        stub = types.SimpleNamespace(load_candidate=None, ROOT=ROOT, sm90_kernels=None, snakemake=None)
        sys.modules["conftest"] = stub  # type: ignore[assignment]


_stub_test_imports()
from test_synth_reduce import FORWARDS, _loss  # noqa: E402

LOSS_SIZES = {"mse": (16384, 32768), "huber": (16384, 32768), "kl": (8192, 32768), "hinge": (16384, 32768)}
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
    contract = Contract.from_dict(
        {"args": [_arg("in_ptr0", SHAPE, "read"), _arg("out_ptr0", list(want.shape), "write")]}
    )
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


def losses() -> list[dict]:
    rows = []
    for kind, (r, c) in LOSS_SIZES.items():
        torch.manual_seed(0)
        if kind == "kl":
            p, t = torch.randn(r, c, device="cuda").softmax(-1), torch.randn(r, c, device="cuda").softmax(-1)
        elif kind == "hinge":
            p, t = torch.randn(r, c, device="cuda"), torch.randint(0, 2, (r, 1), device="cuda").float() * 2 - 1
        else:
            p, t = torch.randn(r, c, device="cuda"), torch.randn(r, c, device="cuda")
        fwd = FORWARDS[kind].replace("div.Tensor(sum_1, 6)", f"div.Tensor(sum_1, {r})")
        shapes = {"in_ptr0": [r, c], "in_ptr1": list(t.shape)}
        ref = (
            f"LEVEL = 'kernel'\nINPUTS = ['in_ptr0', 'in_ptr1']\nOUTPUTS = ['out_ptr0']\nSHAPES = {shapes!r}\n"
            "OUT_SHAPES = {'out_ptr0': []}\n\n\nclass Reference(torch.nn.Module):\n"
            f"    def forward(self, x0, x1):{fwd}\n"
        )

        contract = Contract.from_dict(
            {
                "args": [
                    _arg("in_ptr0", [r, c], "read"),
                    _arg("in_ptr1", list(t.shape), "read"),
                    _arg("out_ptr0", [], "write"),
                ]
            }
        )
        row = {"loss": kind, "shape": [r, c], "gb": round((p.numel() + t.numel()) * 4 / 1e9, 3)}
        with torch.no_grad():
            want = _loss(kind, p, t)
            compiled = torch.compile(lambda a, b, k=kind: _loss(k, a, b))
            compiled(p, t)
            row["compiled_ms"] = round(_time(lambda: compiled(p, t)), 4)
            best = None
            for attempt in range(4):
                src = generate.generate(contract, ref, attempt)
                path = Path(tempfile.mkdtemp()) / f"fr_{kind}_{attempt}.py"
                path.write_text(src)
                spec = importlib.util.spec_from_file_location(path.stem, path)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
                got = torch.full((), float("nan"), device="cuda")
                mod.launch(p, t, got)
                ok = bool(torch.allclose(got, want, rtol=1e-4, atol=1e-6))
                ms = _time(lambda m=mod, g=got: m.launch(p, t, g))
                row[f"attempt{attempt}"] = {"ms": round(ms, 4), "matches_eager": ok, "config": mod.CONFIG}
                if ok and (best is None or ms < best):
                    best = ms
            row["template_best_ms"] = round(best, 4) if best else None
            row["speedup_vs_compiled"] = round(row["compiled_ms"] / best, 4) if best else None
            row["template_roof_pct"] = round(100 * row["gb"] / 4300 / (best * 1e-3), 1) if best else None
            row["compiled_roof_pct"] = round(100 * row["gb"] / 4300 / (row["compiled_ms"] * 1e-3), 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
        torch._dynamo.reset()
    return rows


ROW_REFS = {
    # x / mean(|x|, dim=1, keepdim): problems/headroom/level1/7_L1Norm_Row.py
    "l1_row": """
        abs_1 = torch.ops.aten.abs.default(x0)
        mean = torch.ops.aten.mean.dim(abs_1, [1], True);  abs_1 = None
        div = torch.ops.aten.div.Tensor(x0, mean);  x0 = mean = None
        return (div,)""",
    # InstanceNorm2d of 64x64x256x256 (11_InstanceNorm2d.py) as its 4,096 rows of 65,536
    "instance_norm": """
        var_mean = torch.ops.aten.var_mean.correction(x0, [1], correction=0, keepdim=True)
        getitem = var_mean[0]
        getitem_1 = var_mean[1];  var_mean = None
        sub = torch.ops.aten.sub.Tensor(x0, getitem_1);  x0 = getitem_1 = None
        add = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt = torch.ops.aten.rsqrt.default(add);  add = None
        mul = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = rsqrt = None
        return (mul,)""",
}
ROW_SHAPE = [4096, 65536]


def _row_model(name: str):
    if name == "l1_row":
        return lambda t: t / torch.mean(torch.abs(t), dim=1, keepdim=True)
    return lambda t: (t - t.mean(1, keepdim=True)) * torch.rsqrt(t.var(1, keepdim=True, unbiased=False) + 1e-5)


def row_norms() -> dict:
    out = {}
    for name, fwd in ROW_REFS.items():
        x = torch.randn(*ROW_SHAPE, device="cuda")
        model = _row_model(name)
        want = model(x)
        roof_ms = 2 * x.numel() * 4 / (hardware.H200.copy_gbs * 1e9) * 1e3
        compiled = torch.compile(model)
        compiled(x)
        row: dict = {
            "shape": ROW_SHAPE,
            "roof_ms": round(roof_ms, 4),
            "inductor_ms": round(_time(lambda: compiled(x)), 4),
        }
        ref = (
            f"LEVEL = 'kernel'\nINPUTS = ['in_ptr0']\nOUTPUTS = ['out_ptr0']\nSHAPES = {{'in_ptr0': {ROW_SHAPE}}}\n"
            f"OUT_SHAPES = {{'out_ptr0': {ROW_SHAPE}}}\n\n\nclass Reference(torch.nn.Module):\n"
            f"    def forward(self, x0):{fwd}\n"
        )
        contract = Contract.from_dict(
            {"args": [_arg("in_ptr0", ROW_SHAPE, "read"), _arg("out_ptr0", ROW_SHAPE, "write")], "device": "cuda"}
        )
        row["attempts"] = []
        for attempt in range(4):
            mod = _load(generate.generate(contract, ref, attempt), f"{name}_{attempt}")
            got = torch.full_like(want, float("nan"))
            mod.launch(x, got)
            torch.cuda.synchronize()
            err = (got - want).abs().max().item()
            again = torch.full_like(want, float("nan"))
            mod.launch(x, again)
            ms = _time(lambda m=mod, g=got: m.launch(x, g))
            row["attempts"].append(
                {
                    "attempt": attempt,
                    "config": mod.CONFIG,
                    "warps": mod.NUM_WARPS,
                    "max_abs_err": err,
                    "deterministic": bool(torch.equal(got, again)),
                    "ms": round(ms, 4),
                }
                | {"vs_inductor": round(row["inductor_ms"] / ms, 3), "roof_pct": round(100 * roof_ms / ms, 1)}
            )
            print(name, row["attempts"][-1], flush=True)
        row["inductor_roof_pct"] = round(100 * roof_ms / row["inductor_ms"], 1)
        out[name] = row
        torch._dynamo.reset()
    return out


# name: (reference forward over x0, input shape, output shape, eager model); x0 the input
MORE = {
    "cumprod": (
        "        cumprod = torch.ops.aten.cumprod.default(x0, 1);  x0 = None\n        return (cumprod,)",
        [4096, 32768],
        [4096, 32768],
        lambda t: torch.cumprod(t, 1),
    ),
    "prod_dim1": (
        "        prod = torch.ops.aten.prod.dim_int(x0, 1);  x0 = None\n        return (prod,)",
        [128, 4096, 256],
        [128, 256],
        lambda t: torch.prod(t, 1),
    ),
    "layernorm_transposed": (
        "        permute = torch.ops.aten.permute.default(x0, [0, 2, 1]);  x0 = None\n"
        "        var_mean = torch.ops.aten.var_mean.correction(permute, [2], correction = 0, keepdim = True)\n"
        "        getitem = var_mean[0]\n        getitem_1 = var_mean[1];  var_mean = None\n"
        "        add = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None\n"
        "        rsqrt = torch.ops.aten.rsqrt.default(add);  add = None\n"
        "        sub = torch.ops.aten.sub.Tensor(permute, getitem_1);  permute = getitem_1 = None\n"
        "        mul = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = rsqrt = None\n        return (mul,)",
        [64, 512, 4096],
        [64, 4096, 512],
        lambda t: torch.nn.functional.layer_norm(t.transpose(1, 2), (t.shape[1],)),
    ),
    "cummax": (
        "        cummax = torch.ops.aten.cummax.default(x0, 1);  x0 = None\n"
        "        getitem = cummax[0];  cummax = None\n        return (getitem,)",
        [4096, 32768],
        [4096, 32768],
        lambda t: torch.cummax(t, 1).values,
    ),
    "logcumsumexp": (
        "        lcse = torch.ops.aten.logcumsumexp.default(x0, 1);  x0 = None\n        return (lcse,)",
        [4096, 32768],
        [4096, 32768],
        lambda t: torch.logcumsumexp(t, 1),
    ),
}
SMOKE_SHAPES = {"cumprod": ([4, 3000], [4, 3000]), "prod_dim1": ([4, 90, 6], [4, 6])}
SMOKE_SHAPES["layernorm_transposed"] = ([2, 64, 30], [2, 30, 64])
SMOKE_SHAPES["cummax"] = SMOKE_SHAPES["logcumsumexp"] = ([4, 3000], [4, 3000])


def more() -> dict:
    """Each ``MORE`` template's attempts against eager and (on the GPU) torch.compile's model."""
    import os

    smoke = os.environ.get("KERNELOPT_BENCH_SMOKE") == "1"
    device = "cpu" if smoke else "cuda"
    out = {}
    for name, (fwd, shape, out_shape, model) in MORE.items():
        if smoke:
            shape, out_shape = SMOKE_SHAPES[name]
        torch.manual_seed(0)
        # products of values near 1 neither underflow nor overflow over a row
        x = 1.0 + 0.001 * torch.randn(*shape, device=device) if "prod" in name else torch.randn(*shape, device=device)
        want = model(x)
        roof_ms = (x.numel() + want.numel()) * 4 / (hardware.H200.copy_gbs * 1e9) * 1e3
        row: dict = {"shape": shape, "out": out_shape, "roof_ms": round(roof_ms, 4)}
        if not smoke:
            compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")
            compiled(x)
            row["inductor_ms"] = round(_time(lambda c=compiled: c(x)), 4)
            row["inductor_roof_pct"] = round(100 * roof_ms / row["inductor_ms"], 1)
        ref = (
            f"LEVEL = 'kernel'\nINPUTS = ['in_ptr0']\nOUTPUTS = ['out_ptr0']\nSHAPES = {{'in_ptr0': {shape}}}\n"
            f"OUT_SHAPES = {{'out_ptr0': {out_shape}}}\n\n\nclass Reference(torch.nn.Module):\n"
            f"    def forward(self, x0):\n{fwd}\n"
        )
        contract = Contract.from_dict(
            {"args": [_arg("in_ptr0", shape, "read"), _arg("out_ptr0", out_shape, "write")], "device": device}
        )
        row["attempts"] = []
        for attempt in range(4):
            try:
                mod = _load(generate.generate(contract, ref, attempt), f"more_{name}_{attempt}")
            except CannotSynthesize as e:
                row["attempts"].append({"attempt": attempt, "refused": str(e)})
                continue
            got = torch.full(out_shape, float("nan"), device=device)
            mod.launch(x, got)
            err = (got - want).abs().max().item()
            a = {"attempt": attempt, "config": mod.CONFIG, "warps": mod.NUM_WARPS, "max_abs_err": err}
            a["matches_eager"] = bool(torch.allclose(got, want, rtol=1e-4, atol=1e-5))
            if not smoke:
                ms = _time(lambda m=mod, g=got: m.launch(x, g))
                a |= {"ms": round(ms, 4), "vs_inductor": round(row["inductor_ms"] / ms, 3)}
                a["roof_pct"] = round(100 * roof_ms / ms, 1)
            row["attempts"].append(a)
            print(name, a, flush=True)
        out[name] = row
        torch._dynamo.reset()
    return out


def pools() -> dict:
    out = {}
    for name, (op, params, is_max) in POOLS.items():
        out[name] = _one(name, op, params, is_max)
        print(name, {k: v for k, v in out[name].items() if k != "attempts"}, flush=True)
    return out


# (columns a member holds, num_warps) of the team variant, and the looped attempts, on the
# ConvTranspose2d + GELU + GroupNorm region of problems/headroom/level2/2_* (32 x 64 x 258 x 258,
# the convolution's channels-last output in, NCHW out, 8 groups of 532,512)
TEAM_SWEEP = [(16384, 16)]  # the best team of the sweep of 2026-12-06 (was 7 sizes)
# the split variant's (columns a program holds, warps)
SPLIT_SWEEP = [(512, 4), (1024, 2), (1024, 4), (2048, 2), (2048, 4), (2048, 8), (4096, 4), (8192, 8)]


def _gelu_gn_unit(n: int, c: int, h: int):
    """(contract, reference, inputs, eager output) of the GELU + GroupNorm region at its size."""
    from test_search import gelu_gn_region

    contract, ref = gelu_gn_region(n, c, h)
    torch.manual_seed(0)
    x = torch.randn(n, c, h, h, device="cuda").to(memory_format=torch.channels_last)
    bias, w, b = torch.randn(c, device="cuda"), torch.rand(c, device="cuda") + 0.5, torch.randn(c, device="cuda")

    def model(x, bias, w, b):
        return torch.nn.functional.group_norm(torch.nn.functional.gelu(x + bias.view(1, -1, 1, 1)), 8, w, b)

    return contract, ref, (x, bias, w, b), model


def teams() -> dict:
    """The row template's team, looped and split variants on the GELU + GroupNorm region: each checked
    against eager, timed against torch.compile's kernels for the same op (NCHW output)."""
    from kernelopt.search.synth import rows as synth_rows

    contract, ref, inputs, model = _gelu_gn_unit(32, 64, 258)
    want = model(*inputs).contiguous()
    roof_ms = 2 * want.numel() * 4 / (hardware.current("cuda").copy_gbs * 1e9) * 1e3
    compiled = torch.compile(lambda *a: model(*a).contiguous())
    compiled(*inputs)
    row: dict = {"shape": list(want.shape), "roof_ms": round(roof_ms, 4)}
    row["inductor_ms"] = round(_time(lambda: compiled(*inputs)), 4)
    row["attempts"] = []
    # (a team's and a split's sizes may be equal: the split ones are tagged)
    for how in [*TEAM_SWEEP, "looped", *(("split", *x) for x in SPLIT_SWEEP)]:
        if how[0] == "split":  # the split variant (two launches) with these columns and warps
            with mock.patch.object(synth_rows, "SPLIT_ATTEMPTS", {1: how[1:]}):
                mod = _load(synth_rows.synthesize_rows(contract, ref, 1), "split_{}_{}".format(*how[1:]))
        else:
            kern = synth_rows.RowKernel(contract, ref, 8192 if how == "looped" else None, None)
            if how != "looped":
                kern.team, kern.team_warps = how
            mod = _load(kern.build(1), "team_" + "_".join(map(str, how if how != "looped" else [how])))
        got = torch.full_like(want, float("nan"))
        mod.launch(*inputs, got)
        torch.cuda.synchronize()
        a = {"variant": str(how), "config": mod.CONFIG, "warps": mod.NUM_WARPS}
        a["max_abs_err"] = (got - want).abs().max().item()
        ms = _time(lambda m=mod, g=got: m.launch(*inputs, g))
        a |= {"ms": round(ms, 4), "vs_inductor": round(row["inductor_ms"] / ms, 3)}
        a["roof_pct"] = round(100 * roof_ms / ms, 1)
        row["attempts"].append(a)
        print("teams", a, flush=True)
    row["inductor_roof_pct"] = round(100 * roof_ms / row["inductor_ms"], 1)
    return {"gelu_group_norm": row}


# a hand-written bound for it: a 2-D grid (pixel blocks, samples), so the scale and shift of a
# program are one [1, C] load, not a [ROWS, C] gather (the question: is that where the time goes)
LSE_2D = """
import triton
import triton.language as tl
from torch._inductor.runtime.triton_helpers import libdevice


@triton.jit
def lse2d(x_ptr, out_ptr, a_ptr, b_ptr, s_ptr, HW: tl.constexpr, C: tl.constexpr, ROWS: tl.constexpr):
    n = tl.program_id(1).to(tl.int64)
    p = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, C)[None, :]
    pm = p < HW
    x = tl.load(x_ptr + n * HW * C + p * C + c, mask=pm, other=0.0)
    a = tl.load(a_ptr + n * C + c)
    b = tl.load(b_ptr + n * C + c)
    s = tl.load(s_ptr + c)
    t = libdevice.tanh((x * a + b) * s)
    m = tl.max(t, 1)[:, None]
    m = tl.where(tl.abs(m) == float('inf'), 0.0, m)
    e = tl.sum(tl.exp(t - m), 1)[:, None]
    tl.store(out_ptr + n * HW + p, tl.log(e) + m, mask=pm)


def launch(x, out, a, b, s, rows, warps):
    n, c, h, w = x.shape
    lse2d[(triton.cdiv(h * w, rows), n)](x, out, a, b, s, h * w, c, rows, num_warps=warps)
"""


def lse() -> dict:
    """The LogSumExp-over-channels kernel of Conv2d + GroupNorm + scale + tanh + LogSumExp at the
    problem's size: the row template's attempts and a 2-D-grid bound, against torch.compile."""
    from test_search import lse_region

    from kernelopt.search.synth import rows as synth_rows

    n, c, h = 64, 64, 254
    contract, ref = lse_region(n, c, h, "cuda")
    torch.manual_seed(0)
    x = torch.randn(n, c, h, h, device="cuda").to(memory_format=torch.channels_last)
    a, b = torch.rand(n, c, device="cuda") + 0.5, torch.randn(n, c, device="cuda")
    s = torch.randn(c, 1, 1, device="cuda")

    def model(x, a, b, s):
        return torch.logsumexp(torch.tanh((x * a[:, :, None, None] + b[:, :, None, None]) * s), 1, keepdim=True)

    want = model(x, a, b, s)
    roof_ms = (x.numel() + want.numel()) * 4 / (hardware.current("cuda").copy_gbs * 1e9) * 1e3
    compiled = torch.compile(model)
    compiled(x, a, b, s)
    row: dict = {"shape": [n, c, h, h], "roof_ms": round(roof_ms, 4), "attempts": []}
    row["inductor_ms"] = round(_time(lambda: compiled(x, a, b, s)), 4)
    mods = [(f"rows_a{k}", _load(synth_rows.synthesize_rows(contract, ref, k), f"lse_a{k}"), None) for k in range(4)]
    with mock.patch.object(synth_rows, "OUTER_MIN_PROGRAMS", 1 << 40):  # the 1-D grid, as before
        one_d = [synth_rows.synthesize_rows(contract, ref, k) for k in range(4)]
    mods += [(f"rows_1d_a{k}", _load(src, f"1d_{k}"), None) for k, src in enumerate(one_d)]
    hand = _load(LSE_2D, "lse2d")
    mods += [(f"2d_{r}_{w}", hand, (r, w)) for r, w in ((32, 4), (64, 4), (64, 8), (128, 8), (128, 16))]
    for name, mod, how in mods:
        got = torch.full_like(want, float("nan"))
        if how is None:
            call = lambda m=mod, g=got: m.launch(x, g, a, b, s)  # noqa: E731
        else:
            call = lambda g=got, h=how: hand.launch(x, g, a, b, s, *h)  # noqa: E731
        call()
        torch.cuda.synchronize()
        ms = _time(call)
        r = {"variant": name, "max_abs_err": (got - want).abs().max().item(), "ms": round(ms, 4)}
        r |= {"vs_inductor": round(row["inductor_ms"] / ms, 3), "roof_pct": round(100 * roof_ms / ms, 1)}
        row["attempts"].append(r)
        print("lse", r, flush=True)
    row["inductor_roof_pct"] = round(100 * roof_ms / row["inductor_ms"], 1)
    stats = torch.compile(lambda x: torch.var_mean(x.view(n, 8, c // 8, h, h), (2, 3, 4), correction=0))
    stats(x)
    row["group_stats_inductor_ms"] = round(_time(lambda: stats(x)), 4)  # the region's other kernel(s)
    return {"lse_over_channels": row}


CHAIN_SIZES = {"group": (64, 64, 8, 254, 254), "instance": (64, 64, 1, 254, 254)}  # level2/1, bench/fresh1206/5
DEVICE = "cuda"  # (a smoke check of the script on the CPU sets "cpu" and small sizes)


# a bound for a chain's first stage on a channels-last input: a program reads every channel of
# BP positions of one sample (contiguous memory) and publishes each channel's mean and sum of
# squares about it; a second launch combines a group's channels and parts (Chan's formula)
STATS_CL = """
import triton
import triton.language as tl


@triton.jit
def part(x, ws, HW, C: tl.constexpr, BP: tl.constexpr, NPB):
    n = tl.program_id(1).to(tl.int64)
    pb = tl.program_id(0).to(tl.int64)
    p = pb * BP + tl.arange(0, BP)[:, None]
    m = p < HW
    v = tl.load(x + n * HW * C + p * C + tl.arange(0, C)[None, :], mask=m, other=0.0)
    mean = tl.sum(v, 0) / tl.minimum(HW - pb * BP, BP).to(tl.float32)
    d = tl.where(m, v - mean[None, :], 0.0)
    base = (n * NPB + pb) * 2 * C + tl.arange(0, C)
    tl.store(ws + base, mean)
    tl.store(ws + base + C, tl.sum(d * d, 0))


@triton.jit
def combine(ws, mean_o, var_o, HW, NPB, BP: tl.constexpr, C: tl.constexpr, CPG: tl.constexpr, G: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    n, cc = pid // G, (pid % G) * CPG + tl.arange(0, CPG)[None, :]
    acc = tl.zeros([64, CPG], tl.float32)
    for q0 in range(0, NPB, 64):
        q = q0 + tl.arange(0, 64)[:, None]
        cnt = tl.minimum(HW - q * BP, BP).to(tl.float32)
        acc += tl.where(q < NPB, cnt * tl.load(ws + (n * NPB + q) * 2 * C + cc, mask=q < NPB, other=0.0), 0.0)
    mean = tl.sum(tl.sum(acc, 1), 0) / (HW * CPG)
    acc = tl.zeros([64, CPG], tl.float32)
    for q0 in range(0, NPB, 64):
        q = q0 + tl.arange(0, 64)[:, None]
        cnt = tl.minimum(HW - q * BP, BP).to(tl.float32)
        mu = tl.load(ws + (n * NPB + q) * 2 * C + cc, mask=q < NPB, other=0.0)
        m2 = tl.load(ws + (n * NPB + q) * 2 * C + C + cc, mask=q < NPB, other=0.0)
        acc += tl.where(q < NPB, m2 + cnt * (mu - mean) * (mu - mean), 0.0)
    tl.store(mean_o + pid, mean)
    tl.store(var_o + pid, tl.sum(tl.sum(acc, 1), 0) / (HW * CPG))


def launch(x, mean, var, G, BP, warps):
    n, c, h, w = x.shape
    npb = triton.cdiv(h * w, BP)
    ws = torch.empty(n * npb * 2 * c, device=x.device)
    part[(npb, n)](x, ws, h * w, c, BP, npb, num_warps=warps)
    combine[(n * G,)](ws, mean, var, h * w, npb, BP, c, c // G, G, num_warps=4)
"""


def _stats_channels_last(x: torch.Tensor, g: int) -> dict:
    """The bound ``STATS_CL`` (mean and variance per group of ``x`` alone, no bias): its best
    (positions per program, warps), checked against ``torch.var_mean``."""
    mod = _load("import torch\n" + STATS_CL, f"stats_cl_{g}")
    n, c, h, w = x.shape
    var_ref, mean_ref = torch.var_mean(x.float().view(n, g, -1, h, w), (2, 3, 4), correction=0)
    best: dict = {}
    for bp, warps in ((64, 4), (128, 4), (256, 4), (256, 8)):
        mean, var = torch.empty(n * g, device=x.device), torch.empty(n * g, device=x.device)
        mod.launch(x, mean, var, g, bp, warps)
        err = max((mean.view(n, g) - mean_ref).abs().max().item(), (var.view(n, g) - var_ref).abs().max().item())
        ms = _time(lambda m=mod, a=mean, b=var, bp=bp, w=warps: m.launch(x, a, b, g, bp, w))
        if not best or ms < best["ms"]:
            best = {"variant": f"hand channels-last {(bp, warps)}", "max_abs_err": err, "ms": round(ms, 4)}
    print("chain first", best, flush=True)
    return best


def _chain_row(norm: str) -> dict:
    """One chain's stages and attempts (``chain``) at the problem's size."""
    from test_synth_reduce import chain_unit, reference_module, run_reference

    from kernelopt.search.synth import rows as synth_rows

    n, c, g, h, w = CHAIN_SIZES[norm]
    contract, ref = chain_unit(norm, n, c, g, h, w, DEVICE)
    torch.manual_seed(0)
    x = (torch.randn(n, c, h, w, device=DEVICE) + torch.randn(1, c, 1, 1, device=DEVICE) * 3).contiguous(
        memory_format=torch.channels_last
    )
    vals = [x, torch.randn(c, device=DEVICE), torch.randn(c, device=DEVICE), torch.randn(c, device=DEVICE)]
    vals = (vals + [torch.rand(c, 1, 1, device=DEVICE) + 0.5])[: len(contract.args) - 1]
    chain = synth_rows.chain_split(contract, ref)
    stats = run_reference(chain.first[1], *vals[:2])
    (want,) = run_reference(ref, *vals)
    row: dict = {
        "shape": [n, c, h, w],
        "groups": g,
        "roof_read_ms": round(x.numel() * 4 / (hardware.current("cuda").copy_gbs * 1e9) * 1e3, 4),
    }
    for name, src, args in (
        ("region", ref, vals),
        ("first", chain.first[1], vals[:2]),
        ("rest", chain.rest[1], [*vals, *stats]),
    ):
        compiled = torch.compile(reference_module(src))
        compiled(*args)
        row[f"inductor_{name}_ms"] = round(_time(lambda f=compiled, a=args: f(*a)), 4)
    variants = [("team", t) for t in ((8192, 4), (16384, 8), (16384, 16), (4096, 4))] + [("looped", 8192)]
    variants += [("split", s) for s in ((16384, 8), (8192, 8), (16384, 16), (4096, 4), (2048, 8), (1024, 4))]
    row["first"] = [_stats_channels_last(x, g)]
    for kind, how in variants:
        if kind == "split":
            src = synth_rows.synthesize_rows(*chain.first, 0, split=how)
        else:
            kern = synth_rows.RowKernel(*chain.first, how if kind == "looped" else None, None)
            if kind == "team":
                kern.team, kern.team_warps = how
            src = kern.build(1)
        mod = _load(src, f"first_{kind}_{how}".replace(" ", "").replace(",", "_").replace("(", "").replace(")", ""))
        got = [torch.full_like(t, float("nan")) for t in stats]
        mod.launch(*vals[:2], *got)
        torch.cuda.synchronize()
        r = {"variant": f"{kind} {how}", "max_abs_err": max((a - b).abs().max().item() for a, b in zip(got, stats))}
        r["ms"] = round(_time(lambda m=mod, o=got: m.launch(*vals[:2], *o)), 4)
        row["first"].append(r)
        print("chain", norm, "first", r, flush=True)
    row["rest"], row["chain"] = [], []
    for k in range(4):
        mod = _load(synth_rows.chain_rest(chain, k), f"rest_{norm}_{k}")
        got = torch.full_like(want, float("nan"))
        mod.launch(*vals, *stats, got)
        r = {"attempt": k, "max_abs_err": (got - want).abs().max().item()}
        r["ms"] = round(_time(lambda m=mod, o=got: m.launch(*vals, *stats, o)), 4)
        row["rest"].append(r)
        mod = _load(synth_rows.synthesize_chain(contract, ref, k), f"chain_{norm}_{k}")
        got = torch.full_like(want, float("nan"))
        mod.launch(*vals, got)
        r = {"attempt": k, "max_abs_err": (got - want).abs().max().item()}
        r["ms"] = round(_time(lambda m=mod, o=got: m.launch(*vals, o)), 4)
        row["chain"].append(r)
        print("chain", norm, "rest/chain", row["rest"][-1], r, flush=True)
    return row


def chain() -> dict:
    """A norm's statistics then a LogSumExp over the channels, as the chain of two row kernels
    (synth/rows.py ``synthesize_chain``): each variant of the first stage (the statistics), the
    second stage's attempts, the whole chain's, against torch.compile of the region and of each
    stage's reference; level2/1's group norm and bench/fresh1206/5's instance norm sizes."""
    return {norm: _chain_row(norm) for norm in CHAIN_SIZES}


def scan64() -> dict:
    """Prefix and suffix sums at problems/headroom's size (8,192 rows of 32,768): each scan attempt
    accumulating in float32 and in float64 (scan.py ``SUM_ACC64``), checked against a float64
    scan (largest relative error over the sums), timed against torch.compile."""
    from test_synth_scan import REVERSE, _reference

    from kernelopt.search.synth import scan as synth_scan

    rows, n = 8192, 32768
    contract = Contract.from_dict({"args": [_arg("in_ptr0", [rows, n], "read"), _arg("out_ptr0", [rows, n], "write")]})
    plain = """    def forward(self, x0):
        cumsum = torch.ops.aten.cumsum.default(x0, 1);  x0 = None
        return (cumsum,)
"""
    out: dict = {"shape": [rows, n]}
    torch.manual_seed(0)
    x = torch.randn(rows, n, device="cuda")
    for name, fwd, eager in (
        ("prefix", plain, lambda t: torch.cumsum(t, 1)),
        ("suffix", REVERSE, lambda t: torch.cumsum(t.flip(1), 1).flip(1)),
    ):
        ref = _reference(fwd, {"in_ptr0": [rows, n]}, [rows, n], ["in_ptr0"])
        exact = eager(x.double())
        compiled = torch.compile(eager)
        compiled(x)
        row: dict = {"inductor_ms": round(_time(lambda c=compiled: c(x)), 4), "attempts": []}
        row["inductor_rel_err"] = ((compiled(x).double() - exact).abs() / exact.abs().clamp_min(1e-3)).max().item()
        for acc in ("float32", "float64"):
            with mock.patch.object(synth_scan, "SUM_ACC64", frozenset(range(4)) if acc == "float64" else frozenset()):
                srcs = [synth_scan.synthesize_scan(contract, ref, k) for k in range(4)]
            for k, src in enumerate(srcs):
                mod = _load(src, f"scan_{name}_{acc}_{k}")
                got = torch.empty_like(x)
                mod.launch(x, got)
                r = {"attempt": k, "acc": acc, "ms": round(_time(lambda m=mod, g=got: m.launch(x, g)), 4)}
                r["rel_err"] = ((got.double() - exact).abs() / exact.abs().clamp_min(1e-3)).max().item()
                row["attempts"].append(r)
                print("scan64", name, r, flush=True)
        out[name] = row
    return out


KERNEL_PROBLEMS = ["level2/1_Conv2d_GroupNorm_Scale_LogSumExp", "level2/2_ConvTranspose2d_GELU_GroupNorm"]


def kernels() -> dict:
    """Each GPU kernel of torch.compile's model of the level-2 problems above at their sizes:
    name and mean time over 10 calls (torch.profiler), the place the time of a region goes."""
    from torch.profiler import ProfilerActivity, profile

    out = {}
    for rel in KERNEL_PROBLEMS:
        mod = _load((ROOT / "problems/headroom" / f"{rel}.py").read_text(), rel.split("/")[1])
        torch.manual_seed(0)
        model = mod.Model(*mod.get_init_inputs()).cuda().eval()
        inputs = [t.cuda() for t in mod.get_inputs()]
        compiled = torch.compile(model)
        with torch.no_grad():
            for _ in range(3):
                compiled(*inputs)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(10):
                    compiled(*inputs)
                torch.cuda.synchronize()
        times: dict[str, float] = {}
        for e in prof.events():
            if e.device_type.name == "CUDA":
                times[e.name] = times.get(e.name, 0.0) + e.device_time / 1e3 / 10
        out[rel] = {k[:90]: round(v, 4) for k, v in sorted(times.items(), key=lambda kv: -kv[1])}
        print(rel, out[rel], flush=True)
        del model, inputs, compiled
        torch.cuda.empty_cache()
    return out


def main() -> None:
    parts = (sys.argv[2] if len(sys.argv) > 2 else "pools,rows,losses,more").split(",")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu (smoke)"
    out = {"device": device, "torch": torch.__version__}
    parts_fn = {"pools": pools, "rows": row_norms, "losses": losses, "more": more, "teams": teams}
    parts_fn |= {"lse": lse, "kernels": kernels, "chain": chain, "scan64": scan64}
    for part, fn in parts_fn.items():
        if part in parts:
            out[part] = fn()
            Path(sys.argv[1]).write_text(json.dumps(out, indent=1))  # each part kept as it ends


if __name__ == "__main__":
    main()
