"""The LLM extractor against a small local server speaking chat completions.

The network is the one thing faked: a stdlib ``http.server`` in a thread.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memvault.extract import Message
from memvault.extract.llm import LLMConfig, LLMExtractor

NOW = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)
TURN = "Hi! I moved from Lisbon to Porto last month and I really love coffee."


class Server:
    """Replies from a script: each entry is (status, body or None for a hang)."""

    def __init__(self) -> None:
        self.script: list[tuple[int, Any]] = []
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                outer.requests.append(
                    {"path": self.path, "body": json.loads(self.rfile.read(length))}
                )
                status, body = outer.script.pop(0) if outer.script else (500, "no script")
                if body is None:
                    time.sleep(0.5)  # longer than the client's timeout
                    return
                payload = body if isinstance(body, str) else json.dumps(body)
                data = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, memories: list[dict[str, Any]]) -> tuple[int, Any]:
        content = json.dumps({"memories": memories})
        return 200, {"choices": [{"message": {"role": "assistant", "content": content}}]}


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    thread = threading.Thread(target=s.httpd.serve_forever, daemon=True)
    thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()
    thread.join(timeout=5)


def extractor(server: Server, **overrides: Any) -> LLMExtractor:
    cfg: dict[str, Any] = {
        "base_url": server.url,
        "model": "tiny",
        "timeout_s": 0.2,
        "budget_s": 3.0,
        "max_retries": 2,
        "backoff_s": 0.01,
        "min_chars": 0,
        **overrides,
    }
    return LLMExtractor(LLMConfig(**cfg), sleep=lambda _s: None)


def msg(text: str = TURN, user: str = "dana") -> Message:
    return Message(text=text, user_id=user, speaker="Dana", at=NOW)


PORTO = {
    "content": "Dana now lives in Porto.",
    "type": "Fact",
    "category": "KNOWLEDGE",
    "key": "home_city",
    "value": "Porto",
    "importance": 60,
}


def test_json_schema_answer_becomes_validated_candidates(server: Server) -> None:
    bad = {**PORTO, "content": "I live in Porto and I told you so. Twice. Really."}
    server.script.append(server.answer([PORTO, bad]))
    x = extractor(server).extract(msg(), now=NOW)
    assert x.extractor == "llm" and [c.content for c in x.candidates] == [PORTO["content"]]
    assert x.candidates[0].key == "home_city" and x.dropped  # the pronoun one was dropped
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert body["model"] == "tiny" and body["response_format"]["type"] == "json_schema"
    assert body["messages"][1] == {"role": "user", "content": TURN}


def test_server_errors_are_retried_within_the_budget(server: Server) -> None:
    server.script += [(503, "busy"), (500, "oops"), server.answer([PORTO])]
    x = extractor(server).extract(msg(), now=NOW)
    assert x.extractor == "llm" and len(server.requests) == 3


@pytest.mark.parametrize(
    "reply",
    [
        (200, "not json at all"),
        (200, {"choices": [{"message": {"content": '{"nope": 1}'}}]}),
        (200, {"choices": [{"message": {"content": json.dumps({"memories": [{"type": "X"}]})}}]}),
        (400, {"error": "bad request"}),
        (500, "down"),
    ],
)
def test_any_failure_falls_back_to_the_rules(server: Server, reply: tuple[int, Any]) -> None:
    server.script += [reply] * 3
    x = extractor(server).extract(msg(), now=NOW)
    assert x.extractor == "rules" and x.errors[0].startswith("llm:")
    assert [c.content for c in x.candidates] == [
        "Dana moved from Lisbon to Porto in December 2025.",
        "Dana really loves coffee.",
    ]


def test_a_hanging_server_times_out_and_falls_back(server: Server) -> None:
    server.script += [(200, None)] * 3
    start = time.perf_counter()
    x = extractor(server, max_retries=1, budget_s=1.0).extract(msg(), now=NOW)
    assert x.extractor == "rules" and time.perf_counter() - start < 2.0


def test_daily_cap_per_user(server: Server) -> None:
    server.script += [server.answer([PORTO])] * 3
    llm = extractor(server, daily_cap_per_user=2)
    assert [llm.extract(msg(), now=NOW).extractor for _ in range(3)] == ["llm", "llm", "rules"]
    assert llm.extract(msg(user="ana"), now=NOW).extractor == "llm"
    assert len(server.requests) == 3


def test_short_turns_and_other_roles_never_call_the_model(server: Server) -> None:
    llm = extractor(server, min_chars=40)
    assert llm.extract(msg("I love tea"), now=NOW).extractor == "rules"
    tool = Message(text=TURN, role="tool")
    assert llm.extract(tool, now=NOW).skipped
    assert server.requests == []


def test_a_forbidden_slot_from_the_model_is_marked(server: Server) -> None:
    server.script = [
        server.answer(
            [
                {
                    "content": "Dana's religion is Buddhism.",
                    "type": "Fact",
                    "category": "KNOWLEDGE",
                    "key": "religion",
                    "value": "Buddhism",
                },
                {
                    "content": "Dana lives in Porto.",
                    "type": "Fact",
                    "category": "KNOWLEDGE",
                    "key": "home_city",
                    "value": "Porto",
                },
            ]
        )
    ]
    x = extractor(server).extract(msg(), now=NOW)
    assert [c.sensitive for c in x.candidates] == ["identity_trait", ""]
