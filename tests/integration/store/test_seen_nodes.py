"""Nodes a thread read are reused only while nothing was committed: a write here, another
store object's write (another process) or a purge makes the next read go back to the file."""

from __future__ import annotations

import threading
from pathlib import Path

from memvault.store import SQLiteStore
from memvault.store.base import WriteSet
from tests.helpers import make_node, ts


def test_nodes_follow_every_commit(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mine = SQLiteStore(path)
    nodes = [make_node("acme") for _ in range(4)]
    mine.apply(WriteSet("acme", ts(1), nodes=tuple(nodes)))
    ids = [n.memory_id for n in nodes]
    assert mine.get_nodes("acme", ids) == sorted(nodes, key=lambda n: n.memory_id)
    assert mine.get_nodes("other", ids) == []  # never another tenant's, kept or not

    changed = nodes[0].model_copy(update={"content": "changed here", "updated_at": ts(2)})
    mine.apply(WriteSet("acme", ts(2), nodes=(changed,)))
    assert mine.get_nodes("acme", ids[:1]) == [changed]

    other = SQLiteStore(path)
    try:
        moved = nodes[1].model_copy(update={"content": "changed elsewhere", "updated_at": ts(3)})
        other.apply(WriteSet("acme", ts(3), nodes=(moved,)))
        other.apply(WriteSet("acme", ts(4), purge_ids=(ids[2],)))
    finally:
        other.close()
    now = {n.memory_id: n for n in mine.get_nodes("acme", ids)}
    assert now[ids[1]].content == "changed elsewhere"
    assert ids[2] not in now  # purged by another connection: not served from memory
    assert now[ids[0]] == changed and now[ids[3]] == nodes[3]
    mine.close()


def test_a_mix_of_kept_and_read_nodes_comes_in_id_order(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    nodes = [make_node("acme") for _ in range(6)]
    store.apply(WriteSet("acme", ts(1), nodes=tuple(nodes)))
    ids = sorted(n.memory_id for n in nodes)
    store.get_nodes("acme", ids[::2])  # every other one kept
    got = store.get_nodes("acme", [*reversed(ids), "mem_missing", ids[0]])
    assert [n.memory_id for n in got] == ids
    store.close()


def test_each_thread_keeps_its_own_nodes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    node = make_node("acme")
    store.apply(WriteSet("acme", ts(1), nodes=(node,)))
    assert store.get_nodes("acme", [node.memory_id]) == [node]
    seen: list[object] = []

    def other_thread() -> None:
        changed = node.model_copy(update={"content": "from a thread", "updated_at": ts(2)})
        store.apply(WriteSet("acme", ts(2), nodes=(changed,)))
        seen.extend(store.get_nodes("acme", [node.memory_id]))

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    assert [n.content for n in seen] == ["from a thread"]  # type: ignore[attr-defined]
    assert [n.content for n in store.get_nodes("acme", [node.memory_id])] == ["from a thread"]
    store.close()
