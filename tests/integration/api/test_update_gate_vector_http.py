"""HTTP PATCH /v1/memories/{id} refuses the content POST /v1/memories refuses (review R7).

The update path judged new content without its vector (n-gram heads only for English
text) while ``add`` judged it with the full heads: a PATCH stored what a POST refused.
"""

from __future__ import annotations

from typing import Any

from tests.integration.api.conftest import Live

FACT: dict[str, Any] = {
    "type": "Fact",
    "category": "KNOWLEDGE",
    "source_kind": "USER_EXPLICIT",
    "user_id": "dana",
}
TEXT = "Julia is at the mosque every Friday afternoon, so she leaves early."
HARMLESS = "The standup is at nine on weekdays."


def test_patch_refuses_what_post_refuses(live: Live) -> None:
    with live.client("writer") as client:
        posted = client.post("/v1/memories", json={**FACT, "content": TEXT})
        assert posted.status_code >= 400
        refused = posted.json()
        assert refused["stop_reason"] == "FORBIDDEN_CATEGORY"
        created = client.post("/v1/memories", json={**FACT, "content": HARMLESS})
        assert created.status_code in (200, 201), created.text
        memory_id = created.json()["memory_id"]
        patched = client.patch(f"/v1/memories/{memory_id}?user_id=dana", json={"content": TEXT})
        assert patched.status_code == posted.status_code, patched.text
        assert patched.json()["stop_reason"] == refused["stop_reason"]
        # read by id as dana (an unbound key reads by id as the user it names, 966b52a)
        stored = client.get(f"/v1/memories/{memory_id}", params={"user_id": "dana"})
        assert stored.status_code == 200, stored.text
        assert stored.json()["content"] == HARMLESS
