"""Where a job's time goes: ``with timed("what"):`` prints ``[time] what: 1.23 s`` to the job's
log and adds the seconds to ``SPENT`` (written into ``<log>.gpu.json`` as ``phases``, summed
per name), so that the bench can say which part of a GPU job is start-up, drawing inputs,
the sandboxed child, or judging."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

SPENT: dict[str, float] = {}


@contextlib.contextmanager
def timed(what: str, *, quiet: bool = False) -> Iterator[None]:
    t = time.perf_counter()
    try:
        yield
    finally:
        add(what, time.perf_counter() - t, quiet=quiet)


def add(what: str, seconds: float, *, quiet: bool = False) -> None:
    SPENT[what] = SPENT.get(what, 0.0) + seconds
    if not quiet:
        print(f"[time] {what}: {seconds:.2f} s", flush=True)


def record() -> dict[str, float]:
    return {k: round(v, 3) for k, v in SPENT.items()}
