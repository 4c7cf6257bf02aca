"""Agent roles behind one interface (docs/architecture.md, "Agents"): profiler, strategy analyst, planner,
executor, summarizer.  Backends: ``heuristic`` (offline, deterministic; this package);
``anthropic`` and ``replay`` come next on the same interface.  Everything that passes
between roles is a JSON-able record (base.py), so an LLM could produce it too."""

from __future__ import annotations

from .base import Analysis, Backend, Direction, Memory, Plan, ProfileSummary


def backend(name: str) -> Backend:
    """``auto`` = anthropic when ANTHROPIC_API_KEY is set, else heuristic."""
    import os

    if name == "auto":
        if os.environ.get("ANTHROPIC_API_KEY"):
            print(
                "agent.backend=auto: ANTHROPIC_API_KEY is set, but the anthropic backend is not built yet; "
                "using the heuristic backend"
            )
        name = "heuristic"
    if name == "heuristic":
        from .heuristic import HeuristicBackend

        return HeuristicBackend()
    raise NotImplementedError(
        f"agent backend {name!r} is not implemented yet (heuristic is); set agent.backend=heuristic"
    )


__all__ = ["Analysis", "Backend", "Direction", "Memory", "Plan", "ProfileSummary", "backend"]
