"""The files stages hand each other, defined once: their names and paths, the enums their
verdicts, categories and dispatch kinds take, and typed records for the ones that carry a
decision (a gate's verdict, a search beam, a unit's ranking, a stitch plan, a problem's result)
and for a unit's launch contract, which every stage after isolate reads.

Nothing else in the package, the scripts or the rules names an artifact file: a stage asks
``ProblemPaths`` (``paths.slot(unit, "iter2/cand1").gate(2)``) and reads a record through its
class (``GateVerdict.load(...)``); ``tests/test_architecture.py`` keeps it so.  The rules build
their patterns from the same table, with wildcards for names (``ProblemPaths(WORKDIR,
"{problem}").contract("{unit}")``).

Records carry ``schema``: a file written by an older kernelopt that lacks what this one reads
gives a ``RecordError`` naming the file and the fix (a new workdir), not a ``KeyError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import MISSING, asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from .jsonio import write_json

SCHEMA = 1
_R = TypeVar("_R")


class Verdict(StrEnum):
    """What a gate said (``gates/verdict.py`` explains each)."""

    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"
    SKIPPED_BY_MODE = "skipped-by-mode"
    ERROR = "error"  # rule ``infrastructure``: the machine's or the pipeline's fault
    NOT_CHECKABLE = "not-checkable"  # rule ``unit-not-checkable``: no reference to judge against


class Rule(StrEnum):
    """Rules that are not about the candidate (``gates/faults.py``)."""

    INFRASTRUCTURE = "infrastructure"
    UNIT_NOT_CHECKABLE = "unit-not-checkable"


class Category(StrEnum):
    """A problem's result (``report/stage.py``)."""

    OPTIMIZED = "optimized"
    MATCHED_OPTIMIZED = "matched (optimized)"
    MATCHED_SYNTHESIS_FAILED = "matched (synthesis failed)"
    # nothing beyond Inductor's kernel passed gates 1-2 and synthesis never ran (off, or skipped
    # at the roof): the reason says what was tried instead, if anything
    MATCHED_NOT_SYNTHESIZED = "matched (not synthesized)"
    FALLBACK = "fallback"
    UNIT_NOT_CHECKABLE = "unit-not-checkable"
    ERROR = "error"


class DispatchKind(StrEnum):
    """What a launch of the compiled model is (docs/architecture.md, "Classify")."""

    TRITON = "triton"
    CUBLAS = "cublas"
    BLAS = "blas"  # a GEMM on CPU
    CUDNN = "cudnn"
    ATEN = "aten"
    OTHER = "other"


class DispatchVerdict(StrEnum):
    """What classify says of a problem (``classify/stage.py``, docs/architecture.md, "Classify")."""

    OPTIMIZABLE = "optimizable"
    NO_TRITON = "no-triton"
    LIBRARY_DOMINATED = "library-dominated"
    ERROR = "error"  # capture failed, or its profile lost a Triton kernel's time


class PlanStatus(StrEnum):
    """What a stitch attempt did (``stitch/stage.py``)."""

    STITCHED = "stitched"
    PASSED_THROUGH = "passed-through"  # a retry after an attempt that needs none
    NO_CANDIDATES = "no-candidates"


class RecordError(ValueError):
    """A record on disk that this kernelopt cannot read (older or newer, or damaged)."""


# --- file names: the only place they are spelled ------------------------------------------
_CANDIDATE = "candidate.py"
_SLOT = "slot.json"
_TIMING = "timing.json"
_PLAN = "plan.json"
_OUTPUT_CODE = "output_code.py"
_PROFILE_SUMMARY = "summary.json"
_DISPATCH = "dispatch.json"
_RESULT = "result.json"
_CONTRACT = "contract.json"
# the names a candidate and an NCU report have in a sandboxed child's scratch directory too
CANDIDATE_FILE = _CANDIDATE
NCU_REPORT_FILE = "report.ncu-rep"
INDUCTOR_FILE = "inductor.py"  # Inductor's kernel, standalone


class Scratch:
    """Names of the files a judge binds into a sandboxed child's scratch directory."""

    CANDIDATE = CANDIDATE_FILE
    INDUCTOR = INDUCTOR_FILE
    NCU_REPORT = NCU_REPORT_FILE
    BASELINE = "baseline.py"  # the captured wrapper (gates 3-4)
    STITCHED = f"stitched/{_OUTPUT_CODE}"  # the stitched wrapper, its candidates beside it
    STITCHED_CANDIDATES = "stitched/candidates"
    CONSTANTS = "constants.pt"  # the lifted constants of graph 0


REFERENCE_FILE = "reference.py"  # a unit's eager reference module
REFERENCE_CONSTANTS_FILE = "reference_constants.pt"  # what a reference module opens beside itself


def _gate(n: int) -> str:
    return f"gate{int(n)}.json"


@dataclass(frozen=True)
class SlotPaths:
    """A candidate slot: ``cands/c<k>``, ``synth/a<k>``, ``iter<i>/cand<j>[/r<r>]``."""

    dir: Path

    @property
    def candidate(self) -> Path:
        return self.dir / _CANDIDATE

    @property
    def slot(self) -> Path:
        """What the slot holds and where it came from (``empty``, ``direction``, ``signature``)."""
        return self.dir / _SLOT

    def gate(self, n: int) -> Path:
        return self.dir / _gate(n)

    @property
    def timing(self) -> Path:
        """The select stage's comparison with Inductor's kernel."""
        return self.dir / _TIMING

    @property
    def files(self) -> list[Path]:
        """What a reader of the slot opens, in order."""
        return [self.candidate, self.slot, self.gate(1), self.gate(2), self.timing]


@dataclass(frozen=True)
class ProfilePaths:
    """A beam member's profile in an iteration: ``iter<i>/profile/m<j>``."""

    dir: Path

    @property
    def summary(self) -> Path:
        return self.dir / _PROFILE_SUMMARY

    @property
    def summary_text(self) -> Path:
        return self.dir / "summary.txt"

    @property
    def ncu_report(self) -> Path:
        return self.dir / NCU_REPORT_FILE

    @property
    def files(self) -> list[Path]:
        return [self.summary, self.summary_text, self.ncu_report]


@dataclass(frozen=True)
class IterPaths:
    """A search iteration: ``units/<unit>/iter<i>``."""

    dir: Path

    @property
    def beam(self) -> Path:
        return self.dir / "beam.json"

    @property
    def memory(self) -> Path:
        return self.dir / "memory.json"

    @property
    def plan(self) -> Path:
        return self.dir / _PLAN

    @property
    def analysis(self) -> Path:
        return self.dir / "analysis.json"

    @property
    def summary(self) -> Path:
        """The summarizer's text (what was tried, what entered the beam)."""
        return self.dir / "summary.md"

    @property
    def files(self) -> list[Path]:
        return [self.beam, self.plan, self.analysis, self.memory, self.summary]

    def cand(self, j: int | str) -> SlotPaths:
        """Slot ``cand<j>`` (j an index) or a slot by its path (``retry_slot(j, r)``: ``"cand1/r2"``)."""
        return SlotPaths(self.dir / (retry_slot(j, 0) if isinstance(j, int) else j))

    def retry_reads(self, j: int, r: int) -> tuple[SlotPaths, SlotPaths]:
        """What directed retry ``r`` of candidate ``j`` reads: the attempt before it (the
        candidate itself for r1), whose failure it fixes, and the candidate's own slot (the beam
        member its direction was applied to).  The rule ``retry`` declares them as its inputs."""
        return self.cand(retry_slot(j, int(r) - 1)), self.cand(retry_slot(j, 0))

    def profile(self, j: int | str) -> ProfilePaths:
        """Member j's profile (``j`` may be a wildcard, ``"{j}"``, in the rules' patterns)."""
        return ProfilePaths(self.dir / "profile" / f"m{j}")

    def profile_summaries(self) -> list[Path]:
        """Every member's profile summary of this iteration, by member index."""
        return sorted((self.dir / "profile").glob(f"m*/{_PROFILE_SUMMARY}"))


