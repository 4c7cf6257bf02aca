import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def snakemake(*args: str, cwd: Path = ROOT, timeout: int = 1800) -> subprocess.CompletedProcess:
    """Run the real snakemake CLI of this environment in a subprocess."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )


@pytest.fixture
def root() -> Path:
    return ROOT
