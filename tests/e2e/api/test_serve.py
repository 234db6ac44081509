"""``memvault serve`` as a user runs it: a subprocess, real keys from ``memvault keys``."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from tests.helpers import wait_healthy


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memvault", "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMVAULT__")}


def test_serve_keys_and_shutdown(tmp_path: Path) -> None:
    created = _cli(
        tmp_path,
        "keys",
        "create",
        "--orchestrator",
        "acme",
        "--agent",
        "planner",
        "--categories",
        "TODO,GOAL",
        "--json",
    )
    assert created.returncode == 0, created.stderr
    grant = json.loads(created.stdout)
    assert set(grant) == {"key", "orchestrator", "agent"}
    assert (grant["orchestrator"], grant["agent"]) == ("acme", "planner")
    assert grant["key"] not in (tmp_path / "api_keys.db").read_bytes().decode("latin-1")

    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memvault",
            "--home",
            str(tmp_path),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        banner = ""
        assert proc.stdout is not None
        while "mvk_" not in banner:
            line = proc.stdout.readline()
            assert line, f"serve exited: {proc.stderr.read() if proc.stderr else ''}"
            banner += line
        assert url in banner
        dev_key = re.search(r"mvk_[0-9a-f]{12}_[A-Za-z0-9_\-]+", banner)
        assert dev_key is not None
        wait_healthy(url)
        dev = {"Authorization": f"Bearer {dev_key.group(0)}"}
        who = httpx.get(f"{url}/v1/whoami", headers=dev).json()
        assert (who["orchestrator"], who["agent"]) == ("default", "dev")
        planner = {"Authorization": f"Bearer {grant['key']}"}
        todo = {
            "content": "Add a checksum column to the export manifest",
            "type": "Todo",
            "category": "TODO",
            "source_kind": "USER_EXPLICIT",
            "key": "manifest_checksum",
            "value": "add a checksum column",
            "ttl_class": "MEDIUM",
        }
        stored = httpx.post(f"{url}/v1/memories", json=todo, headers=planner, timeout=60)
        assert stored.status_code == 201, stored.text
        assert set(stored.json()) >= {"stop_reason", "memory_id"}
        hits = httpx.post(
            f"{url}/v1/search",
            json={"query": "export manifest checksum", "top_k": 3},
            headers=planner,
            timeout=60,
        ).json()["results"]
        assert hits[0]["memory_id"] == stored.json()["memory_id"]
        assert (
            httpx.get(f"{url}/v1/memories/{hits[0]['memory_id']}", headers=dev).status_code == 404
        )
        assert _cli(tmp_path, "keys", "revoke", grant["key"], "--yes").returncode == 0
        assert httpx.get(f"{url}/v1/whoami", headers=planner).status_code == 401
        listed = json.loads(_cli(tmp_path, "keys", "list", "--all", "--json").stdout)["keys"]
        assert listed[0]["revoked_at"] is not None and "key" not in listed[0]
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        if proc.stdout:
            proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
    # uvicorn stops gracefully, then re-raises SIGTERM: "terminated", as a service should.
    assert code in (0, -signal.SIGTERM)
    assert _cli(tmp_path, "keys", "revoke", "nope", "--yes").returncode == 3