@dataclass(frozen=True)
class AttemptPaths:
    """A stitch attempt: ``stitch/`` or ``stitch/retries/r<k>/``."""

    dir: Path

    @property
    def plan(self) -> Path:
        return self.dir / _PLAN

    @property
    def output_code(self) -> Path:
        """The stitched model exactly as gates 3 and 4 ran it."""
        return self.dir / _OUTPUT_CODE

    def gate(self, n: int) -> Path:
        return self.dir / _gate(n)

    @property
    def files(self) -> list[Path]:
        return [self.output_code, self.plan, self.gate(3), self.gate(4)]


@dataclass(frozen=True)
class ProblemPaths:
    """``<workdir>/<problem>/`` and everything under it (docs/architecture.md, "Artifacts")."""

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
        return self.capture / _OUTPUT_CODE

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

    def kernel_source(self, stem: str) -> Path:
        """A Triton kernel's source as Inductor wrote it: ``kernels/<stem>.py``."""
        return self.kernels_dir / f"{stem}.py"

    def kernel_reference(self, stem: str) -> Path:
        """A kernel's (or a region's) eager reference as capture cut it: ``kernels/<stem>.reference.py``."""
        return self.kernels_dir / f"{stem}.{REFERENCE_FILE}"

    def kernel_reference_constants(self, stem: str) -> Path:
        return self.kernels_dir / f"{stem}.{REFERENCE_CONSTANTS_FILE}"

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
        return self.root / _DISPATCH

    # --- units ---------------------------------------------------------------
    def unit(self, unit: str) -> Path:
        return self.root / "units" / unit

    def contract(self, unit: str) -> Path:
        """The unit's launch contract (``Contract``)."""
        return self.unit(unit) / _CONTRACT

    def reference(self, unit: str) -> Path:
        return unit_reference(self.unit(unit))

    def reference_constants(self, unit: str) -> Path:
        return unit_reference_constants(self.unit(unit))

    def inductor_kernel(self, unit: str) -> Path:
        return self.unit(unit) / INDUCTOR_FILE

    def isolate_check(self, unit: str) -> Path:
        return self.unit(unit) / "isolate_check.json"

    def candidate_dir(self, unit: str, slot: int) -> Path:
        return self.unit(unit) / "cands" / f"c{slot}"

    def slot_dir(self, unit: str, slot: str) -> Path:
        """A candidate slot by its path under the unit (``cands/c1``, ``iter2/cand0/r1``, ``synth/a0``)."""
        return self.unit(unit) / slot

    def slot(self, unit: str, slot: str) -> SlotPaths:
        return SlotPaths(self.slot_dir(unit, slot))

    def cand(self, unit: str, k: int) -> SlotPaths:
        """``cands/c<k>``: c0 is Inductor's kernel, the rest the user's candidates."""
        return SlotPaths(self.candidate_dir(unit, k))

    def synth_dir(self, unit: str, attempt: int) -> Path:
        return self.unit(unit) / "synth" / f"a{attempt}"

    def synth(self, unit: str, attempt: int) -> SlotPaths:
        return SlotPaths(self.synth_dir(unit, attempt))

    def synth_slots(self, unit: str) -> list[SlotPaths]:
        """The synthesis attempts that wrote a slot, in path order."""
        return [SlotPaths(p.parent) for p in sorted((self.unit(unit) / "synth").glob(f"a*/{_SLOT}"))]

    def iter_dir(self, unit: str, iteration: int) -> Path:
        return self.unit(unit) / f"iter{iteration}"

    def iteration(self, unit: str, iteration: int) -> IterPaths:
        return IterPaths(self.iter_dir(unit, iteration))

    def profile_summaries(self, unit: str) -> list[Path]:
        """Every profile summary of the unit's search (``iter<i>/profile/m<j>/summary.json``)."""
        return list(self.unit(unit).glob(f"iter*/profile/m*/{_PROFILE_SUMMARY}"))

    def slot_verdicts(self, unit: str) -> list[Path]:
        """Every gate-1/2 verdict of the unit's slots, in path order."""
        return sorted(self.unit(unit).rglob("gate[12].json"))

    def gate2_verdicts(self) -> list[Path]:
        """Every gate-2 verdict of every unit of the problem."""
        return sorted(self.root.glob(f"units/*/**/{_gate(2)}"))

    def beams(self, unit: str) -> list[Path]:
        """Every iteration's beam of the unit's search, in path order."""
        return sorted(self.unit(unit).glob("iter*/beam.json"))

    def search_timings(self, unit: str) -> list[Path]:
        """Every search candidate's timing against Inductor's kernel, in path order."""
        return sorted(self.unit(unit).glob(f"iter*/cand*/**/{_TIMING}"))

    def attempt_verdicts(self) -> list[Path]:
        """Every gate-3/4 verdict of the stitch attempts, in path order."""
        return sorted(self.root.glob(f"{attempt_stage(0)}/**/gate[34].json"))

    def member_candidate(self, unit: str, member_path: str) -> Path:
        """A beam member's source (its ``path`` is relative to the unit)."""
        return self.unit(unit) / member_path

    def best(self, unit: str) -> Path:
        return self.unit(unit) / "best.json"

    # --- stitch ----------------------------------------------------------------
    def attempt_dir(self, attempt: int) -> Path:
        """Attempt 0 is ``stitch/``; directed retries are ``stitch/retries/r<k>/``."""
        return self.root / attempt_stage(attempt)

    def attempt(self, attempt: int) -> AttemptPaths:
        return AttemptPaths(self.attempt_dir(attempt))

    def previous_attempt(self, attempt: int) -> AttemptPaths | None:
        """The stitch attempt whose verdicts attempt ``attempt`` reads (None for attempt 0): the
        rules declare its plan and gates 3-4 as inputs, the stitch stage reads them."""
        return self.attempt(attempt - 1) if attempt > 0 else None

    def attempt_at(self, stage: str) -> AttemptPaths:
        """An attempt by its directory under the problem (``attempt_stage``; ``"{stage}"`` in a pattern)."""
        return AttemptPaths(self.root / stage)

    # --- end of pipeline -----------------------------------------------------
    @property
    def isolated(self) -> Path:
        """Marker of the isolate stage for the whole problem (all units)."""
        return self.root / "isolate.json"

    @property
    def result(self) -> Path:
        return self.root / _RESULT


def member_path(slot_rel: str) -> str:
    """A beam member's ``path`` (relative to the unit) for the candidate of slot ``slot_rel``."""
    return f"{slot_rel}/{_CANDIDATE}"


def slot_of_member(path: str) -> str:
    """The inverse of ``member_path``: the slot (relative to the unit) of a member's path."""
    return path.rsplit(f"/{_CANDIDATE}", 1)[0]


