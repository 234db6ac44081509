"""Ingest's merge never writes back a stale copy of its target (review S12-R4).

A file whose chunk repeats a stored memory merges into it: the target, read when the
file is planned, is written back touched (accessed once more, confidence nudged). A
delete or an edit between the plan and the file's commit was undone by that copy; now
the write carries the target as read (``WriteSet.expected``), rolls back, and the file
is planned again on a fresh read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memvault.ingest.pipeline as ingest_pipeline
from memvault.engine import MemoryEngine
from memvault.model import MemoryStatus


def _setup(tmp_path: Path) -> tuple[MemoryEngine, str]:
    e = MemoryEngine.open(tmp_path / "home", "acme", embedder="hashing")
    assert e.layout is not None
    (e.layout.ingest_dir / "first.txt").write_text(
        "The billing service publishes to the event bus.\n", encoding="utf-8"
    )
    (first,) = e.ingest_pending(settle_seconds=0).processed
    (original,) = first.memory_ids
    (e.layout.ingest_dir / "second.md").write_text(
        "# Notes\n\nThe billing service publishes to the event bus.\n\n"
        "## Other\n\nThe search index is rebuilt every night.\n",
        encoding="utf-8",
    )
    return e, original


def _after_plan(monkeypatch: pytest.MonkeyPatch, step: Callable[[], Any]) -> None:
    original = ingest_pipeline.plan_file
    done: list[bool] = []

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        if not done:
            done.append(True)
            step()
        return out

    monkeypatch.setattr(ingest_pipeline, "plan_file", wrapped)


def test_a_delete_during_ingest_is_not_undone_by_its_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    e, original = _setup(tmp_path)
    with e:
        _after_plan(monkeypatch, lambda: e.delete(original).raise_for_status())
        e.ingest_pending(settle_seconds=0)
        status = e.get(original, include_deleted=True).node.status
        assert status is MemoryStatus.SOFT_DELETED, "the user's delete was undone by the merge"


def test_an_edit_during_ingest_is_not_overwritten_by_its_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    e, original = _setup(tmp_path)
    with e:
        patch = e.memory_patch(original, {"importance": 91})
        _after_plan(monkeypatch, lambda: e.update(original, patch).raise_for_status())
        e.ingest_pending(settle_seconds=0)
        assert e.get(original).node.importance == 91, "the user's edit was overwritten"
