"""Identity, anchor and safe close on every backend (the conformance ``store`` fixture)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from memvault.errors import StoreUnavailableError
from memvault.model.enums import HistoryOp
from memvault.store.anchor import new_anchor, read_anchor
from memvault.store.base import HistoryEvent, NodeFilter, Store, WriteSet
from tests.helpers import make_node
from tests.integration.store.test_conformance import write

AT = "2026-01-01T00:00:00.000000Z"


def test_identity_is_claimed_once_and_anchor_follows_writes(store: Store, tmp_path: Path) -> None:
    orch = f"id-{id(store) % 10_000}"
    assert store.identity(orch) is None
    first = store.claim_identity(new_anchor(orch, AT))
    again = store.claim_identity(new_anchor(orch, AT))  # a second claim keeps the first
    assert again.store_uuid == first.store_uuid and first.revision == 0
    path = tmp_path / "anchor" / "memory.anchor.json"
    store.keep_anchor(orch, path)
    assert read_anchor(path) == first
    write(store, make_node(orch), orch=orch)
    event = HistoryEvent(event_id="e1", orchestrator_id=orch, op=HistoryOp.REFUSE, at=AT)
    store.apply(WriteSet(orch, AT, events=(event,)))
    live = store.identity(orch)
    assert live is not None and live.revision == 1 and live.history_count == 1
    assert read_anchor(path) == live  # rewritten after each committed write
    assert store.identity("another-tenant") is None


def test_close_lets_running_calls_finish_and_refuses_later_ones(store: Store) -> None:
    for i in range(20):
        write(store, make_node(content=f"closing store memory {i}"))
    errors: list[BaseException] = []
    calls = [0]
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                store.list_nodes("acme", NodeFilter(), limit=50)
                store.search_text("acme", ["memory"], NodeFilter(), limit=10)
                store.history("acme")
                calls[0] += 1
            except StoreUnavailableError:
                return  # the clean answer of a closed store
            except BaseException as exc:  # anything else is a failure
                errors.append(exc)
                return

    threads = [threading.Thread(target=reader) for _ in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    store.close()
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert errors == [] and calls[0] > 0
    with pytest.raises(StoreUnavailableError):
        store.list_nodes("acme", NodeFilter(), limit=1)
    with pytest.raises(StoreUnavailableError):
        write(store, make_node())
