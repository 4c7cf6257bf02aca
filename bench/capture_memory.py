"""What each capture of a run used (issue 12, "The capture's footprint"): the ``memory`` record of
every ``capture.json`` under a run directory (inputs, parameters, outputs, the job's peak and the
peak after each phase), with the peak as a multiple of the problem's own tensors.

    python bench/capture_memory.py WORKDIR OUT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    wd, out = Path(sys.argv[1]), Path(sys.argv[2])
    rows = {}
    for f in sorted(wd.glob("*/capture/capture.json")):
        mem = (json.loads(f.read_text()) or {}).get("memory") or {}
        own = sum(float(mem.get(k) or 0) for k in ("inputs_mb", "params_mb", "outputs_mb"))
        peak = mem.get("job_peak_mb")
        rows[f.parent.parent.name] = {**mem, "peak_per_problem_mb": round(peak / own, 2) if peak and own else None}
    out.write_text(json.dumps(rows, indent=1) + "\n")
    for name, r in rows.items():
        print(f"{name:40s} peak {r.get('job_peak_mb')} MiB ({r.get('peak_per_problem_mb')}x its tensors)")


if __name__ == "__main__":
    main()
