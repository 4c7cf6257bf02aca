"""Runs gate 1 or gate 2 of one candidate in a process of its own.

A wrong kernel can take its process down (an out-of-bounds access segfaults the Triton
interpreter; on the GPU an illegal address poisons the CUDA context).  The parent
(``run_in_child``) turns such a death into a failed gate with rule ``crash`` instead
of a failed pipeline job.  The child holds the GPU lock (shared) itself, from its first CUDA
work on, and reports the seconds it held it to the parent.

usage: python -m kernelopt.gates.child {1|2} UNIT_DIR CANDIDATE.py OUT.json CONFIG_JSON
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..core import gpulock
from .verdict import FAIL, GateVerdict


def run_in_child(gate: int, unit_dir: Path, candidate: Path, cfg: dict[str, Any], timeout: int = 3600) -> GateVerdict:
    """Gate 1 or 2 in a separate process; a candidate that kills it fails with rule ``crash``."""
    with tempfile.TemporaryDirectory() as td:
        out = Path(td) / "verdict.json"
        cmd = [
            sys.executable,
            "-m",
            "kernelopt.gates.child",
            str(gate),
            str(unit_dir),
            str(candidate),
            str(out),
            json.dumps(cfg, default=str),
        ]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return GateVerdict(
                gate,
                FAIL,
                f"rule timeout: checking the candidate took more than {timeout} s",
                rule="timeout",
                candidate=str(candidate),
            )
        if r.stdout or r.stderr:
            print((r.stdout + r.stderr)[-4000:], end="", flush=True)
        if r.returncode == 0 and out.exists():
            d = json.loads(out.read_text())
            gpulock.add_held(d.get("lock_held_s") or {})
            return GateVerdict(**{k: d[k] for k in GateVerdict.__dataclass_fields__ if k in d})
        if r.returncode < 0:
            try:
                how = f"killed by {signal.Signals(-r.returncode).name}"
            except ValueError:
                how = f"killed by signal {-r.returncode}"
        else:
            how = f"exit status {r.returncode}"
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
        return GateVerdict(
            gate,
            FAIL,
            f"rule crash: the candidate crashed the checking process ({how}); last line: {tail[0][:300]}",
            rule="crash",
            candidate=str(candidate),
        )


def main() -> None:
    gate, unit_dir, cand, out, cfg_json = sys.argv[1:6]
    cfg = json.loads(cfg_json)
    from ..core import runtime
    from ..core.paths import ProblemPaths
    from ..isolate.harness import ProblemRuntime, UnitHarness
    from .isolated import gate2
    from .static import gate1

    paths, unit = ProblemPaths.of_unit(unit_dir)
    device = runtime.prepare(cfg["device"], paths.cache)
    gc = cfg["gates"]
    # the GPU is shared from the first CUDA work on (imports above do not hold it)
    with gpulock.shared(device, f"gate{gate} {unit}"):
        h = UnitHarness(paths, unit, ProblemRuntime(paths, device, cfg["seed"]))
        if gate == "1":
            v = gate1(Path(cand), h.contract, h, gc["seeds"][0])
        else:
            v = gate2(Path(cand), h, gc["seeds"], gc["rtol"], gc["atol"])
    Path(out).write_text(json.dumps({**v.to_dict(), "lock_held_s": gpulock.HELD}, default=str))


if __name__ == "__main__":
    main()
