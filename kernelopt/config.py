"""The run configuration: JSON-schema validation, defaults, and type coercion.

Snakemake parses ``--config key=value`` overrides with YAML's BaseLoader, so a number
arrives as the string ``"0.2"`` and a nested override (``search='{iterations: 2}'``) as a
dict of strings.  ``validate`` coerces such strings to the schema's types before checking,
so the rest of the code always sees typed values.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .errors import ConfigError

_NUM = {"type": "number"}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "problems": {
            "description": "directory searched recursively for KernelBench-format .py files, or a list of files",
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            ],
        },
        "device": {"enum": ["auto", "cuda", "cpu"]},
        "workdir": {"type": "string", "minLength": 1},
        "seed": {"type": "integer", "minimum": 0},
        "capture": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "mode": {"enum": ["max-autotune", "max-autotune-no-cudagraphs", "default"]},
                "profile_reps": {"type": "integer", "minimum": 1},
            },
        },
        "classify": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "min_triton_share": {**_NUM, "minimum": 0, "maximum": 1},
                "fuse_neighbours": {"type": "boolean"},
            },
        },
        "candidates": {"description": "directory of hand-written candidates: <dir>/<problem>/<unit>*.py", "type": ["string", "null"]},
        "gates": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "user_candidates": {"type": "integer", "minimum": 0, "maximum": 8},
                "seeds": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
                "rtol": {**_NUM, "exclusiveMinimum": 0},
                "atol": {**_NUM, "exclusiveMinimum": 0},
                "model_rtol": {**_NUM, "exclusiveMinimum": 0},
                "model_atol": {**_NUM, "exclusiveMinimum": 0},
                "fp64_ratio": {**_NUM, "exclusiveMinimum": 0},
                "perf_margin": {**_NUM, "minimum": 0},
                "optimized_min_speedup": {**_NUM, "minimum": 1},
                "retries": {"type": "integer", "minimum": 0, "maximum": 2},
                "replace_with_inductor": {"type": "boolean"},
            },
        },
        "search": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "iterations": {"type": "integer", "minimum": 0, "maximum": 20},
                "beam_width": {"type": "integer", "minimum": 1, "maximum": 8},
                "seed_with_inductor": {"type": "boolean"},
                "synthesis_attempts": {"type": "integer", "minimum": 0, "maximum": 4},
                "retries": {"type": "integer", "minimum": 0, "maximum": 2},
                "ncu": {"enum": ["auto", "off"]},
                "ncu_sections": {"type": "array", "items": {"type": "string"}},
                "peak_bandwidth_gbs": {**_NUM, "exclusiveMinimum": 0},
            },
        },
        "agent": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"backend": {"enum": ["auto", "heuristic", "anthropic", "replay"]}},
        },
        "measure": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "rounds": {"type": "integer", "minimum": 2},
                "reps": {"type": "integer", "minimum": 1},
                "warmup": {"type": "integer", "minimum": 0},
                "flush_l2": {"type": "boolean"},
            },
        },
        "isolate": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "seeds": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
                "rtol": {**_NUM, "exclusiveMinimum": 0},
                "atol": {**_NUM, "exclusiveMinimum": 0},
            },
        },
    },
}

DEFAULTS: dict[str, Any] = {
    "problems": "problems/demo",
    "device": "auto",
    "workdir": "workdir",
    "seed": 0,
    "capture": {"mode": "max-autotune", "profile_reps": 3},
    "classify": {"min_triton_share": 0.10, "fuse_neighbours": True},
    "isolate": {"seeds": [0, 1, 2], "rtol": 1e-3, "atol": 1e-3},
    "candidates": None,
    "gates": {
        "user_candidates": 1,
        "seeds": [0, 1, 2],
        "rtol": 1e-3,
        "atol": 1e-3,
        "model_rtol": 1e-4,
        "model_atol": 1e-4,
        "fp64_ratio": 10.0,
        "perf_margin": 0.03,
        "optimized_min_speedup": 1.01,
        "retries": 2,
        "replace_with_inductor": False,
    },
    "measure": {"rounds": 10, "reps": 20, "warmup": 5, "flush_l2": True},
    "search": {
        "iterations": 5,
        "beam_width": 4,
        "seed_with_inductor": True,
        "synthesis_attempts": 4,
        "retries": 2,
        "ncu": "auto",
        "ncu_sections": ["SpeedOfLight", "Occupancy", "LaunchStats", "WarpStateStats", "MemoryWorkloadAnalysis"],
        "peak_bandwidth_gbs": 4300.0,
    },
    "agent": {"backend": "auto"},
}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _coerce(value: Any, schema: dict[str, Any], where: str) -> Any:
    """Turn BaseLoader strings into the schema's scalar types (recursively)."""
    types: set[str] = set()
    if "type" in schema:
        t = schema["type"]
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
    if isinstance(value, dict) and "properties" in schema:
        return {k: _coerce(v, schema["properties"].get(k, {}), f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        item = schema.get("items")
        if item is None and "anyOf" in schema:
            item = next((s.get("items") for s in schema["anyOf"] if s.get("type") == "array"), None)
        if item:
            return [_coerce(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def validate(config: dict[str, Any]) -> dict[str, Any]:
    """Return the full, typed config (defaults filled in); raise ConfigError on a bad key or value."""
    if not isinstance(config, dict):
        raise ConfigError("the config must be a mapping of keys to values (see config.yaml)")
    # Coerce before merging: a nested override may arrive as one YAML string.
    user = {k: _coerce(v, SCHEMA["properties"].get(k, {}), k) for k, v in config.items()}
    typed = _merge(DEFAULTS, user)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = sorted(validator.iter_errors(typed), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        key = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        if e.validator == "additionalProperties":
            allowed = ", ".join(sorted(e.schema.get("properties", {})))
            raise ConfigError(f"unknown config key under '{key}': {e.message}; allowed keys: {allowed}")
        raise ConfigError(f"bad value for config key '{key}': {e.message}")
    return typed


def load(path: str | Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Read a YAML config file, apply overrides, validate."""
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    return validate(_merge(data, overrides or {}))
