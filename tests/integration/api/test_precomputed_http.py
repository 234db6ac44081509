"""``POST /v1/memories`` with a precomputed vector: accepted in the server's space only."""

from __future__ import annotations

import numpy as np

from memvault.embed import MINILM_MODEL_ID, MiniLMEmbedder
from tests.integration.api.conftest import Live

BODY = {
    "content": "Release notes are written in English",
    "type": "Fact",
    "category": "PROJECT_CONFIG",
    "source_kind": "SYSTEM_KNOWN",
}


def _own(text: str) -> list[float]:
    """The server's own vector of ``text`` (the same model, run here)."""
    vector = MiniLMEmbedder().embed_documents([text])[0]
    return [float(x) for x in vector]


def test_a_vector_in_the_servers_space_is_stored_and_others_are_refused(live: Live) -> None:
    vector = np.random.default_rng(4).standard_normal(384)
    with live.client("writer") as client:
        stored = client.post(
            "/v1/memories",
            json={**BODY, "vector": _own(BODY["content"]), "vector_model": MINILM_MODEL_ID},
        )
        assert stored.status_code == 201, stored.text
        assert stored.json()["stop_reason"] == "SUCCESS_STORED"
        noise = client.post(
            "/v1/memories",
            json={**BODY, "vector": vector.tolist(), "vector_model": MINILM_MODEL_ID},
        )
        # Of the right size and model, but not a vector of this content: refused, not stored.
        assert noise.status_code == 409, noise.text
        assert "not this store's vector of the content" in noise.text
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


def test_a_harmless_texts_vector_does_not_carry_a_refused_text_past_the_gate(live: Live) -> None:
    """Review S10-R3: the gate's heads read the body's vector; it must be the content's."""
    text = "Julia is at the mosque every Friday afternoon, so she leaves early."
    body = {**BODY, "content": text}
    with live.client("writer") as client:
        plain = client.post("/v1/memories", json=body)
        assert plain.status_code != 201 and "FORBIDDEN_CATEGORY" in plain.text, plain.text
        forged = client.post(
            "/v1/memories",
            json={
                **body,
                "vector": _own("The standup is at nine on weekdays."),
                "vector_model": MINILM_MODEL_ID,
            },
        )
        assert forged.status_code == 409, forged.text
        listed = client.get("/v1/memories")
        assert text not in listed.text
