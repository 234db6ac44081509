"""A real ``memvault serve`` app (uvicorn on 127.0.0.1, free port) with seeded memory and keys."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from memvault.access import AccessControl, Principal
from memvault.api import create_app
from memvault.cli.app import load_demo
from memvault.config import load_config
from memvault.engine import Caller, MemoryEngine
from tests.integration.api.conftest import serve_in_thread

_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@dataclass
class Site:
    """The running server, its access control and named keys."""

    url: str
    home: Path
    control: AccessControl
    keys: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)

    def engine(self, orchestrator: str = "acme") -> Caller:
        """The tests' administrator: a key that may list, and so read, every user's memories."""
        return self.control.engine(Principal(orchestrator, "seed", "seed", all_users=True))

    def base(self, orchestrator: str = "acme") -> MemoryEngine:
        """The orchestrator's engine itself (not a caller's façade)."""
        self.engine(orchestrator)  # opens it
        return self.control.opened()[orchestrator]

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60, follow_redirects=False)

    @contextmanager
    def sign_in(self, who: str) -> Iterator[httpx.Client]:
        """A client with a live inspector session for the key named ``who``."""
        with self.client() as client:
            form = client.get("/signin")
            nonce = csrf_of(form.text)
            done = client.post("/signin", data={"key": self.keys[who], "csrf": nonce, "next": "/"})
            assert done.status_code == 303, done.text
            yield client


def csrf_of(html: str) -> str:
    match = _CSRF.search(html)
    assert match is not None, "no CSRF field on the page"
    return match.group(1)


def serve(home: Path, **overrides: object) -> tuple[Site, object]:
    config = load_config(home, overrides={"embedder": {"name": "hashing"}, **overrides}, environ={})
    control = AccessControl(home, config)
    app = create_app(control)
    server, thread, sock, url = serve_in_thread(app)
    return Site(url, home, control), (server, thread, sock)


def stop(handle: object, control: AccessControl) -> None:
    server, thread, sock = handle  # type: ignore[misc]
    server.should_exit = True
    thread.join(timeout=15)
    sock.close()
    control.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("inspector-home")
    live, handle = serve(home)
    for name, orchestrator, agent, options in (
        ("writer", "acme", "writer", {}),
        ("reader", "acme", "reader", {"read_only": True}),
        ("planner", "acme", "planner", {"categories": ["PROJECT_CONFIG"]}),
        ("other", "globex", "writer", {}),
    ):
        live.keys[name], _ = live.control.keys.create(orchestrator, agent, **options)  # type: ignore[arg-type]
    live.ids = load_demo(live.engine())
    try:
        yield live
    finally:
        stop(handle, live.control)
