"""REVIEW S13-R10: an access code joined to a harmless clause reaches the store through capture.

"Note that my locker code is 5530 and that I prefer window seats." comes out of capture as
ONE candidate ("…'s locker code is 5530 and that … prefers window seats.") that is stored:
the pattern rules know door, gate, alarm and bike-lock codes but not a locker code, and the
learned credentials head, which refuses "My locker code is 5530" alone (.98), scores the
joined sentence under its threshold. The harmless clause should be its own candidate and
the code refused (issue 21: refusals per candidate).
"""

from __future__ import annotations

from pathlib import Path

from memvault.engine import MemoryEngine


def test_a_locker_code_beside_a_preference_is_never_stored(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as engine:
        engine.capture_message(
            {
                "text": "Note that my locker code is 5530 and that I prefer window seats.",
                "user_id": "noor",
            }
        )
        kept = [n.content for n in engine.list_memories({"user_id": "noor"})]
    assert not any("5530" in text for text in kept), kept
    assert any("window seats" in text for text in kept), kept
