"""REVIEW S14-R6: with ``memory.enabled = false`` a link is refused whether or not it has a reason.

ef93b23 switched memory writes off on every entry point (POLICY_DISABLED). ``link``
asks the gate only about an edge's ``reason`` text (review S10-R2), so with memory
switched off a link WITH a reason is POLICY_DISABLED and the same link WITHOUT one is
SUCCESS_STORED: an edge is written (it changes recall: graph expansion, contradictions)
by a store whose writes are off. ``memvault link A B --type Contradicts`` shows it.
"""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine
from memvault.write.spec import NewMemory


def _two_memories(home: Path) -> tuple[str, str]:
    with MemoryEngine.open(home, "acme", embedder=None) as engine:
        ids = []
        for text in ("The canteen closes at three", "The canteen closes at four"):
            result = engine.add(
                NewMemory(
                    content=text, type="Fact", category="KNOWLEDGE", source_kind="USER_EXPLICIT"
                )
            )
            assert result.ok, result
            ids.append(str(result.memory_id))
    return ids[0], ids[1]


def test_a_link_without_a_reason_is_policy_disabled(tmp_path: Path) -> None:
    first, second = _two_memories(tmp_path)
    with MemoryEngine.open(tmp_path, "acme", embedder=None, memory_enabled=False) as engine:
        result = engine.link(first, second, "Contradicts")
        assert result.stop_reason.value == "POLICY_DISABLED", result
        assert not engine.get(first).edges


def test_a_link_with_a_reason_is_policy_disabled(tmp_path: Path) -> None:
    first, second = _two_memories(tmp_path)
    with MemoryEngine.open(tmp_path, "acme", embedder=None, memory_enabled=False) as engine:
        result = engine.link(first, second, "Contradicts", reason="the hours changed")
        assert result.stop_reason.value == "POLICY_DISABLED", result
