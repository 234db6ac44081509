"""Review (session 9): a grant bound to a user cannot capture for another user by keyword.

``CallerRules._for_user`` forces the grant's user onto ``capture_message``'s message
only when it is passed positionally (``if name == "capture_message" and args``);
``capture_message(message={... "user_id": "bob"})`` went through unchanged and a key
bound to Alice stored Bob's memories (every edge passes it positionally today; the
façade is the library's one authorisation place, so it must hold for any call shape).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.engine import Grant, MemoryEngine
from memvault.errors import AccessDeniedError


def test_a_bound_grant_cannot_capture_for_another_user_by_keyword(tmp_path: Path) -> None:
    engine = MemoryEngine.open(tmp_path, "acme", embedder=None)
    try:
        alice = engine.as_caller(Grant("assistant", user="alice"))
        turn = {"text": "I prefer tea", "user_id": "bob", "speaker": "Bob", "role": "user"}
        with pytest.raises(AccessDeniedError):
            alice.capture_message(message=turn)
        assert engine.list_memories({"user_id": "bob"}) == []
    finally:
        engine.close()
