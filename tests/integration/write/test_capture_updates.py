"""Updates by meaning and a per-turn cap that ranks and defers instead of dropping."""

from __future__ import annotations

from typing import Any

import pytest

from memvault.extract import Message
from memvault.model.enums import MemoryStatus
from memvault.store import NodeFilter, SQLiteStore
from memvault.write import CaptureConfig, CapturePipeline, Outcome
from tests.integration.write.conftest import make_pipeline


def say(p: CapturePipeline, text: str, conversation: str = "c1") -> Any:
    return p.capture_message(
        Message(text=text, user_id="dana", speaker="Dana", conversation_id=conversation)
    )


def active(store: SQLiteStore) -> list[str]:
    found = store.list_nodes("acme", NodeFilter(user_id="dana"), limit=100)
    return sorted(n.content for n in found if n.status is MemoryStatus.ACTIVE)


def test_an_update_worded_differently_supersedes_the_closest_memory(
    pipeline: CapturePipeline,
) -> None:
    first = say(pipeline, "I prefer dark themes in every editor.")
    old = first.candidates[0].memory_ids[0]
    result = say(pipeline, "These days I prefer light themes in every editor.")
    (cand,) = result.candidates
    assert cand.outcome is Outcome.UPDATED, cand
    assert [(e.type, e.to_id) for e in cand.edges] == [("Updates", old)]
    assert pipeline.store.get_nodes("acme", [old])[0].status is MemoryStatus.SUPERSEDED


def test_without_a_change_cue_a_close_memory_is_not_superseded(
    pipeline: CapturePipeline,
) -> None:
    say(pipeline, "I prefer dark themes in every editor.")
    result = say(pipeline, "I prefer light themes in the terminal.")
    assert result.candidates[0].outcome is not Outcome.UPDATED
    assert len(active(pipeline.store)) == 2


def test_the_cap_keeps_the_dated_todo_and_defers_the_rest_to_the_next_turn(
    sqlite: SQLiteStore,
) -> None:
    p = make_pipeline(sqlite, config=CaptureConfig(max_writes_per_turn=2))
    turn = (
        "My favourite editor is Helix. I love green tea. "
        "I need to send the invoice to Acme by Friday. We decided to freeze deploys on Fridays."
    )
    result = say(p, turn)
    written = [c.content for c in result.candidates if c.outcome is not Outcome.REJECTED]
    deferred = [c for c in result.candidates if "deferred" in c.reason]
    assert any("invoice" in c for c in written) and any("freeze deploys" in c for c in written)
    assert len(deferred) == 2 and all(c.memory_ids == () for c in deferred)
    later = say(p, "thanks!")
    assert sorted(c.content for c in later.candidates if c.memory_ids) == [
        "Dana loves green tea.",
        "Dana's favourite editor is Helix.",
    ]
    assert len(active(sqlite)) == 4
    assert say(p, "ok").candidates == ()  # nothing waits any more


def test_updates_by_meaning_under_every_change_cue(pipeline: CapturePipeline) -> None:
    # each pair: a statement, then a change worded differently; the second updates the first
    # ("From now on," was split off as its own clause: a second candidate, and the reply
    # language lost its change cue and was resolved as a contradiction)
    pairs = [
        ("I use VS Code for everything.", "These days I use Zed for everything."),
        ("Please reply to me in English.", "From now on, please reply in German."),
        (
            "We pin torch==2.5.1 in the training image.",
            "We bumped torch to torch==2.6.0 in the training image.",
        ),
        (
            "We're going with Webpack for the new frontend.",
            "We're using Vite for the new frontend after all.",
        ),
    ]
    for number, (first, change) in enumerate(pairs):
        conversation = f"c{number}"
        before = say(pipeline, first, conversation)
        old = before.candidates[0].memory_ids[0]
        result = say(pipeline, change, conversation)
        (cand,) = result.candidates
        assert cand.outcome is Outcome.UPDATED, (change, result.to_json())
        assert [(e.type, e.to_id) for e in cand.edges] == [("Updates", old)]
    # the bumped pin comes out byte-identical
    assert "torch==2.6.0" in " ".join(active(pipeline.store))


@pytest.mark.parametrize(
    ("first", "change"),
    [
        # a taste worded as a fact by the reader ("these days … instead")
        ("I drink a lot of coffee.", "these days I mostly drink green tea instead."),
        # a named slot family: "now prefers light themes" changes "prefers dark mode"
        ("I prefer dark mode in every app.", "I now prefer light themes, easier on my eyes."),
        # "gave up on", "instead", "no more" are change cues
        (
            "I'm learning Spanish on Duolingo.",
            "I gave up on Spanish, I'm learning Italian instead.",
        ),
        (
            "Please answer in bullet points.",
            "Actually, no more bullet points, write in short paragraphs.",
        ),
        # a new employer is a new value of the employer slot
        (
            "I work at Globex as a data analyst.",
            "I just started a new job at Initech as a data engineer.",
        ),
    ],
)
def test_changes_worded_unlike_the_memory_they_change(
    sqlite: SQLiteStore, first: str, change: str
) -> None:
    from memvault.embed import make_embedder
    from memvault.write import EmbeddingSimilarity

    p = make_pipeline(sqlite, similarity=EmbeddingSimilarity(make_embedder("minilm")))
    old = say(p, first).candidates[0].memory_ids[0]
    result = say(p, change)
    assert any(
        c.outcome is Outcome.UPDATED and ("Updates", old) in [(e.type, e.to_id) for e in c.edges]
        for c in result.candidates
    ), result.to_json()


def test_a_change_that_names_the_old_value_supersedes_the_memory_holding_it(
    pipeline: CapturePipeline,
) -> None:
    # close in meaning they are not (the new value makes them read apart): the old
    # value named is the link
    first = say(pipeline, "Our message broker is RabbitMQ, on three nodes.")
    old = first.candidates[0].memory_ids[0]
    say(pipeline, "I enjoy long walks by the river.")
    result = say(pipeline, "We replaced RabbitMQ with NATS in the spring.")
    (cand,) = result.candidates
    assert cand.outcome is Outcome.UPDATED, cand
    assert [(e.type, e.to_id) for e in cand.edges] == [("Updates", old)]
    assert not any("RabbitMQ, on three nodes" in c for c in active(pipeline.store))
    assert any("walks" in c for c in active(pipeline.store))


def test_a_named_old_value_of_someone_else_is_not_changed(pipeline: CapturePipeline) -> None:
    say(pipeline, "My brother's team runs everything on Heroku.")
    result = say(pipeline, "We moved from Heroku to Fly.io last month.")
    assert all(c.outcome is not Outcome.UPDATED for c in result.candidates)


def test_a_change_said_in_another_language_supersedes_the_memory_naming_the_old_value(
    pipeline: CapturePipeline,
) -> None:
    first = say(pipeline, "Our team tracks every ticket in Jira.")
    old = first.candidates[0].memory_ids[0]
    # the old value named after "statt" (instead of), then more words: the surest link
    result = say(pipeline, "Ab jetzt nutzen wir statt Jira nur noch Linear. Der Umzug ist fertig.")
    changed = [c for c in result.candidates if c.outcome is Outcome.UPDATED]
    assert changed and [(e.type, e.to_id) for e in changed[0].edges] == [("Updates", old)]
    assert pipeline.store.get_nodes("acme", [old])[0].status is MemoryStatus.SUPERSEDED
