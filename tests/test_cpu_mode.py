"""Tests for kernelopt.core.cpu_mode: Inductor's Triton CPU backend under TRITON_INTERPRET=1.

Every test runs its work in a fresh subprocess (``python tests/test_cpu_mode.py <case>``)
with its own ``TORCHINDUCTOR_CACHE_DIR`` / ``TRITON_CACHE_DIR`` under ``tmp_path``:
``install()`` patches process-global state and torch.compile caches aggressively, so
in-process tests would interfere with each other.  The child prints one
``RESULT {json}`` line that the parent checks.  Shapes are tiny (e.g. 4x32).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
ATOL = RTOL = 1e-4

# The demo problems of the brief; each must compile with max-autotune and match eager.
PROBLEMS = [
    "softmax",
    "layernorm",
    "gelu_mul_add",
    "row_reductions",
    "linear_bias_relu_scale",
    "conv_bn_relu",
    "matmul_softmax",
    "mlp",
    "transformer_block",
    "transformer_block_mha",
    "cnn",
    "log_softmax",
    "cumsum",
]


# ---------------------------------------------------------------------------
# parent side
# ---------------------------------------------------------------------------


def _run_child(tmp_path: Path, *argv: str, timeout: float = 240, tag: str = "") -> dict[str, Any]:
    """Run this file as a script in a fresh interpreter and return its RESULT json."""
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)  # install() must set it itself
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path / f"inductor{tag}")
    env["TRITON_CACHE_DIR"] = str(tmp_path / f"triton{tag}")
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    env["PYTHONWARNINGS"] = "ignore"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *argv],
        cwd=str(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        pytest.fail(
            f"child {argv} failed (rc={proc.returncode})\n--- stdout ---\n{proc.stdout[-4000:]}"
            f"\n--- stderr ---\n{proc.stderr[-6000:]}"
        )
    result = json.loads(lines[-1][len("RESULT ") :])
    result["process_wall_s"] = round(wall, 2)
    print(f"{argv}: {result}")
    return result


def test_api_and_config(tmp_path: Path) -> None:
    r = _run_child(tmp_path, "api")
    assert r["installed_before"] is False and r["installed_after"] is True
    assert r["env"] == "1" and r["knob"] is True
    assert r["config"]["cpu_backend"] == "triton"
    assert r["config"]["max_autotune_gemm_backends"] == "ATEN"
    assert r["config"]["max_autotune_conv_backends"] == "ATEN"
    assert r["config"]["benchmark_epilogue_fusion"] is False
    assert r["applied_config_matches"] is True
    assert r["idempotent"] is True
    assert r["backend_hash_ok"] is True
    assert r["raw_stream_one_line"] is True
    assert {"backend_hash", "libdevice", "reduce_fast_paths", "interpret_config", "raw_stream"} <= set(r["patches"])


@pytest.mark.slow
@pytest.mark.parametrize("name", PROBLEMS)
def test_problem_matches_eager(tmp_path: Path, name: str) -> None:
    r = _run_child(tmp_path, "problem", name)
    assert r["triton_kernels"] >= 1, "expected Inductor to emit at least one Triton kernel"
    assert r["ok"], f"{name}: max abs err {r['max_abs_err']}"


@pytest.mark.slow
def test_install_after_triton_already_imported(tmp_path: Path) -> None:
    """torch._inductor.config imports triton; tl.sum & co. are JITFunctions by then."""
    r = _run_child(tmp_path, "late_install")
    assert r["converted"] is True
    assert r["ok"], r


@pytest.mark.slow
def test_output_module_reimport_in_fresh_process(tmp_path: Path) -> None:
    """The wrapper Inductor writes can be imported elsewhere (after install) and run."""
    r1 = _run_child(tmp_path, "reimport_build", str(tmp_path), tag="_build")
    assert r1["ok"] and r1["triton_kernels"] >= 2
    r2 = _run_child(tmp_path, "reimport_run", str(tmp_path), tag="_run")
    assert r2["caching_autotuners"] >= 2
    assert r2["launches"] >= r2["caching_autotuners"]
    assert r2["ok"], r2


@pytest.mark.slow
def test_libdevice_functions(tmp_path: Path) -> None:
    r = _run_child(tmp_path, "libdevice")
    assert not r["bad"], r["bad"]
    # Make sure these really went through libdevice.* in the generated kernels.
    for fn in ("tanh", "erfinv", "lgamma", "isnan", "pow", "atan2", "fmod", "erf", "rsqrt"):
        assert fn in r["libdevice_used"], fn


@pytest.mark.slow
def test_reduction_and_scan_edge_cases(tmp_path: Path) -> None:
    r = _run_child(tmp_path, "edge")
    assert not r["bad"], r["bad"]


@pytest.mark.slow
def test_interpret_config_picks_fewest_programs(tmp_path: Path) -> None:
    r = _run_child(tmp_path, "config_choice")
    assert r["kernels"] >= 1
    assert r["all_minimal"], r
    assert r["ok"]


@pytest.mark.slow
def test_broken_patch_raises_named_error(tmp_path: Path) -> None:
    r = _run_child(tmp_path, "broken")
    assert r["error_type"] == "CpuModePatchError"
    assert r["patch"] == "reduce_fast_paths"
    assert "reduce_fast_paths" in r["message"]


# ---------------------------------------------------------------------------
# child side (runs in a fresh interpreter)
# ---------------------------------------------------------------------------


def _emit(**kw: Any) -> None:
    print("RESULT " + json.dumps(kw), flush=True)


def _compare(ref: Any, out: Any) -> tuple[bool, float]:
    import torch
    from torch.utils._pytree import tree_leaves

    refs, outs = tree_leaves(ref), tree_leaves(out)
    ok, err = len(refs) == len(outs), 0.0
    for a, b in zip(refs, outs):
        a, b = a.detach().float(), b.detach().float()
        ok = ok and a.shape == b.shape and torch.allclose(a, b, atol=ATOL, rtol=RTOL, equal_nan=True)
        diff = (a - b).abs()
        diff = diff[~torch.isnan(diff)]
        err = max(err, diff.max().item() if diff.numel() else 0.0)
    return ok, err


def _problems() -> dict[str, tuple[Any, tuple[Any, ...]]]:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Softmax(nn.Module):
        def forward(self, x):
            return torch.softmax(x, dim=-1)

    class LayerNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(32)

        def forward(self, x):
            return self.ln(x)

    class GeluMulAdd(nn.Module):
        def forward(self, x, y):
            return F.gelu(x) * y + x

    class RowReductions(nn.Module):
        def forward(self, x):
            return x.sum(-1), x.mean(-1), x.max(-1).values

    class LinearBiasReluScale(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(32, 16)

        def forward(self, x):
            return torch.relu(self.fc(x)) * 0.5

    class ConvBnRelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)))

    class MatmulSoftmax(nn.Module):
        def forward(self, a, b):
            return torch.softmax(a @ b, dim=-1)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))

        def forward(self, x):
            return self.net(x)

    class Block(nn.Module):
        """Pre-LN transformer block with manual attention (softmax runs in Triton)."""

        def __init__(self, d=32, heads=4):
            super().__init__()
            self.h = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
            q, k, v = (z.view(b, t, self.h, d // self.h).transpose(1, 2) for z in (q, k, v))
            att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.h) ** 0.5, dim=-1)
            x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
            return x + self.mlp(self.ln2(x))

    class BlockMHA(nn.Module):
        def __init__(self, d=32, heads=4):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            h = self.ln1(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.c2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1)
            self.pool = nn.MaxPool2d(2)
            self.gap = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(16, 10)

        def forward(self, x):
            x = self.pool(torch.relu(self.c1(x)))
            x = torch.relu(self.c2(x))
            return self.fc(torch.flatten(self.gap(x), 1))

    class LogSoftmax(nn.Module):
        def forward(self, x):
            return torch.log_softmax(x, dim=-1)

    class Cumsum(nn.Module):
        def forward(self, x):
            return torch.cumsum(x, dim=-1)

    r = torch.randn
    return {
        "softmax": (Softmax(), (r(4, 32),)),
        "layernorm": (LayerNorm(), (r(4, 32),)),
        "gelu_mul_add": (GeluMulAdd(), (r(4, 32), r(4, 32))),
        "row_reductions": (RowReductions(), (r(4, 32),)),
        "linear_bias_relu_scale": (LinearBiasReluScale(), (r(4, 32),)),
        "conv_bn_relu": (ConvBnRelu(), (r(2, 3, 8, 8),)),
        "matmul_softmax": (MatmulSoftmax(), (r(4, 16), r(16, 32))),
        "mlp": (MLP(), (r(4, 32),)),
        "transformer_block": (Block(), (r(2, 8, 32),)),
        "transformer_block_mha": (BlockMHA(), (r(2, 8, 32),)),
        "cnn": (CNN(), (r(2, 3, 8, 8),)),
        "log_softmax": (LogSoftmax(), (r(4, 32),)),
        "cumsum": (Cumsum(), (r(4, 32),)),
    }


def _child_api() -> None:
    from kernelopt.core import cpu_mode

    before = cpu_mode.installed()
    cpu_mode.install()  # before `import torch`
    import torch  # noqa: F401
    import torch._inductor.config as ic
    import torch.utils._triton as ut
    import triton
    from torch._inductor.codegen.cpu_device_op_overrides import CpuDeviceOpOverrides

    patched_run = torch._inductor.runtime.triton_heuristics.CachingAutotuner.run
    cpu_mode.install()  # second call must be a no-op
    idempotent = torch._inductor.runtime.triton_heuristics.CachingAutotuner.run is patched_run
    cfg = cpu_mode.inductor_config()
    h = ut.triton_hash_with_backend()
    stream_src = CpuDeviceOpOverrides().import_get_raw_stream_as("get_raw_stream")
    ns: dict[str, Any] = {}
    exec(stream_src, ns)
    _emit(
        installed_before=before,
        installed_after=cpu_mode.installed(),
        env=os.environ.get("TRITON_INTERPRET"),
        knob=bool(triton.knobs.runtime.interpret),
        config=cfg,
        applied_config_matches=all(getattr(ic, k) == v for k, v in cfg.items()),
        idempotent=idempotent,
        backend_hash_ok=isinstance(h, str) and len(h) == 64 and h.isupper(),
        raw_stream_one_line="\n" not in stream_src.strip() and ns["get_raw_stream"](None) == 0,
        patches=list(cpu_mode.patch_descriptions()),
    )


def _child_problem(name: str) -> None:
    from kernelopt.core import cpu_mode

    cpu_mode.install()
    import torch
    from torch._inductor.utils import run_and_get_code

    torch.manual_seed(0)
    model, args = _problems()[name]
    model.eval()
    with torch.no_grad():
        ref = model(*args)
        compiled = torch.compile(model, mode="max-autotune")
        t0 = time.perf_counter()
        out, codes = run_and_get_code(compiled, *args)
        compile_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        out2 = compiled(*args)
        run_s = time.perf_counter() - t0
    ok1, err1 = _compare(ref, out)
    ok2, err2 = _compare(ref, out2)
    _emit(
        name=name,
        ok=ok1 and ok2,
        max_abs_err=max(err1, err2),
        triton_kernels=sum(c.count("async_compile.triton(") for c in codes),
        compile_and_first_run_s=round(compile_s, 2),
        steady_run_s=round(run_s, 4),
    )


def _child_late_install() -> None:
    import torch
    import torch._inductor.config  # noqa: F401  (imports triton: tl.sum is a JITFunction now)
    from torch._inductor.runtime import triton_helpers
    from triton.runtime.jit import JITFunction

    was_jit = isinstance(triton_helpers.max2, JITFunction)
    from kernelopt.core import cpu_mode

    cpu_mode.install()
    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction

    converted = (
        was_jit and isinstance(triton_helpers.max2, InterpretedFunction) and isinstance(tl.sum, InterpretedFunction)
    )

    def f(x):
        return torch.softmax(x, -1).sum(-1), torch.cumsum(x, 1), x.argmax(-1), x.var(-1)

    x = torch.randn(4, 32)
    with torch.no_grad():
        ok, err = _compare(f(x), torch.compile(f, mode="max-autotune")(x))
    _emit(converted=converted, ok=ok, max_abs_err=err)


def _reimport_fn(x, w, b, g):
    import torch
    import torch.nn.functional as F

    h = F.gelu(x @ w + b)
    return F.layer_norm(h, (h.shape[-1],), g), torch.softmax(h, -1).cumsum(-1), torch.tanh(h).amax(0)


def _child_reimport_build(out_dir: str) -> None:
    from kernelopt.core import cpu_mode

    cpu_mode.install()
    import torch
    from torch._inductor.utils import run_and_get_code

    torch.manual_seed(0)
    args = [torch.randn(4, 32), torch.randn(32, 16), torch.randn(16), torch.randn(16)]
    with torch.no_grad():
        ref = _reimport_fn(*args)
        out, codes = run_and_get_code(torch.compile(_reimport_fn, mode="max-autotune"), *args)
    ok, err = _compare(ref, out)
    assert len(codes) == 1, len(codes)
    Path(out_dir, "output_code.py").write_text(codes[0])
    torch.save({"args": args, "ref": list(ref)}, Path(out_dir, "io.pt"))
    _emit(ok=ok, max_abs_err=err, triton_kernels=codes[0].count("async_compile.triton("))


def _child_reimport_run(out_dir: str) -> None:
    import importlib.util

    from kernelopt.core import cpu_mode

    cpu_mode.install()
    import torch
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    launches: list[str] = []
    orig_run = CachingAutotuner.run

    def counting_run(self, *args, **kwargs):
        assert "stream" in kwargs
        launches.append(self.fn.__name__)
        return orig_run(self, *args, **kwargs)

    CachingAutotuner.run = counting_run
    spec = importlib.util.spec_from_file_location("kernelopt_reimported_output", Path(out_dir, "output_code.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernels = [v for v in vars(mod).values() if isinstance(v, CachingAutotuner)]
    io = torch.load(Path(out_dir, "io.pt"))
    with torch.no_grad():
        out = mod.call(list(io["args"]))  # call() clears the list it is given
    ok, err = _compare(tuple(io["ref"]), tuple(out))
    _emit(ok=ok, max_abs_err=err, caching_autotuners=len(kernels), launches=len(launches))


def _child_libdevice() -> None:
    import re

    from kernelopt.core import cpu_mode

    cpu_mode.install()
    import torch
    from torch._inductor.utils import run_and_get_code

    torch.manual_seed(0)
    x = torch.randn(4, 32)
    x[0, 0], x[0, 1], x[0, 2] = float("nan"), float("inf"), float("-inf")
    y = torch.rand(4, 32) + 0.5
    u = torch.rand(4, 32) * 1.8 - 0.9
    cases = {
        "tanh": lambda: torch.tanh(x),
        "erf": lambda: torch.erf(x),
        "erfinv": lambda: torch.erfinv(u),
        "lgamma": lambda: torch.lgamma(y),
        "isnan": lambda: torch.isnan(x).float() + torch.isinf(x).float(),
        "pow": lambda: torch.pow(y, x.nan_to_num()),
        "atan2": lambda: torch.atan2(x, y),
        "fmod": lambda: torch.fmod(x, y),
        "expm1_log1p": lambda: torch.expm1(u) + torch.log1p(y),
        "hyperbolic": lambda: torch.sinh(u) + torch.cosh(u) + torch.asinh(x),
        "inverse_trig": lambda: torch.asin(u) + torch.acos(u) + torch.atan(x) + torch.atanh(u),
        "rounding": lambda: torch.trunc(3 * x) + torch.floor(3 * x) + torch.ceil(3 * x) + torch.round(3 * x),
        "rsqrt_exp2_log": lambda: torch.rsqrt(y) + torch.exp2(u) + torch.log2(y) + torch.log10(y),
        "copysign_signbit": lambda: torch.copysign(y, x) + torch.signbit(x).float(),
        "special": lambda: torch.special.i0(u) + torch.special.erfcx(u) + torch.special.bessel_j0(u) + torch.erfc(u),
        "gelu_tanh_mish": lambda: torch.nn.functional.gelu(x, approximate="tanh") + torch.nn.functional.mish(u),
    }
    bad, used = [], set()
    with torch.no_grad():
        for name, fn in cases.items():
            try:
                out, codes = run_and_get_code(torch.compile(fn, mode="max-autotune"))
                used |= set(re.findall(r"libdevice\.(\w+)", "".join(codes)))
                ok, err = _compare(fn(), out)
                if not ok:
                    bad.append(f"{name}: err {err}")
            except Exception as e:  # report every failure, not only the first
                bad.append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
            torch._dynamo.reset()
    _emit(bad=bad, libdevice_used=sorted(used))


def _child_edge() -> None:
    from kernelopt.core import cpu_mode

    cpu_mode.install()
    import torch

    x = torch.randint(0, 3, (8, 16)).float()  # lots of ties
    x[1, 5] = x[2, 0] = x[2, 7] = float("nan")
    x[3, :] = float("-inf")
    x[4, 3] = float("inf")
    clean = torch.nan_to_num(x, 0.0, 0.0, 0.0)
    cases = {
        "max": lambda: x.max(-1).values,
        "amin": lambda: x.amin(-1),
        "argmax": lambda: x.argmax(-1),
        "argmin": lambda: x.argmin(-1),
        "max_indices": lambda: x.max(-1).indices,
        "cummax": lambda: torch.cummax(x, -1).values,
        "cummax_indices": lambda: torch.cummax(x, -1).indices,
        "cummin": lambda: torch.cummin(x, 1).values,
        "cumsum": lambda: torch.cumsum(clean, 1),
        "cumprod": lambda: torch.cumprod(clean * 0.5 + 0.5, 1),
        "logcumsumexp": lambda: torch.logcumsumexp(clean, 1),
        "var_mean": lambda: torch.var_mean(clean, 1),
        "prod": lambda: (clean + 1).prod(-1),
        "any": lambda: (x > 1).any(-1),
        "sort": lambda: torch.sort(clean + torch.arange(16) * 0.01, -1).values,
        "var_loop": lambda: torch.var(torch.linspace(-3, 3, 8 * 3000).view(8, 3000) ** 2, 1),
    }
    bad = []
    with torch.no_grad():
        for name, fn in cases.items():
            try:
                ok, err = _compare(fn(), torch.compile(fn, mode="max-autotune")())
                if not ok:
                    bad.append(f"{name}: err {err}")
            except Exception as e:
                bad.append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
            torch._dynamo.reset()
    _emit(bad=bad)


def _child_config_choice() -> None:
    from kernelopt.core import cpu_mode

    cpu_mode.install()
    import torch
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    seen: list[tuple[Any, tuple[Any, ...]]] = []
    orig_run = CachingAutotuner.run

    def recording_run(self, *args, **kwargs):
        result = orig_run(self, *args, **kwargs)
        seen.append((self, args))
        return result

    CachingAutotuner.run = recording_run

    def f(x, y):
        return torch.nn.functional.gelu(x) * 2 + 1, torch.var_mean(y, -1), torch.softmax(y, -1)

    x, y = torch.randn(128, 128), torch.randn(8, 3000)
    with torch.no_grad():
        ok, _ = _compare(f(x, y), torch.compile(f, mode="max-autotune")(x, y))
    all_minimal, details = True, []
    for kernel, args in seen:
        costs = [cpu_mode._config_cost(kernel, args, c) for c in kernel.configs]
        # After a launch configs[0] is the config that was launched (callers rely on it).
        all_minimal &= costs[0] == min(costs)
        details.append({"kernel": kernel.fn.__name__, "launched": kernel.configs[0].kwargs, "n_configs": len(costs)})
    _emit(kernels=len(seen), all_minimal=all_minimal, ok=ok, details=details)


def _child_broken() -> None:
    import triton.runtime.interpreter as interp

    from kernelopt.core import cpu_mode

    del interp.ReduceOps.generic_reduce  # simulate a triton version without it
    try:
        cpu_mode.install()
    except Exception as e:
        _emit(error_type=type(e).__name__, patch=getattr(e, "patch", None), message=str(e))
    else:
        _emit(error_type=None, patch=None, message="")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    case, rest = sys.argv[1], sys.argv[2:]
    {
        "api": _child_api,
        "problem": _child_problem,
        "late_install": _child_late_install,
        "reimport_build": _child_reimport_build,
        "reimport_run": _child_reimport_run,
        "libdevice": _child_libdevice,
        "edge": _child_edge,
        "config_choice": _child_config_choice,
        "broken": _child_broken,
    }[case](*rest)
