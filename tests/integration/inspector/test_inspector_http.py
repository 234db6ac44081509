"""The inspector over real HTTP (no browser): every page, its errors, CSRF, cookies, keys."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from memvault.access import AccessControl
from memvault.api import create_app
from memvault.config import load_config
from memvault.inspector import pages_governance, pages_memories
from tests.helpers import add_fields
from tests.integration.inspector.conftest import Site, csrf_of, serve, stop

PAGES = [
    "/",
    "/?q=coffee",
    "/graph",
    "/graph?user=dana",
    "/timeline",
    "/timeline?user=dana",
    "/refusals",
    "/consent",
    "/bulletin?thread=t1&message=coffee",
    "/ingest",
    "/audit",
    "/audit?verify=1",
]

#: Every form the inspector serves (path, form fields besides csrf).
FORMS = [
    ("/signout", {}),
    ("/memory/{id}/delete", {}),
    ("/memory/{id}/restore", {}),
    ("/memory/{id}/edit", {"importance": "12"}),
    ("/consent/{proposal}/confirm", {}),
    ("/consent/{proposal}/reject", {}),
    ("/audit/export", {"user": "dana"}),
    ("/audit/export/run", {"user": "dana", "confirm": "dana"}),
    ("/audit/forget", {"user": "dana"}),
    ("/audit/forget/run", {"user": "dana", "confirm": "dana"}),
]


def _add(site: Site, content: str, **fields: str | int) -> str:
    base = {
        "type": "Preference",
        "category": "PREFERENCE",
        "source_kind": "USER_EXPLICIT",
        "user_id": "erin",
    }
    result = add_fields(site.engine(), content, **{**base, **fields})
    assert result.memory_id is not None, result
    return result.memory_id


def _proposal(site: Site, content: str) -> str:
    made = site.engine().propose(content, user_id="erin", type="Preference", category="PREFERENCE")
    assert made.proposal_id is not None, made
    return made.proposal_id


@pytest.fixture
def writer(site: Site) -> Iterator[httpx.Client]:
    with site.sign_in("writer") as client:
        yield client


def _form(client: httpx.Client, page: str, action: str, **fields: str) -> httpx.Response:
    token = csrf_of(client.get(page).text)
    return client.post(action, data={"csrf": token, **fields})


# -- sign-in, session cookie ----------------------------------------------------


def test_pages_need_a_session(site: Site) -> None:
    with site.client() as client:
        for path in ["/", "/memory/x", "/refusals", "/graph/data?user=dana"]:
            response = client.get(path)
            assert response.status_code == 303
            assert response.headers["location"].startswith("/signin")
        assert "next=%2Frefusals" in client.get("/refusals").headers["location"]


def test_sign_in_sets_an_httponly_strict_session_cookie(site: Site) -> None:
    with site.client() as client:
        form = client.get("/signin")
        assert form.status_code == 200
        nonce_cookie = form.headers["set-cookie"]
        assert "HttpOnly" in nonce_cookie and "SameSite=Strict" in nonce_cookie
        done = client.post(
            "/signin", data={"key": site.keys["writer"], "csrf": csrf_of(form.text), "next": "/"}
        )
        assert done.status_code == 303 and done.headers["location"] == "/"
        session = next(c for c in done.headers.get_list("set-cookie") if "mv_session=" in c)
        assert "HttpOnly" in session and "SameSite=Strict" in session
        assert "Secure" not in session  # served over plain http here
        assert site.keys["writer"] not in session  # the cookie is an opaque id, never the key
        page = client.get("/")
        assert page.status_code == 200 and "writer" in page.text


def test_session_cookie_is_secure_over_https(tmp_path: Path) -> None:
    control = AccessControl(
        tmp_path, load_config(tmp_path, overrides={"embedder": {"name": "hashing"}}, environ={})
    )
    key, _ = control.keys.create("acme", "dev")
    with TestClient(create_app(control), base_url="https://testserver") as client:
        form = client.get("/signin")
        assert "Secure" in form.headers["set-cookie"]
        done = client.post(
            "/signin",
            data={"key": key, "csrf": csrf_of(form.text)},
            follow_redirects=False,
        )
        session = next(c for c in done.headers.get_list("set-cookie") if "mv_session=" in c)
        assert "Secure" in session and "HttpOnly" in session and "SameSite=Strict" in session


def test_bad_key_and_missing_nonce_are_refused(site: Site) -> None:
    with site.client() as client:
        form = client.get("/signin")
        bad = client.post(
            "/signin", data={"key": "mvk_000000000000_" + "x" * 30, "csrf": csrf_of(form.text)}
        )
        assert bad.status_code == 401 and "not valid" in bad.text
        assert "mv_session=" not in bad.headers.get("set-cookie", "")
    with site.client() as fresh:  # no sign-in cookie: the form's nonce cannot match
        forged = fresh.post("/signin", data={"key": site.keys["writer"], "csrf": "guess"})
        assert forged.status_code == 403 and "expired" in forged.text
        assert "mv_session=" not in forged.headers.get("set-cookie", "")


def test_sign_in_never_redirects_off_site(site: Site) -> None:
    for target in ["//evil.example/", "https://evil.example/", "/\\evil.example"]:
        with site.client() as client:
            form = client.get("/signin")
            done = client.post(
                "/signin",
                data={"key": site.keys["writer"], "csrf": csrf_of(form.text), "next": target},
            )
            assert done.headers["location"] == "/", target


def test_sign_out_ends_the_session(site: Site) -> None:
    with site.sign_in("writer") as client:
        old = client.cookies.get("mv_session")
        out = _form(client, "/", "/signout")
        assert out.status_code == 303 and out.headers["location"] == "/signin"
    with site.client() as replay:
        replay.cookies.set("mv_session", old or "")
        assert replay.get("/").status_code == 303  # the old id no longer opens anything


def test_a_revoked_key_signs_its_sessions_out(site: Site) -> None:
    key, record = site.control.keys.create("acme", "temp")
    site.keys["temp"] = key
    with site.sign_in("temp") as client:
        assert client.get("/").status_code == 200
        site.control.keys.revoke(record.key_id)
        assert client.get("/").status_code == 303


def test_pages_send_security_headers_and_serve_assets_locally(writer: httpx.Client) -> None:
    page = writer.get("/graph?user=dana")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
        assert writer.get(src).status_code == 200, src
    assert "http://" not in page.text.split("<main>")[0] and "https://" not in page.text


def test_vendored_graph_library_matches_its_record() -> None:
    vendor = Path(pages_memories.__file__).parent / "static" / "vendor"
    digest = hashlib.sha256((vendor / "cytoscape.min.js").read_bytes()).hexdigest()
    record = (vendor / "VENDORED.md").read_text()
    assert digest in record
    assert "Permission is hereby granted" in (vendor / "cytoscape.LICENSE").read_text()


# -- every page --------------------------------------------------------------------


def test_every_page_renders(site: Site, writer: httpx.Client) -> None:
    dana = site.ids["coffee2"]  # Dana's: the page reads as her, as the memories page links it
    for path in [*PAGES, f"/memory/{dana}?user=dana", f"/graph?memory={site.ids['pg']}"]:
        response = writer.get(path)
        assert response.status_code == 200, (path, response.text[:500])
        assert "Traceback" not in response.text


def test_memories_search_shows_explain_and_revision(site: Site, writer: httpx.Client) -> None:
    page = writer.get("/", params={"q": "coffee", "user": "dana"})
    assert "Dana does not drink coffee any more." in page.text
    # A key bound to no user (no --all-users) that names none sees shared memories only.
    unnamed = writer.get("/", params={"q": "coffee"}).text
    assert "Dana does not drink coffee any more." not in unnamed
    assert 'data-testid="explain"' in page.text and "importance" in page.text
    assert "text" in page.text and "Legs that ran" in page.text
    revision = site.base().store.revision("acme")
    assert f"revision {revision}" in writer.get("/").text


def test_memories_filters_narrow_the_list(site: Site, writer: httpx.Client) -> None:
    billing = writer.get("/", params={"project": "billing", "type": "Todo"}).text
    assert "data migration script" in billing and "espresso" not in billing
    cats = writer.get("/", params={"category": "constraint", "user": "dana"}).text
    assert "Never push to trunk" in cats and "espresso" not in cats
    assert "espresso" not in writer.get("/", params={"importance_min": "90"}).text


def test_memory_page_shows_provenance_edges_and_history(site: Site, writer: httpx.Client) -> None:
    page = writer.get(f"/memory/{site.ids['pg']}").text
    assert "workflow_output" in page and "run-42" in page and "plan" in page
    assert "PartOf" in page and "data migration script" in page  # the edge and its other end
    event = site.engine().history(site.ids["pg"])[0]
    assert event.hash[:16] in page and "CREATE" in page
    conflict = writer.get(f"/memory/{site.ids['coffee2']}", params={"user": "dana"}).text
    assert "unresolved" in conflict


def test_graph_data_highlights_unresolved_contradictions(site: Site, writer: httpx.Client) -> None:
    around = {"memory": site.ids["coffee1"], "user": "dana"}  # Dana's memory, read as her
    data = writer.get("/graph/data", params=around).json()
    assert {n["id"] for n in data["nodes"]} >= {site.ids["coffee1"], site.ids["coffee2"]}
    [edge] = [e for e in data["edges"] if e["type"] == "Contradicts"]
    assert edge["conflict"] is True
    user = writer.get("/graph/data", params={"user": "dana"}).json()
    assert site.ids["tone"] in {n["id"] for n in user["nodes"]}


def test_delete_restore_and_refused_edit(site: Site, writer: httpx.Client) -> None:
    memory_id = _add(site, "Erin likes green tea in the morning.")
    page, erin = f"/memory/{memory_id}", "?user=erin"  # Erin's memory: its pages read as her
    done = _form(writer, page + erin, f"{page}/delete{erin}")
    assert done.status_code == 303
    shown = writer.get(done.headers["location"]).text
    assert "soft_deleted" in shown and "Soft-deleted" in shown
    assert site.engine().get(memory_id, include_deleted=True).node.purge_at is not None
    assert done.headers["location"] == f"{page}?user=erin&done=deleted"
    assert _form(writer, page + erin, f"{page}/restore{erin}").status_code == 303
    assert site.engine().get(memory_id).node.status.value == "active"
    refused = _form(
        writer, page + erin, f"{page}/edit{erin}", content="My password is hunter2-Secret!"
    )
    assert refused.status_code == 422
    assert "FORBIDDEN_CATEGORY" in refused.text and "Nothing was changed" in refused.text
    assert site.engine().get(memory_id).node.content == "Erin likes green tea in the morning."
    edited = _form(writer, page + erin, f"{page}/edit{erin}", importance="77", content="")
    assert edited.status_code == 303
    assert site.engine().get(memory_id).node.importance == 77


def test_edit_with_bad_fields_is_a_clear_422(site: Site, writer: httpx.Client) -> None:
    memory_id = _add(site, "Erin prefers short stand-ups.")
    page, erin = f"/memory/{memory_id}", "?user=erin"
    bad = _form(writer, page + erin, f"{page}/edit{erin}", importance="lots")
    assert bad.status_code == 422 and "importance must be a whole number" in bad.text
    same = _form(writer, page + erin, f"{page}/edit{erin}", content="Erin prefers short stand-ups.")
    assert same.status_code == 422 and "changes no field" in same.text


def test_consent_confirm_and_reject_go_through_the_gate(site: Site, writer: httpx.Client) -> None:
    yes = _proposal(site, "Erin prefers written summaries after meetings.")
    no = _proposal(site, "Erin prefers video calls over phone calls.")
    listing = writer.get("/consent", params={"user": "erin"}).text
    assert "Erin prefers written summaries" in listing and "expires" in listing
    # A key bound to no user sees the proposals of the user it names (shared ones otherwise).
    assert "Erin prefers written summaries" not in writer.get("/consent").text
    # The page's forms decide as the proposal's user (a decision by id is scoped as a
    # write by id): without it, or naming another user, Erin's proposal is not found.
    assert f"/consent/{yes}/confirm?user=erin" in listing
    assert f"/consent/{no}/reject?user=erin" in listing
    for action in (f"/consent/{yes}/confirm", f"/consent/{no}/reject?user=dana"):
        hidden = _form(writer, "/consent", action)
        assert hidden.status_code == 404, hidden.text
    assert not site.base().proposals(status="confirmed")
    confirmed = _form(writer, "/consent", f"/consent/{yes}/confirm?user=erin")
    assert confirmed.status_code == 303 and confirmed.headers["location"].startswith("/memory/")
    stored = site.base().proposals(status="confirmed")
    assert yes in {p.proposal_id for p in stored}
    rejected = _form(writer, "/consent", f"/consent/{no}/reject?user=erin")
    assert rejected.status_code == 303
    assert "Rejected" in writer.get(rejected.headers["location"]).text
    again = _form(writer, "/consent", f"/consent/{yes}/confirm?user=erin")
    assert again.status_code == 409 and "Proposal" in again.text


def test_refusals_are_counted_never_shown(site: Site, writer: httpx.Client) -> None:
    def total() -> int:
        match = re.search(r'data-testid="refusal-total">(\d+)<', writer.get("/refusals").text)
        assert match is not None
        return int(match.group(1))

    before = total()
    secret = "My API token is sk-live-0123456789abcdefABCDEF"
    result = add_fields(
        site.engine(), secret, type="Preference", category="PREFERENCE", source_kind="USER_EXPLICIT"
    )
    assert not result.ok
    page = writer.get("/refusals").text
    assert total() == before + 1
    assert result.stop_reason.value in page and "contract 19.1.0" in page
    assert result.detector is not None and page.count(result.detector) >= 2  # total and per day
    assert "sk-live" not in page
    assert "REFUSE" in writer.get("/timeline", params={"op": "REFUSE"}).text


def test_timeline_pages_newest_first(site: Site, writer: httpx.Client) -> None:
    site.engine().add_many(
        [
            {
                "content": f"Paging fact number {i} about the frobnicator.",
                "type": "Fact",
                "category": "PROJECT_CONFIG",
                "source_kind": "SYSTEM_KNOWN",
                "user_id": "pager",
            }
            for i in range(60)
        ]
    )
    site.keys["pager-admin"], _ = site.control.keys.create("acme", "pager-admin", all_users=True)
    with site.sign_in("pager-admin") as admin:
        first = admin.get("/timeline").text
        assert 'data-testid="next-page"' in first and "Paging fact number" in first
        second = admin.get("/timeline", params={"page": "2"})
        assert second.status_code == 200 and "newer" in second.text
    # a key bound to no user without --all-users: shared memories' events and refusals
    assert "Paging fact number" not in writer.get("/timeline").text
    listing = writer.get("/", params={"user": "pager", "page": "3"}).text
    assert "page 3 of 3" in listing and "60 in all" in listing
    past = writer.get("/", params={"user": "pager", "page": "9"}).text
    assert "No memories on this page" in past
    mine = writer.get("/timeline", params={"user": "pager"}).text
    assert "CREATE" in mine and "Paging fact number" in mine  # events with their memory


def test_bulletin_is_a_preview_that_does_not_advance_the_thread(writer: httpx.Client) -> None:
    for _ in range(2):
        page = writer.get("/bulletin", params={"thread": "inspect-1", "message": "coffee"}).text
        assert "Memory updates since rev 0" in page
        assert "memory-bulletin" in page and "omitted lines" in page


def test_ingest_lists_manifests_with_reasons(site: Site, writer: httpx.Client) -> None:
    engine = site.base()
    assert engine.layout is not None
    drop = engine.layout.ingest_dir
    drop.mkdir(parents=True, exist_ok=True)
    (drop / "tool.exe").write_bytes(b"\x00\x01binary")
    (drop / "team.md").write_text("# Team\nThe billing team deploys on Tuesdays.\n")
    engine.ingest_pending(settle_seconds=0)
    page = writer.get("/ingest").text
    assert "tool.exe" in page and "UNSUPPORTED_TYPE" in page and "team.md" in page
    rejected = writer.get("/ingest", params={"status": "rejected"}).text
    assert "tool.exe" in rejected and "team.md" not in rejected


def test_audit_verify_export_and_forget_with_confirmation(site: Site, writer: httpx.Client) -> None:
    _add(site, "Frank prefers dark mode in every editor.", user_id="frank")
    verify = writer.get("/audit", params={"verify": "1"}).text
    assert "the chain holds" in verify
    ask = _form(writer, "/audit", "/audit/export", user="frank")
    assert ask.status_code == 200 and 'data-testid="confirm"' in ask.text
    token = csrf_of(ask.text)
    unconfirmed = writer.post("/audit/export/run", data={"csrf": token, "user": "frank"})
    assert unconfirmed.status_code == 422
    export = writer.post(
        "/audit/export/run", data={"csrf": token, "user": "frank", "confirm": "frank"}
    )
    assert export.status_code == 200 and "attachment" in export.headers["content-disposition"]
    records = [json.loads(line) for line in export.text.splitlines()]
    assert any("dark mode" in json.dumps(r) for r in records)
    ask = _form(writer, "/audit", "/audit/forget", user="frank")
    assert "cannot be undone" in ask.text
    wrong = writer.post(
        "/audit/forget/run", data={"csrf": csrf_of(ask.text), "user": "frank", "confirm": "fran"}
    )
    assert wrong.status_code == 422
    assert site.engine().list_memories({"user_id": "frank"})
    gone = writer.post(
        "/audit/forget/run", data={"csrf": csrf_of(ask.text), "user": "frank", "confirm": "frank"}
    )
    assert gone.status_code == 200 and "memories purged" in gone.text
    assert site.engine().list_memories({"user_id": "frank"}) == []


# -- errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/?page=abc", "page must be a whole number"),
        ("/?page=0", "page must be a whole number"),
        ("/?importance_min=101", "importance_min must be"),
        ("/?importance_min=60&importance_max=10", "importance_min is above"),
        ("/?type=Feeling", "type must be among"),
        ("/?status=gone", "status must be among"),
        ("/?category=no%20such", "is not a category name"),
        ("/?q=" + "x" * 2100, "q is longer than 2000"),
        ("/?user=a%01b", "control characters"),
        ("/timeline?op=EAT", "op must be one of"),
        ("/refusals?days=-3", "days must be a whole number"),
        ("/consent?status=maybe", "status must be one of"),
        ("/bulletin?thread=a%20b", "thread may hold"),
        ("/ingest?status=lost", "status must be one of"),
        ("/graph/data", "give memory"),
        ("/memory/bad%20id", "not a memory id"),
    ],
)
def test_bad_parameters_get_a_clear_message(writer: httpx.Client, path: str, message: str) -> None:
    response = writer.get(path)
    assert response.status_code == 422, response.text[:300]
    assert message in response.text.replace("&#39;", "'")
    assert "Traceback" not in response.text


def test_unknown_memory_is_404_and_audited(site: Site, writer: httpx.Client) -> None:
    response = writer.get("/memory/mem_doesnotexist")
    assert response.status_code == 404 and "no memory" in response.text
    misses = [e for e in site.control.keys.access_events("acme") if e["event"] == "scope_miss"]
    assert any(e["memory_id"] == "mem_doesnotexist" for e in misses)


def test_every_form_checks_its_csrf_token(site: Site, writer: httpx.Client) -> None:
    memory_id = _add(site, "Erin keeps her notes in plain text files.")
    proposal = _proposal(site, "Erin prefers plain text over rich text.")
    for path, fields in FORMS:
        action = path.format(id=memory_id, proposal=proposal)
        for token in (None, "forged-token"):
            data = dict(fields) | ({"csrf": token} if token else {})
            response = writer.post(action, data=data)
            assert response.status_code == 403, (action, response.status_code)
            assert "nothing was changed" in response.text
    assert site.engine().get(memory_id).node.importance == 50  # no form took effect
    assert site.engine().proposals(status="pending", user_id="erin")
    assert writer.get("/").status_code == 200  # sign-out was refused too


def test_the_csrf_test_covers_every_form_route(site: Site) -> None:
    posts = {
        r.path
        for module in (pages_memories, pages_governance)
        for r in module.routes()
        if isinstance(r, Route) and "POST" in (r.methods or ())
    }
    covered = {
        path.replace("{id}", "{memory_id}").replace("{proposal}", "{proposal_id}")
        for path, _ in FORMS
    }
    assert posts | {"/signout"} == covered


# -- keys: read-only, restricted, another orchestrator, unavailable store ---------------


def test_read_only_key_sees_no_write_buttons_and_is_refused(site: Site) -> None:
    memory_id = _add(site, "Erin likes her coffee black.")
    proposal = _proposal(site, "Erin prefers quiet mornings.")
    with site.sign_in("reader") as reader:
        page = reader.get(f"/memory/{memory_id}", params={"user": "erin"}).text
        assert 'data-testid="read-only"' in page
        assert 'data-testid="delete"' not in page and 'data-testid="edit-save"' not in page
        consent = reader.get("/consent", params={"user": "erin"}).text
        assert proposal in consent and 'data-testid="confirm"' not in consent
        assert 'data-testid="forget"' not in reader.get("/audit").text
        token = csrf_of(page)
        for action in [f"/memory/{memory_id}/delete", f"/consent/{proposal}/confirm"]:
            refused = reader.post(action, data={"csrf": token})
            assert refused.status_code == 403 and "read-only" in refused.text
        forget = reader.post(
            "/audit/forget/run", data={"csrf": token, "user": "erin", "confirm": "erin"}
        )
        assert forget.status_code == 403
    assert site.engine().get(memory_id).node.status.value == "active"
    assert proposal in {p.proposal_id for p in site.base().proposals(status="pending")}


def test_category_restricted_key_sees_only_its_categories(site: Site) -> None:
    with site.sign_in("planner") as planner:
        listing = planner.get("/", params={"project": "billing", "type": "Todo"}).text
        assert "data migration script" in listing
        assert "espresso" not in planner.get("/", params={"user": "dana"}).text
        coffee = f"/memory/{site.ids['coffee1']}"
        assert planner.get(coffee, params={"user": "dana"}).status_code == 403
        assert planner.get(coffee).status_code == 404  # not Dana's reader: not even listed
        assert planner.get("/consent").status_code == 403  # spans every category


def test_another_orchestrators_key_sees_nothing_of_this_one(site: Site) -> None:
    with site.sign_in("other") as other:
        home = other.get("/")
        assert home.status_code == 200 and "No memories match" in home.text
        assert "globex" in home.text and "Dana" not in home.text
        assert other.get(f"/memory/{site.ids['coffee1']}").status_code == 404
        assert other.get("/graph/data", params={"memory": site.ids["coffee1"]}).status_code == 404
        assert other.get("/graph/data", params={"user": "dana"}).json()["nodes"] == []
        for path in ["/?q=coffee", "/timeline", "/consent", "/refusals", "/ingest", "/audit"]:
            page = other.get(path)
            assert page.status_code == 200, path
            assert "Dana" not in page.text and "coffee any more" not in page.text, path
        proposal = _proposal(site, "Erin prefers tea to coffee.")
        token = csrf_of(other.get("/consent").text)
        assert other.post(f"/consent/{proposal}/confirm", data={"csrf": token}).status_code == 404


@pytest.mark.parametrize("how", ["disabled", "corrupt"])
def test_unavailable_memory_says_so_on_every_page(tmp_path: Path, how: str) -> None:
    if how == "corrupt":
        db = tmp_path / "acme" / "memory" / "memory.db"
        db.parent.mkdir(parents=True)
        db.write_bytes(b"this is not a database" * 100)
    live, handle = serve(tmp_path, **({"memory": {"enabled": False}} if how == "disabled" else {}))
    try:
        live.keys["dev"], _ = live.control.keys.create("acme", "dev")
        with live.sign_in("dev") as client:
            for path in [*PAGES, "/memory/mem_x", "/graph/data?user=dana"]:
                response = client.get(path)
                assert response.status_code == 503, path
                assert "Memory is unavailable" in response.text and "Traceback" not in response.text
    finally:
        stop(handle, live.control)


def test_an_empty_store_renders_every_page(tmp_path: Path) -> None:
    live, handle = serve(tmp_path)
    try:
        live.keys["dev"], _ = live.control.keys.create("fresh", "dev")
        with live.sign_in("dev") as client:
            for path in PAGES:
                response = client.get(path)
                assert response.status_code == 200, path
            assert "No memories match" in client.get("/").text
            assert "No pending proposals." in client.get("/consent").text
            assert 'data-testid="empty"' in client.get("/refusals").text
            assert "No manifests yet" in client.get("/ingest").text
    finally:
        stop(handle, live.control)


def test_readme_shows_two_committed_inspector_screenshots() -> None:
    root = Path(__file__).resolve().parents[3]
    readme = (root / "README.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\((docs/img/inspector-[^)]+\.png)\)", readme)
    assert len(images) == 2
    for image in images:
        assert (root / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image


def test_consent_shows_what_a_merge_proposal_would_replace(
    site: Site, writer: httpx.Client
) -> None:
    older = _add(site, "Gina runs every Monday morning.", user_id="gina")
    newer = _add(site, "Gina runs on Monday mornings before work.", user_id="gina")
    made = site.engine().propose(
        "Gina runs on Monday mornings before work.",
        kind="consolidation",
        user_id="gina",
        type="Preference",
        category="PREFERENCE",
        replaces=[older, newer],
    )
    assert made.proposal_id is not None, made
    page = writer.get("/consent", params={"user": "gina"}).text
    assert f'href="/memory/{older}?user=gina">Gina runs every Monday morning.' in page
    assert f'href="/memory/{newer}?user=gina"' in page


def test_no_page_loads_anything_from_another_site() -> None:
    package = Path(pages_memories.__file__).parent
    for path in [*package.glob("templates/*.html"), *package.glob("static/*.*")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(?:src|href|url)\s*[=(]\s*["']?(?:https?:)?//""", text), path
        assert 'fetch("http' not in text and "@import" not in text, path


