"""``memvault update --content`` refuses the content ``memvault add`` refuses (review R7).

The update path judged new content without its vector (n-gram heads only for English
text) while ``add`` judged it with the full heads: an update stored what an add refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memvault.cli import app

FACT = ["--type", "Fact", "--category", "KNOWLEDGE", "--source-kind", "USER_EXPLICIT"]
TEXT = "I've been feeling really low since the breakup."
HARMLESS = "The standup is at nine on weekdays."


def _run(home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, ["--home", str(home), "--orchestrator", "acme", *args])
    return result.exit_code, json.loads(result.stdout)


def test_cli_update_refuses_what_add_refuses(tmp_path: Path) -> None:
    add_code, refused = _run(tmp_path, "add", TEXT, *FACT, "--json")
    assert add_code != 0 and refused["stop_reason"] == "FORBIDDEN_CATEGORY"
    code, created = _run(tmp_path, "add", HARMLESS, *FACT, "--json")
    assert code == 0
    memory_id = created["memory_id"]
    upd_code, updated = _run(tmp_path, "update", memory_id, "--content", TEXT, "--json")
    assert (upd_code, updated["stop_reason"]) == (add_code, refused["stop_reason"])
    code, got = _run(tmp_path, "get", memory_id, "--json")
    assert code == 0 and got["content"] == HARMLESS
