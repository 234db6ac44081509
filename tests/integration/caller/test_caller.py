"""engine.as_caller: one façade per caller, every call authorised in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.access import AccessControl
from memvault.access.keys import Principal
from memvault.config import load_config
from memvault.engine import Grant, MemoryEngine, NewMemory
from memvault.errors import AccessDeniedError
from memvault.model.enums import HistoryOp
from tests.helpers import add_fields, update_fields
from tests.integration.caller.conftest import PREF, TODO


def test_every_operation_is_held_to_the_grant(engine: MemoryEngine) -> None:
    denied: list[tuple[str, str, tuple[str, ...]]] = []
    planner = engine.as_caller(
        Grant("planner", frozenset({"TODO"})),
        on_deny=lambda g, reason, op, cats: denied.append((reason, op, cats)),
    )
    todo = add_fields(planner, "Write the parser tests", **TODO)
    pref = add_fields(engine, "Dana prefers tea", **PREF)
    assert todo.ok and pref.ok and todo.memory_id and pref.memory_id
    calls = [
        lambda: add_fields(planner, "Prefers coffee", **PREF),
        lambda: planner.get(pref.memory_id or ""),
        lambda: update_fields(planner, pref.memory_id or "", importance=10),
        lambda: update_fields(planner, todo.memory_id or "", category="PREFERENCE"),
        lambda: planner.delete(pref.memory_id or ""),
        lambda: planner.history(pref.memory_id or ""),
        lambda: planner.link(todo.memory_id or "", pref.memory_id or "", "RelatedTo"),
        lambda: planner.search("tea", filters={"category": ["PREFERENCE"]}),
    ]
    for call in calls:
        with pytest.raises(AccessDeniedError) as caught:
            call()
        assert caught.value.reason == "category_not_allowed"
    assert [d[1] for d in denied] == [
        "add", "get", "update", "update", "delete", "history", "link", "read",
    ]  # fmt: skip
    assert all(d[2] == ("PREFERENCE",) for d in denied)
    # Reads without a category are held to the grant, not refused.
    assert [n.category for n in planner.list_memories()] == ["TODO"]
    assert {h.node.category for h in planner.search("tea parser").hits} <= {"TODO"}
    # The write names the caller's agent, though the engine has none of its own.
    assert engine.agent_id is None
    events = engine.history(todo.memory_id)
    assert events[0].op is HistoryOp.CREATE and events[0].actor == "planner"
    assert engine.get(todo.memory_id).node.agent_id == "planner"


def test_read_only_and_spanning_calls(engine: MemoryEngine) -> None:
    reader = engine.as_caller(Grant("reader", read_only=True))
    with pytest.raises(AccessDeniedError) as caught:
        add_fields(reader, "Dana prefers tea", **PREF)
    assert caught.value.reason == "read_only"
    limited = engine.as_caller(Grant("planner", frozenset({"TODO"})))
    with pytest.raises(AccessDeniedError) as spans:
        limited.authorize("bulletin", spans_all=True)
    assert spans.value.reason == "category_allowlist"
    # Methods the façade does not type yet are forwarded (run as the caller's agent).
    assert reader.stats().orchestrator == "acme"


def test_access_control_shares_one_engine_and_audits_denials(tmp_path: Path) -> None:
    control = AccessControl(
        tmp_path, load_config(tmp_path, overrides={"embedder": {"name": "hashing"}}, environ={})
    )
    try:
        a = control.engine(Principal("acme", "planner", "k1", frozenset({"TODO"})), "POST /x")
        b = control.engine(Principal("acme", "stylist", "k2"))
        assert a._engine is b._engine  # no copies of the engine per agent
        with pytest.raises(AccessDeniedError):
            add_fields(a, "Dana prefers tea", **PREF)
        log = (tmp_path / "acme" / "memory" / "logs" / "memory.log").read_text()
        assert '"access_denied"' in log and '"POST /x"' in log
        assert add_fields(b, "Dana prefers tea", **PREF).ok
    finally:
        control.close()


def test_naming_another_agent_is_refused_not_rewritten(engine: MemoryEngine) -> None:
    """The agent comes from the grant: a memory or query naming another is refused
    (``agent_mismatch``, HTTP 403 ``agent-mismatch``) by the façade, for every edge."""
    denied: list[tuple[str, str]] = []
    planner = engine.as_caller(
        Grant("planner"), on_deny=lambda g, reason, op, cats: denied.append((reason, op))
    )
    other = NewMemory(content="Write the parser tests", agent_id="stylist", **TODO)
    own = NewMemory(content="Write the parser tests", agent_id="planner", **TODO)
    calls = [
        lambda: planner.add(other),
        lambda: planner.add_many([{"content": "Ship it", "agent_id": "stylist", **TODO}]),
        lambda: planner.memory_query({"query": "parser", "agent": "stylist"}),
    ]
    for call in calls:
        with pytest.raises(AccessDeniedError) as caught:
            call()
        assert caught.value.reason == "agent_mismatch"
    assert [op for _, op in denied] == ["add", "add_many", "memory.query"]
    assert planner.add(own).ok
    assert planner.memory_query({"query": "parser", "agent": "planner"}).items
