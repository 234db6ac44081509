"""Manual supersede and retract (spec 001): engine and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app
from memvault.engine import MemoryEngine
from memvault.errors import MemoryNotFoundError
from memvault.model.enums import MemoryStatus, StopReason
from tests.helpers import add_fields

FACT = {"type": "Fact", "category": "KNOWLEDGE", "source_kind": "USER_EXPLICIT"}


def test_supersede_links_and_keeps_the_old_memory(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path, "acme") as e:
        old = add_fields(e, "The API runs on Python 3.11.", **FACT).memory_id
        new = add_fields(e, "The API runs on Python 3.12.", **FACT).memory_id
        assert old and new
        done = e.supersede(old, by=new)
        assert done.stop_reason is StopReason.SUCCESS_UPDATED
        view = e.get(old)
        assert view.node.status is MemoryStatus.SUPERSEDED
        assert [(x.edge_type.value, x.from_memory_id) for x in view.edges] == [("Updates", new)]
        again = e.supersede(old, by=new)  # not active any more: a clear refusal
        assert again.stop_reason is StopReason.SCHEMA_INVALID and "superseded" in again.reason
        assert e.supersede(new, by=new).stop_reason is StopReason.SCHEMA_INVALID
        with pytest.raises(MemoryNotFoundError):
            e.supersede("mem_000000000000ffffffffffffffff", by=new)


def test_retract_through_the_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["--home", str(tmp_path), "--orchestrator", "acme"]
    with MemoryEngine.open(tmp_path, "acme") as e:
        wrong = add_fields(e, "The office is closed on Mondays.", **FACT).memory_id
        right = add_fields(e, "The office is closed on Sundays.", **FACT).memory_id
    assert wrong and right
    out = runner.invoke(app, [*base, "retract", wrong, "--json"])
    assert out.exit_code == 0, out.stdout + out.stderr
    assert json.loads(out.stdout)["stop_reason"] == "SUCCESS_UPDATED"
    out = runner.invoke(app, [*base, "supersede", right, "--by", wrong, "--json"])
    assert out.exit_code != 0 and "retracted" in out.stdout  # a retracted memory replaces nothing
    with MemoryEngine.open(tmp_path, "acme") as e:
        assert e.get(wrong).node.status is MemoryStatus.RETRACTED
        assert e.get(right).node.status is MemoryStatus.ACTIVE
