"""The OpenAI-compatible client against a real local HTTP server (loopback only)."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

pytest.importorskip("httpx")

from memvault.embed.hashing import HashingEmbedder
from memvault.embed.openai_compat import INSTALL_COMMAND, OpenAICompatibleEmbedder
from memvault.errors import EmbedderError

DIM = 16
_VECTORS = HashingEmbedder(DIM)


@dataclass
class Script:
    """What the fake server does: one planned behaviour per request, then ``ok``."""

    plan: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self, body: dict[str, Any], headers: dict[str, str]) -> str:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            return self.plan.pop(0) if self.plan else "ok"


class _Handler(BaseHTTPRequestHandler):
    script: Script

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        action = self.server.script.next(body, dict(self.headers))  # type: ignore[attr-defined]
        if action == "slow":
            time.sleep(0.6)
            action = "ok"
        if action.isdigit():
            payload = json.dumps({"error": {"message": "planned failure"}}).encode()
            self.send_response(int(action))
            if action == "429":
                self.send_header("Retry-After", "0")
        elif action == "garbage":
            payload = b'{"object": "list"}'
            self.send_response(200)
        else:
            if self.path != "/v1/embeddings":
                self.send_response(404)
                payload = b"{}"
            else:
                vectors = _VECTORS.embed_documents(body["input"]) * 3.0  # not normalised
                data = [
                    {"object": "embedding", "index": i, "embedding": vector.tolist()}
                    for i, vector in enumerate(vectors)
                ]
                data.reverse()  # the client must order by "index", not by position
                answer = {"object": "list", "data": data, "model": body["model"]}
                payload = json.dumps(answer).encode()
                self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(payload)  # fails when the client timed out and left


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: Script) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out is expected in these tests


@dataclass
class Served:
    url: str
    script: Script


@pytest.fixture
def served() -> Iterator[Served]:
    script = Script()
    server = _Server(script)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_address[1]}/v1", script)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _client(served: Served, **options: Any) -> OpenAICompatibleEmbedder:
    sleeps: list[float] = []
    options.setdefault("backoff", 0.01)
    embedder = OpenAICompatibleEmbedder(
        "test-model", base_url=served.url, sleep=sleeps.append, **options
    )
    embedder.sleeps = sleeps  # type: ignore[attr-defined]  # test-only inspection
    return embedder


def test_embeds_in_batches_in_order_and_normalised(served: Served) -> None:
    texts = [f"text number {i}" for i in range(5)]
    with _client(served, batch_size=2, dimension=DIM) as embedder:
        matrix = embedder.embed_documents(texts)
    assert [len(r["input"]) for r in served.script.requests] == [2, 2, 1]
    assert all(r["model"] == "test-model" for r in served.script.requests)
    np.testing.assert_allclose(matrix, _VECTORS.embed_documents(texts), atol=1e-6)
    assert matrix.dtype == np.float32


def test_dimension_is_learned_from_the_first_response(served: Served) -> None:
    with _client(served) as embedder:
        assert embedder.dimension == DIM
        assert embedder.embed_query("hello").shape == (DIM,)


def test_prefixes_and_api_key_are_sent(served: Served) -> None:
    with _client(
        served, api_key="sk-test", query_prefix="query: ", document_prefix="passage: "
    ) as embedder:
        embedder.embed_query("q")
        embedder.embed_documents(["d"])
    assert [r["input"] for r in served.script.requests] == [["query: q"], ["passage: d"]]
    assert served.script.headers[0]["Authorization"] == "Bearer sk-test"


def test_retries_server_errors_then_succeeds(served: Served) -> None:
    served.script.plan = ["503", "500"]
    with _client(served, dimension=DIM, backoff=0.25) as embedder:
        vector = embedder.embed_query("eventually")
    assert len(served.script.requests) == 3
    assert embedder.sleeps == [0.25, 0.5]  # type: ignore[attr-defined]
    np.testing.assert_allclose(vector, _VECTORS.embed_query("eventually"), atol=1e-6)


def test_honours_retry_after_on_429(served: Served) -> None:
    served.script.plan = ["429"]
    with _client(served, dimension=DIM, backoff=5.0) as embedder:
        embedder.embed_query("x")
    assert embedder.sleeps == [0.0]  # type: ignore[attr-defined]


def test_gives_up_after_max_retries(served: Served) -> None:
    served.script.plan = ["502"] * 10
    with (
        _client(served, dimension=DIM, max_retries=2) as embedder,
        pytest.raises(EmbedderError, match=r"after 3 attempt\(s\): HTTP 502"),
    ):
        embedder.embed_query("never")
    assert len(served.script.requests) == 3


def test_retry_budget_bounds_the_waiting(served: Served) -> None:
    served.script.plan = ["500"] * 10
    with (
        _client(served, dimension=DIM, max_retries=10, backoff=1.0, retry_budget=2.5) as e,
        pytest.raises(EmbedderError, match="HTTP 500"),
    ):
        e.embed_query("never")
    # The first wait (1 s) fits in 2.5 s; the second (2 s on top of 1 s) would not, so
    # the client raises instead of starting it.
    assert e.sleeps == [1.0]  # type: ignore[attr-defined]


def test_client_errors_are_not_retried(served: Served) -> None:
    served.script.plan = ["400"]
    with _client(served, dimension=DIM) as embedder, pytest.raises(EmbedderError, match="HTTP 400"):
        embedder.embed_query("bad")
    assert len(served.script.requests) == 1


def test_a_timeout_is_retried(served: Served) -> None:
    served.script.plan = ["slow"]
    with _client(served, dimension=DIM, timeout=0.2) as embedder:
        started = time.monotonic()
        vector = embedder.embed_query("patience")
    assert time.monotonic() - started < 5
    assert len(served.script.requests) == 2
    assert vector.shape == (DIM,)


def test_timeouts_exhaust_the_retries(served: Served) -> None:
    served.script.plan = ["slow", "slow"]
    with (
        _client(served, dimension=DIM, timeout=0.2, max_retries=1) as embedder,
        pytest.raises(EmbedderError, match="timed out"),
    ):
        embedder.embed_query("too slow")


def test_a_malformed_response_is_an_error(served: Served) -> None:
    served.script.plan = ["garbage"]
    with (
        _client(served, dimension=DIM) as embedder,
        pytest.raises(EmbedderError, match="not an embeddings list"),
    ):
        embedder.embed_query("x")


def test_a_wrong_dimension_is_an_error(served: Served) -> None:
    with (
        _client(served, dimension=DIM + 1) as embedder,
        pytest.raises(EmbedderError, match="length 16"),
    ):
        embedder.embed_query("x")


def test_connection_refused_is_retried_then_reported() -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps: list[float] = []
    with (
        OpenAICompatibleEmbedder(
            "m",
            base_url=f"http://127.0.0.1:{port}/v1",
            dimension=DIM,
            max_retries=1,
            backoff=0.01,
            sleep=sleeps.append,
        ) as embedder,
        pytest.raises(EmbedderError, match="connection failed"),
    ):
        embedder.embed_query("x")
    assert sleeps == [0.01]


def test_missing_httpx_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(EmbedderError, match="httpx") as caught:
        OpenAICompatibleEmbedder("m")
    assert INSTALL_COMMAND in caught.value.hint


def test_model_id_and_empty_input() -> None:
    embedder = OpenAICompatibleEmbedder("text-embedding-3-small", dimensions=256)
    assert embedder.model_id == "openai-compatible/text-embedding-3-small@256"
    assert embedder.embed_documents([]).shape == (0, 256)  # no request needed
