"""memory.query, bulletin, capture, ingest and proposals over HTTP (real server)."""

from __future__ import annotations

from typing import Any

from memvault.access import Principal
from memvault.layout import RuntimeLayout
from tests.integration.api.conftest import PREFERENCE, TODO, Live


def _post(live: Live, who: str, path: str, body: Any = None) -> Any:
    with live.client(who) as client:
        return client.post(path, json=body) if body is not None else client.post(path)


def test_memory_query_checks_the_allowlist(live: Live) -> None:
    with live.client("writer") as client:
        assert client.post("/v1/memories", json=PREFERENCE).status_code == 201
        assert client.post("/v1/memories", json=TODO).status_code == 201
        ok = client.post("/v1/query", json={"query": "what does Dana drink", "top_k": 3})
        assert ok.status_code == 200, ok.text
        body = ok.json()
        assert body["status"] == "ok" and body["agent"] == "writer" and body["results"]
        full = client.post("/v1/query", json={"query": "tea", "return": "full"}).json()
        assert full["return"] == "full"
        mismatch = client.post("/v1/query", json={"query": "tea", "agent": "planner"})
        assert mismatch.status_code == 403
    with live.client("planner") as client:
        denied = client.post("/v1/query", json={"query": "tea", "categories": ["PREFERENCE"]})
        assert denied.status_code == 403
        allowed = client.post("/v1/query", json={"query": "shipment webhook retry budget"}).json()
        assert allowed["status"] == "ok"
        assert {r.get("category", "TODO") for r in allowed["results"]} <= {"TODO", "GOAL"}


def test_bulletin(live: Live) -> None:
    with live.client("writer") as client:
        plain = client.get("/v1/bulletin")
        assert plain.status_code == 200 and "revision" in plain.json()
        threaded = client.get("/v1/bulletin", params={"thread_id": "t1", "query": "tea"})
        assert threaded.status_code == 200
    with live.client("planner") as client:
        denied = client.get("/v1/bulletin")
        assert denied.status_code == 403 and "spans every category" in denied.json()["detail"]


def test_capture_routes(live: Live) -> None:
    message = {"text": "I like my terminal font at size fourteen", "user_id": "dana"}
    captured = _post(live, "writer", "/v1/capture/message", message)
    assert captured.status_code == 200, captured.text
    assert captured.json()["candidates"]
    workflow = {
        "run_id": "run-7",
        "step_id": "plan",
        "output": "Decision: the billing service moves to PostgreSQL 16.\n"
        "Todo: write the data migration script.",
        "project_id": "billing",
    }
    flow = _post(live, "writer", "/v1/capture/workflow", workflow)
    assert flow.status_code == 200, flow.text
    diagnostics = _post(
        live, "writer", "/v1/capture/diagnostics", {"finding": "PDF font loading takes 70%"}
    )
    assert diagnostics.status_code == 200, diagnostics.text
    assert diagnostics.json()["trigger"] == "diagnostics"
    findings = [{"message": "Invoice rendering spends 70% of its time in PDF font loading"}]
    listed = _post(live, "writer", "/v1/capture/diagnostics", {"finding": findings})
    assert listed.status_code == 200, listed.text
    assert _post(live, "planner", "/v1/capture/message", message).status_code == 403
    assert _post(live, "reader", "/v1/capture/message", message).status_code == 403
    bad = _post(live, "writer", "/v1/capture/message", {"text": "hi", "at": "yesterday"})
    assert bad.status_code == 422


def test_a_blank_turn_is_refused_naming_the_field(live: Live) -> None:
    for text in ("", "  \n\t "):
        blank = _post(live, "writer", "/v1/capture/message", {"text": text, "user_id": "dana"})
        assert blank.status_code == 422, blank.text
        assert blank.json()["stop_reason"] == "SCHEMA_INVALID", blank.text
        assert "should be visible text (not blank)" in blank.text, blank.text


def test_ingest_runs_one_pass_over_the_drop_folder(live: Live) -> None:
    drop = RuntimeLayout.for_orchestrator(live.home, "acme").ingest_dir
    (drop / "notes.md").write_text("The staging cluster is called kestrel.\n", encoding="utf-8")
    report = _post(live, "writer", "/v1/ingest")
    assert report.status_code == 200, report.text
    assert _post(live, "reader", "/v1/ingest").status_code == 403


def test_proposals(live: Live) -> None:
    engine = live.control.engine(Principal("acme", "writer", "test"))
    proposed = engine.propose(
        "Dana enjoys hiking on weekends",
        user_id="dana",
        type="Preference",
        category="PREFERENCE",
    )
    with live.client("writer") as client:
        listed = client.get("/v1/proposals", params={"user_id": "dana"}).json()["proposals"]
        assert listed, "the proposal is listed"
        proposal_id = listed[0]["proposal_id"]
        # deciding by id is a write by id: this key (bound to no user) acts as the
        # user it names; naming none or another, Dana's proposal is not found
        for params in ({}, {"user_id": "eli"}):
            for verb in ("confirm", "reject"):
                hidden = client.post(f"/v1/proposals/{proposal_id}/{verb}", params=params)
                assert hidden.status_code == 404, hidden.text
        dana = {"user_id": "dana"}
        confirmed = client.post(f"/v1/proposals/{proposal_id}/confirm", params=dana)
        assert confirmed.status_code == 200, confirmed.text
        assert confirmed.json()["stop_reason"] == "SUCCESS_STORED"
        assert client.get("/v1/proposals", params={"status": "bogus"}).status_code == 422
        unknown = client.post("/v1/proposals/prop_nope/reject")
        assert unknown.status_code == 404
        again = client.post(f"/v1/proposals/{proposal_id}/reject", params=dana)
        assert again.status_code == 409
    assert proposed is not None
    with live.client("planner") as client:
        assert client.get("/v1/proposals").status_code == 403


def test_turns_in_other_languages_without_a_speaker_are_kept_as_with_one(live: Live) -> None:
    # newuser (session 5): Dutch and Spanish turns over HTTP without a speaker stored
    # nothing. The speaker defaults to the user id, as on the CLI; a turn in another
    # language is kept word for word, so the speaker never changes what is kept.
    turns = [
        "Ik woon in Utrecht en ik werk als verpleegkundige.",
        "Prefiero que me respondas en español. Tengo que renovar el pasaporte antes de marzo.",
    ]
    kept: dict[str, list[list[str]]] = {}
    for who, extra in (("plain", {}), ("named", {"speaker": "Ana"})):
        for number, text in enumerate(turns):
            body = {"text": text, "user_id": f"{who}{number}", **extra}
            answer = _post(live, "writer", "/v1/capture/message", body)
            assert answer.status_code == 200, answer.text
            stored = [c["content"] for c in answer.json()["candidates"] if c["memory_ids"]]
            kept.setdefault(who, []).append(stored)
    assert all(kept["plain"]) and kept["plain"] == kept["named"]
