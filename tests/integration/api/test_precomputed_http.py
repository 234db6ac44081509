"""``POST /v1/memories`` with a precomputed vector: accepted in the server's space only."""

from __future__ import annotations

import numpy as np

from memvault.embed import MINILM_MODEL_ID
from tests.integration.api.conftest import Live

BODY = {
    "content": "Release notes are written in English",
    "type": "Fact",
    "category": "PROJECT_CONFIG",
    "source_kind": "SYSTEM_KNOWN",
}


def test_a_vector_in_the_servers_space_is_stored_and_others_are_refused(live: Live) -> None:
    vector = np.random.default_rng(4).standard_normal(384)
    with live.client("writer") as client:
        stored = client.post(
            "/v1/memories",
            json={**BODY, "vector": vector.tolist(), "vector_model": MINILM_MODEL_ID},
        )
        assert stored.status_code == 201, stored.text
        assert stored.json()["stop_reason"] == "SUCCESS_STORED"
        short = client.post(
            "/v1/memories",
            json={**BODY, "vector": vector[:100].tolist(), "vector_model": MINILM_MODEL_ID},
        )
        # Well-formed, but not this server's embedder: a conflict with its configuration.
        assert short.status_code == 409
        assert short.json()["stop_reason"] == "SCHEMA_INVALID"
        assert "has 100 values" in short.text
        other = client.post(
            "/v1/memories", json={**BODY, "vector": vector.tolist(), "vector_model": "m/other"}
        )
        assert other.status_code == 409 and "not this store's model" in other.text
        got = client.get(f"/v1/memories/{stored.json()['memory_id']}")
        assert got.status_code == 200 and BODY["content"] in got.text
