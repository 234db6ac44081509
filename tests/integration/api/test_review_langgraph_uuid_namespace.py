"""Review S18-R10: since 8190441 a LangGraph namespace holding a UUID is refused one time in four.

S17-R8's fix reads a list of scalars as "name: item, item". The adapter keeps an item's
namespace as a list in the memory's value (its envelope), so every namespace is now read by
the full heads as "namespace: <uuid>, test, images, public, <uuid>" — and the hex of a
random UUID beside ordinary labels scores as biometric or government-id data: of 120 such
puts (LangGraph's own ``test_list_namespaces`` shapes, 40 random UUIDs) 30 are refused
FORBIDDEN_CATEGORY, none at 8190441~1. LangGraph's store tests ``test_list_namespaces`` and
``test_list_namespaces_operations`` fail on it (docs/langgraph.md). UUIDs are how
applications name threads and users.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.integrations.langgraph_store import MemvaultStore

#: UUIDs whose namespaces were refused at fafb71d (biometric 0.86–0.94, gov_id 0.67)
UUIDS = (
    "9531985d-5d9d-49f8-9818-e811892f902b",
    "8d116ece-1738-47d9-bd9c-172411e20b8f",
    "90c192cf-d3ac-44af-8f21-ddb66cad4a26",
    "0cb1e29c-658c-4a14-95e6-0af593bd04cf",
)


def _put_all(tmp_path: Path, namespaces: list[tuple[str, ...]]) -> int:
    with MemvaultStore(tmp_path) as store:
        for namespace in namespaces:
            store.put(namespace, "dummy", {"content": "dummy"})
        return len(store.list_namespaces())


@pytest.mark.parametrize("pref", UUIDS)
def test_a_namespace_with_a_uuid_is_stored(tmp_path: Path, pref: str) -> None:
    labels = [("test", "images", "public"), ("test", "documents", "public")]
    assert _put_all(tmp_path, [(pref, *middle, pref) for middle in labels]) == 2


def test_the_same_labels_without_a_uuid_are_stored(tmp_path: Path) -> None:
    """The near miss: the labels alone, and a UUID beside one label."""
    namespaces = [("test", "images", "public"), ("test", "documents", "public"), (UUIDS[0],)]
    assert _put_all(tmp_path, namespaces) == 3
