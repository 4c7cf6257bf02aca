"""The run configuration: validation against ``config_schema.yaml``, defaults, type coercion,
and which settings each rule reads.

Defaults live in one place, the schema's ``default`` entries: ``validate`` fills in every key a
config leaves out.  Snakemake parses ``--config key=value`` overrides with YAML's BaseLoader,
so a number arrives as the string ``"0.2"`` and a nested override (``search='{iterations: 2}'``)
as a dict of strings; ``validate`` coerces such strings to the schema's types before checking,
so the rest of the code always sees typed values.

``RULE_SETTINGS`` says which settings each rule reads; the workflow hands each rule exactly
those (``settings_for``), so Snakemake re-runs a job only when a setting it uses changed:
tuning a gate never recompiles a model.  ``tests/test_rule_settings.py`` keeps it true to the
code: a run with ``KERNELOPT_RECORD_SETTINGS`` set notes the keys each job's code reads.
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .errors import ConfigError

SCHEMA_FILE = Path(__file__).with_name("config_schema.yaml")

# The agent settings a reply depends on.  The others (budgets, prices, concurrency, timeouts,
# retries, replay_from) only govern how calls are made: the workflow writes them to
# <workdir>/llm/settings.json at start (search.agents.prepare), so changing one never re-runs a job;
# with the heuristic backend only agent.backend is handed out (the others change no output).
AGENT_REPLY = ("agent.backend", "agent.model", "agent.max_tokens", "agent.temperature")
_OPERATIONAL = {
    f"agent.{k}"
    for k in ("timeout_s", "max_retries", "max_concurrency", "max_usd_per_problem", "max_usd_total")
    + ("max_calls_per_unit", "replay_from", "prices")
}
# the gpu.* settings shape how jobs are scheduled (their resources, retries), never an output
_SCHEDULING = {"gpu.retries", "gpu.need_factor", "gpu.default_mb"}
# the executor.* settings say where a job's work runs (a warm worker or the job itself), never
# what it computes
_WHERE = {
    "executor.enabled",
    "executor.workers_per_problem",
    "executor.warm_children",
    "executor.idle_s",
    "executor.max_workers",
}

# rule -> the settings it reads (a top-level key, or "section.key").  Snakemake compares these
# values with the ones a job's outputs were made with; nothing else invalidates a job.
RULE_SETTINGS: dict[str, tuple[str, ...]] = {
    "capture": ("device", "seed", "capture"),
    "classify": ("classify",),
    "isolate": ("device", "seed", "isolate"),
    "candidates": ("candidates", "gates.user_candidates"),
    "gate12": (
        "device",
        "seed",
        "gates.fresh_seeds",
        "gates.calls",
        "gates.distributions",
        "gates.rtol",
        "gates.atol",
        "gates.rel_error_ratio",
        "gates.rel_error_floor",
        "gates.error_ratio",
        "gates.error_floor_ulps",
        "gates.small_rel_floor",
        "gates.timeout_s",
        "gates.timeout_factor",
    ),
    "synthesize": (
        *AGENT_REPLY,
        "search.synthesis_skip_roof_pct",
        "search.negligible_share_pct",
        "search.peak_bandwidth_gbs",
    ),
    "seed_beam": (
        "search.seed_with_inductor",
        "search.synthesis_attempts",
        "search.negligible_share_pct",
    ),
    "profile": (
        "device",
        "seed",
        "gates.timeout_s",
        "gates.timeout_factor",
        "measure",
        "search.ncu",
        "search.ncu_sections",
        "search.peak_bandwidth_gbs",
        "agent.backend",
    ),
    "expand": ("search.beam_width", *AGENT_REPLY),
    "retry": ("search.beam_width", *AGENT_REPLY),
    "select_iter": (
        "device",
        "seed",
        "gates.timeout_s",
        "gates.timeout_factor",
        "measure",
        "search.beam_width",
        "search.retries",
        *AGENT_REPLY,
    ),
    "select": (
        "device",
        "seed",
        "gates.user_candidates",
        "gates.timeout_s",
        "gates.timeout_factor",
        "measure",
        "search.iterations",
    ),
    "stitch": ("device", "gates.replace_with_inductor"),
    "gate3": (
        "device",
        "seed",
        "gates.fresh_seeds",
        "gates.distributions",
        "gates.model_rtol",
        "gates.model_atol",
        "gates.fp64_ratio",
        "gates.error_ratio",
        "gates.error_floor_ulps",
        "gates.small_rel_floor",
        "gates.timeout_s",
        "gates.timeout_factor",
    ),
    "gate4": ("device", "seed", "gates.perf_margin", "gates.timeout_s", "gates.timeout_factor", "measure"),
    "result": ("gates.retries", "gates.optimized_min_speedup", "search.peak_bandwidth_gbs"),
}

# Every rule in the order a problem goes through them.  A rule's Snakemake priority is its place
# here (``stage_priority``): of the jobs ready at once, those nearest a problem's result start
# first, so problems finish one after another instead of all advancing together; a run cut
# short (a cluster's time limit, a device budget) leaves finished problems, and the first
# results come early.  It orders jobs only: no job computes anything else or re-runs for it.
PIPELINE_ORDER: tuple[str, ...] = (
    "capture",
    "classify",
    "isolate",
    "isolated",
    "profile",
    "synthesize",
    "candidates",
    "seed_beam",
    "gate12",
    "expand",
    "retry",
    "select_iter",
    "select",
    "stitch",
    "gate3",
    "gate4",
    "result",
    "stages_report",
    "report",
)


def stage_priority(rule: str) -> int:
    """The Snakemake priority of ``rule``: its place in ``PIPELINE_ORDER`` (later is higher)."""
    return PIPELINE_ORDER.index(rule)


@cache
def schema() -> dict[str, Any]:
    return yaml.safe_load(SCHEMA_FILE.read_text())


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    """A schema node with a local ``$ref`` (``#/$defs/...``) merged in."""
    ref = node.get("$ref")
    if not ref:
        return node
    target: Any = schema()
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


def defaults(node: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every setting at its default (the schema's ``default`` entries)."""
    return _fill({}, node or schema())


def _fill(value: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(value)
    for key, sub in _resolve(node).get("properties", {}).items():
        sub = _resolve(sub)
        if key not in out:
            if "default" in sub:
                out[key] = copy.deepcopy(sub["default"])
            elif sub.get("type") == "object":
                out[key] = _fill({}, sub)
        elif isinstance(out[key], dict) and sub.get("type") == "object":
            out[key] = _fill(out[key], sub)
    return out


def _coerce(value: Any, node: dict[str, Any], where: str) -> Any:
    """Turn BaseLoader strings into the schema's scalar types (recursively)."""
    node = _resolve(node)
    types: set[str] = set()
    if "type" in node:
        t = node["type"]
        types = {t} if isinstance(t, str) else set(t)
    if isinstance(value, str):
        if value.strip().startswith(("{", "[")) and types & {"object", "array"}:
            value = yaml.safe_load(value)
        elif "integer" in types:
            try:
                return int(value)
            except ValueError:
                raise ConfigError(f"config key '{where}' must be an integer, got {value!r}") from None
        elif "number" in types:
            try:
                return float(value)
            except ValueError:
                raise ConfigError(f"config key '{where}' must be a number, got {value!r}") from None
        elif "null" in types and value.lower() in ("null", "none", "~", ""):
            return None
        elif "boolean" in types:
            low = value.lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            raise ConfigError(f"config key '{where}' must be true or false, got {value!r}")
    if isinstance(value, dict) and "properties" in node:
        return {k: _coerce(v, node["properties"].get(k, {}), f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        item = node.get("items")
        if item is None and "anyOf" in node:
            item = next((s.get("items") for s in node["anyOf"] if s.get("type") == "array"), None)
        if item:
            return [_coerce(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def validate(config: dict[str, Any]) -> dict[str, Any]:
    """Return the full, typed config (defaults filled in); raise ConfigError on a bad key or value."""
    if not isinstance(config, dict):
        raise ConfigError("the config must be a mapping of keys to values (see config.yaml)")
    # Coerce before filling: a nested override may arrive as one YAML string.
    user = {k: _coerce(v, schema()["properties"].get(k, {}), k) for k, v in config.items()}
    typed = _fill(user, schema())
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(typed), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        key = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        if e.validator == "additionalProperties":
            allowed = ", ".join(sorted(_resolve(e.schema).get("properties", {})))
            raise ConfigError(f"unknown config key under '{key}': {e.message}; allowed keys: {allowed}")
        bounds = allowed_range(e.schema, key) if e.validator in _BOUNDS else None
        raise ConfigError(f"bad value for config key '{key}': {e.message}" + (f"; allowed: {bounds}" if bounds else ""))
    return typed


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def allowed_range(node: dict[str, Any], name: str = "x") -> str | None:
    """A number's allowed range from its schema node, e.g. ``0 < x <= 1`` (None: unbounded)."""
    low = next(((op, node[k]) for k, op in (("minimum", "<="), ("exclusiveMinimum", "<")) if k in node), None)
    high = next(((op, node[k]) for k, op in (("maximum", "<="), ("exclusiveMaximum", "<")) if k in node), None)
    if low and high:
        return f"{low[1]} {low[0]} {name} {high[0]} {high[1]}"
    if low:
        return f"{name} {low[0].replace('<', '>')} {low[1]}"
    return f"{name} {high[0]} {high[1]}" if high else None


def check_workdir(workdir: str | Path) -> None:
    """Raise ConfigError, in one sentence, when the run directory cannot be written: a path that
    is a file, or a directory (or, for one to be created, its nearest existing parent) that this
    user may not write.  ``os.access`` decides: as root a mode-0555 directory is writable, a
    read-only file system is not."""
    path = Path(workdir).expanduser()
    fix = "set workdir= to a directory you can write (it is created if missing)"
    if path.exists() and not path.is_dir():
        raise ConfigError(f"config workdir '{workdir}' is a file, not a directory; {fix}")
    probe = path.absolute()
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"config workdir '{workdir}' cannot be created: '{probe}' is a file; {fix}")
    if not os.access(probe, os.W_OK | os.X_OK):
        where = "it is" if probe == path.absolute() else f"'{probe}', where it would be created, is"
        raise ConfigError(f"config workdir '{workdir}' is not writable: {where} read-only for this user; {fix}")


def cuda_visible() -> bool:
    """Whether this machine shows a CUDA device: one ``nvidia-smi`` lists (as the GPU scheduler
    sees them, core/gpumem.py), else one torch sees (asked only then: importing torch is slow)."""
    from . import gpumem

    if gpumem.devices():
        return True
    import torch

    return bool(torch.cuda.is_available())


def check_device(device: str) -> None:
    """Raise ConfigError, in one sentence, for ``device: cuda`` on a machine without a visible
    CUDA device (``auto`` chooses by itself, ``cpu`` needs none)."""
    if device == "cuda" and not cuda_visible():
        raise ConfigError(
            "config device=cuda but no CUDA device is visible on this machine; "
            "use device=cpu for CPU mode (Triton's interpreter) or device=auto"
        )


def check_run(cfg: dict[str, Any], *, jobs_here: bool = True) -> None:
    """What the workflow checks of a validated config beyond its schema, before any job starts
    (workflow/rules/common.smk): a run directory this user can write and, when the jobs run on this
    machine (``jobs_here``; not when Snakemake submits them to a cluster from a login node
    without a GPU), a CUDA device for ``device: cuda``."""
    check_workdir(cfg["workdir"])
    if jobs_here:
        check_device(cfg["device"])


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``, nested mappings merged key by key."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out


def load(path: str | Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Read a YAML config file, apply overrides, validate."""
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    return validate(merge(data, overrides or {}))


def settings_for(cfg: dict[str, Any], rule: str) -> dict[str, Any]:
    """The part of a validated config that ``rule`` reads (``RULE_SETTINGS``), same nesting."""
    if rule not in RULE_SETTINGS:
        raise KeyError(f"no settings declared for rule {rule!r} (kernelopt.core.config.RULE_SETTINGS)")
    out: dict[str, Any] = {}
    for key in RULE_SETTINGS[rule]:
        head, _, tail = key.partition(".")
        if tail:
            out.setdefault(head, {})[tail] = copy.deepcopy(cfg[head][tail])
        else:
            out[head] = copy.deepcopy(cfg[head])
    if out.get("agent", {}).get("backend") == "heuristic":
        out["agent"] = {"backend": "heuristic"}  # the model's settings change none of its outputs
    return out


# KERNELOPT_RECORD_SETTINGS=<dir> (tests/test_rule_settings.py): every job notes which of its
# settings its code reads and writes them to <dir> when its process ends, so that a run shows
# RULE_SETTINGS drifting from the code (a declared setting no code reads re-runs the rule for
# nothing; one read but not declared is never handed out, and a change to it re-runs nothing).
RECORD_ENV = "KERNELOPT_RECORD_SETTINGS"


def recording() -> bool:
    """Whether this run's jobs record the settings they read (``RECORD_ENV``)."""
    return bool(os.environ.get(RECORD_ENV))


def handed_settings(cfg: dict[str, Any], rule: str) -> dict[str, Any]:
    """What the workflow hands ``rule`` (its ``params.cfg``): ``settings_for``; while the run
    records (``RECORD_ENV``), the same settings as a ``_RecordedInJob``, which turns into a
    ``RecordingSettings`` in the job's own process."""
    out = settings_for(cfg, rule)
    return _RecordedInJob(out, rule) if recording() else out


class RecordingSettings(dict):
    """A rule's settings that note the path of every key read (``gates.rtol``), at any nesting:
    a nested mapping is handed out as a ``RecordingSettings`` of its own that notes into the
    same set.  A key asked for and missing (``get``, ``in``) is a read too; so is every key of
    a mapping copied or serialised whole (``dict(s)``, ``{**s}``, ``json.dumps(s)``, pickled);
    a copy (``copy.copy``, ``copy.deepcopy``) notes into the same set."""

    def __init__(self, data: dict[str, Any], reads: set[str] | None = None, prefix: str = ""):
        super().__init__(data)
        self.reads: set[str] = set() if reads is None else reads
        self._prefix = prefix

    def _read(self, key: Any, value: Any) -> Any:
        path = f"{self._prefix}{key}"
        self.reads.add(path)
        return RecordingSettings(value, self.reads, f"{path}.") if isinstance(value, dict) else value

    def __getitem__(self, key: Any) -> Any:
        return self._read(key, super().__getitem__(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return self._read(key, super().get(key, default))

    def __contains__(self, key: Any) -> bool:
        self.reads.add(f"{self._prefix}{key}")
        return super().__contains__(key)

    def __iter__(self):  # defined, so that dict(s) and {**s} take the values one by one (reads)
        return super().__iter__()

    def items(self):  # type: ignore[override]
        return [(k, self._read(k, v)) for k, v in super().items()]

    def values(self):  # type: ignore[override]
        return [v for _, v in self.items()]

    def __copy__(self) -> RecordingSettings:
        return RecordingSettings(dict(super().items()), self.reads, self._prefix)

    def __deepcopy__(self, memo: dict[int, Any]) -> RecordingSettings:
        return RecordingSettings(copy.deepcopy(dict(super().items()), memo), self.reads, self._prefix)

    def __reduce__(self):  # pickled (for a child process): a plain dict, every key read
        return dict, (dict(self.items()),)


class _RecordedInJob(dict):
    """A rule's settings as the workflow hands them while the run records: Snakemake pickles a
    job's ``params`` into its script, and unpickled there they become a ``RecordingSettings``
    whose reads ``write_reads`` writes when the job's process ends."""

    def __init__(self, data: dict[str, Any], rule: str):
        super().__init__(data)
        self.rule = rule

    def __reduce__(self):
        return _recording_in_job, (dict(self), self.rule)


def _recording_in_job(data: dict[str, Any], rule: str) -> RecordingSettings:
    import atexit

    recorded = RecordingSettings(data)
    if where := os.environ.get(RECORD_ENV):
        atexit.register(write_reads, Path(where), rule, data, recorded)
    return recorded


def write_reads(where: Path, rule: str, handed: dict[str, Any], recorded: RecordingSettings) -> Path:
    """``<where>/<rule>-<pid>.json``: the job's rule (and wildcards, from Snakemake's object in
    the job's script), the keys of ``RULE_SETTINGS`` it was handed (``declared``) and the key
    paths its code read (``read``)."""
    import sys

    job = getattr(sys.modules.get("__main__"), "snakemake", None)
    record = {
        "rule": rule,
        "wildcards": dict(job.wildcards.items()) if job is not None else {},
        "declared": declared_keys(handed, rule),
        "read": sorted(recorded.reads),
    }
    out = where / f"{rule}-{os.getpid()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    return out


def declared_keys(handed: dict[str, Any], rule: str) -> list[str]:
    """The keys of ``RULE_SETTINGS[rule]`` that ``handed`` (``settings_for``) holds: all of them,
    except the model's settings with the heuristic backend."""
    out = []
    for key in RULE_SETTINGS[rule]:
        head, _, tail = key.partition(".")
        if head in handed and (not tail or tail in handed[head]):
            out.append(key)
    return out


def settings_drift(declared: list[str] | set[str], read: list[str] | set[str]) -> tuple[list[str], list[str]]:
    """(declared but never read, read but never declared).  A declared key counts as read when it
    or a key under it was read (``measure`` by ``measure.rounds``); a read key counts as declared
    when it, a key above it or a key under it is declared (``gates`` on the way to ``gates.rtol``)."""

    def under(a: str, b: str) -> bool:
        return a == b or a.startswith(b + ".")

    unread = sorted(d for d in declared if not any(under(r, d) for r in read))
    undeclared = sorted(r for r in read if not any(under(r, d) or under(d, r) for d in declared))
    return unread, undeclared


def invalidated_by(setting: str) -> list[str]:
    """The rules whose jobs re-run when ``setting`` (e.g. ``gates.perf_margin``) changes."""
    head = setting.partition(".")[0]
    return [
        r
        for r, keys in RULE_SETTINGS.items()
        if any(k == setting or k == head or k.startswith(setting + ".") for k in keys)
    ]


def setting_keys() -> list[str]:
    """Every setting as ``section.key`` (protocol sections as a whole), in the schema's order."""
    out = []
    for key, node in schema()["properties"].items():
        node = _resolve(node)
        if node.get("type") == "object" and "$defs" not in str(schema()["properties"][key].get("$ref", "")):
            out += [f"{key}.{k}" for k in node["properties"]]
        else:
            out.append(key)
    return out


def invalidation_table() -> str:
    """The README's table: which rules re-run when a setting changes (from ``RULE_SETTINGS``)."""
    rows = ["| setting | rules whose jobs re-run (then everything downstream of them) |", "| --- | --- |"]
    for key in setting_keys():
        if key in ("problems", "workdir"):
            continue
        rules = invalidated_by(key)
        none = "none (read at run time from `<workdir>/llm/settings.json`)" if key in _OPERATIONAL else "none"
        if key in _SCHEDULING:
            none = "none (a job's GPU memory resource and retries only)"
        if key in _WHERE:
            none = "none (where a job's work runs, not what it computes)"
        rows.append(f"| `{key}` | {', '.join(f'`{r}`' for r in rules) or none} |")
    return "\n".join(rows)


def reference_table() -> str:
    """docs/configuration.md's table: every setting, its default, its allowed range and its meaning (from the
    schema)."""
    rows = ["| setting | default | allowed | meaning |", "| --- | --- | --- | --- |"]
    d = defaults()
    for key in setting_keys():
        head, _, tail = key.partition(".")
        node = _resolve(schema()["properties"][head])
        if tail:
            node = _resolve(node["properties"][tail])
        value = d[head][tail] if tail else d[head]
        shown = (
            yaml.safe_dump(value, default_flow_style=True, width=1000, sort_keys=False)
            .strip()
            .removesuffix("...")
            .strip()
        )
        bounds = allowed_range(node)
        rows.append(f"| `{key}` | `{shown}` | {f'`{bounds}`' if bounds else ''} | {node.get('description', '')} |")
    return "\n".join(rows)
