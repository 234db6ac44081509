"""Review (session 9): ``max_file_size_mb=0`` is refused like any non-positive size.

``ingest_pending(max_file_size_mb=0)`` and ``memvault ingest --max-file-size-mb 0``
took ``0 or <configured limit>``: a zero meant "the configured limit" without a word,
while ``-1`` was refused ("must be positive") — a value that validates and does nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from memvault.errors import ConfigError


def test_the_library_refuses_a_zero_size_limit(tmp_path: Path) -> None:
    with (
        MemoryEngine.open(tmp_path, "acme", embedder=None) as engine,
        pytest.raises(ConfigError, match="must be positive"),
    ):
        engine.ingest_pending(max_file_size_mb=0)


def test_the_cli_refuses_a_zero_size_limit(tmp_path: Path) -> None:
    home = ["--home", str(tmp_path)]
    run = subprocess.run(
        [sys.executable, "-m", "memvault", *home, "ingest", "--max-file-size-mb", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert "must be positive" in run.stderr