def test_cookies_are_secure_behind_a_local_tls_proxy(site: Site) -> None:
    with site.client() as client:
        proxied = client.get("/signin", headers={"X-Forwarded-Proto": "https"})
        assert proxied.headers["set-cookie"].endswith("; Secure")
        assert "Secure" not in client.get("/signin").headers["set-cookie"]


def test_bench_times_every_page_signed_in(tmp_path: Path) -> None:
    from memvault.inspector.bench import PAGES, run_pages

    result = run_pages(60, repeats=1, home=tmp_path)
    assert list(result["pages"]) == [name for name, _ in PAGES]
    assert all(page["median_ms"] > 0 for page in result["pages"].values())
    assert result["n"] == 60 and len(result["load_average"]) == 3


def test_bulletin_page_takes_a_user_and_never_shows_another_users(site: Site) -> None:
    """The Bulletin page is one user's; "all users" needs a key with that permission."""
    engine = site.engine()
    quokka = _add(site, "Prefers the quokka reading lamp", user_id="uma")
    narwhal = _add(site, "Prefers the narwhal reading lamp", user_id="vic")
    site.keys["lamp-admin"], _ = site.control.keys.create("acme", "lamp-admin", all_users=True)
    site.keys["uma"], _ = site.control.keys.create("acme", "uma-app", user="uma")
    assert engine.get(quokka).node.user_id == "uma"
    with site.sign_in("writer") as writer:
        uma = writer.get("/bulletin", params={"thread": "lamp", "user": "uma"}).text
        assert quokka[-6:] in uma and narwhal[-6:] not in uma and "narwhal" not in uma
        assert 'value="uma"' in uma and "For: <strong>uma</strong>" in uma
        shared = writer.get("/bulletin", params={"thread": "lamp"}).text
        assert "quokka" not in shared and "narwhal" not in shared
        assert writer.get("/bulletin", params={"all_users": "1"}).status_code == 403
    with site.sign_in("lamp-admin") as admin:
        everyone = admin.get("/bulletin", params={"thread": "lamp", "all_users": "1"}).text
        assert "quokka" in everyone and "narwhal" in everyone
    with site.sign_in("uma") as bound:
        mine = bound.get("/bulletin", params={"thread": "lamp"}).text
        assert "quokka" in mine and "narwhal" not in mine
        assert bound.get("/bulletin", params={"user": "vic"}).status_code == 403


