"""Agent roles behind one interface (docs/architecture.md, "Agents"): synthesizer, profiler,
strategy analyst, planner, executor, fixer, summarizer.  Backends: ``heuristic`` (offline,
deterministic, heuristic.py), ``anthropic`` (Claude through the anthropic SDK, claude.py and
roles/) and ``replay`` (the same roles answered from a finished run's transcripts).
Everything that passes between roles is a JSON-able record (base.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .base import Analysis, Backend, Direction, Memory, Plan, ProfileSummary
from .llm.client import KEY_ENV

LLM_BACKENDS = ("anthropic", "replay")


def resolve(name: str) -> str:
    """``auto`` = anthropic when ANTHROPIC_API_KEY is set, else heuristic."""
    if name == "auto":
        return "anthropic" if os.environ.get(KEY_ENV) else "heuristic"
    return name


def backend(
    agent: dict[str, Any] | str,
    workdir: Path | None = None,
    problem: str = "",
    unit: str = "",
    where: Path | None = None,
) -> Any:
    """The backend of ``agent`` (the config's agent section, or a backend name); an LLM
    backend writes its transcripts under ``where/llm/``."""
    agent = {"backend": agent} if isinstance(agent, str) else dict(agent)
    agent["backend"] = name = resolve(agent["backend"])
    if name == "heuristic":
        from .heuristic import HeuristicBackend

        return HeuristicBackend()
    if name in LLM_BACKENDS:
        if workdir is None or where is None:
            raise ValueError(f"the {name} backend needs the run directory and the place of its calls")
        from .claude import LLMBackend

        return LLMBackend(agent, Path(workdir), problem, unit, Path(where))
    raise ValueError(f"unknown agent backend {name!r} (heuristic, anthropic, replay, auto)")


__all__ = ["Analysis", "Backend", "Direction", "Memory", "Plan", "ProfileSummary", "backend", "prepare", "resolve"]


def prepare(agent: dict[str, Any], workdir: str | Path) -> str:
    """At config time: the resolved backend name.  ``auto`` says in one line which backend
    runs; ``anthropic`` without a key and ``replay`` without transcripts stop the run with
    one sentence (ConfigError); an LLM backend's operational settings are written to
    ``<workdir>/llm/settings.json`` (budgets, prices, concurrency: never a reason to re-run)."""
    import sys

    from ...core.errors import ConfigError
    from .llm.client import replay_index, write_settings

    name = resolve(agent["backend"])
    if agent["backend"] == "auto":
        why = f"{KEY_ENV} is set" if name == "anthropic" else f"{KEY_ENV} is not set"
        print(f"kernelopt: agent.backend=auto -> {name} ({why})", file=sys.stderr)
    if name == "anthropic" and not os.environ.get(KEY_ENV):
        raise ConfigError(
            f"agent.backend=anthropic needs the API key in the environment variable {KEY_ENV} "
            "(it is read from there only); set it, or choose agent.backend=heuristic"
        )
    if name == "anthropic" and agent.get("model") not in (agent.get("prices") or {}):
        raise ConfigError(
            f"agent.model {agent.get('model')!r} has no row in agent.prices, so its cost and the USD budgets "
            "could not be counted; add its prices (USD per million input, output, cache_write, cache_read tokens)"
        )
    if name == "replay":
        if not agent.get("replay_from"):
            raise ConfigError("agent.backend=replay needs agent.replay_from: the finished run's directory")
        src = Path(agent["replay_from"])
        if src.resolve() == Path(workdir).resolve():
            raise ConfigError(
                "agent.replay_from is this run's own workdir: replay into another directory "
                "(--config workdir=...), so the finished run's transcripts stay as they were"
            )
        if not replay_index(src):
            raise ConfigError(
                f"agent.backend=replay found no LLM transcripts under {src} (agent.replay_from names the finished run)"
            )
    if name in LLM_BACKENDS:
        write_settings(workdir, agent)
    return name
