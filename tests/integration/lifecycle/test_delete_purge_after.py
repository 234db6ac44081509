"""``LifecyclePolicy.purge_after`` also dates an explicit delete's purge (review R8).

docs/lifecycle.md: "All durations live in one frozen value, LifecyclePolicy" and
"explicit `memvault delete` uses the same 30 days". The sweep's soft deletes take
``policy.purge_after``; ``WritePipeline.transition`` (delete) adds the constant
``PURGE_AFTER`` (30 days) whatever the policy says — a shorter retention an operator
set for privacy is ignored for every memory a user or agent deletes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault.engine import MemoryEngine, NewMemory
from memvault.lifecycle.settings import LifecyclePolicy
from memvault.lifecycle.ttl import parse_timestamp


def test_an_explicit_delete_is_purged_after_the_policys_purge_after(tmp_path: Path) -> None:
    moment = datetime(2026, 3, 1, tzinfo=UTC)
    with MemoryEngine.open(tmp_path, "acme", embedder=None, clock=lambda: moment) as engine:
        engine.lifecycle_policy = LifecyclePolicy(purge_after=timedelta(days=7))
        stored = engine.add(
            NewMemory(
                content="Prefers tea",
                type="Preference",
                category="PREFERENCE",
                source_kind="USER_EXPLICIT",
            )
        )
        assert stored.memory_id is not None and engine.delete(stored.memory_id).ok
        node = engine.get(stored.memory_id, include_deleted=True).node
        assert node.purge_at is not None
        assert parse_timestamp(node.purge_at) == moment + timedelta(days=7)


def test_the_default_policy_keeps_a_deleted_memory_thirty_days(tmp_path: Path) -> None:
    moment = datetime(2026, 3, 1, tzinfo=UTC)
    with MemoryEngine.open(tmp_path, "acme", embedder=None, clock=lambda: moment) as engine:
        stored = engine.add(
            NewMemory(
                content="Prefers green tea",
                type="Preference",
                category="PREFERENCE",
                source_kind="USER_EXPLICIT",
            )
        )
        assert stored.memory_id is not None and engine.delete(stored.memory_id).ok
        node = engine.get(stored.memory_id, include_deleted=True).node
        assert node.purge_at is not None
        assert parse_timestamp(node.purge_at) == moment + timedelta(days=30)
