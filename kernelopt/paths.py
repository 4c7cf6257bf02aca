"""The artifact layout of DESIGN.md §3, defined once.

Every stage builds its paths through these helpers; nothing else joins path strings
for artifacts.  ``ProblemPaths`` covers ``<workdir>/<problem>/``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProblemPaths:
    workdir: Path
    problem: str

    @classmethod
    def of(cls, problem_dir: str | Path) -> "ProblemPaths":
        """From ``<workdir>/<problem>`` (how rule scripts locate themselves from their outputs)."""
        problem_dir = Path(problem_dir)
        return cls(problem_dir.parent, problem_dir.name)

    @property
    def root(self) -> Path:
        return Path(self.workdir) / self.problem

    # --- capture -------------------------------------------------------------
    @property
    def capture(self) -> Path:
        return self.root / "capture"

    @property
    def output_code(self) -> Path:
        return self.capture / "output_code.py"

    def graph_output_code(self, graph: int) -> Path:
        """Wrapper module of graph ``graph`` (graph 0 is ``output_code.py``)."""
        return self.output_code if graph == 0 else self.capture / f"output_code_g{graph}.py"

    @property
    def kernels_dir(self) -> Path:
        return self.capture / "kernels"

    @property
    def baseline(self) -> Path:
        return self.capture / "baseline.json"

    @property
    def capture_record(self) -> Path:
        """Machine-readable record of the compile (graphs, call args, launches)."""
        return self.capture / "capture.json"

    @property
    def constants(self) -> Path:
        return self.capture / "constants.pt"

    @property
    def profile(self) -> Path:
        return self.capture / "profile.json"

    @property
    def cache(self) -> Path:
        """Inductor + Triton caches of this problem only (never shared between problems)."""
        return self.capture / "cache"

    # --- classify ------------------------------------------------------------
    @property
    def dispatch(self) -> Path:
        return self.root / "dispatch.json"

    # --- units ---------------------------------------------------------------
    def unit(self, unit: str) -> Path:
        return self.root / "units" / unit

    def contract(self, unit: str) -> Path:
        return self.unit(unit) / "contract.json"

    def reference(self, unit: str) -> Path:
        return self.unit(unit) / "reference.py"

    def inductor_kernel(self, unit: str) -> Path:
        return self.unit(unit) / "inductor.py"

    def isolate_check(self, unit: str) -> Path:
        return self.unit(unit) / "isolate_check.json"

    def candidate_dir(self, unit: str, slot: int) -> Path:
        return self.unit(unit) / "cands" / f"c{slot}"

    def best(self, unit: str) -> Path:
        return self.unit(unit) / "best.json"

    # --- stitch ----------------------------------------------------------------
    def attempt_dir(self, attempt: int) -> Path:
        """Attempt 0 is ``stitch/``; directed retries are ``stitch/retries/r<k>/``."""
        return self.root / "stitch" if attempt == 0 else self.root / "stitch" / "retries" / f"r{attempt}"

    # --- end of pipeline -----------------------------------------------------
    @property
    def isolated(self) -> Path:
        """Marker of the isolate stage for the whole problem (all units)."""
        return self.root / "isolate.json"

    @property
    def result(self) -> Path:
        return self.root / "result.json"


def logs_dir(workdir: Path) -> Path:
    return Path(workdir) / "logs"


def report_dir(workdir: Path) -> Path:
    return Path(workdir) / "report"
