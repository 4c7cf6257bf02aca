"""The full-reduction template (kernelopt/search/synth/fullreduce.py) on the GPU, at the sizes of
problems/headroom's losses: the template kernel generated from the post-grad graph Inductor wrote
(the references of tests/test_synth_reduce.py), checked against the eager loss, and timed
(CUDA events, median of 50 after 5 warm-up calls, L2 not flushed: 2-4 GiB of inputs do not fit it)
against torch.compile's model of the same loss.  Not gate 4: a microbenchmark of one template.

    python3 bench/fullreduce_gpu.py OUT.json        # on the GPU machine, the repo on PYTHONPATH
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
sys.path.insert(0, str(ROOT / "tests"))


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
    except ImportError:
        sys.modules["conftest"] = types.SimpleNamespace(load_candidate=None)  # type: ignore[assignment]


_stub_test_imports()
from test_synth_reduce import FORWARDS, _loss  # noqa: E402

from kernelopt.search.synth import generate  # noqa: E402

SIZES = {"mse": (16384, 32768), "huber": (16384, 32768), "kl": (8192, 32768), "hinge": (16384, 32768)}


def _time(fn) -> float:
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(50):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def main(out: Path) -> None:
    rows = []
    for kind, (r, c) in SIZES.items():
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

        def arg(name, shape, access):
            stride = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
            return {
                "name": name,
                "kind": "tensor",
                "shape": shape,
                "stride": stride,
                "dtype": "float32",
                "access": access,
            }

        contract = {
            "args": [
                arg("in_ptr0", [r, c], "read"),
                arg("in_ptr1", list(t.shape), "read"),
                arg("out_ptr0", [], "write"),
            ]
        }
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
    out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
