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


def _stored_before(home: Path) -> tuple[str, str]:
    """A memory the default gate refuses today, stored by an earlier gate (here OpenGate)."""
    from memvault.engine import OpenGate

    with MemoryEngine.open(home, "acme", gate=OpenGate(), embedder=None) as e:
        old = add_fields(e, "Dana has HIV and takes her pills at noon.", **FACT).memory_id
        new = add_fields(e, "Dana takes her pills at one now.", **FACT).memory_id
    assert old and new
    return old, new


@pytest.mark.parametrize("how", ["retract", "supersede"])
def test_a_memory_is_taken_out_of_use_whatever_its_content(tmp_path: Path, how: str) -> None:
    """Review S12-R3: judged as an UPDATE of its content, a memory today's gate refuses could
    not be retracted or superseded — it stayed active and served."""
    old, new = _stored_before(tmp_path)
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as e:
        done = e.retract(old) if how == "retract" else e.supersede(old, by=new)
        assert done.stop_reason is StopReason.SUCCESS_UPDATED, done
        status = MemoryStatus.RETRACTED if how == "retract" else MemoryStatus.SUPERSEDED
        assert e.get(old, include_deleted=True).node.status is status
        assert old not in {h.node.memory_id for h in e.search("pills", top_k=5).hits}


def test_a_failed_supersede_writes_neither_edge_nor_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review S12-R3: the Updates edge was written in its own transaction before the status."""
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as e:
        old = add_fields(e, "The API runs on Python 3.11.", **FACT).memory_id
        new = add_fields(e, "The API runs on Python 3.12.", **FACT).memory_id
        assert old and new
        store = e.core.store

        def broken(write: object) -> int:
            raise OSError("disk gone")

        monkeypatch.setattr(store, "apply", broken)
        failed = e.supersede(old, by=new)
        monkeypatch.undo()
        assert failed.stop_reason is StopReason.INTERNAL_INCONSISTENCY
        view = e.get(old)
        assert view.node.status is MemoryStatus.ACTIVE and not view.edges
        assert e.supersede(old, by=new).ok  # and it works once the store does


def test_supersede_after_capture_linked_the_two(tmp_path: Path) -> None:
    """An Updates edge already there (capture's, or a link by hand) is not written twice."""
    with MemoryEngine.open(tmp_path, "acme", embedder=None) as e:
        old = add_fields(e, "The API runs on Python 3.11.", **FACT).memory_id
        new = add_fields(e, "The API runs on Python 3.12.", **FACT).memory_id
        assert old and new
        assert e.link(new, old, "Updates", reason="version bump").ok
        assert e.supersede(old, by=new).stop_reason is StopReason.SUCCESS_UPDATED
        assert [x.edge_type.value for x in e.get(old).edges] == ["Updates"]
