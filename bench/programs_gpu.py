"""Programs per SM on the H200 (issue 8 item 5): Inductor's pointwise ReLU kernel (the fixture
tests/fixtures/programs/relu_poi.py, as isolate writes it) at KernelBench's ReLU size
(4096 x 393216 fp32, 6.4 GB in and out), launched as Inductor wrote it and made persistent by
``transform.set_programs`` at 4, 8 and 16 programs per SM; each checked against torch.relu and
timed with triton.testing.do_bench (median, L2 flushed by do_bench's cache clearing).

    python3 bench/programs_gpu.py OUT.json
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernelopt.search import transform  # noqa: E402


def load(src: str, name: str):
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(out: str) -> None:
    import torch
    import triton

    n = 4096 * 393216
    base = (ROOT / "tests/fixtures/programs/relu_poi.py").read_text()
    base = base.replace("set_driver_to_cpu()", "set_driver_to_gpu()").replace("xnumel = 4096", f"xnumel = {n}")
    base = base.replace(
        "tl.program_id(0) * XBLOCK", "tl.program_id(0).to(tl.int64) * XBLOCK"
    )  # as Inductor at this size
    base = transform.set_launch(base, config={"XBLOCK": 1024})
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = torch.randn(n, device="cuda")
    ref = torch.relu(x)
    rows = []
    variants = [("inductor (XBLOCK 1024, 4 warps)", base)] + [
        (f"persistent, {k} programs per SM", transform.set_programs(base, sms * k)) for k in (4, 8, 16)
    ]
    for i, (label, src) in enumerate(variants):
        mod = load(src, f"relu_variant_{i}")
        y = torch.empty_like(x)
        try:
            mod.launch(x, y, n)
            torch.cuda.synchronize()
            ok = bool(torch.equal(y, ref))
            ms = triton.testing.do_bench(lambda m=mod, o=y: m.launch(x, o, n), warmup=25, rep=200, return_mode="median")
            row = {
                "variant": label,
                "programs": transform.programs_of(src),
                "correct": ok,
                "median_ms": ms,
                "gbs": 2 * 4 * n / (ms * 1e-3) / 1e9,
            }
        except Exception as e:  # noqa: BLE001 - recorded: a variant that does not compile is a result
            row = {"variant": label, "programs": transform.programs_of(src), "error": f"{type(e).__name__}: {e}"[:500]}
        print(json.dumps(row), flush=True)
        rows.append(row)
        del y
    Path(out).write_text(
        json.dumps({"device": torch.cuda.get_device_name(0), "sms": sms, "numel": n, "rows": rows}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main(sys.argv[1])
