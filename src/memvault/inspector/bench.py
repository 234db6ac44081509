"""``memvault bench inspector``: how long the inspector's pages take on a store of N memories.

Seeds a temporary home with ``n`` synthetic memories (one transaction per 5,000,
the hashing embedder so seeding measures nothing of interest), a few hundred
refusals and some consent proposals, serves the inspector with uvicorn on
127.0.0.1, signs in with a key, and times each page over real HTTP. Every page
is a bounded query, so the figures should stay flat as ``n`` grows except where
the work is genuinely proportional (deep offsets, full-store counts, recall).

>>> PAGES[0]
('memories', '/')
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import socket
import statistics
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

__all__ = ["PAGES", "run_pages"]

#: (name, path) of every page timed; ``{id}`` (the first seeded memory), ``{owner}``
#: (its user) and ``{user}`` are filled in.
PAGES: tuple[tuple[str, str], ...] = (
    ("memories", "/"),
    ("memories, deep page", "/?page=2000"),
    ("memories, filtered", "/?user={user}&importance_min=50"),
    ("search", "/?q=service+42+port"),
    ("memory", "/memory/{id}?user={owner}"),  # read as its user, as the memories page links it
    ("graph (user)", "/graph/data?user={user}"),
    ("timeline", "/timeline"),
    ("timeline, deep page", "/timeline?page=2000"),
    ("timeline (user)", "/timeline?user={user}"),
    ("refusals", "/refusals"),
    ("consent", "/consent"),
    ("bulletin", "/bulletin?thread=bench&message=port"),
    ("ingest", "/ingest"),
    ("audit", "/audit"),
)


def _seed(home: Path, n: int) -> tuple[Any, str, str]:
    from memvault.access import AccessControl, Principal
    from memvault.config import load_config
    from memvault.engine import NewMemory
    from memvault.model.enums import MemoryType, SourceKind

    control = AccessControl(
        home, load_config(home, overrides={"embedder": {"name": "hashing"}}, environ={})
    )
    engine = control.engine(Principal("bench", "seed", "seed"))
    first = ""
    for start in range(0, n, 5000):
        batch = [
            {
                "content": f"Fact {i}: service {i % 97} runs on port {8000 + i % 1000} "
                f"in region {i % 13}.",
                "type": "Fact",
                "category": "PROJECT_CONFIG",
                "source_kind": "SYSTEM_KNOWN",
                "user_id": f"user{i % 50}",
                "importance": i % 100,
            }
            for i in range(start, min(n, start + 5000))
        ]
        results = engine.add_many(batch)
        first = first or (results[0].memory_id or "")
    for i in range(300):  # refused (a credential): counted on the Refusals page
        engine.add(
            NewMemory(
                content=f"my password is hunter{i}-Secret!",
                type=MemoryType.PREFERENCE,
                category="PREFERENCE",
                source_kind=SourceKind.USER_EXPLICIT,
            )
        )
    for i in range(30):
        engine.propose(
            f"user7 seems to prefer region {i}.",
            user_id="user7",
            type=MemoryType.PREFERENCE,
            category="PREFERENCE",
        )
    key, _ = control.keys.create("bench", "bench")
    return control, key, first


def _serve(control: Any) -> tuple[Any, threading.Thread, socket.socket, str]:
    import uvicorn
    from fastapi import FastAPI

    from memvault.inspector import mount

    app = FastAPI()
    mount(app, control)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the inspector did not start")
        time.sleep(0.02)
    return server, thread, sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


def _opener(url: str, key: str) -> urllib.request.OpenerDirector:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = opener.open(url + "/signin", timeout=120).read().decode()
    nonce = re.search(r'name="csrf" value="([^"]+)"', form)
    if nonce is None:
        raise RuntimeError("no sign-in form")
    body = urllib.parse.urlencode({"key": key, "csrf": nonce.group(1)}).encode()
    opener.open(url + "/signin", data=body, timeout=120).read()
    return opener


def run_pages(n: int, *, repeats: int = 5, home: Path | None = None) -> dict[str, Any]:
    """Seed ``n`` memories, then time every page ``repeats`` times: ms per page."""
    if home is None:
        with tempfile.TemporaryDirectory(prefix="mv-bench-inspector-") as folder:
            return run_pages(n, repeats=repeats, home=Path(folder))
    started = time.perf_counter()
    control, key, memory_id = _seed(Path(home), n)
    seeded = time.perf_counter() - started
    server, thread, sock, url = _serve(control)
    pages: dict[str, dict[str, float]] = {}
    try:
        opener = _opener(url, key)
        for name, path in PAGES:
            target = url + path.format(id=memory_id, user="user7", owner="user0")  # first seeded
            times = []
            for _ in range(repeats):
                begin = time.perf_counter()
                with opener.open(target, timeout=300) as response:
                    body = response.read()
                    if response.status != 200 or "/signin" in response.url:
                        raise RuntimeError(f"{path}: HTTP {response.status} at {response.url}")
                if b'data-testid="error"' in body:
                    raise RuntimeError(f"{path}: the page is an error page")
                times.append((time.perf_counter() - begin) * 1000)
            pages[name] = {
                "median_ms": round(statistics.median(times), 1),
                "max_ms": round(max(times), 1),
            }
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
        control.close()
    return {
        "n": n,
        "repeats": repeats,
        "seed_seconds": round(seeded, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "pages": pages,
    }
