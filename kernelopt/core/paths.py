"""The artifact layout (docs/architecture.md, "Artifacts"), defined once.

Every stage and every rule script builds its paths through these helpers; nothing else joins
path strings for artifacts.  ``ProblemPaths`` covers ``<workdir>/<problem>/``; the functions
below it name the stitch attempts (``stitch/``, ``stitch/retries/r<k>/``) both ways.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProblemPaths:
    workdir: Path
    problem: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "workdir", Path(self.workdir))

    @classmethod
    def of(cls, problem_dir: str | Path) -> ProblemPaths:
        """From a problem's directory ``<workdir>/<problem>`` (the command-line tools take it)."""
        problem_dir = Path(problem_dir)
        return cls(problem_dir.parent, problem_dir.name)

    @classmethod
    def of_unit(cls, unit_dir: str | Path) -> tuple[ProblemPaths, str]:
        """From a unit's directory ``<workdir>/<problem>/units/<unit>``: (paths, unit)."""
        unit_dir = Path(unit_dir)
        if unit_dir.parent.name != "units":
            raise ValueError(f"{unit_dir} is not a unit directory (<workdir>/<problem>/units/<unit>)")
        return cls.of(unit_dir.parent.parent), unit_dir.name

    @property
    def root(self) -> Path:
        return self.workdir / self.problem

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

    def fx_graph(self, graph: int) -> Path:
        return self.capture / ("fx_graph_post_grad.py" if graph == 0 else f"fx_graph_post_grad_g{graph}.py")

    def graph_constants(self, graph: int) -> Path:
        return self.capture / f"constants_g{graph}.pt"

    @property
    def saved_call_args(self) -> Path:
        """Arguments of the wrapper's ``call`` that are neither inputs nor parameters."""
        return self.capture / "call_args_saved.pt"

    @property
    def helion_dir(self) -> Path:
        """Triton code Helion generated for the problem's Helion kernels (core/helion_input.py)."""
        return self.capture / "helion"

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

    def slot_dir(self, unit: str, slot: str) -> Path:
        """A candidate slot by its path under the unit (``cands/c1``, ``iter2/cand0/r1``, ``synth/a0``)."""
        return self.unit(unit) / slot

    def synth_dir(self, unit: str, attempt: int) -> Path:
        return self.unit(unit) / "synth" / f"a{attempt}"

    def iter_dir(self, unit: str, iteration: int) -> Path:
        return self.unit(unit) / f"iter{iteration}"

    def best(self, unit: str) -> Path:
        return self.unit(unit) / "best.json"

    # --- stitch ----------------------------------------------------------------
    def attempt_dir(self, attempt: int) -> Path:
        """Attempt 0 is ``stitch/``; directed retries are ``stitch/retries/r<k>/``."""
        return self.root / attempt_stage(attempt)

    # --- end of pipeline -----------------------------------------------------
    @property
    def isolated(self) -> Path:
        """Marker of the isolate stage for the whole problem (all units)."""
        return self.root / "isolate.json"

    @property
    def result(self) -> Path:
        return self.root / "result.json"


def attempt_stage(attempt: int) -> str:
    """The stitch attempt's directory under the problem: ``stitch`` or ``stitch/retries/r<k>``."""
    return "stitch" if int(attempt) == 0 else f"stitch/retries/r{int(attempt)}"


def attempt_of(stage: str) -> int:
    """The inverse of ``attempt_stage``: ``stitch`` -> 0, ``stitch/retries/r2`` -> 2."""
    if stage == "stitch":
        return 0
    head, _, k = stage.rpartition("/r")
    if head != "stitch/retries" or not k.isdigit():
        raise ValueError(f"{stage!r} is not a stitch attempt (stitch or stitch/retries/r<k>)")
    return int(k)


def logs_dir(workdir: str | Path) -> Path:
    return Path(workdir) / "logs"


def benchmarks_dir(workdir: str | Path) -> Path:
    """Snakemake's per-job benchmark TSVs (wall seconds of every GPU rule)."""
    return Path(workdir) / "benchmarks"


def report_dir(workdir: str | Path) -> Path:
    return Path(workdir) / "report"
