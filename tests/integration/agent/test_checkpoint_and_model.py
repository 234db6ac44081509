"""Checkpointed threads survive a restart; the OpenAI-compatible model boundary over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from memvault.agent import (
    AgentRuntime,
    Envelope,
    ModelError,
    OpenAICompatibleModel,
    sqlite_checkpointer,
)
from memvault.controller import InMemoryController

RESTART = """
import sys
from memvault.agent import AgentRuntime, Envelope, sqlite_checkpointer
from memvault.controller import DisabledMemoryController
saver = sqlite_checkpointer(sys.argv[1])
turn = AgentRuntime(DisabledMemoryController, checkpointer=saver).handle(
    Envelope("cli", "acme", "dana", "still there?"))
print(turn.thread_turn, turn.routes)
saver.conn.close()
"""


def test_checkpointed_thread_survives_a_process_restart(tmp_path: Path) -> None:
    db = tmp_path / "agent" / "checkpoints.db"
    saver = sqlite_checkpointer(db)
    runtime = AgentRuntime(InMemoryController, checkpointer=saver)
    first = [runtime.handle(Envelope("cli", "acme", "dana", t)) for t in ("hi", "again")]
    other = runtime.handle(Envelope("http", "acme", "dana", "another thread"))
    runtime.close()
    saver.conn.close()
    assert [t.thread_turn for t in first] == [1, 2] and other.thread_turn == 1

    out = subprocess.run(
        [sys.executable, "-c", RESTART, str(db)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert out.stdout.split(" ", 1)[0] == "3"  # the restarted agent resumed the thread
    assert "plan:memory_read_node" in out.stdout


class _ChatHandler(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            return
        system = body["messages"][0]["content"]
        answer = "memory seen" if "<memory>" in system else "no memory"
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass


@pytest.fixture
def chat_server() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _ChatHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join()


def test_openai_compatible_model_gets_memory_as_content(chat_server: str) -> None:
    _ChatHandler.seen.clear()
    model = OpenAICompatibleModel(chat_server, model="tiny", api_key="k")
    runtime = AgentRuntime(InMemoryController, model)
    turns = runtime.run(
        [
            Envelope("cli", "acme", "dana", "I prefer green tea"),
            Envelope("http", "acme", "dana", "which tea?"),
        ]
    )
    assert [t.response for t in turns] == ["no memory", "memory seen"]
    assert _ChatHandler.seen[0]["path"] == "/v1/chat/completions"
    assert _ChatHandler.seen[0]["auth"] == "Bearer k"
    assert _ChatHandler.seen[1]["messages"][1] == {"role": "user", "content": "which tea?"}


def test_model_failure_is_content_not_a_crash(chat_server: str) -> None:
    model = OpenAICompatibleModel(chat_server, model="broken")
    with pytest.raises(ModelError):
        model.complete([{"role": "user", "content": "hi"}])
    turn = AgentRuntime(InMemoryController, model).handle(Envelope("cli", "acme", "dana", "hi"))
    assert turn.response.startswith("(model unavailable:")
    assert turn.nodes[-1] == "format_response_node"