def unit_reference(unit_dir: str | Path) -> Path:
    """The unit's eager reference module (``isolate/reference.py`` writes it)."""
    return Path(unit_dir) / REFERENCE_FILE


def unit_reference_constants(unit_dir: str | Path) -> Path:
    """Tensors the reference module loads at import (lifted constants), next to it."""
    return Path(unit_dir) / REFERENCE_CONSTANTS_FILE


def retry_slot(j: int | str, r: int | str) -> str:
    """Search candidate j's slot in an iteration (r = 0) or its directed retry r: ``cand<j>``,
    ``cand<j>/r<r>`` (j and r may be wildcards in the rules' patterns)."""
    return f"cand{j}" if str(r) == "0" else f"cand{j}/r{r}"


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


# --- the run directory ---------------------------------------------------------------------
def logs_dir(workdir: str | Path) -> Path:
    return Path(workdir) / "logs"


def unit_job_log(workdir: str | Path, rule: str, problem: str, unit: str) -> Path:
    """``logs/<rule>/<problem>/<unit>.log``: the log of a per-unit job (isolate's; wildcards as
    ``{problem}``/``{unit}`` make the rule's pattern)."""
    return logs_dir(workdir) / rule / problem / f"{unit}.log"


def snakemake_log(workdir: str | Path) -> Path:
    """Snakemake's own output of the last ``kernelopt run`` (its per-job lines; ``-v`` shows them)."""
    return logs_dir(workdir) / "snakemake.log"


def benchmarks_dir(workdir: str | Path) -> Path:
    """Snakemake's per-job benchmark TSVs (wall seconds of every GPU rule)."""
    return Path(workdir) / "benchmarks"


def problem_set(workdir: str | Path) -> Path:
    """The problems a run selected (id -> file), written when the DAG is built."""
    return Path(workdir) / "problem_set.json"


def problems_with_dispatch(workdir: str | Path) -> list[str]:
    """The problems of a run directory that were classified, by name."""
    return sorted(p.parent.name for p in Path(workdir).glob(f"*/{_DISPATCH}"))


def problems_with_result(workdir: str | Path) -> list[str]:
    """The problems of a run directory that have a result, by name."""
    return sorted(p.parent.name for p in Path(workdir).glob(f"*/{_RESULT}"))


def report_dir(workdir: str | Path) -> Path:
    return Path(workdir) / "report"


@dataclass(frozen=True)
class ReportPaths:
    """``<workdir>/report/``: the tables and the HTML report."""

    dir: Path

    @classmethod
    def of(cls, workdir: str | Path) -> ReportPaths:
        return cls(report_dir(workdir))

    @property
    def results_csv(self) -> Path:
        return self.dir / "results.csv"

    @property
    def summary(self) -> Path:
        return self.dir / "summary.json"

    @property
    def stages_json(self) -> Path:
        return self.dir / "stages.json"

    @property
    def stages_csv(self) -> Path:
        return self.dir / "stages.csv"

    @property
    def index(self) -> Path:
        return self.dir / "index.html"

    def problem_page(self, problem: str) -> Path:
        return self.dir / "problems" / f"{problem}.html"


def llm_settings(state_dir: str | Path) -> Path:
    """The LLM backend's operational settings of a run (``llm/settings.json``)."""
    return Path(state_dir) / "settings.json"


def llm_ledger(state_dir: str | Path) -> Path:
    """One line per paid call (``llm/ledger.jsonl``)."""
    return Path(state_dir) / "ledger.jsonl"


# --- typed records -------------------------------------------------------------------------
def _read(path: Path, kind: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as e:
        raise RecordError(f"{path}: not a readable {kind} record ({e})") from e
    if not isinstance(data, dict):
        raise RecordError(f"{path}: not a {kind} record (a JSON object was expected)")
    schema = data.get("schema", SCHEMA)
    if not isinstance(schema, int) or schema > SCHEMA:
        raise RecordError(
            f"{path}: {kind} record of schema {schema!r}, newer than this kernelopt reads ({SCHEMA}); "
            "upgrade kernelopt or use the kernelopt that wrote the run"
        )
    return data


def _missing(path: Path, kind: str, data: dict[str, Any], required: tuple[str, ...]) -> None:
    lost = [k for k in required if k not in data]
    if lost:
        raise RecordError(
            f"{path}: {kind} record without {', '.join(lost)} (schema {data.get('schema', 'none')}, "
            f"this kernelopt reads {SCHEMA}): it was written by another kernelopt; "
            "run in a new workdir (or delete the problem's directory to redo it)"
        )


def _split(cls: Any, data: dict[str, Any], in_file: dict[str, str] | None = None) -> dict[str, Any]:
    """A record's constructor arguments from a file's (or a stage's) dict: its keys that are fields
    of ``cls`` (``in_file`` maps a field to another key in the file), every other key but the
    schema in ``extra``."""
    in_file = in_file or {}
    by_key = {in_file.get(f.name, f.name): f.name for f in fields(cls) if f.name != "extra"}
    known = {by_key[k]: v for k, v in data.items() if k in by_key}
    return {**known, "extra": {k: v for k, v in data.items() if k not in by_key and k != "schema"}}


class _Record:
    """What the typed records below share: ``save`` writes ``as_dict`` (by default the fields
    that are set) with the schema; ``_known`` reads a file's keys that are fields, its schema
    checked and its required keys present."""

    KIND: ClassVar[str]

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}  # type: ignore[call-overload]

    def save(self, path: str | Path) -> dict[str, Any]:
        out = {**self.as_dict(), "schema": SCHEMA}
        write_json(path, out)
        return out

    @classmethod
    def _known(cls, path: str | Path, required: tuple[str, ...]) -> dict[str, Any]:
        data = _read(Path(path), cls.KIND)
        _missing(Path(path), cls.KIND, data, required)
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True)
class GateVerdict:
    """``gate<N>.json``: the verdict, the numbers it compared, the tolerances, the seeds, and
    a reason; a rejection names the rule that fired.  Gates 1-2 say which ``slot`` and ``unit``
    they judged, gates 3-4 which stitch ``attempt``."""

    gate: int
    verdict: str
    reason: str
    rule: str | None = None
    numbers: dict[str, Any] = field(default_factory=dict)
    tolerances: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=list)
    candidate: str | None = None
    slot: str | None = None
    unit: str | None = None
    attempt: int | str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    KIND: ClassVar[str] = "gate verdict"
    _WHERE: ClassVar[tuple[str, ...]] = ("slot", "unit", "attempt")

    @property
    def passed(self) -> bool:
        return self.verdict == Verdict.PASS

    def to_dict(self) -> dict[str, Any]:
        """The verdict alone (where it was judged and ``extra`` left out)."""
        d = asdict(self)
        for k in (*self._WHERE, "extra"):
            d.pop(k)
        return d

    def record(self) -> dict[str, Any]:
        """What ``save`` writes: the verdict, where it was judged, extra keys, the schema."""
        out = {**self.to_dict(), **{k: getattr(self, k) for k in self._WHERE if getattr(self, k) is not None}}
        return {**out, **self.extra, "schema": SCHEMA}

    def save(self, path: str | Path) -> dict[str, Any]:
        out = self.record()
        write_json(path, out)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GateVerdict:
        return cls(**_split(cls, data))

    @classmethod
    def load(cls, path: str | Path) -> GateVerdict:
        data = _read(Path(path), cls.KIND)
        _missing(Path(path), cls.KIND, data, ("gate", "verdict", "reason"))
        return cls.from_dict(data)

    @classmethod
    def load_or_none(cls, path: str | Path) -> GateVerdict | None:
        """``load``, or None when the gate never ran (gate 2 after gate 1 failed, a slot never
        judged)."""
        return cls.load(path) if Path(path).exists() else None


