"""A memory's derived conversation context never outlives a purge of what it quotes.

The write path gives each memory index-only ``context`` (the memories written
just before it in its conversation, whoever said them) and a ``FOLLOWS`` edge
to the previous one (``retrieval.indexing``). Before, Bob's row in a
conversation with Alice kept her words after ``forget_user("alice")`` reported
nothing remaining, and a purged memory's words stayed in its own user's next
memories' rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from memvault.store import NodeFilter
from memvault.write.spec import PURGE_AFTER
from tests.conftest import StepClock
from tests.integration.context.conftest import BACKENDS, add, engine_on


@pytest.fixture(params=BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryEngine]:
    yield from engine_on(request.param, tmp_path)


def matches(engine: MemoryEngine, word: str) -> set[str]:
    """Memory ids whose full-text row (any column, the context included) holds ``word``."""
    hits = engine.store.search_text("acme", [word], NodeFilter(), limit=50)
    return {h.memory_id for h in hits}


def test_forgetting_a_user_leaves_none_of_their_words_in_the_store(
    engine: MemoryEngine,
) -> None:
    alice = add(
        engine, "Alice: our team mascot is the bluefalcon", user_id="alice", conversation_id="c1"
    )
    bob = add(engine, "Bob: I drink green tea", user_id="bob", conversation_id="c1")
    alice_2 = add(engine, "Alice: we ship on friday", user_id="alice", conversation_id="c1")

    # alice_2's context quotes her; bob's never does — a user's words stay out of
    # another user's index (review S11-R5)
    assert matches(engine, "bluefalcon") == {alice, alice_2}

    engine.forget_user("alice")
    assert matches(engine, "bluefalcon") == set()
    assert [n.memory_id for n in engine.store.list_nodes("acme", NodeFilter(), limit=10)] == [bob]


def test_a_purged_memory_leaves_no_words_in_its_neighbours_context(
    engine: MemoryEngine,
) -> None:
    first = add(
        engine, "The bluefalcon mascot opens the launch", user_id="dana", conversation_id="c9"
    )
    second = add(engine, "The launch moved to May", user_id="dana", conversation_id="c9")
    other = add(engine, "Bluefalcon is also a bird", user_id="dana", conversation_id="c10")
    assert matches(engine, "bluefalcon") == {first, second, other}  # second quotes first

    engine.delete(first).raise_for_status()
    clock = engine.clock
    assert isinstance(clock, StepClock)
    clock.now += PURGE_AFTER + timedelta(days=1)
    engine.run_lifecycle()

    assert engine.store.get_nodes("acme", [first]) == []
    # The other conversation keeps its context; nothing else quotes the purged words.
    assert matches(engine, "bluefalcon") == {other}
    assert matches(engine, "launch") == {second}
