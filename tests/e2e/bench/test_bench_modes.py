"""What the benchmarks' write modes store (issue 17): a long turn becomes several
memories in ``add`` mode instead of a refusal, and the vector cache embeds a text once."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memvault.benchmarks.modes import BenchTurn, CachedEmbedder, build_index
from memvault.embed import HashingEmbedder


def test_a_long_turn_is_split_not_refused(tmp_path: Path) -> None:
    long = " ".join(
        f"On day {i} we walked the dog along the river and fed the ducks." for i in range(30)
    )
    assert len(long) > 1500
    turns = [
        BenchTurn("t1", "Ana", long, datetime(2023, 5, 1, tzinfo=UTC), "c1"),
        BenchTurn(
            "t2", "Ben", "I walked by the river too.", datetime(2023, 5, 1, tzinfo=UTC), "c1"
        ),
    ]
    vectors = CachedEmbedder(HashingEmbedder(dimension=32), tmp_path / "v.db")
    try:
        built = build_index(
            "add",
            turns,
            data_hash="long",
            cache=tmp_path,
            embedder=vectors,
            prefix="t",
            search_at=datetime(2023, 5, 2, tzinfo=UTC),
        )
        try:
            assert built.without_memory == {}, built.failures
            parts = [m for m, refs in built.provenance.items() if refs == ["t1"]]
            assert len(parts) >= 3
            nodes = built.engine.store.get_nodes(built.engine.orchestrator, parts)
            assert all(n.content.startswith("Ana: ") and len(n.content) <= 512 for n in nodes)
            # every word of the turn is kept, in order, across the parts
            kept = " ".join(
                n.content.removeprefix("Ana: ") for n in sorted(nodes, key=lambda n: n.memory_id)
            )
            assert kept.split() == long.split()
        finally:
            built.engine.close()
        before = vectors.hits
        again = build_index(
            "add",
            turns,
            data_hash="long-again",
            cache=tmp_path,
            embedder=vectors,
            prefix="t",
            search_at=datetime(2023, 5, 2, tzinfo=UTC),
        )
        again.engine.close()
        assert vectors.hits > before  # the rebuild's texts came from the cache
    finally:
        vectors.close()