def load_readable(load: Callable[[Path], _R], path: str | Path) -> _R | None:
    """``load(path)``, or None where the file was never written or cannot be read (a run that
    failed part way: a report renders what there is)."""
    try:
        return load(Path(path)) if Path(path).exists() else None
    except (OSError, RecordError):
        return None


@dataclass(frozen=True)
class Beam(_Record):
    """``iter<i>/beam.json``: the members after iteration ``i`` (``Member``), why the search
    stopped (or None), candidates timed that left the beam (``Member``s too), and a fault that
    kept candidates from being timed.  Members may be given as the dicts a stage built."""

    iteration: int
    members: list[Member]
    stopped: str | None = None
    dropped: list[Member] | None = None
    infrastructure: str | None = None

    KIND: ClassVar[str] = "beam"

    def __post_init__(self) -> None:
        def typed(ms: list[Any]) -> list[Member]:
            return [m if isinstance(m, Member) else Member.from_dict(m) for m in ms]

        object.__setattr__(self, "members", typed(self.members))
        if self.dropped is not None:
            object.__setattr__(self, "dropped", typed(self.dropped))

    @classmethod
    def load(cls, path: str | Path) -> Beam:
        data = _read(Path(path), cls.KIND)
        _missing(Path(path), cls.KIND, data, ("iteration", "members", "stopped"))
        for i, m in enumerate([*data["members"], *(data.get("dropped") or [])]):
            _missing(Path(path), f"beam member {i}", m if isinstance(m, dict) else {}, Member.REQUIRED)
        return cls(data["iteration"], data["members"], data["stopped"], data.get("dropped"), data.get("infrastructure"))

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "iteration": self.iteration,
            "members": [m.as_dict() for m in self.members],
            "stopped": self.stopped,
        }
        if self.dropped:
            out["dropped"] = [m.as_dict() for m in self.dropped]
        if self.infrastructure:
            out["infrastructure"] = self.infrastructure
        return out

    @property
    def member_ids(self) -> list[str]:
        return [m.id for m in self.members]


