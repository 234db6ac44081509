"""A real uvicorn server on 127.0.0.1 (free port), in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from memvault.access import AccessControl
from memvault.api import McpMount, create_app
from memvault.config import load_config
from memvault.mcp import http_endpoint


@dataclass
class Live:
    """A running server, its control (keys, engines) and a few keys."""

    url: str
    home: Path
    control: AccessControl
    keys: dict[str, str] = field(default_factory=dict)

    def client(self, who: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.keys[who]}"} if who else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


def serve_in_thread(app: Any) -> tuple[uvicorn.Server, threading.Thread, socket.socket, str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    return server, thread, sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    home = tmp_path_factory.mktemp("serve-home")
    config = load_config(
        home,
        overrides={
            "policy": {"allowlists": {"stylist": ["PREFERENCE"]}},
            "server": {"max_body_bytes": 64 * 1024},
        },
        environ={},
    )
    control = AccessControl(home, config)
    endpoint = http_endpoint(control, "127.0.0.1")
    app = create_app(control, mcp=McpMount("/mcp", endpoint.app, endpoint.lifespan))
    server, thread, sock, url = serve_in_thread(app)
    live = Live(url, home, control)
    grants: dict[str, dict[str, Any]] = {
        "writer": {"orchestrator": "acme", "agent": "writer"},
        "reader": {"orchestrator": "acme", "agent": "reader", "read_only": True},
        "planner": {"orchestrator": "acme", "agent": "planner", "categories": ["TODO", "GOAL"]},
        "stylist": {"orchestrator": "acme", "agent": "stylist"},
        "other": {"orchestrator": "globex", "agent": "writer"},
    }
    for name, grant in grants.items():
        orchestrator = grant.pop("orchestrator")
        agent = grant.pop("agent")
        live.keys[name], _ = control.keys.create(orchestrator, agent, **grant)
    try:
        yield live
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
        control.close()


PREFERENCE = {
    "content": "Dana prefers tea over coffee in the afternoon",
    "type": "Preference",
    "category": "PREFERENCE",
    "source_kind": "USER_EXPLICIT",
    "key": "afternoon_drink",
    "value": "tea",
    "user_id": "dana",
    "importance": 60,
}

TODO = {
    "content": "Draft the retry budget for the shipment webhook",
    "type": "Todo",
    "category": "TODO",
    "source_kind": "USER_EXPLICIT",
    "key": "webhook_retry_budget",
    "value": "draft the retry budget for the shipment webhook",
    "ttl_class": "MEDIUM",
    "project_id": "billing",
}
