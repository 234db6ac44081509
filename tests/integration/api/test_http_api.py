"""Every route of the HTTP API against a real uvicorn server: success and error paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from memvault.access import AccessControl
from memvault.api import create_app
from memvault.config import load_config
from memvault.layout import RuntimeLayout
from tests.integration.api.conftest import PREFERENCE, TODO, Live, serve_in_thread

PROBLEM = "application/problem+json"

#: Reads by id of an unbound key name the user they read as (Dana owns PREFERENCE).
DANA = {"user_id": "dana"}


def _problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["type"].startswith("urn:memvault:problem:")
    return body


def _add(live: Live, who: str, memory: dict[str, Any]) -> str:
    with live.client(who) as client:
        response = client.post("/v1/memories", json=memory)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["stop_reason"] == "SUCCESS_STORED"
    return str(body["memory_id"])


def test_health_needs_no_key_and_reports_memory_available(live: Live) -> None:
    with live.client() as client:
        body = client.get("/v1/health").json()
    assert body["memory_available"] is True and body["status"] == "ok"
    assert body["degraded"] == []


def test_openapi_describes_the_routes(live: Live) -> None:
    with live.client() as client:
        paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/memories", "/v1/memories/{memory_id}", "/v1/search", "/v1/health"} <= set(paths)
    assert (
        "/v1/memories/{memory_id}/restore" in paths and "/v1/memories/{memory_id}/history" in paths
    )


def test_the_docs_page_needs_no_network(live: Live) -> None:
    """``/docs`` (printed by ``serve``) loaded Swagger UI from a CDN: blank air-gapped."""
    with httpx.Client(base_url=live.url) as client:
        page = client.get("/docs")
        assert page.status_code == 200 and "/openapi.json" in page.text
        assert "https://" not in page.text and "http://" not in page.text
        for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
            assert f"/docs/assets/{asset}" in page.text
            got = client.get(f"/docs/assets/{asset}")
            assert got.status_code == 200 and len(got.content) > 10_000
        assert client.get("/redoc").status_code == 404  # its page needs a CDN: not served


def test_requests_without_a_live_key_are_401(live: Live) -> None:
    with httpx.Client(base_url=live.url) as client:
        assert client.get("/v1/memories").status_code == 401
        body = _problem(client.post("/v1/search", json={"query": "tea"}), 401)
        assert "Bearer" in body["detail"]
        bad = {"Authorization": "Bearer mvk_000000000000_" + "x" * 43}
        _problem(client.get("/v1/memories", headers=bad), 401)
        _problem(client.get("/v1/whoami", headers={"Authorization": "Basic abc"}), 401)
    token, record = live.control.keys.create("acme", "temp")
    with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {token}"}) as client:
        assert client.get("/v1/whoami").json()["agent"] == "temp"
        assert live.control.keys.revoke(record.key_id)
        _problem(client.get("/v1/whoami"), 401)


def test_whoami_comes_from_the_key(live: Live) -> None:
    with live.client("planner") as client:
        body = client.get("/v1/whoami").json()
    assert body["orchestrator"] == "acme" and body["agent"] == "planner"
    assert body["categories"] == ["GOAL", "TODO"] and body["read_only"] is False


def test_add_get_list_search(live: Live) -> None:
    memory_id = _add(live, "writer", PREFERENCE)
    with live.client("writer") as client:
        got = client.get(f"/v1/memories/{memory_id}", params=DANA).json()
        assert got["content"] == PREFERENCE["content"] and got["agent_id"] == "writer"
        assert got["orchestrator_id"] == "acme"
        listed = client.get("/v1/memories", params={"user_id": "dana"}).json()["memories"]
        assert memory_id in [m["memory_id"] for m in listed]
        hits = client.post(
            "/v1/search",
            json={"query": "what does Dana drink", "top_k": 5, "filters": {"user_id": "dana"}},
        )
        assert hits.status_code == 200
        assert memory_id in [r["memory_id"] for r in hits.json()["results"]]
        # An unbound key that names no user searches shared memories only.
        unnamed = client.post("/v1/search", json={"query": "what does Dana drink", "top_k": 5})
        assert memory_id not in [r["memory_id"] for r in unnamed.json()["results"]]
        filtered = client.post(
            "/v1/search",
            json={"query": "tea", "top_k": 3, "filters": {"user_id": "nobody"}},
        )
        assert filtered.json()["results"] == []


def test_add_refusals_are_problems_with_a_stop_reason(live: Live) -> None:
    with live.client("writer") as client:
        body = _problem(client.post("/v1/memories", json={**PREFERENCE, "type": "Fakt"}), 422)
        assert body["stop_reason"] == "SCHEMA_INVALID"
        body = _problem(client.post("/v1/memories", json={**PREFERENCE, "importance": 101}), 422)
        assert body["stop_reason"] == "BOUNDS_EXCEEDED"
        # A TTL class the category does not allow is ruled out by its schema.
        body = _problem(client.post("/v1/memories", json={**TODO, "ttl_class": "LONG"}), 422)
        assert body["stop_reason"] == "SCHEMA_INVALID"
        # Acting as another agent is forbidden, not malformed.
        body = _problem(client.post("/v1/memories", json={**PREFERENCE, "agent_id": "x"}), 403)
        assert body["type"].endswith("agent-mismatch")
        body = _problem(client.post("/v1/memories", json={**PREFERENCE, "colour": "red"}), 422)
        assert body["errors"][0]["field"].endswith("colour")
        _problem(client.post("/v1/memories", json={"content": "no type"}), 422)
        # A body that is not JSON at all is 400 (the error table), not a schema 422.
        _problem(client.post("/v1/memories", content=b"{not json", headers=_json()), 400)


def _json() -> dict[str, str]:
    return {"content-type": "application/json"}


def test_patch_delete_restore_history(live: Live) -> None:
    memory_id = _add(live, "writer", {**PREFERENCE, "content": "Dana likes green tea"})
    with live.client("writer") as client:
        patched = client.patch(f"/v1/memories/{memory_id}?user_id=dana", json={"importance": 80})
        assert patched.status_code == 200 and patched.json()["stop_reason"] == "SUCCESS_UPDATED"
        assert client.get(f"/v1/memories/{memory_id}", params=DANA).json()["importance"] == 80
        _problem(client.patch(f"/v1/memories/{memory_id}?user_id=dana", json={}), 422)
        _problem(
            client.patch(f"/v1/memories/{memory_id}?user_id=dana", json={"orchestrator_id": "x"}),
            422,
        )
        bad = _problem(
            client.patch(f"/v1/memories/{memory_id}?user_id=dana", json={"confidence": 7.0}), 422
        )
        assert bad["stop_reason"] in {"BOUNDS_EXCEEDED", "SCHEMA_INVALID"}
        deleted = client.delete(f"/v1/memories/{memory_id}?user_id=dana")
        assert deleted.status_code == 200 and deleted.json()["stop_reason"] == "SUCCESS_DELETED"
        _problem(client.get(f"/v1/memories/{memory_id}", params=DANA), 404)
        _problem(client.delete(f"/v1/memories/{memory_id}?user_id=dana"), 404)
        listed = client.get(
            "/v1/memories", params={"status": "soft_deleted", "user_id": "dana"}
        ).json()
        assert memory_id in [m["memory_id"] for m in listed["memories"]]
        restored = client.post(f"/v1/memories/{memory_id}/restore?user_id=dana")
        assert restored.status_code == 200
        assert client.get(f"/v1/memories/{memory_id}", params=DANA).json()["status"] == "active"
        events = client.get(f"/v1/memories/{memory_id}/history", params=DANA).json()["events"]
        ops = [e["op"].lower() for e in events]
        assert ops[0] == "create" and {"update", "delete", "restore"} <= set(ops)
        assert {e["actor"] for e in events} == {"writer"}
        _problem(client.get("/v1/memories/mem_does_not_exist/history"), 404)
        _problem(client.post("/v1/memories/mem_does_not_exist/restore"), 404)


def test_another_orchestrators_id_is_404_and_audited(live: Live) -> None:
    memory_id = _add(live, "writer", {**PREFERENCE, "content": "Dana takes tea without sugar"})
    with live.client("other") as client:
        assert client.get("/v1/whoami").json()["orchestrator"] == "globex"
        for response in (
            client.get(f"/v1/memories/{memory_id}", params=DANA),
            client.patch(f"/v1/memories/{memory_id}?user_id=dana", json={"importance": 1}),
            client.delete(f"/v1/memories/{memory_id}?user_id=dana"),
            client.post(f"/v1/memories/{memory_id}/restore?user_id=dana"),
            client.get(f"/v1/memories/{memory_id}/history", params=DANA),
        ):
            body = _problem(response, 404)
            assert "acme" not in json.dumps(body)
        hits = client.post("/v1/search", json={"query": "tea sugar", "top_k": 10}).json()
        assert hits["results"] == []
    rows = [
        e
        for e in live.control.keys.access_events("globex")
        if e["event"] == "scope_miss" and e["memory_id"] == memory_id
    ]
    assert len(rows) == 5 and {r["agent"] for r in rows} == {"writer"}
    with live.client("writer") as client:
        assert client.get(f"/v1/memories/{memory_id}", params=DANA).json()["importance"] == 60


def _log_events(live: Live, orchestrator: str) -> list[dict[str, Any]]:
    path = RuntimeLayout.for_orchestrator(live.home, orchestrator).log_path
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_category_allowlist_is_403_and_logged(live: Live) -> None:
    preference = _add(live, "writer", {**PREFERENCE, "content": "Dana wants rooibos at night"})
    todo = _add(live, "planner", TODO)
    with live.client("planner") as client:
        body = _problem(client.post("/v1/memories", json=PREFERENCE), 403)
        assert body["categories"] == ["PREFERENCE"] and body["agent"] == "planner"
        _problem(
            client.post("/v1/search", json={"query": "tea", "categories": ["PREFERENCE"]}), 403
        )
        _problem(client.get("/v1/memories", params={"category": "PREFERENCE"}), 403)
        _problem(client.get(f"/v1/memories/{preference}", params=DANA), 403)
        _problem(client.delete(f"/v1/memories/{preference}?user_id=dana"), 403)
        _problem(
            client.patch(f"/v1/memories/{todo}?user_id=dana", json={"category": "PREFERENCE"}), 403
        )
        listed = client.get("/v1/memories").json()["memories"]
        assert todo in [m["memory_id"] for m in listed]
        assert {m["category"] for m in listed} <= {"TODO", "GOAL"}
        hits = client.post("/v1/search", json={"query": "Dana rooibos tea night"}).json()
        assert preference not in [r["memory_id"] for r in hits["results"]]
    denied = [e for e in _log_events(live, "acme") if e["event"] == "access_denied"]
    assert any(e["agent"] == "planner" and e["categories"] == ["PREFERENCE"] for e in denied)
    audit = [e for e in live.control.keys.access_events("acme") if e["event"] == "access_denied"]
    assert any(e["agent"] == "planner" for e in audit)


def test_config_allowlist_applies_to_keys_of_that_agent(live: Live) -> None:
    with live.client("stylist") as client:
        assert client.get("/v1/whoami").json()["categories"] == ["PREFERENCE"]
        _problem(client.post("/v1/memories", json=TODO), 403)
    _add(live, "stylist", {**PREFERENCE, "content": "Dana prefers short answers"})


def test_read_only_keys_cannot_write(live: Live) -> None:
    memory_id = _add(live, "writer", {**PREFERENCE, "content": "Dana drinks oolong on Fridays"})
    with live.client("reader") as client:
        assert client.get(f"/v1/memories/{memory_id}", params=DANA).status_code == 200
        body = _problem(client.post("/v1/memories", json=PREFERENCE), 403)
        assert body["type"].endswith("read-only")
        _problem(client.patch(f"/v1/memories/{memory_id}", json={"importance": 2}), 403)
        _problem(client.delete(f"/v1/memories/{memory_id}"), 403)
        _problem(client.post(f"/v1/memories/{memory_id}/restore"), 403)


def test_input_limits(live: Live) -> None:
    with live.client("writer") as client:
        huge = {**PREFERENCE, "content": "tea " * 40_000}
        _problem(client.post("/v1/memories", json=huge), 413)
        streamed = client.post(
            "/v1/search",
            content=iter([b'{"query": "', b"a" * 70_000, b'"}']),
            headers=_json(),
        )
        _problem(streamed, 413)
        long_field = {**PREFERENCE, "content": "x" * 16_001}
        _problem(client.post("/v1/memories", json=long_field), 422)
        bounded = _problem(
            client.post("/v1/memories", json={**PREFERENCE, "content": "y" * 5000}), 422
        )
        assert bounded["stop_reason"] == "BOUNDS_EXCEEDED"
        _problem(client.post("/v1/search", json={"query": "tea", "top_k": 0}), 422)
        _problem(client.post("/v1/search", json={"top_k": 3}), 422)
        _problem(client.get("/v1/memories", params={"limit": 0}), 422)
        invalid = _problem(client.get("/v1/memories", params={"status": "zombie"}), 422)
        assert invalid["stop_reason"] == "SCHEMA_INVALID"
        _problem(client.get("/v1/nothing-here"), 404)
        _problem(client.put("/v1/search", json={}), 405)


def test_writes_pass_the_governance_gate(live: Live) -> None:
    passport = {**PREFERENCE, "content": "Passport number: X4829175", "key": "id", "value": "x"}
    with live.client("writer") as client:
        # A well-formed write the gate refuses: 403 with its stop reason (not 422).
        body = _problem(client.post("/v1/memories", json=passport), 403)
    assert body["stop_reason"] == "FORBIDDEN_CATEGORY" and body["memory_id"] is None
    assert "X4829175" not in json.dumps(body)


def test_memory_disabled_is_503_and_reported_by_health(tmp_path: Path) -> None:
    config = load_config(tmp_path, overrides={"memory": {"enabled": False}}, environ={})
    control = AccessControl(tmp_path, config)
    server, thread, sock, url = serve_in_thread(create_app(control))
    try:
        token, _ = control.keys.create("acme", "writer")
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as client:
            health = client.get("/v1/health").json()
            assert health["memory_available"] is False and health["status"] == "degraded"
            body = _problem(client.post("/v1/search", json={"query": "tea"}), 503)
            assert body["memory_available"] is False
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def test_supersede_and_retract(live: Live) -> None:
    old = _add(live, "writer", {**PREFERENCE, "content": "Dana likes green tea"})
    new = _add(live, "writer", {**PREFERENCE, "content": "Dana likes white tea now"})
    with live.client("writer") as client:
        done = client.post(f"/v1/memories/{old}/supersede?user_id=dana", json={"by": new})
        assert done.status_code == 200 and done.json()["stop_reason"] == "SUCCESS_UPDATED"
        view = client.get(f"/v1/memories/{old}", params=DANA).json()
        assert view["status"] == "superseded"
        _problem(client.post(f"/v1/memories/{old}/supersede?user_id=dana", json={"nope": new}), 422)
        # The addressed memory exists; the successor named in the body does not: 409.
        missing = client.post(f"/v1/memories/{new}/supersede?user_id=dana", json={"by": "mem_nope"})
        assert _problem(missing, 409)["type"].endswith("unknown-successor")
        retracted = client.post(f"/v1/memories/{new}/retract?user_id=dana")
        assert retracted.status_code == 200
        assert client.get(f"/v1/memories/{new}", params=DANA).json()["status"] == "retracted"
        _problem(client.post("/v1/memories/mem_does_not_exist/retract"), 404)