@dataclass(frozen=True)
class Slot(_Record):
    """``slot.json`` beside a candidate: which slot (``c<k>``'s number, a synthesis attempt's, a
    search candidate's or a retry's ``cand<j>/r<r>``), whether it holds a candidate (``empty``) and
    where it came from (``origin``: ``inductor``, ``user``, ``synthesis:<backend>``,
    ``search:<backend>``, ``retry:<backend>``; a synthesis ``source``; a search ``direction``; the
    failure a retry ``fixes``; the code's ``signature``), what it is (``unit_class``, the file's
    ``class``, and ``what``), or why it is empty (``reason``, ``error``; ``near_roof`` and
    ``negligible`` when the unit was not worth an attempt; ``declined`` when the generator left
    the unit to Inductor's kernel on purpose: a transposing copy, which Inductor tiles in 2-D).
    Keys of another writer are kept in ``extra``."""

    slot: int | str | None = None
    empty: bool = True
    origin: str | None = None
    source: str | None = None
    sha256: str | None = None
    signature: str | None = None
    direction: dict[str, Any] | None = None
    fixes: dict[str, Any] | None = None
    reasoning: str | None = None
    unit_class: str | None = None
    what: str | None = None
    reason: str | None = None
    error: str | None = None
    near_roof: bool | None = None
    negligible: bool | None = None
    declined: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    KIND: ClassVar[str] = "slot"
    _IN_FILE: ClassVar[dict[str, str]] = {"unit_class": "class"}  # field -> its key in the file

    def as_dict(self) -> dict[str, Any]:
        out = {
            self._IN_FILE.get(f.name, f.name): getattr(self, f.name)
            for f in fields(self)
            if f.name != "extra" and getattr(self, f.name) is not None
        }
        return {**out, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Slot:
        """A slot from the dict a stage built (or a file held): the known keys typed, the rest
        ``extra``."""
        return cls(**_split(cls, data, cls._IN_FILE))

    @classmethod
    def load(cls, path: str | Path) -> Slot:
        data = _read(Path(path), cls.KIND)
        _missing(Path(path), cls.KIND, data, ("empty",))
        return cls.from_dict(data)

    @classmethod
    def load_or_none(cls, path: str | Path) -> Slot | None:
        """``load``, or None when the slot was never filled (the problem failed earlier)."""
        return cls.load(path) if Path(path).exists() else None

    @property
    def direction_name(self) -> str:
        """The search direction and the beam member it was applied to (``"<name> on <member>"``)."""
        d = self.direction or {}
        return f"{d.get('name', '')} on {d.get('member', '')}"


@dataclass(frozen=True)
class Best(_Record):
    """``units/<unit>/best.json``: the select stage's ranking of a unit's candidates that passed
    gates 1-2.  ``candidates`` maps each one's path (relative to the unit) to its origin
    (``inductor``, ``user``, ``search``) and, where timed, its ratio against Inductor's kernel
    (``ratio``, ``ci``, ``meaningful``, ``timing``); ``ranked`` is best first; ``meaningful`` says
    whether the ranking is by time (on the GPU) or by origin (CPU mode).  Also: why Inductor's
    kernel is not checkable, candidates the beam timed and dropped, candidates that could not be
    timed, and a fault that kept them from being timed."""

    unit: str
    candidates: dict[str, dict[str, Any]] = field(default_factory=dict)
    ranked: list[str] = field(default_factory=list)
    meaningful: bool | None = None
    not_checkable: str | None = None
    timed_out_of_beam: list[dict[str, Any]] | None = None
    not_timed: dict[str, str] | None = None
    infrastructure: str | None = None

    KIND: ClassVar[str] = "best"

    @classmethod
    def load(cls, path: str | Path) -> Best:
        return cls(**{"unit": Path(path).parent.name, **cls._known(path, ("candidates", "ranked"))})

    @classmethod
    def load_or_empty(cls, path: str | Path) -> Best:
        """``load``, or a ranking of nothing when select never ran for the unit (the problem
        failed earlier)."""
        return cls.load(path) if Path(path).exists() else cls(unit=Path(path).parent.name)

    def ratio(self, candidate: str) -> float | None:
        """The candidate's time ratio against Inductor's kernel where the timing means something
        (the unit's ranking and the candidate's own), else None."""
        e = self.candidates.get(candidate) or {}
        r = e.get("ratio")
        return float(r) if self.meaningful and e.get("meaningful", True) and isinstance(r, (int, float)) else None


@dataclass(frozen=True)
class StitchPlan(_Record):
    """``<attempt>/plan.json``: what a stitch attempt replaced (``replacements``: unit -> the
    candidate file), what the splice did (``stitch``: replaced and dropped launches, the proof
    gate 3 checks), why a fused unit or its parts were taken (``fusion_choice``), or why nothing
    was stitched (``reason``)."""

    attempt: int | str  # "cli" for ``kernelopt stitch-check``
    status: PlanStatus
    replacements: dict[str, str] = field(default_factory=dict)
    reason: str | None = None
    stitch: dict[str, Any] | None = None
    fusion_choice: list[dict[str, Any]] | None = None

    KIND: ClassVar[str] = "stitch plan"

    @property
    def stitched(self) -> bool:
        return self.status == PlanStatus.STITCHED

    @classmethod
    def load(cls, path: str | Path) -> StitchPlan:
        known = cls._known(path, ("attempt", "status"))
        try:
            return cls(**{**known, "status": PlanStatus(known["status"])})
        except ValueError as e:
            raise RecordError(f"{path}: {e}; it was written by another kernelopt") from e

    @classmethod
    def load_or_none(cls, path: str | Path) -> StitchPlan | None:
        """``load``, or None when the attempt never planned (the problem failed earlier)."""
        return cls.load(path) if Path(path).exists() else None


@dataclass(frozen=True)
class Result(_Record):
    """``<problem>/result.json``: the problem's outcome (docs/architecture.md, "Categories").
    The fields every reader needs are typed; the rest (speedups against eager and the user's
    module, the roofline, the job account, the LLM account, the faults recorded, the winners) is
    in ``extra``, under the keys the file has."""

    problem: str
    category: Category
    reason: str | None = None
    status: str = "ok"
    verdict: str | None = None  # classify's: optimizable, library-dominated, no-triton, error
    speedup_vs_compiled: float | None = None
    baseline_ms: float | None = None
    final_ms: float | None = None
    noise_band: list[float] | None = None
    meaningful: bool = False  # timed on a GPU
    stitched_attempt: int | None = None  # the stitch attempt that was deployed (optimized only)
    units: int | None = None
    units_replaced: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    KIND: ClassVar[str] = "result"

    def as_dict(self) -> dict[str, Any]:
        """The file's contents (``extra`` spread, the schema left out)."""
        d = asdict(self)
        return {**{k: v for k, v in d.items() if k != "extra"}, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        known = _split(cls, data)
        return cls(**{**known, "category": Category(known["category"])})

    @classmethod
    def load(cls, path: str | Path) -> Result:
        data = _read(Path(path), cls.KIND)
        _missing(Path(path), cls.KIND, data, ("problem", "category"))
        try:
            return cls.from_dict(data)
        except ValueError as e:  # a category this kernelopt does not know
            raise RecordError(f"{path}: {e}; it was written by another kernelopt") from e

    @property
    def optimized(self) -> bool:
        return self.category == Category.OPTIMIZED


class _Ordered(_Record):
    """A record that keeps its keys in the order its writer gave them (``order``), so that
    ``as_dict`` and ``save`` give back the file as written; a field set since
    (``dataclasses.replace``) that the file lacked comes after them, and so does a field in
    ``_ALWAYS`` (a required key) of a record built in code.  Keys of another writer are kept in
    ``extra``."""

    KIND: ClassVar[str]
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    _ALWAYS: ClassVar[tuple[str, ...]] = ()  # written even where they hold their default
    _NOT_KEYS: ClassVar[tuple[str, ...]] = ("extra", "order")

    def _value(self, name: str) -> Any:
        """A field as the file holds it (a nested record as its dict)."""
        return getattr(self, name)

    def as_dict(self) -> dict[str, Any]:
        """The file's contents (the schema left out), in the writer's order."""
        extra: dict[str, Any] = self.extra  # type: ignore[attr-defined]
        order: tuple[str, ...] = self.order  # type: ignore[attr-defined]
        names = [f.name for f in fields(self) if f.name not in self._NOT_KEYS]  # type: ignore[arg-type]
        value = {**extra, **{n: self._value(n) for n in names}}
        out = {k: value[k] for k in order if k in value}
        for f in fields(self):  # type: ignore[arg-type]
            if (
                f.name in names
                and f.name not in out
                and (f.name in self._ALWAYS or getattr(self, f.name) != _default(f))
            ):
                out[f.name] = value[f.name]
        return {**out, **{k: v for k, v in extra.items() if k not in out}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """A record from the dict a writer built (or a file held): the known keys typed, the rest
        ``extra``, the order of the keys kept."""
        return cls(**cls._ordered(data))

    @classmethod
    def _ordered(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Constructor arguments from a writer's dict (or a file's): the known keys, the rest
        ``extra``, the order of the keys kept (the schema left out)."""
        data = {k: v for k, v in data.items() if k != "schema"}
        return {**_split(cls, {k: v for k, v in data.items() if k not in cls._NOT_KEYS}), "order": tuple(data)}


class _Loaded(_Ordered):
    """An ordered record read whole from one file: ``load`` (the schema checked and
    ``REQUIRED`` present) and ``load_or_none`` (None when the file was never written)."""

    @classmethod
    def load(cls, path: str | Path) -> Any:
        data = _read(Path(path), cls.KIND)
        _missing(Path(path), cls.KIND, data, cls._required(data))
        return cls.from_dict(data)

    @classmethod
    def load_or_none(cls, path: str | Path) -> Any:
        """``load``, or None when the file was never written (the problem failed earlier)."""
        return cls.load(path) if Path(path).exists() else None

    @classmethod
    def _required(cls, data: dict[str, Any]) -> tuple[str, ...]:
        return cls.REQUIRED


@dataclass(frozen=True)
class Member(_Ordered):
    """A beam member (an entry of ``beam.json``'s ``members`` or ``dropped``): its ``id``
    (``inductor``, ``synth/a<k>``, ``iter<i>/cand<j>[/r<r>]``), its candidate file relative to the
    unit (``path``), its time against Inductor's kernel (``ratio``, ``ci``) and whether that time
    means anything (``meaningful``: False for a synthesized kernel not yet timed, and on the
    CPU), the code's launch-parameter ``signature`` and the search ``direction`` that made it."""

    id: str = ""
    path: str = ""
    ratio: float | None = None
    ci: list[float] | None = None
    meaningful: bool = True
    signature: str | None = None
    direction: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "beam member"
    REQUIRED: ClassVar[tuple[str, ...]] = ("id", "path")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED

    @property
    def ranked_ratio(self) -> float | None:
        """The ratio where it means something, else None."""
        r = self.ratio
        return float(r) if self.meaningful and isinstance(r, (int, float)) else None


@dataclass(frozen=True)
class Contract(_Loaded):
    """``units/<unit>/contract.json``: how a unit is launched (``isolate/contract.py`` builds a
    kernel's; ``isolate/fused.py``, ``isolate/regions.py`` and ``isolate/graphunits.py`` a fused
    pair's, a region's and a graph-level unit's).  Which kernel of which graph (``graph``,
    ``kernel``, its ``heuristic``, whether a ``template``, the ``user``'s own kernel or
    ``helion``'s), the ``device``, the arguments in launch order (``args``: name, kind, shape,
    stride, dtype, ``access``, ``buffer``; scalars' values), the config and grid Inductor chose
    (``launch_config``, ``grid``, ``grid_expr``; ``grid_inferred``: a user kernel's grid
    dimensions rewritten as ``cdiv(size, BLOCK)``), arguments that are the same memory
    (``aliases``), how often the kernel ran and whether always on the same shapes (``launches``,
    ``launch_shapes_identical``), what the eager reference is and implements (``reference``,
    ``aten_ops``, ``fx_origins``), the unit's share of the model's time (``share``), and, for a
    fused pair, a region or a graph-level unit, its record (``fused``, ``region``, ``rewrite``).

    Nested values are what the file holds, dicts and lists: ``args`` entries, the configs, the
    reference, and the fused / region / graph-level records (their member contracts included,
    which ``Contract.from_dict`` reads).  Keys of another writer are kept in ``extra``.  A
    contract keeps its keys in the order its writer gave them (``order``), so ``as_dict`` and
    ``save`` give back the file as written; a field set since (``dataclasses.replace``) that the
    file lacked comes after them."""

    unit: str = ""
    problem: str = ""
    graph: int = 0
    kernel: str = ""
    heuristic: str | None = None
    template: bool = False
    user: bool = False
    helion: dict[str, Any] | None = None
    device: str | None = None
    args: list[dict[str, Any]] = field(default_factory=list)
    launch_config: dict[str, Any] | None = None
    aliases: list[list[int]] = field(default_factory=list)
    grid: list[int] | None = None
    grid_expr: dict[str, Any] | None = None
    launches: int | None = None
    launch_shapes_identical: bool | None = None
    aten_ops: list[str] = field(default_factory=list)
    reference: dict[str, Any] = field(default_factory=dict)
    fx_origins: list[str] = field(default_factory=list)
    share: float | None = None
    grid_inferred: dict[str, str] | None = None
    fused: dict[str, Any] | None = None
    region: dict[str, Any] | None = None
    rewrite: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "contract"
    REQUIRED: ClassVar[tuple[str, ...]] = ("unit", "problem", "graph", "kernel", "device", "args")


def _default(f: Any) -> Any:
    return f.default_factory() if f.default is MISSING else f.default


@dataclass(frozen=True)
class DispatchUnit(_Ordered):
    """An entry of ``dispatch.json``'s ``units``: an optimisation unit as classify found it.
    Which kernel of which graph (``id``: the kernel's name, ``g<graph>_`` before it past graph
    0; ``graph``, ``kernel``, its ``heuristic``, whether a ``template`` or the ``user``'s own
    kernel), how often it ran and its device time summed over those launches (``launches``,
    ``time_ms``, ``share`` of the model's), whether capture cut an eager reference for it
    (``reference``), and, for a fused neighbour pair, a region or a graph-level unit, its record
    (``fused``, ``region``, ``rewrite``: dicts, as the file holds them; their ``member_units``, or
    a pair's ``producer_unit`` and ``consumer_unit``, are the units it stands for)."""

    id: str = ""
    graph: int = 0
    kernel: str = ""
    heuristic: str | None = None
    template: bool = False
    user: bool = False
    launches: int = 0
    time_ms: float | None = None
    reference: bool = False
    share: float | None = None
    fused: dict[str, Any] | None = None
    region: dict[str, Any] | None = None
    rewrite: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "dispatch unit"
    REQUIRED: ClassVar[tuple[str, ...]] = ("id", "graph", "kernel", "time_ms")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED

    @property
    def composite(self) -> bool:
        """A fused pair or a region: its member kernels again, as one unit."""
        return bool(self.fused or self.region)

    @property
    def parts(self) -> list[str]:
        """The units a fused pair, a region or a graph-level unit stands for (none for a kernel)."""
        if self.fused:
            return [self.fused["producer_unit"], self.fused["consumer_unit"]]
        return list((self.region or self.rewrite or {}).get("member_units", []))


@dataclass(frozen=True)
class Dispatch(_Ordered):
    """``<problem>/dispatch.json``, classify's record (``classify/stage.py``): the problem's
    ``verdict`` (``DispatchVerdict``) and its ``reason``; every launch of the compiled model
    with its dispatch kind (``DispatchKind``), time and share (``launches``: dicts, as the file
    holds them); the time by kind and in all (``time_by_kind_ms``, ``total_ms``), the Triton
    kernels' share against ``min_triton_share``, how the shares were measured
    (``shares_method``), whether the times mean anything (``meaningful``: on the GPU) and whether
    the wrapper can be stitched; the ``units`` (``DispatchUnit``), and what neighbour fusion,
    regions and graph-level rewrites added or refused (``fusion``, ``regions``, ``rewrites``).
    A problem whose capture failed has only ``problem``, ``verdict`` (``error``), ``reason``,
    ``launches``, ``units``, ``time_by_kind_ms`` and ``triton_share``.

    The record keeps the file's keys in their order and saves them with the ``schema`` last, as
    every record does, so that a file loads and saves back byte for byte; ``load`` refuses a
    newer schema, a file without the keys every reader needs, and a verdict this kernelopt does
    not know (a file written before the schema key was added loads as this schema's)."""

    problem: str = ""
    device: str | None = None
    verdict: DispatchVerdict = DispatchVerdict.ERROR
    reason: str = ""
    triton_share: float | None = None
    min_triton_share: float | None = None
    time_by_kind_ms: dict[str, float] = field(default_factory=dict)
    total_ms: float | None = None
    shares_method: str | None = None
    meaningful: bool = False
    stitchable: bool = False
    launches: list[dict[str, Any]] = field(default_factory=list)
    units: list[DispatchUnit] = field(default_factory=list)
    fusion: dict[str, Any] | None = None
    regions: dict[str, Any] | None = None
    rewrites: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "dispatch"
    REQUIRED: ClassVar[tuple[str, ...]] = ("problem", "verdict", "units")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", DispatchVerdict(self.verdict))  # a ValueError for an unknown one

    def _value(self, name: str) -> Any:
        return [u.as_dict() for u in self.units] if name == "units" else getattr(self, name)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Dispatch:
        """A dispatch record from the dict classify built (or a file held): the known keys typed
        (each unit a ``DispatchUnit``, the verdict a ``DispatchVerdict``), the rest ``extra``, the
        order of the keys kept."""
        known = cls._ordered(data)
        units = [u if isinstance(u, DispatchUnit) else DispatchUnit.from_dict(u) for u in known.get("units", [])]
        return cls(**{**known, "units": units})

    @classmethod
    def load(cls, path: str | Path) -> Dispatch:
        path = Path(path)
        data = _read(path, cls.KIND)
        _missing(path, cls.KIND, data, cls.REQUIRED)
        if not isinstance(data["units"], list) or not all(isinstance(u, dict) for u in data["units"]):
            raise RecordError(
                f"{path}: dispatch record whose units are not a list of objects: it was written by another "
                "kernelopt; run in a new workdir (or delete the problem's directory to redo it)"
            )
        for i, u in enumerate(data["units"]):
            _missing(path, f"dispatch unit {u.get('id', i)!r}", u, DispatchUnit.REQUIRED)
        try:
            return cls.from_dict(data)
        except ValueError as e:  # a verdict this kernelopt does not know
            raise RecordError(f"{path}: {e}; it was written by another kernelopt") from e

    @classmethod
    def load_optional(cls, path: str | Path) -> Dispatch | None:
        """``load``, or None when classify never wrote the file (capture did not finish)."""
        return cls.load(path) if Path(path).exists() else None

    @property
    def optimizable(self) -> bool:
        """Whether the problem's units go on to the search, stitch and gates."""
        return self.verdict == DispatchVerdict.OPTIMIZABLE

    @property
    def unit_ids(self) -> list[str]:
        """The units' ids, in the file's order (what the classify checkpoint fans out to)."""
        return [u.id for u in self.units]

    @property
    def judged_unit_ids(self) -> list[str]:
        """The units the search, stitch and gates judge: every unit of an optimizable problem,
        none of another (the rules' fan-out and the progress lines both ask this)."""
        return self.unit_ids if self.optimizable else []

    def unit(self, unit_id: str) -> DispatchUnit | None:
        """The unit ``unit_id``, or None where classify did not make it one."""
        return next((u for u in self.units if u.id == unit_id), None)


class _CaptureFailure:
    """What capture writes into each of its files when the problem fails (``failed``, the
    ``stage`` it failed at and the ``error``): only the failure is required."""

    @classmethod
    def _required(cls, data: dict[str, Any]) -> tuple[str, ...]:
        return ("failed", "stage", "error") if data.get("failed") else cls.REQUIRED

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = super().as_dict()  # type: ignore[misc]
        if not out.get("failed"):
            return out
        keep = {*self.order, "problem", "path", "failed", "stage", "error"}  # type: ignore[attr-defined]
        return {k: v for k, v in out.items() if k in keep}


@dataclass(frozen=True)
class Capture(_CaptureFailure, _Loaded):
    """``capture/capture.json``, capture's record of the compile (``capture/stage.py``): the
    problem's file (``path``), the ``device``, ``seed`` and compile ``mode``, the parameters'
    fingerprint a rebuilt model is checked against, the GPU memory the capture's phases took
    (``memory``: the later jobs declare their need from its ``job_peak_mb``; ``None`` on the
    CPU), the outputs' structure, the eager outputs' NaN/Inf (``eager_nonfinite``: None when all
    are finite), one record per compiled graph (``graphs``: dicts, as the file holds them: its
    kernels, call arguments, launches, standalone wrapper, regions and rewrites), errors of the
    compile hooks, the Helion kernels' records, and whether the output code can be stitched
    (one graph whose standalone wrapper ran).  A failed capture has only ``problem``, ``path``,
    ``failed``, ``stage`` and ``error``."""

    problem: str = ""
    memory: dict[str, Any] | None = None
    path: str = ""
    device: str | None = None
    seed: int | None = None
    mode: str | None = None
    param_fingerprint: str | None = None
    output_structure: Any = None
    eager_nonfinite: dict[str, Any] | None = None
    graphs: list[dict[str, Any]] = field(default_factory=list)
    hook_errors: list[str] = field(default_factory=list)
    helion: dict[str, Any] = field(default_factory=dict)
    stitchable: bool = False
    failed: bool = False
    stage: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "capture"
    REQUIRED: ClassVar[tuple[str, ...]] = ("problem", "path", "device", "seed", "param_fingerprint", "graphs")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED

    @property
    def on_gpu(self) -> bool:
        return self.device == "cuda"


@dataclass(frozen=True)
class Baseline(_CaptureFailure, _Loaded):
    """``capture/baseline.json``: the eager and compiled model's times (``eager``, ``compiled``:
    ``median_ms`` and the protocol's other figures), the output code alone in one CUDA graph
    (``wrapper``: gate 4's way; one graph only), the compile seconds, the compiled outputs' error
    against eager, the environment and Inductor's config.  A failed capture writes its failure
    here too (``failed``, ``stage``, ``error``)."""

    problem: str = ""
    device: str | None = None
    mode: str | None = None
    compile_s: float | None = None
    graphs: int | None = None
    eager: dict[str, Any] | None = None
    compiled: dict[str, Any] | None = None
    wrapper: dict[str, Any] | None = None
    speedup_compiled_vs_eager: float | None = None
    compiled_vs_eager_max_abs: Any = None
    environment: dict[str, Any] | None = None
    inductor_config: dict[str, Any] | None = None
    failed: bool = False
    stage: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "baseline"
    REQUIRED: ClassVar[tuple[str, ...]] = ("problem", "device", "eager", "compiled")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED

    @property
    def eager_ms(self) -> float | None:
        """The eager model's median time (ms), None where capture failed."""
        return (self.eager or {}).get("median_ms")

    @property
    def compiled_ms(self) -> float | None:
        """The compiled model's median time (ms), None where capture failed."""
        return (self.compiled or {}).get("median_ms")

    @property
    def wrapper_ms(self) -> float | None:
        """The output code's median time alone (ms), None where it was not timed."""
        return (self.wrapper or {}).get("median_ms")


@dataclass(frozen=True)
class CaptureProfile(_CaptureFailure, _Loaded):
    """``capture/profile.json``: each graph's profile of its launch sites (``graphs``: a dict
    per graph, as the file holds it: the time per site and how it was measured; None where a
    graph was not profiled) and the compiled model's own profile (``compiled``: the CUDA-graph
    input copies' time, ``copy_ms``).  A failed capture writes its failure here too."""

    graphs: list[dict[str, Any] | None] = field(default_factory=list)
    compiled: dict[str, Any] | None = None
    problem: str = ""
    failed: bool = False
    stage: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "capture profile"
    REQUIRED: ClassVar[tuple[str, ...]] = ("graphs",)
    _ALWAYS: ClassVar[tuple[str, ...]] = ()

    @property
    def copy_ms(self) -> float:
        """The CUDA-graph input copies' time (ms), 0.0 where none was measured."""
        return float((self.compiled or {}).get("copy_ms") or 0.0)


@dataclass(frozen=True)
class IsolateCheck(_Loaded):
    """``units/<unit>/isolate_check.json``: whether the unit's eager reference reproduces what
    Inductor's kernel computed in the model (``status``: ``pass``, ``mismatch``, ``error``,
    ...; ``reason``), the figures of the comparison, and whether its timings mean anything
    (``meaningful_timing``: on the GPU).  The checks' other keys are kept in ``extra``."""

    status: str = ""
    reason: Any = None
    meaningful_timing: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "isolate check"
    REQUIRED: ClassVar[tuple[str, ...]] = ("status",)
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED

    @property
    def passed(self) -> bool:
        return self.status == "pass"


@dataclass(frozen=True)
class CandidateTiming(_Loaded):
    """``timing.json`` beside a search candidate: its time against Inductor's kernel (the
    comparison of ``core/measure.py``: ``ratio`` = candidate / Inductor, its confidence interval
    ``ci_low``..``ci_high``, the medians ``a_ms`` and ``b_ms``, whether the time means anything
    (``meaningful``: on the GPU), the protocol and every round), or why it could not be timed
    (``error``)."""

    ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    a_ms: float | None = None
    b_ms: float | None = None
    meaningful: bool | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "candidate timing"
    REQUIRED: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def _required(cls, data: dict[str, Any]) -> tuple[str, ...]:
        return () if "error" in data else ("ratio", "ci_low", "ci_high", "meaningful")

    @property
    def ci(self) -> list[float | None]:
        return [self.ci_low, self.ci_high]


@dataclass(frozen=True)
class MemberProfile(_Loaded):
    """``iter<i>/profile/m<j>/summary.json``: beam member ``j``'s profile as the search's
    analyst reads it: the ``member``'s id, where its figures came from (``source``: ``ncu``,
    ``roofline`` or ``none``), the ``metrics``, the compact ``text`` for prompts, a ``note``
    (why NCU was not used), what it cost (``cost``: timing and NCU seconds) and, for a member
    kept from an earlier beam, the profile it reuses (``reused_from``).  ``empty`` when the beam
    has no member ``j``."""

    empty: bool = False
    member: str | None = None
    source: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    note: str = ""
    cost: dict[str, Any] | None = None
    reused_from: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "member profile"
    REQUIRED: ClassVar[tuple[str, ...]] = ("empty", "member")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED


@dataclass(frozen=True)
class SearchPlan(_Loaded):
    """``iter<i>/plan.json``: the planner's directions for iteration ``i`` (``directions``:
    dicts, as the file holds them: the member, the kind and its arguments), what the diversity
    rule changed, and why the search stops early (``stop``), if it does."""

    iteration: int = 0
    directions: list[dict[str, Any]] = field(default_factory=list)
    diversity: list[str] = field(default_factory=list)
    stop: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "search plan"
    REQUIRED: ClassVar[tuple[str, ...]] = ("iteration", "directions", "stop")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED


@dataclass(frozen=True)
class Analyses(_Loaded):
    """``iter<i>/analysis.json``: the analyst's reading of each beam member it was shown
    (member id -> the ``Analysis`` of ``search/agents/base.py`` as a dict: the bottleneck, the
    metric evidence quoted, ...), in ``by_member``."""

    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "analyses"

    @property
    def by_member(self) -> dict[str, dict[str, Any]]:
        return self.extra


@dataclass(frozen=True)
class SearchMemory(_Loaded):
    """``iter<i>/memory.json``: what the search carries from one iteration to the next
    (``tried``: a candidate's launch-parameter signature -> its outcome; the summarizer's
    ``notes``)."""

    tried: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "search memory"
    REQUIRED: ClassVar[tuple[str, ...]] = ("tried", "notes")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED


@dataclass(frozen=True)
class IsolateSummary(_Loaded):
    """``<problem>/isolate.json``, the isolate stage's record for the whole problem: whether
    capture failed (``status``: ``ok`` or ``error``), the device, classify's verdict and reason,
    the Triton share, how many units there are and how many passed their check, and each unit's
    check (``checks``: unit -> status and reason)."""

    problem: str = ""
    status: str = "missing"
    device: str | None = None
    verdict: str | None = None
    reason: str | None = None
    triton_share: float | None = None
    units: int = 0
    units_pass: int = 0
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "isolate summary"
    REQUIRED: ClassVar[tuple[str, ...]] = ("problem", "status", "checks")
    _ALWAYS: ClassVar[tuple[str, ...]] = REQUIRED

    @property
    def failed_checks(self) -> dict[str, dict[str, Any]]:
        return {u: c for u, c in self.checks.items() if c.get("status") != "pass"}


@dataclass(frozen=True)
class JobSpan(_Loaded):
    """``<log>.span.json``: the ``rule`` of a job, when its process ``started`` and its work
    ``ended`` (epoch seconds), and the seconds per phase (``core/phases.py``)."""

    rule: str | None = None
    started: float | None = None
    ended: float | None = None
    phases: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "job span"


@dataclass(frozen=True)
class JobGpu(_Loaded):
    """``<log>.gpu.json``: the seconds a job held the GPU lock (``exclusive``: measurements;
    ``shared``: correctness runs and compiles), the GPU memory it claimed and used (``memory``:
    ``declared_mb``, ``peak_mb``, ...; ``core/gpumem.py``), its process's start and end, and the
    seconds per phase."""

    exclusive: float = 0.0
    shared: float = 0.0
    memory: dict[str, Any] | None = None
    process_started: float | None = None
    ended: float | None = None
    phases: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KIND: ClassVar[str] = "job GPU record"


# --- what a job leaves beside its log, and the run's own logs -------------------------------
_GPU_JSON, _SPAN_JSON = ".gpu.json", ".span.json"
JOB_GPU_SUFFIX = ".log" + _GPU_JSON  # a job's log name + this: its GPU record, globbed by the report
JOB_SPAN_SUFFIX = ".log" + _SPAN_JSON


def job_gpu_record(log: str | Path) -> Path:
    """``<log>.gpu.json``: the seconds a job held the GPU, the memory it claimed and used and
    where its time went (``core/stagelog.py`` writes it)."""
    return Path(f"{log}{_GPU_JSON}")


def job_span_record(log: str | Path) -> Path:
    """``<log>.span.json``: when a job's process started and its work ended."""
    return Path(f"{log}{_SPAN_JSON}")


def gpu_busy_log(workdir: str | Path, gpu: str) -> Path:
    """``logs/gpu-busy-<gpu>.jsonl``: the GPU's utilisation sampled every second."""
    return logs_dir(workdir) / f"gpu-busy-{gpu}.jsonl"


def gpu_busy_logs(workdir: str | Path) -> list[Path]:
    """Every GPU's utilisation samples of the run (one file per GPU)."""
    return sorted(logs_dir(workdir).glob("gpu-busy-*.jsonl"))


def llm_transcript(where: str | Path, role: str, k: int) -> Path:
    """``<where>/llm/<role>-<k>.json``: one LLM call's transcript (request, reply, usage, cost)."""
    return Path(where) / "llm" / f"{role}-{k}.json"


def llm_transcripts(root: str | Path, role: str = "*") -> list[Path]:
    """Every transcript under ``root`` (of ``role``), sorted; the run's own state under
    ``<run>/llm/`` (the ledger, the settings) is not a transcript."""
    return [t for t in sorted(Path(root).glob(f"**/llm/{role}-*.json")) if t.parent.parent != Path(root)]


def gpu_busy_lock(workdir: str | Path, gpu: str) -> Path:
    """``logs/gpu-busy-<gpu>.lock``: held by the one worker of the run that samples the GPU."""
    return logs_dir(workdir) / f"gpu-busy-{gpu}.lock"


def llm_transcripts_at(where: str | Path, role: str = "*") -> list[Path]:
    """The transcripts of the calls made at ``where`` (``<where>/llm/``, not below it), of
    ``role``, sorted."""
    return sorted((Path(where) / "llm").glob(f"{role}-*.json"))


def llm_state_dir(workdir: str | Path) -> Path:
    """``<workdir>/llm/``: the LLM backend's state of a run (its reply cache, ``llm_ledger``,
    ``llm_settings``, the concurrency slots; ``search/agents/llm/client.py``), no transcripts."""
    return Path(workdir) / "llm"


@dataclass(frozen=True)
class ExportPaths:
    """A directory ``kernelopt export`` writes: the deployed model, loadable without the run
    directory (``kernelopt/core/deployed.py`` is its ``loader.py``)."""

    dir: Path

    @property
    def manifest(self) -> Path:
        """What the loader reads first: the signature, the call-argument map, the file names."""
        return self.dir / "kernelopt_model.json"

    @property
    def loader(self) -> Path:
        return self.dir / "loader.py"

    @property
    def problem(self) -> Path:
        """The problem's source, which builds the ``Model`` the parameters belong to."""
        return self.dir / "problem.py"

    @property
    def state_dict(self) -> Path:
        return self.dir / "state_dict.pt"

    @property
    def output_code(self) -> Path:
        return self.dir / _OUTPUT_CODE

    @property
    def candidates(self) -> Path:
        """The stitched kernels the output code loads (beside it, as in the stitch attempt)."""
        return self.dir / "candidates"

    @property
    def constants(self) -> Path:
        return self.dir / "constants.pt"

    @property
    def saved_call_args(self) -> Path:
        return self.dir / "call_args_saved.pt"

    @property
    def records(self) -> Path:
        """The run's records of the problem (capture, dispatch, result, the deployed attempt's plan and gates)."""
        return self.dir / "records"

    @property
    def readme(self) -> Path:
        return self.dir / "README.md"
