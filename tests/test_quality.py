"""Lint, format and type checks run as tests so CI and contributors see them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is a dev dependency")
def test_ruff_check_and_format() -> None:
    check = _run("ruff", "check", "src", "tests", "bench")
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = _run("ruff", "format", "--check", "src", "tests", "bench")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_strict() -> None:
    result = _run(sys.executable, "-m", "mypy", "--strict", "src")
    assert result.returncode == 0, result.stdout + result.stderr
