"""The consolidation worker and a consent confirmation never write back a stale copy (review S12).

Both read memories, decide (pairs, similarity, the gate), then write copies of what
they read: the worker's merge rewrites the kept memory and supersedes the other at the
end of its batch (up to 200 decisions later), a confirmed consolidation proposal
supersedes the memories it ``replaces``. A user's delete, edit or erasure in between was
undone: the deleted memory came back as ``superseded``, the edit was overwritten, an
erased user's memories were written back. The steps are interleaved here by hand: the
user's write runs after the reader's read (a wrapped step of the reader), before its write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine
from memvault.errors import MemoryNotFoundError
from memvault.layout import RuntimeLayout
from memvault.lifecycle.consent import ConsentService
from memvault.lifecycle.worker import Consolidator
from memvault.model import MemoryStatus
from memvault.write.spec import MemoryPatch
from tests.conftest import StepClock
from tests.integration.context.conftest import BACKENDS, backend_store
from tests.integration.lifecycle.conftest import DAY, remember


@contextmanager
def _after(
    monkeypatch: pytest.MonkeyPatch, owner: type, name: str, step: Callable[[], Any]
) -> Iterator[None]:
    """``owner.name`` runs ``step`` once, right after its first call returns."""
    original = getattr(owner, name)
    done: list[bool] = []

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, *args, **kwargs)
        if not done:
            done.append(True)
            step()
        return out

    with monkeypatch.context() as m:
        m.setattr(owner, name, wrapped)
        yield


def _pair(eng: MemoryEngine, user: str = "u1") -> tuple[str, str]:
    """Two memories the worker merges: (kept, superseded)."""
    weak = remember(eng, "Dana prefers oolong tea in the afternoon", importance=40, user_id=user)
    strong = remember(eng, "Dana prefers oolong tea in the afternoon.", importance=70, user_id=user)
    return strong, weak


def _status(eng: MemoryEngine, memory_id: str) -> MemoryStatus | None:
    try:
        return eng.get(memory_id, include_deleted=True).node.status
    except MemoryNotFoundError:
        return None


def test_a_memory_deleted_during_the_run_stays_deleted(
    eng: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, weak = _pair(eng)
    with _after(monkeypatch, Consolidator, "_merge", lambda: eng.delete(weak)):
        report = eng.consolidate()
    assert _status(eng, weak) is MemoryStatus.SOFT_DELETED, "the user's delete was undone"
    assert report.merged == ()
    assert eng.get(kept).node.status is MemoryStatus.ACTIVE
    assert eng.verify_audit().ok


def test_an_edit_made_during_the_run_is_kept(
    eng: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, weak = _pair(eng)
    text = "Dana prefers green tea in the morning now."
    with _after(
        monkeypatch,
        Consolidator,
        "_pool",
        lambda: eng.update(kept, MemoryPatch(content=text)).raise_for_status(),
    ):
        report = eng.consolidate()
    assert eng.get(kept).node.content == text, "the user's edit was overwritten"
    assert report.merged == ()
    assert _status(eng, weak) is MemoryStatus.ACTIVE


def test_an_erased_user_is_not_written_back(
    eng: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, weak = _pair(eng)
    with _after(monkeypatch, Consolidator, "_merge", lambda: eng.forget_user("u1")):
        eng.consolidate()
    assert (_status(eng, kept), _status(eng, weak)) == (None, None)
    assert eng.list_memories({"user_id": "u1"}) == []


def test_a_stale_pair_leaves_the_rest_of_the_batch_written(
    eng: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One stale merge drops out; the other user's merge in the same batch is written."""
    other_kept, other_weak = _pair(eng, "u2")
    kept, weak = _pair(eng, "u1")  # the newest: u1's pair is decided first
    with _after(monkeypatch, Consolidator, "_merge", lambda: eng.delete(weak)):
        report = eng.consolidate()
    assert [(k, s) for k, s, _ in report.merged] == [(other_kept, other_weak)]
    assert _status(eng, other_weak) is MemoryStatus.SUPERSEDED
    assert (_status(eng, weak), _status(eng, kept)) == (
        MemoryStatus.SOFT_DELETED,
        MemoryStatus.ACTIVE,
    )
    # the stale pair was not fingerprinted: the next run checks it again
    assert eng.consolidate().pairs_checked == 0  # weak is deleted: no pair left
    assert eng.verify_audit().ok


def test_a_confirmation_does_not_undo_a_delete_of_what_it_replaces(
    eng: MemoryEngine, clock: StepClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = remember(eng, "Dana runs 5 km every morning before work", importance=70)
    clock.now += DAY
    new = remember(eng, "Dana runs 10 km every morning before work", importance=70)
    [(proposal_id, _, _)] = eng.consolidate().proposed
    with _after(monkeypatch, ConsentService, "_supersede", lambda: eng.delete(old)):
        stored = eng.confirm_proposal(proposal_id)
    assert stored.ok and stored.memory_id is not None
    assert _status(eng, old) is MemoryStatus.SOFT_DELETED, "the user's delete was undone"
    assert _status(eng, new) is MemoryStatus.SUPERSEDED
    assert eng.get(stored.memory_id).node.status is MemoryStatus.ACTIVE
    assert eng.verify_audit().ok


def test_a_confirmation_does_not_overwrite_an_edit_of_what_it_replaces(
    eng: MemoryEngine, clock: StepClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = remember(eng, "Dana runs 5 km every morning before work", importance=70)
    clock.now += DAY
    remember(eng, "Dana runs 10 km every morning before work", importance=70)
    [(proposal_id, _, _)] = eng.consolidate().proposed
    with _after(
        monkeypatch,
        ConsentService,
        "_supersede",
        lambda: eng.update(old, MemoryPatch(importance=90)).raise_for_status(),
    ):
        stored = eng.confirm_proposal(proposal_id)
    assert stored.ok
    node = eng.get(old, include_deleted=True).node
    assert node.importance == 90, "the user's edit was overwritten"
    assert node.status is MemoryStatus.SUPERSEDED  # re-read and superseded as edited


@pytest.mark.parametrize("kind", BACKENDS)
def test_every_store_refuses_the_stale_part_and_writes_the_rest(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On each backend: the erased user's merge is left out, another user's is written."""
    layout = RuntimeLayout.for_orchestrator(tmp_path / "home", "acme").ensure()
    engine = MemoryEngine(
        backend_store(kind, layout), "acme", layout=layout, clock=StepClock(), embedder="hashing"
    )
    try:
        other_kept, other_weak = _pair(engine, "u2")
        kept, weak = _pair(engine, "u1")
        with _after(monkeypatch, Consolidator, "_merge", lambda: engine.forget_user("u1")):
            report = engine.consolidate()
        assert [(k, s) for k, s, _ in report.merged] == [(other_kept, other_weak)]
        assert (_status(engine, kept), _status(engine, weak)) == (None, None)
        assert _status(engine, other_weak) is MemoryStatus.SUPERSEDED
        assert engine.verify_audit().ok
    finally:
        engine.close()
