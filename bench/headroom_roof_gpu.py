"""Where Inductor stands on problems/headroom/ (issue 13), measured on the GPU: for each problem at
its full size, eager and torch.compile times (CUDA events, median of repeated calls after warm-up),
the bytes the model must move at least (its inputs read once, its output written once), the copy
roof that makes (PEAK_GBS), and what Inductor generated (Triton kernels, library calls).

    python3 bench/headroom_roof_gpu.py OUT.json [PROBLEM ...]    # on the GPU machine

A problem already in OUT.json is skipped, so a second device call resumes the first.  The roof
here is a lower bound on time from the problem's own inputs and output, not from Inductor's
kernels (an intermediate Inductor writes and reads again counts against it).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kernelopt.core import problems  # noqa: E402

PEAK_GBS = 4300.0
SUITE = Path(__file__).resolve().parents[1] / "problems" / "headroom"


def _time(fn, reps: int = 20) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def measure(path: Path) -> dict:
    from torch._inductor.utils import run_and_get_code

    mod = problems.load(path).module
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs()).cuda().eval()
    inputs = [t.cuda() if isinstance(t, torch.Tensor) else t for t in mod.get_inputs()]
    nbytes = sum(t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor))
    with torch.no_grad():
        out = model(*inputs)
        nbytes += out.numel() * out.element_size()
        eager_ms = _time(lambda: model(*inputs))
        torch._dynamo.reset()
        compiled = torch.compile(model)
        t0 = time.time()
        _, codes = run_and_get_code(compiled, *inputs)
        compile_s = time.time() - t0
        compiled_ms = _time(lambda: compiled(*inputs))
    code = "\n".join(codes)
    kernels = sorted(set(re.findall(r"^def (triton_\w+)\(", code, flags=re.M)))
    extern = sorted(set(re.findall(r"(extern_kernels\.\w+|aten\.\w+(?:\.\w+)?)\(", code)))
    roof_ms = nbytes / (PEAK_GBS * 1e9) * 1e3
    return {
        "problem": f"{path.parent.name}/{path.stem}",
        "bytes_min": nbytes,
        "roof_ms": round(roof_ms, 4),
        "eager_ms": round(eager_ms, 4),
        "compiled_ms": round(compiled_ms, 4),
        "compiled_roof_pct": round(100 * roof_ms / compiled_ms, 1),
        "compile_s": round(compile_s, 1),
        "triton_kernels": kernels,
        "library_calls": extern,
    }


def main(argv: list[str]) -> None:
    out = Path(argv[0])
    rows = json.loads(out.read_text()) if out.exists() else []
    done = {r["problem"] for r in rows}
    order = lambda p: (p.parent.name, int(p.stem.split("_")[0]))  # noqa: E731
    paths = [Path(p) for p in argv[1:]] or sorted(SUITE.rglob("*.py"), key=order)
    for p in paths:
        name = f"{p.parent.name}/{p.stem}"
        if name in done:
            continue
        try:
            row = measure(p)
        except Exception as e:  # a problem that fails is recorded, the rest go on
            row = {"problem": name, "error": f"{type(e).__name__}: {e}"[:500]}
            torch.cuda.empty_cache()
        rows.append(row)
        out.write_text(json.dumps(rows, indent=1))
        keys = ("problem", "compiled_ms", "eager_ms", "compiled_roof_pct", "error")
        print(json.dumps({k: row.get(k) for k in keys}), flush=True)
        torch._dynamo.reset()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:])
