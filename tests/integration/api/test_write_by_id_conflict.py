"""A write by id that keeps losing its race answers 409, and the OpenAPI document says so.

The engine retries a write by id on a fresh read when another write changed the row
first (review S11-R4/R7); after three lost races it raises StaleWriteError, which the
server answers 409 conflict. docs/http-api.md promises the OpenAPI document lists every
status code a route returns (review S12-R6: DELETE and restore did not list 409).
"""

from __future__ import annotations

from typing import Any

import pytest

from memvault.errors import StaleWriteError
from memvault.store import SQLiteStore
from memvault.store.base import WriteSet
from tests.integration.api.conftest import Live

WRITES_BY_ID = [
    ("patch", "/v1/memories/{memory_id}"),
    ("delete", "/v1/memories/{memory_id}"),
    ("post", "/v1/memories/{memory_id}/restore"),
    ("post", "/v1/memories/{memory_id}/supersede"),
    ("post", "/v1/memories/{memory_id}/retract"),
]


@pytest.mark.parametrize(("method", "path"), WRITES_BY_ID)
def test_every_write_by_id_documents_its_409(live: Live, method: str, path: str) -> None:
    with live.client() as client:
        spec = client.get("/openapi.json").json()
    assert "409" in spec["paths"][path][method]["responses"], f"{method.upper()} {path}"


def test_a_delete_that_keeps_losing_its_race_is_409(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = {
        "content": "The release train leaves on Thursdays.",
        "type": "Fact",
        "category": "KNOWLEDGE",
        "source_kind": "USER_EXPLICIT",
    }
    with live.client("writer") as client:
        created = client.post("/v1/memories", json=body)
        assert created.status_code == 201, created.text
        memory_id = created.json()["memory_id"]
        original = SQLiteStore.apply
        tries: list[str] = []

        def always_stale(self: SQLiteStore, write: WriteSet) -> Any:
            if write.expected:  # a write by id over the row it read: another write won
                tries.append(write.expected[0][0])
                raise StaleWriteError(write.expected[0][0])
            return original(self, write)

        monkeypatch.setattr(SQLiteStore, "apply", always_stale)
        lost = client.delete(f"/v1/memories/{memory_id}")
        monkeypatch.undo()
        assert lost.status_code == 409, lost.text
        assert lost.json()["type"].endswith("conflict")
        assert tries and set(tries) == {memory_id} and len(tries) >= 3  # retried, then gave up
        assert client.get(f"/v1/memories/{memory_id}").status_code == 200  # nothing deleted
        assert client.delete(f"/v1/memories/{memory_id}").status_code == 200
