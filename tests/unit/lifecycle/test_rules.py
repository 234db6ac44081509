"""Pure lifecycle rules: TTL decisions, pair classification, chain verification."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memvault.errors import ConfigError
from memvault.lifecycle import LifecyclePolicy, plan_expiry, purge_due, verify_chain
from memvault.lifecycle.consolidate import (
    DEFAULT_BANDS,
    classify,
    fingerprint,
    lexical_overlap,
    pair_view,
    top_decile_access,
)
from memvault.lifecycle.proposals import consent_fields, redact
from memvault.lifecycle.ttl import expiry_reason, parse_timestamp
from memvault.model import HistoryOp, MemoryNode, MemoryStatus, StopReason, TTLClass
from memvault.store.base import GENESIS_HASH, HistoryEvent, chain_hash
from memvault.store.records import AuditHead
from tests.helpers import make_node

T0 = datetime(2026, 1, 1, tzinfo=UTC)
STAMP = "2026-01-01T00:00:00.000000Z"


def _node(**changes: object) -> MemoryNode:
    return make_node(created_at=STAMP, updated_at=STAMP, **changes)


@pytest.mark.parametrize(
    ("changes", "days", "expected"),
    [
        ({"importance": 10}, 59, None),
        ({"importance": 10}, 60, "idle"),
        ({"importance": 59}, 61, "idle"),
        ({"importance": 60}, 400, None),
        ({"importance": 10, "pinned": True}, 400, None),
        ({"importance": 10, "status": MemoryStatus.SUPERSEDED}, 400, None),
        ({"importance": 99, "ttl_class": TTLClass.SHORT}, 1, "ttl_class"),
        ({"importance": 99, "ttl_class": TTLClass.MEDIUM}, 29, None),
        ({"importance": 99, "ttl_class": TTLClass.MEDIUM}, 30, "ttl_class"),
        ({"importance": 10, "last_accessed_at": "2026-02-15T00:00:00.000000Z"}, 70, None),
    ],
)
def test_expiry_rules(changes: dict[str, object], days: int, expected: str | None) -> None:
    node = _node(**changes)
    assert expiry_reason(node, T0 + timedelta(days=days), LifecyclePolicy()) == expected


@given(importance=st.integers(0, 100), days=st.integers(0, 500), pinned=st.booleans())
def test_pinned_never_expires_and_plan_is_sorted(importance: int, days: int, pinned: bool) -> None:
    nodes = [_node(importance=importance, pinned=pinned) for _ in range(3)]
    plan = plan_expiry(nodes, T0 + timedelta(days=days), LifecyclePolicy())
    assert [e.node.memory_id for e in plan] == sorted(e.node.memory_id for e in plan)
    if pinned:
        assert plan == []


def test_purge_due() -> None:
    deleted = _node(status=MemoryStatus.SOFT_DELETED, purge_at="2026-01-31T00:00:00.000000Z")
    assert not purge_due(deleted, T0 + timedelta(days=29))
    assert purge_due(deleted, T0 + timedelta(days=30))
    assert not purge_due(_node(), T0 + timedelta(days=300))


def test_policy_validates_once() -> None:
    with pytest.raises(ConfigError):
        LifecyclePolicy(idle_after=timedelta(0))
    with pytest.raises(ConfigError):
        LifecyclePolicy(class_lifetimes={TTLClass.SHORT: timedelta(days=-1)})
    assert LifecyclePolicy().shortest_window() == timedelta(days=1)


def test_parse_timestamp_is_utc() -> None:
    assert parse_timestamp(STAMP) == T0
    assert parse_timestamp("2026-01-01T00:00:00") == T0


BANDS = DEFAULT_BANDS["lexical"]


@pytest.mark.parametrize(
    ("a", "b", "score", "user", "expected"),
    [
        ("Likes tea", "likes tea!", 0.1, "u1", "merge"),
        ("Dana likes green tea a lot", "Dana likes green tea", 0.95, "u1", "merge"),
        ("Dana runs 5 km", "Dana runs 10 km", 0.95, "u1", "propose"),
        ("Dana drinks coffee", "Dana does not drink coffee", 0.7, "u1", "propose"),
        ("Service uses port 80", "Service uses port 8080", 0.7, None, "contradict"),
        ("Dana likes hiking in Oslo", "Dana likes hiking in Lima", 0.7, "u1", "link"),
        ("Dana likes hiking", "The build is red", 0.1, "u1", "skip"),
    ],
)
def test_classify(a: str, b: str, score: float, user: str | None, expected: str) -> None:
    va, vb = pair_view("m1", a, "Preference", user), pair_view("m2", b, "Preference", user)
    assert classify(va, vb, score, BANDS) == expected
    assert classify(vb, va, score, BANDS) == expected  # symmetric


def test_pair_helpers() -> None:
    assert fingerprint("b", "a", 0.456) == ("a+b", 0.46)
    assert lexical_overlap("Dana likes tea", "tea time")
    assert not lexical_overlap("the a of", "the a of")
    assert top_decile_access([0] * 10, 0.1) > 10**9
    assert top_decile_access(list(range(100)), 0.1) == 90


def test_redaction_and_consent() -> None:
    candidate = {"content": "x", "type": "Fact", "category": "PREFERENCE", "replaces": ["a"]}
    assert redact(candidate) == {"type": "Fact", "category": "PREFERENCE", "replaces": ["a"]}
    fields = consent_fields({**candidate, "source_kind": "DERIVED_UNVERIFIED"})
    assert fields["source_kind"] == "USER_EXPLICIT" and "content" not in fields
    assert "replaces" not in fields


def _chain(n: int) -> list[HistoryEvent]:
    prev, out = GENESIS_HASH, []
    for i in range(n):
        e = HistoryEvent(
            f"evt_{i}", "acme", HistoryOp.CREATE, STAMP, f"m{i}", StopReason.SUCCESS_STORED
        )
        digest = chain_hash(prev, e)
        out.append(replace(e, prev_hash=prev, hash=digest))
        prev = digest
    return out


@given(n=st.integers(1, 8), data=st.data())
def test_any_single_tampering_is_found(n: int, data: st.DataObject) -> None:
    chain = _chain(n)
    head = AuditHead(n, chain[-1].hash)
    assert verify_chain(chain, head).ok
    i = data.draw(st.integers(0, n - 1))
    edited = [*chain[:i], replace(chain[i], actor="mallory"), *chain[i + 1 :]]
    report = verify_chain(edited, head)
    assert not report.ok and report.broken is not None and report.broken.position == i + 1
    removed = chain[:i] + chain[i + 1 :]
    report = verify_chain(removed, head)
    assert not report.ok and report.broken is not None
    assert report.broken.position == min(i + 1, n)
