"""The audit trail of a consent-gated write: refused, queued, then confirmed.

The refusal happened, so its rows stay (the chain is append-only); the user's
confirmation is the memory's CREATE row, never a third MISSING_EXPLICIT_CONSENT
refusal. ``memvault audit refusals`` and the inspector's timeline show each
consent refusal with the confirmation it led to.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memvault.cli import app
from memvault.engine import MemoryEngine, consent_links
from memvault.model import HistoryOp, StopReason
from tests.conftest import StepClock
from tests.helpers import add_fields
from tests.integration.lifecycle.conftest import open_engine

NAME = {
    "type": "Preference",
    "category": "PREFERENCE",
    "key": "preferred_name",
    "value": "Ilse",
    "source_kind": "USER_EXPLICIT",
    "user_id": "ilse",
}


def _confirmed(engine: MemoryEngine) -> tuple[str, str]:
    queued = add_fields(engine, "Please call me Ilse", **NAME)
    assert queued.stop_reason is StopReason.MISSING_EXPLICIT_CONSENT and queued.proposal_id
    stored = engine.confirm_proposal(queued.proposal_id)
    assert stored.stop_reason is StopReason.SUCCESS_STORED and stored.memory_id
    return queued.proposal_id, stored.memory_id


def test_the_refusal_stays_and_the_confirmation_is_the_create_row(
    home: Path, clock: StepClock
) -> None:
    with open_engine(home, clock) as engine:
        proposal, memory = _confirmed(engine)
        events = engine.store.history("acme")
        refusals = [e for e in events if e.op is HistoryOp.REFUSE]
        assert refusals and all(
            e.stop_reason is StopReason.MISSING_EXPLICIT_CONSENT for e in refusals
        )
        assert [e.detail.get("decision") for e in refusals if e.detail.get("proposal_id")] == [
            "proposed"
        ]  # no refusal row for the confirmation itself
        (create,) = [e for e in events if e.op is HistoryOp.CREATE]
        assert create.memory_id == memory and create.detector == "consent.confirmed"
        assert create.detail["proposal_id"] == proposal
        assert consent_links(engine.proposals())[proposal]["memory_id"] == memory
        assert engine.verify_audit().ok


def test_audit_refusals_shows_the_confirmation_beside_the_refusal(
    home: Path, clock: StepClock
) -> None:
    with open_engine(home, clock) as engine:
        proposal, memory = _confirmed(engine)
    result = CliRunner().invoke(
        app, ["--home", str(home), "-o", "acme", "audit", "refusals", "--json"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["refusals"]
    linked = [r for r in rows if r["proposal_id"] == proposal]
    assert len(linked) == 1 and linked[0]["stop_reason"] == "MISSING_EXPLICIT_CONSENT"
    assert linked[0]["consent"]["status"] == "confirmed"
    assert linked[0]["consent"]["memory_id"] == memory
    table = CliRunner().invoke(app, ["--home", str(home), "-o", "acme", "audit", "refusals"])
    assert table.exit_code == 0 and "confirmed as" in table.stdout
