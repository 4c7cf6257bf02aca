"""The code style CI enforces: ruff's lint and formatter (configured in pyproject.toml)."""

import subprocess

from conftest import tool


def _ruff(*args: str, root) -> subprocess.CompletedProcess:
    return subprocess.run([tool("ruff"), *args], cwd=root, capture_output=True, text=True)


def test_ruff_lint_is_clean(root):
    r = _ruff("check", ".", root=root)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr


def test_ruff_format_is_clean(root):
    r = _ruff("format", "--check", ".", root=root)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr
