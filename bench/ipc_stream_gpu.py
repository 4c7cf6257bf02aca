"""Does a stream of sandboxed calls hold its GPU memory steady?  (issue 7, gates 1-2 at size)

A stream of CALLS calls, each handing the sandboxed child a fresh N-element float32 input and
output (the way gates 1-2 and gate 3 hand over a call's arguments, through CUDA IPC), the
child's Triton kernel writing out = 2 * x, the judge checking it.  After each call the judge's
``torch.cuda.memory_allocated()`` is recorded, for three ways of handing the tensors over:

  fresh          new tensors per call (gates 1-2 before 2026-11-30's fix)
  fresh+collect  the same with ``torch.cuda.ipc_collect()`` after each call
  staged         ``exchange.Staging``: one buffer per argument, refilled every call (the fix)

usage: python bench/ipc_stream_gpu.py OUT.json [--gib 2] [--calls 8] [--device cuda]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CANDIDATE = """
import triton
import triton.language as tl


@triton.jit
def _double(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(y + i, tl.load(x + i, mask=m) * 2.0, mask=m)


def launch(x, y, n):
    _double[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
"""


def main() -> None:
    import torch

    from kernelopt.core import runtime
    from kernelopt.gates import exchange, sandbox

    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--gib", type=float, default=2.0)
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--device", default="cuda")
    a = ap.parse_args()
    device = runtime.prepare(a.device, None)
    n = int(a.gib * 2**30) // 4
    cand = Path(tempfile.mkdtemp()) / "candidate.py"
    cand.write_text(CANDIDATE)

    class Calls(sandbox.Stream):
        def __init__(self, mode: str):
            self.mode, self.calls, self.rows = mode, a.calls, []
            self.staging = exchange.Staging()

        def send(self, k: int) -> dict:
            x = torch.randn(n, device=device)
            args = [x, torch.full_like(x, float("nan")), n]
            if self.mode == "staged":
                args = [self.staging.put(i, t) for i, t in enumerate(args)]
            return {"args": args, "interleave": False}

        def receive(self, k: int, result: dict, sent: dict) -> bool:
            got = [s if r is None else r for s, r in zip(sent["args"], result["args"])]
            ok = bool(torch.equal(got[1], sent["args"][0] * 2.0))
            if self.mode == "fresh+collect":
                exchange.collect()
            mib = torch.cuda.memory_allocated() / 2**20 if device == "cuda" else None
            self.rows.append({"call": k, "ok": ok, "judge_allocated_mib": mib})
            return True

    report = {"device": device, "gib_per_tensor": a.gib, "calls": a.calls, "modes": {}}
    for mode in ("staged", "fresh+collect", "fresh"):
        calls = Calls(mode)
        job = {
            "kind": "unit",
            "device": device,
            "candidate": str(cand),
            "inductor": None,
            "calls": [],
            "point": "bench",
        }
        t0 = time.perf_counter()
        outcome = sandbox.run(job, 600, stream=calls)
        del calls.staging
        exchange.collect()
        after = torch.cuda.memory_allocated() / 2**20 if device == "cuda" else None
        report["modes"][mode] = {
            "status": outcome.status,
            "detail": outcome.detail,
            "seconds": round(time.perf_counter() - t0, 2),
            "per_call": calls.rows,
            "judge_allocated_mib_after_the_child_ended": after,
        }
        print(mode, json.dumps(report["modes"][mode])[:600], flush=True)
    Path(a.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
