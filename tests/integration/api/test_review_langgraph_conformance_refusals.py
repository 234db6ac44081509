"""Review S17-R6: LangGraph's own store tests meet two false refusals of the gate.

Re-running LangGraph's store tests against the adapter (docs/langgraph.md, session 17):
"test document number 0" (1, 2, 4) is refused FORBIDDEN_CATEGORY ``gov_id`` (full heads,
.63-.78 over .50) — a test document's number read as an identity document's; and "Это
русский" ("this is Russian") under the namespace ``("user_123", "memories")`` is refused
INJECTION_DETECTED (n-gram heads .933 over .896) — the same text under ``("t",)`` is
stored. Four and two of LangGraph's tests fail on them.

Fixed (session 18): a text of fewer than eight words with fewer than three digits is not
flagged by the gov_id head (``learned.says_a_number``), and a value that holds the text as
written is read as its wrapper even when normalisation folds the two apart
(``checks_content._wraps``). The near misses (the number stated, the envelope's other
fields) are in ``tests/unit/policy/test_learned_numberless.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.integrations.langgraph_store import MemvaultStore


@pytest.mark.parametrize(
    ("namespace", "text"),
    [
        (("test",), "test document number 0"),
        (("test",), "test document number 4"),
        (("user_123", "memories"), "Это русский"),
    ],
)
def test_ordinary_test_data_is_stored(
    tmp_path: Path, namespace: tuple[str, ...], text: str
) -> None:
    with MemvaultStore(tmp_path) as store:
        store.put(namespace, "k", {"text": text})
        assert store.get(namespace, "k") is not None


@pytest.mark.parametrize(
    ("namespace", "text"),
    [(("test",), "test document number 3"), (("t",), "Это русский")],
)
def test_the_near_misses_are_stored(tmp_path: Path, namespace: tuple[str, ...], text: str) -> None:
    with MemvaultStore(tmp_path) as store:
        store.put(namespace, "k", {"text": text})
        assert store.get(namespace, "k") is not None
