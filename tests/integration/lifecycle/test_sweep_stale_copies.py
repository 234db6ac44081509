"""The lifecycle sweep never writes back a copy older than the stored memory (review S11).

The sweep reads the memories TTL selects and those due for purge, judges them, then
writes. A restore, pin or edit in between was undone: the sweep wrote its soft-deleted
copy over the edit, or purged a memory the user had just restored (restore answered
success; 3 of 6 threaded races). The steps are interleaved here by hand.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault.engine import MemoryEngine, NewMemory
from memvault.errors import MemoryNotFoundError
from memvault.model import MemoryStatus
from memvault.write.spec import MemoryPatch


def _memory(text: str) -> NewMemory:
    return NewMemory(
        content=text, type="Preference", category="PREFERENCE", source_kind="USER_EXPLICIT"
    )


def test_a_memory_restored_after_the_sweep_read_it_is_not_purged(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        kept, gone = (engine.add(_memory(f"Prefers option {k}.")).memory_id for k in "AB")
        assert kept is not None and gone is not None
        engine.delete(kept)
        engine.delete(gone)
        service = engine.lifecycle
        due = [engine.get(m, include_deleted=True).node for m in (kept, gone)]  # read
        assert engine.restore(kept).ok  # the user restores meanwhile
        purged, _ = service._purge(
            due, "2030-01-01T00:00:00.000000Z", "test", "default", as_read=True
        )
        assert [t.memory_id for t in purged] == [gone]
        assert engine.get(kept).node.status is MemoryStatus.ACTIVE


def test_the_ttl_sweep_does_not_overwrite_an_edit_made_after_it_read(tmp_path: Path) -> None:
    """A sweep (time-travelled: every memory expired) races an edit of one memory."""
    lost = 0
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        for trial in range(4):
            rows = [
                {
                    "content": f"Prefers option {k} for the sync, round {trial}.",
                    "type": "Preference",
                    "category": "PREFERENCE",
                    "source_kind": "USER_EXPLICIT",
                }
                for k in range(300)
            ]
            ids = [r.memory_id for r in engine.add_many(rows)]
            target = ids[-1]
            assert target is not None
            new = f"Prefers the ten o'clock slot now, round {trial}."
            later = datetime.now(UTC) + timedelta(days=3650 * (trial + 1))
            barrier = threading.Barrier(2)
            out: dict[str, bool] = {}

            def sweep(at: datetime = later, barrier: threading.Barrier = barrier) -> None:
                barrier.wait()
                engine.run_lifecycle(now=at)

            def edit(
                memory_id: str = target,
                text: str = new,
                barrier: threading.Barrier = barrier,
                out: dict[str, bool] = out,
            ) -> None:
                barrier.wait()
                time.sleep(0.02)  # inside the sweep's read-judge-write window
                try:
                    out["edit"] = engine.update(memory_id, MemoryPatch(content=text)).ok
                except MemoryNotFoundError:  # soft-deleted first: nothing to edit
                    out["edit"] = False

            threads = [threading.Thread(target=sweep), threading.Thread(target=edit)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            node = engine.get(target, include_deleted=True).node
            if out["edit"] and node.content != new:
                lost += 1
    assert lost == 0, f"{lost} of 4 edits undone by the sweep's older copy"
