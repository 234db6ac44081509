"""A batch stops at the per-user daily cap where N single adds stop (review S10-R5).

Every batch judges through ``PolicyGate.check_many``; each item's usage was read from the
store before the batch, so one batch stored any number of a user's memories.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from memvault.engine import MemoryEngine, NewMemory
from memvault.policy.candidate import Caps

CAP = Caps().per_user_daily
assert CAP is not None


def _item(i: int, user: str) -> dict[str, object]:
    return {
        "content": f"Project unit {i} ships build number {i * 7919} to region {i % 13}.",
        "type": "Fact",
        "category": "KNOWLEDGE",
        "source_kind": "USER_EXPLICIT",
        "user_id": user,
    }


def test_a_batch_stops_at_the_daily_cap_as_single_adds_do(tmp_path: Path) -> None:
    n = CAP + 10
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as engine:
        single = Counter(
            engine.add(NewMemory.model_validate(_item(i, "solo"))).stop_reason.value
            for i in range(n)
        )
        assert single == {"SUCCESS_STORED": CAP, "ENTITLEMENT_CAP": 10}
        # Two users interleaved in one batch: each stops at its own cap, in order.
        items = [_item(i, user) for i in range(n) for user in ("bulk", "other")]
        results = engine.add_many(items)
        for user in ("bulk", "other"):
            mine = [
                r.stop_reason.value
                for r, it in zip(results, items, strict=True)
                if it["user_id"] == user
            ]
            assert mine == ["SUCCESS_STORED"] * CAP + ["ENTITLEMENT_CAP"] * 10, user
        # A user already at the cap from single adds: a batch stores nothing more.
        more = engine.add_many([_item(n + i, "solo") for i in range(3)])
        assert [r.stop_reason.value for r in more] == ["ENTITLEMENT_CAP"] * 3
