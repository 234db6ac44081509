"""Destructive CLI commands ask first (``--yes`` skips it; never a hang without a terminal).

``forget``, ``keys revoke`` and a ``lifecycle run`` dated in the future cannot be
undone (NOTE5 "seen and left alone" 7). A person at a terminal (a real pty here)
is asked; without a terminal and without ``--yes`` the command fails with exit 2
and changes nothing; ``--json`` never asks (issue 9's evaluation interfaces run
``forget --user U --json`` and ``lifecycle run --now … --json`` from scripts).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memvault.access import KeyStore
from memvault.engine import MemoryEngine
from tests.e2e.test_cli import ADD, cli

ORCH = "acme"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    for user, text in (("dana", "Dana prefers oolong"), ("eli", "Eli prefers espresso")):
        code, _, err = cli(tmp_path, "add", text, *ADD, "--user-id", user)
        assert code == 0, err
    return tmp_path


def _held(home: Path, user: str) -> int:
    with MemoryEngine.open(home, ORCH) as engine:
        return engine.count_memories({"user_id": user})


def _at_a_terminal(home: Path, answer: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``memvault`` with a real pseudo-terminal as stdin and type ``answer``."""
    leader, follower = os.openpty()
    try:
        os.write(leader, answer.encode())  # held by the terminal until the prompt reads it
        return subprocess.run(
            [sys.executable, "-m", "memvault", "--home", str(home), "-o", ORCH, *args],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=120,
            env={k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT__")},
        )
    finally:
        os.close(follower)
        os.close(leader)


def test_forget_without_a_terminal_needs_yes_and_changes_nothing(home: Path) -> None:
    code, out, err = cli(home, "forget", "--user", "dana")  # CliRunner: stdin is no terminal
    assert code == 2, out
    assert "erasing user 'dana' needs a confirmation" in err and "--yes" in err
    assert _held(home, "dana") == 1
    code, out, err = cli(home, "forget", "--user", "dana", "--yes")
    assert code == 0, err
    assert _held(home, "dana") == 0 and _held(home, "eli") == 1


def test_forget_json_is_the_unchanged_machine_interface(home: Path) -> None:
    code, out, err = cli(home, "forget", "--user", "dana", "--json")
    assert code == 0, err
    assert json.loads(out)["memories_purged"] == 1 and err == ""


def test_a_person_at_a_terminal_is_asked(home: Path) -> None:
    declined = _at_a_terminal(home, "n\n", "forget", "--user", "dana")
    assert declined.returncode == 1, declined.stderr
    assert "Erase user 'dana' of orchestrator 'acme' (1 memories" in declined.stderr
    assert "nothing was changed" in declined.stderr
    assert _held(home, "dana") == 1
    agreed = _at_a_terminal(home, "y\n", "forget", "--user", "dana")
    assert agreed.returncode == 0, agreed.stderr
    assert "forgot user dana" in agreed.stdout
    assert _held(home, "dana") == 0 and _held(home, "eli") == 1


def test_keys_revoke_asks_first(tmp_path: Path) -> None:
    code, out, err = cli(
        tmp_path, "keys", "create", "--orchestrator", ORCH, "--agent", "planner", "--json"
    )
    assert code == 0, err
    key = json.loads(out)["key"]
    code, _, err = cli(tmp_path, "keys", "revoke", key)
    assert code == 2 and "revoking key" in err and "--yes" in err
    assert KeyStore.for_home(tmp_path).verify(key) is not None  # still valid
    code, _, err = cli(tmp_path, "keys", "revoke", key, "-y")
    assert code == 0, err
    assert KeyStore.for_home(tmp_path).verify(key) is None


def test_only_a_lifecycle_run_dated_in_the_future_asks(home: Path) -> None:
    code, _, err = cli(home, "lifecycle", "run")  # now: what cron runs; never asks
    assert code == 0, err
    code, _, err = cli(home, "lifecycle", "run", "--now", "2000-01-01T00:00:00Z")
    assert code == 0, err
    code, _, err = cli(home, "lifecycle", "run", "--now", "2099-01-01T00:00:00Z")
    assert code == 2 and "a lifecycle run dated in the future" in err
    assert _held(home, "dana") == 1  # nothing was soft-deleted
    code, out, err = cli(home, "lifecycle", "run", "--now", "2099-01-01T00:00:00Z", "--yes")
    assert code == 0, err
    assert "lifecycle run at 2099-01-01" in out and _held(home, "dana") == 0
