"""Block order for a broadcast operand on the H200 (issue 8 item 5, run 14's LayerNorm): the
normalize kernel of a LayerNorm over the trailing 64 x 256 x 256 of 16 x 64 x 256 x 256 fp32 (the
fixture tests/fixtures/swizzle/layernorm_poi.py at run 14's size: 256 MiB of x and of output,
16 MiB each of weight and bias read at ``xindex % 4194304``), launched in Inductor's block order
and re-ordered by ``transform.set_swizzle`` (16 rows, and 8 / 32 to show the dependence), at
XBLOCK 1024 and 2048; each checked against torch and timed with triton.testing.do_bench (median,
L2 flushed).  GB/s counts the bytes a kernel must move (x, output, weight and bias once).

    python3 bench/swizzle_gpu.py OUT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from programs_gpu import load  # noqa: E402  (a candidate's source as a module)

from kernelopt.search import transform  # noqa: E402


def main(out: str) -> None:
    import torch
    import triton

    rows_n, k = 16, 64 * 256 * 256
    n = rows_n * k
    base = (ROOT / "tests/fixtures/swizzle/layernorm_poi.py").read_text()
    base = base.replace("set_driver_to_cpu()", "set_driver_to_gpu()").replace("xnumel = 8192", f"xnumel = {n}")
    base = base.replace("% 2048", f"% {k}").replace("// 2048", f"// {k}")
    x = torch.randn(rows_n, k, device="cuda")
    mean, rstd = x.mean(1, keepdim=True), torch.rsqrt(x.var(1, unbiased=False, keepdim=True) + 1e-5)
    w, b = torch.randn(k, device="cuda"), torch.randn(k, device="cuda")
    ref = (x - mean) * rstd * w + b
    need = (2 * n + 2 * k) * 4
    results = []
    for xblock in (1024, 2048):
        src0 = transform.set_launch(base, config={"XBLOCK": xblock})
        variants = [("inductor order", src0)] + [
            (f"swizzle {r} rows", transform.set_swizzle(src0, r)) for r in (16, 8, 32)
        ]
        for i, (label, src) in enumerate(variants):
            mod = load(src, f"ln_poi_{xblock}_{i}")
            y = torch.empty_like(x)
            try:
                mod.launch(x, mean, rstd, w, b, y, n)
                torch.cuda.synchronize()
                err = float((y - ref).abs().max())
                ms = triton.testing.do_bench(
                    lambda m=mod, o=y: m.launch(x, mean, rstd, w, b, o, n), warmup=25, rep=200, return_mode="median"
                )
                row = {
                    "xblock": xblock,
                    "variant": label,
                    "rows": transform.swizzle_of(src),
                    "max_abs_err": err,
                    "correct": err < 1e-4,
                    "median_ms": ms,
                    "gbs_needed_bytes": need / (ms * 1e-3) / 1e9,
                }
            except Exception as e:  # noqa: BLE001 - recorded: a variant that does not compile is a result
                row = {"xblock": xblock, "variant": label, "error": f"{type(e).__name__}: {e}"[:500]}
            print(json.dumps(row), flush=True)
            results.append(row)
            del y
    Path(out).write_text(
        json.dumps({"device": torch.cuda.get_device_name(0), "numel": n, "period": k, "rows": results}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main(sys.argv[1])
