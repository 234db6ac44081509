"""Two decisions on one proposal at once: exactly one stands (review S11).

Before: each decision read the proposal pending and wrote its own — two concurrent
confirmations stored two memories (20 of 20 tries), and a rejection racing a
confirmation answered "rejected" while the memory was stored (19 of 20).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import MemoryEngine
from memvault.lifecycle.consent import ProposalError
from memvault.model import MemoryStatus
from memvault.store.records import ProposalStatus
from memvault.write.spec import NewMemory


def _race(first: Callable[[], Any], second: Callable[[], Any]) -> list[Any]:
    barrier = threading.Barrier(2)
    out: list[Any] = [None, None]

    def run(i: int, call: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            out[i] = call()
        except ProposalError as exc:
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate((first, second))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


@pytest.mark.parametrize("second", ["confirm", "reject"])
def test_one_decision_stands(tmp_path: Path, second: str) -> None:
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        for trial in range(5):
            queued = engine.propose(
                f"Prefers green tea in the morning ({trial})",
                user_id="alice",
                type="Preference",
                category="PREFERENCE",
            )
            pid = queued.proposal_id
            assert pid is not None

            decide = engine.confirm_proposal if second == "confirm" else engine.reject_proposal
            out = _race(partial(engine.confirm_proposal, pid), partial(decide, pid))
            errors = [o for o in out if isinstance(o, ProposalError)]
            assert len(errors) == 1, out  # the later decision is told it came too late
            (final,) = engine.proposals(user_id="alice", status=None)[trial : trial + 1]
            stored = engine.count_memories({"user_id": "alice"})
            confirmed = sum(
                p.status is ProposalStatus.CONFIRMED for p in engine.proposals(user_id="alice")
            )
            assert stored == confirmed  # a memory exactly for each confirmed proposal
            assert final.status in (ProposalStatus.CONFIRMED, ProposalStatus.REJECTED)


def test_forget_user_leaves_no_memory_a_racing_confirmation_stored(tmp_path: Path) -> None:
    """The erasure erases the proposals before it purges (12 of 20 races left a memory)."""
    left = []
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        for trial in range(12):
            user = f"user{trial}"
            for k in range(15):
                engine.add(
                    NewMemory(
                        content=f"Prefers option {k} for the weekly sync, item {trial}.",
                        type="Preference",
                        category="PREFERENCE",
                        source_kind="USER_EXPLICIT",
                        user_id=user,
                    )
                )
            pid = engine.propose(
                f"Prefers green tea in the morning ({trial})",
                user_id=user,
                type="Preference",
                category="PREFERENCE",
            ).proposal_id
            assert pid is not None
            _, report = _race(
                partial(engine.confirm_proposal, pid), partial(engine.forget_user, user)
            )
            statuses = [s.value for s in MemoryStatus]
            count = engine.count_memories({"user_id": user, "status": statuses})
            assert report.remaining == count
            if count:
                left.append(user)
    assert not left, f"memories left after forget_user: {left}"
