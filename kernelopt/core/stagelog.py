"""Run a stage function with its output in the rule's log file.

Used by the thin scripts/ entry points: stdout and stderr (also of C extensions, via the
file descriptors) go to the log; a user-caused error ends in one sentence, both in the
log and on the console, and exit status 1.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import KerneloptError


@contextlib.contextmanager
def redirected(log: str | Path | None):
    if not log:
        yield
        return
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log, "a", buffering=1) as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = f
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stdout, sys.stderr = old
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _report_gpu_time(log: str | Path | None) -> None:
    """``<log>.gpu.json``: seconds the job held the GPU lock (exclusive: measurements; shared:
    correctness runs and compiles), when it touched the GPU at all."""
    from . import gpulock

    if log and any(gpulock.HELD.values()):
        import json

        held = {k: round(v, 3) for k, v in gpulock.HELD.items()}
        Path(f"{log}.gpu.json").write_text(json.dumps(held) + "\n")
        print(f"[gpu-lock] held exclusively {held['exclusive']} s, shared {held['shared']} s", flush=True)


def run_stage(name: str, log: str | Path | None, fn: Callable[[], Any]) -> Any:
    """Call ``fn`` with output in ``log``; exit 1 with one clear line on a known error."""
    try:
        with redirected(log):
            try:
                try:
                    return fn()
                finally:
                    _report_gpu_time(log)
            except KerneloptError as e:
                print(f"kernelopt {name}: {e}", flush=True)
                raise
            except Exception:
                traceback.print_exc()
                raise
    except KerneloptError as e:
        first = str(e).splitlines()[0]
        print(f"kernelopt {name}: {first} (full log: {log})", file=sys.stderr, flush=True)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001
        print(
            f"kernelopt {name}: internal error {type(e).__name__}: {e} (traceback in {log})",
            file=sys.stderr,
            flush=True,
        )
        sys.exit(1)
