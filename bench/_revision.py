"""Another revision's sources beside this tree's, each run in a process of its own.

Trigger: a speed change proved identical by running both trees on the same inputs
  (``gate_identity.py``: every gate decision; ``search_identity.py``: every search result).
Why: both scripts extracted the base revision the same way and started its process the
  same way; two copies of that runner drift apart.
Outcome: :func:`base_sources` extracts ``git archive REV src`` into a directory and says
  which commit it was; :func:`start` runs a command with one tree's sources first on
  ``sys.path`` (``OMP_NUM_THREADS=1``, so CPU figures of the two trees compare).
"""

from __future__ import annotations

import os
import subprocess
import tarfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ROOT", "base_sources", "start"]

ROOT = Path(__file__).resolve().parents[1]


def base_sources(rev: str, into: Path) -> tuple[Path, str]:
    """The ``src`` directory of revision ``rev`` extracted under ``into``, and its short hash."""
    tree = into / "base"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True
    ).stdout
    archive_path = into / "base.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(tree, filter="data")
    short = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return tree / "src", short


def start(src: Path, cmd: Sequence[str], cwd: Path = ROOT) -> subprocess.Popen[bytes]:
    """``cmd`` started with ``src`` first on ``sys.path`` and one OpenMP thread."""
    env = dict(os.environ, PYTHONPATH=str(src), OMP_NUM_THREADS="1")
    return subprocess.Popen(list(cmd), env=env, cwd=cwd)
