"""``memvault get|history ID --user U``: a read by id as one user, as the other surfaces do.

The local operator lists every user's memories, so without ``--user`` a read by id
answers any of them; ``--user U`` reads as U (U's memories and shared ones), and
another user's memory is "not found" (exit 3), like an unknown id.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app

runner = CliRunner()
ENV = {"MEMVAULT__EMBEDDER__NAME": "hashing"}
ADD = ["--type", "Preference", "--category", "PREFERENCE", "--source-kind", "USER_EXPLICIT"]


def cli(home: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--home", str(home), "-o", "acme", *args], env=ENV)
    return result.exit_code, result.stdout, result.stderr


def _add(home: Path, content: str, *user: str) -> str:
    code, out, err = cli(home, "add", content, *ADD, *user, "--json")
    assert code == 0, err
    return str(json.loads(out)["memory_id"])


def test_get_and_history_read_as_the_user_named(tmp_path: Path) -> None:
    dana = _add(tmp_path, "Dana prefers the blue notebook", "--user-id", "dana")
    shared = _add(tmp_path, "The team notebook lives on the shelf")
    for command in ("get", "history"):
        code, out, err = cli(tmp_path, command, dana, "--json")
        assert code == 0, err  # the operator lists every user's, so reads them by id
        code, out, err = cli(tmp_path, command, dana, "--user", " dana ", "--json")
        assert code == 0 and dana in out, err
        code, out, err = cli(tmp_path, command, dana, "--user", "eli", "--json")
        assert code == 3 and "not found" in err and "blue notebook" not in out
        code, out, err = cli(tmp_path, command, shared, "--user", "eli", "--json")
        assert code == 0, err  # shared memories are every reader's
        code, _, err = cli(tmp_path, command, dana, "--user", "  ")
        assert code == 2 and "--user" in err
    code, out, _ = cli(tmp_path, "get", dana, "--user", "dana", "--json")
    assert json.loads(out)["content"] == "Dana prefers the blue notebook"


def test_the_local_cli_changes_any_users_and_shared_memories_by_id(tmp_path: Path) -> None:
    """Writes by id keep the scope of reads (review R1): the local operator lists every
    user's memories, so it changes any of them and shared ones, as before."""
    dana = _add(tmp_path, "Dana prefers the red notebook", "--user-id", "dana")
    shared = _add(tmp_path, "The spare notebook lives in the drawer")
    for memory_id in (dana, shared):
        code, _, err = cli(tmp_path, "retract", memory_id, "--json")
        assert code == 0, err
        code, out, err = cli(tmp_path, "get", memory_id, "--json")
        assert code == 0 and json.loads(out)["status"] == "retracted", err
