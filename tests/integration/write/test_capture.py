"""The three write-back triggers end to end on real SQLite (no store mocks)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memvault.extract import Message
from memvault.extract.base import Extraction
from memvault.model.enums import EdgeType, HistoryOp, MemoryStatus, SourceKind, StopReason
from memvault.store import NodeFilter, SQLiteStore
from memvault.store.sqlite import writes as sqlite_writes
from memvault.write import CaptureConfig, CapturePipeline, Outcome
from tests.integration.write.conftest import make_pipeline

ALL = NodeFilter(status=tuple(MemoryStatus))


def say(p: CapturePipeline, text: str, **fields: Any) -> Any:
    fields.setdefault("user_id", "dana")
    fields.setdefault("speaker", "Dana")
    return p.capture_message(Message(text=text, **fields))


def nodes(store: SQLiteStore, **filters: Any) -> list[Any]:
    return store.list_nodes("acme", NodeFilter(status=tuple(MemoryStatus), **filters), limit=100)


@pytest.fixture(params=["pipeline", "hashed"])
def p(request: pytest.FixtureRequest) -> CapturePipeline:
    result: CapturePipeline = request.getfixturevalue(request.param)
    return result


def test_same_fact_twice_is_one_node_touched_and_merged(p: CapturePipeline) -> None:
    first = say(p, "I prefer tabs over spaces")
    second = say(p, "I prefer tabs over spaces.")
    assert [c.outcome for c in first.candidates] == [Outcome.STORED]
    assert [c.outcome for c in second.candidates] == [Outcome.MERGED]
    assert second.candidates[0].memory_ids == first.candidates[0].memory_ids
    (node,) = nodes(p.store)
    assert node.access_count == 1 and node.last_accessed_at is not None
    assert node.confidence == pytest.approx(0.95)
    ops = [e.op for e in p.store.history("acme", node.memory_id)]
    assert ops == [HistoryOp.CREATE, HistoryOp.MERGE]


def test_a_changed_employer_updates_and_supersedes(p: CapturePipeline) -> None:
    acme = say(p, "I work at Acme").candidates[0].memory_ids[0]
    result = say(p, "I now work at Globex")
    (cand,) = result.candidates
    assert cand.outcome is Outcome.UPDATED
    globex = cand.memory_ids[0]
    assert cand.memory_ids == (globex, acme)
    assert [(e.type, e.from_id, e.to_id) for e in cand.edges] == [("Updates", globex, acme)]
    old, new = (p.store.get_nodes("acme", [i])[0] for i in (acme, globex))
    assert old.status is MemoryStatus.SUPERSEDED  # never deleted
    assert new.status is MemoryStatus.ACTIVE and "Globex" in new.content
    edges = p.store.edges_of("acme", [globex])
    assert [(e.edge_type, e.to_memory_id) for e in edges] == [(EdgeType.UPDATES, acme)]
    assert HistoryOp.SUPERSEDE in [e.op for e in p.store.history("acme", acme)]


def test_a_consent_gated_city_is_refused_without_a_proposal_queue(p: CapturePipeline) -> None:
    # A stand-alone pipeline has no consent queue: the gate's refusal stands (the
    # engine's pipeline queues a proposal instead, tests/e2e/test_capture_cli.py).
    (cand,) = say(p, "I live in Lisbon").candidates
    assert cand.stop_reason is StopReason.MISSING_EXPLICIT_CONSENT and not cand.memory_ids


def test_coffee_contradiction_keeps_both_active_and_unresolved(p: CapturePipeline) -> None:
    love = say(p, "I love coffee").candidates[0].memory_ids[0]
    (cand,) = say(p, "I don't drink coffee").candidates
    assert cand.outcome is Outcome.CONTRADICTION
    dont = cand.memory_ids[0]
    assert [(e.type, e.from_id, e.to_id) for e in cand.edges] == [("Contradicts", dont, love)]
    both = p.store.get_nodes("acme", [love, dont])
    assert {n.status for n in both} == {MemoryStatus.ACTIVE}
    (edge,) = p.store.edges_of("acme", [dont])
    assert edge.edge_type is EdgeType.CONTRADICTS and edge.resolved is False


def test_no_longer_is_an_update_not_a_contradiction(pipeline: CapturePipeline) -> None:
    love = say(pipeline, "I love coffee").candidates[0].memory_ids[0]
    (cand,) = say(pipeline, "I don't drink coffee anymore").candidates
    assert cand.outcome is Outcome.UPDATED and cand.memory_ids[1] == love


def test_numeric_conflict_on_the_same_subject(pipeline: CapturePipeline) -> None:
    say(pipeline, "My team has 5 engineers")
    (cand,) = say(pipeline, "My team has 8 engineers").candidates
    assert cand.outcome is Outcome.CONTRADICTION


def test_related_memories_get_weighted_edges_without_duplicates(hashed: CapturePipeline) -> None:
    say(hashed, "I'm working on the Phoenix migration")
    (cand,) = say(hashed, "We decided to run the Phoenix migration in two phases").candidates
    assert cand.outcome is Outcome.RELATED
    (edge,) = hashed.store.edges_of("acme", [cand.memory_ids[0]])
    assert edge.edge_type is EdgeType.RELATED_TO and 0 < edge.weight <= 1


def test_tool_and_assistant_output_never_write(pipeline: CapturePipeline) -> None:
    for role in ("tool", "assistant", "system"):
        result = say(pipeline, "I love coffee. Remember that I live in Lisbon.", role=role)
        assert result.candidates == () and "never a write trigger" in result.skipped
    assert nodes(pipeline.store) == []
    assert pipeline.store.history("acme") == []


def test_sensitive_content_is_refused_by_the_gate_and_audited_without_content(
    pipeline: CapturePipeline,
) -> None:
    result = say(pipeline, "My password is hunter2-Xy9!")
    (cand,) = result.candidates
    assert cand.outcome is Outcome.REJECTED
    assert cand.stop_reason is StopReason.FORBIDDEN_CATEGORY and cand.memory_ids == ()
    assert nodes(pipeline.store) == []
    (event,) = pipeline.store.history("acme")
    assert event.op is HistoryOp.REFUSE and "hunter2" not in event.canonical()


def test_at_most_three_writes_per_turn(pipeline: CapturePipeline) -> None:
    result = say(
        pipeline,
        "I love jazz. I work at Acme Corp. My favourite editor is Helix. I need to call Ana.",
    )
    outcomes = [c.outcome for c in result.candidates]
    assert outcomes.count(Outcome.REJECTED) == 1 and len(outcomes) == 4
    assert result.candidates[-1].stop_reason is StopReason.ENTITLEMENT_CAP
    assert len(nodes(pipeline.store)) == 3


def test_daily_cap_per_user(sqlite: SQLiteStore) -> None:
    p = make_pipeline(sqlite, config=CaptureConfig(daily_cap_per_user=2))
    for text in ("I love jazz", "I love tea", "I love chess"):
        say(p, text)
    last = say(p, "I love rain").candidates[0]
    assert last.stop_reason is StopReason.ENTITLEMENT_CAP
    assert len(nodes(sqlite, user_id="dana")) == 2
    # Another user has their own budget; merges never count against it.
    assert say(p, "I love rain", user_id="ana").candidates[0].outcome is Outcome.STORED
    assert say(p, "I love jazz").candidates[0].outcome is Outcome.MERGED


def test_an_extractor_exception_falls_back_to_the_rules(sqlite: SQLiteStore) -> None:
    class Broken:
        name = "llm"

        def extract(self, message: Message, *, now: Any) -> Extraction:
            raise TimeoutError("model did not answer")

    p = make_pipeline(sqlite, extractor=Broken())
    result = say(p, "I love coffee")
    assert result.extractor == "rules" and "TimeoutError" in result.errors[0]
    assert [c.outcome for c in result.candidates] == [Outcome.STORED]


def test_a_fault_mid_commit_leaves_nothing_partial_and_keeps_the_other_candidates(
    pipeline: CapturePipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    acme = say(pipeline, "I work at Acme").candidates[0].memory_ids[0]
    real = sqlite_writes.insert_events
    calls = {"n": 0}

    def explode_once(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("injected fault after node, edge and superseded rows")
        return real(*args, **kwargs)

    monkeypatch.setattr(sqlite_writes, "insert_events", explode_once)
    result = say(pipeline, "I now work at Globex. I love coffee.")
    update, coffee = result.candidates
    assert update.outcome is Outcome.REJECTED
    assert update.stop_reason is StopReason.INTERNAL_INCONSISTENCY
    assert coffee.outcome is Outcome.STORED
    monkeypatch.undo()
    assert pipeline.store.get_nodes("acme", [acme])[0].status is MemoryStatus.ACTIVE
    contents = sorted(n.content for n in nodes(pipeline.store))
    assert contents == ["Dana loves coffee.", "Dana works at Acme."]
    db = sqlite3.connect(tmp_path / "memory.db")
    try:
        assert db.execute("SELECT count(*) FROM memory_edges").fetchone()[0] == 0
        assert (
            db.execute("SELECT count(*) FROM memories WHERE content LIKE '%Porto%'").fetchone()[0]
            == 0
        )
    finally:
        db.close()


def test_workflow_output_todos_decisions_and_a_done_todo_closing_the_open_one(
    pipeline: CapturePipeline,
) -> None:
    first = pipeline.capture_workflow_output(
        "run-7",
        "plan",
        {
            "decisions": ["Use PostgreSQL for the event store"],
            "todos": ["Write the migration"],
            "goals": [{"text": "Ship v1 by March"}],
        },
    )
    assert [(c.type, c.outcome) for c in first.candidates] == [
        ("Decision", Outcome.STORED),
        ("Todo", Outcome.STORED),
        ("Goal", Outcome.STORED),
    ]
    todo = first.candidates[1].memory_ids[0]
    node = pipeline.store.get_nodes("acme", [todo])[0]
    assert node.source.source_kind is SourceKind.SYSTEM_KNOWN
    assert (node.source.workflow_run_id, node.source.step_id) == ("run-7", "plan")
    later = pipeline.capture_workflow_output("run-8", "review", "- [x] Write the migration\n")
    (done,) = later.candidates
    assert done.outcome is Outcome.UPDATED and done.memory_ids[1] == todo
    assert done.edges[0].type == "Updates"
    assert pipeline.store.get_nodes("acme", [todo])[0].status is MemoryStatus.SUPERSEDED


def test_markdown_workflow_output(pipeline: CapturePipeline) -> None:
    md = "## Decisions\n- Adopt trunk-based development\n\nTODO: set up branch protection\n"
    result = pipeline.capture_workflow_output("run-9", "retro", md)
    assert [c.type for c in result.candidates] == ["Decision", "Todo"]


def test_diagnostics_become_observations_with_bounded_evidence(sqlite: SQLiteStore) -> None:
    p = make_pipeline(sqlite, config=CaptureConfig(evidence_max_chars=60))
    finding = {
        "component": "ingest",
        "severity": "high",
        "title": "Rejected files pile up after the 2 GB limit",
        "evidence": [f"file-{i:03d}.json rejected: too large" for i in range(50)],
    }
    (cand,) = p.capture_diagnostics(finding).candidates
    assert cand.type == "Observation" and cand.outcome is Outcome.STORED
    node = sqlite.get_nodes("acme", [cand.memory_ids[0]])[0]
    assert node.source.source_type.value == "diagnostics"
    assert node.source.source_kind is SourceKind.SYSTEM_KNOWN
    evidence = node.content.split("Evidence: ", 1)[1]
    assert len(evidence) <= 60 and evidence.endswith("…")


def test_the_gate_also_judges_the_words_the_user_said(pipeline: CapturePipeline) -> None:
    # The stored statement is third person; the health detector reads "I'm allergic".
    (cand,) = say(pipeline, "I'm allergic to penicillin").candidates
    assert cand.outcome is Outcome.REJECTED
    assert cand.stop_reason is StopReason.FORBIDDEN_CATEGORY
    assert nodes(pipeline.store) == []


def test_raw_turns_are_never_stored(pipeline: CapturePipeline) -> None:
    turn = "Hey, so I moved to Porto and I love coffee. Anyway, what's new?"
    say(pipeline, turn)
    stored = [n.content for n in nodes(pipeline.store)]
    assert stored and turn not in stored
    assert all(len(c) <= 280 and "I " not in c for c in stored)


def test_a_sensitive_clause_refuses_only_what_it_yields(pipeline: CapturePipeline) -> None:
    """Issue 21: per candidate, not per turn; each report names its own finding."""
    result = say(
        pipeline,
        "I moved to Lisbon last month and I am allergic to peanuts. "
        "My manager is Priya and I prefer short replies.",
    )
    content_refusals = (StopReason.FORBIDDEN_CATEGORY, StopReason.INJECTION_DETECTED)
    # a new city is a consent-gated key (implementation-spec 10): it may wait for
    # consent, but nothing harmless is refused for what it says
    kept = [c for c in result.candidates if c.stop_reason not in content_refusals]
    refused = [c for c in result.candidates if c.stop_reason in content_refusals]
    report = [(c.content, c.stop_reason, c.detector) for c in result.candidates]
    assert len(kept) == 3, report
    assert any("Lisbon" in c.content for c in kept), report
    assert any("Priya" in c.content for c in kept), report
    assert any("short" in c.content for c in kept), report
    assert refused and all(c.stop_reason is StopReason.FORBIDDEN_CATEGORY for c in refused)
    assert all("peanut" in c.content.lower() for c in refused), report
    written = " ".join(n.content for n in nodes(pipeline.store))
    assert "peanut" not in written.lower()


def test_a_clause_with_both_still_refuses_what_it_yields(pipeline: CapturePipeline) -> None:
    result = say(pipeline, "I moved to Lisbon for chemotherapy")
    assert result.candidates
    assert all(c.stop_reason is StopReason.FORBIDDEN_CATEGORY for c in result.candidates)
    assert nodes(pipeline.store) == []