def test_timeline_links_a_consent_refusal_to_its_confirmation(site: Site) -> None:
    engine = site.engine()
    queued = add_fields(
        engine,
        "Please call me Ilse",
        type="Preference",
        category="PREFERENCE",
        key="preferred_name",
        value="Ilse",
        source_kind="USER_EXPLICIT",
        user_id="ilse",
    )
    assert queued.proposal_id is not None
    stored = engine.confirm_proposal(queued.proposal_id)
    assert stored.memory_id is not None
    # The orchestrator-wide timeline links every user's consent: a key with --all-users.
    site.keys["everyone"], _ = site.control.keys.create("acme", "auditor", all_users=True)
    with site.sign_in("everyone") as auditor:
        page = auditor.get("/timeline", params={"op": "REFUSE"}).text
    assert 'data-testid="consent-link"' in page
    assert f'→ confirmed as <a href="/memory/{stored.memory_id}">' in page


def test_a_memory_page_reads_as_the_pages_user(site: Site, writer: httpx.Client) -> None:
    """A key bound to no user (the writer) opens a user's memory by id only as that user:
    the memories page links it with its user; no user, or another, is 404 and audited."""
    mine = _add(site, "Hana keeps her oolong in a tin.", user_id="hana")
    other = _add(site, "Ivo keeps his oolong in a jar.", user_id="ivo")
    assert site.engine().link(mine, other, "RelatedTo").ok
    listing = writer.get("/", params={"user": "hana"}).text
    assert f'href="/memory/{mine}?user=hana"' in listing
    page = writer.get(f"/memory/{mine}", params={"user": "hana"})
    assert page.status_code == 200 and "Hana keeps her oolong" in page.text
    # the edge to Ivo's memory is left out (its LINK event in the history still names it)
    assert "Ivo keeps his oolong" not in page.text and "not visible to this key" not in page.text
    assert f'action="/memory/{mine}/delete?user=hana"' in page.text
    for params in ({}, {"user": "ivo"}):
        assert writer.get(f"/memory/{mine}", params=params).status_code == 404
    around = writer.get("/graph/data", params={"memory": mine, "user": "hana"}).json()
    assert {n["id"] for n in around["nodes"]} == {mine} and around["edges"] == []
    assert writer.get("/graph/data", params={"memory": mine}).status_code == 404
    misses = [
        e
        for e in site.control.keys.access_events("acme")
        if e["event"] == "scope_miss" and e["memory_id"] == mine
    ]
    assert len(misses) >= 3
    site.keys["oolong-admin"], _ = site.control.keys.create("acme", "oolong-admin", all_users=True)
    with site.sign_in("oolong-admin") as admin:  # --all-users: every user's, as it lists them
        whole = admin.get(f"/memory/{mine}")
        assert whole.status_code == 200 and "Ivo keeps his oolong" in whole.text


