"""The one loader of candidate code: every gate, every timing, the profiler and the deployed
stitched model load a candidate through ``load_candidate``, so nothing in the candidate can tell
where it runs.  The module gets the same name (``kernelopt_candidate``), the same ``__file__``
(a name derived from its source's digest, not the path it was read from), and the same fresh
globals everywhere; it is not entered in ``sys.modules``.  Its source is registered with
``linecache`` under that name, which is where Triton's ``@jit`` reads kernel source from.

The stitched wrapper module carries a copy of this function, generated from its source
(``stitch/splice.py``), so that ``stitch/output_code.py`` runs without kernelopt installed.
"""

from __future__ import annotations

from pathlib import Path

CANDIDATE_MODULE = "kernelopt_candidate"
CANDIDATE_PREFIX = "kernelopt-candidate/"  # every candidate's __file__ (and code objects' co_filename) starts so


def load_candidate(path):
    """Import the candidate file ``path`` as a fresh module named ``kernelopt_candidate``."""
    import hashlib
    import linecache
    import types

    with open(path, encoding="utf-8") as f:
        source = f.read()
    filename = "kernelopt-candidate/" + hashlib.sha256(source.encode()).hexdigest()[:16] + ".py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType("kernelopt_candidate")
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def is_candidate_code(filename: str) -> bool:
    """Whether a code object's ``co_filename`` is a candidate's (see ``load_candidate``)."""
    return filename.startswith(CANDIDATE_PREFIX)


def candidate_file_of(path: str | Path) -> str:
    """The ``__file__`` a candidate at ``path`` gets: the same wherever it is loaded from."""
    import hashlib

    return CANDIDATE_PREFIX + hashlib.sha256(Path(path).read_text(encoding="utf-8").encode()).hexdigest()[:16] + ".py"