def test_memory_forms_write_as_the_pages_user(site: Site, writer: httpx.Client) -> None:
    """Writes by id (review R1): the forms act as the page's user; without it an unbound
    key changes shared memories only, and a key bound to a user never a shared one."""
    erin = _add(site, "Erin keeps the orange folder for the form scope review.")
    made = add_fields(
        site.engine(),
        "The orange folder review is on Thursdays.",
        type="Preference",
        category="PREFERENCE",
        source_kind="USER_EXPLICIT",
    )
    assert made.memory_id is not None, made
    shared = made.memory_id
    page = f"/memory/{erin}"
    token = csrf_of(writer.get(page, params={"user": "erin"}).text)
    for action in (f"{page}/delete", f"{page}/edit", f"{page}/delete?user=dana"):
        refused = writer.post(action, data={"csrf": token, "importance": "12"})
        assert refused.status_code == 404, (action, refused.text[:300])
    assert site.engine().get(erin).node.status.value == "active"
    assert _form(writer, page + "?user=erin", f"{page}/delete?user=erin").status_code == 303
    site.keys["erin-app"], _ = site.control.keys.create("acme", "erin-app", user="erin")
    with site.sign_in("erin-app") as bound:
        page = f"/memory/{shared}"
        assert bound.get(page).status_code == 200  # it reads the shared memory
        for action in (f"{page}/delete", f"{page}/edit"):
            refused = _form(bound, page, action, importance="12")
            assert refused.status_code == 404, (action, refused.text[:300])
    node = site.engine().get(shared).node
    assert node.status.value == "active" and node.importance != 12
