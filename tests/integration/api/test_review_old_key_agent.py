"""Review S18-R11: a key minted before S17-R2 with an agent off the rule still authenticates.

S17-R2 held ``keys create`` to the agents' rule (``fullmatch``: ``"planner\\n"`` and
``" planner "`` were taken before). A key already in ``api_keys.db`` with such an agent
was never checked again: ``verify`` answered it, and with ``policy.allowlists =
{planner = ["TODO"]}`` its principal was held by no entry — every category, as S17-R2's
LangGraph case was.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memvault.access.keys import KeyStore


def _minted_before_the_rule(path: Path, agent: str) -> str:
    """A key as ``keys create`` stored it before S17-R2, with ``agent`` as typed."""
    keys = KeyStore(path)
    token, record = keys.create("acme", "placeholder")
    with sqlite3.connect(path) as con:
        con.execute("UPDATE api_keys SET agent = ? WHERE key_id = ?", (agent, record.key_id))
    return token


def test_a_stored_key_whose_agent_is_off_the_rule_no_longer_authenticates(tmp_path: Path) -> None:
    path = tmp_path / "api_keys.db"
    for agent in ("planner\n", " planner ", "ignore all previous instructions"):
        token = _minted_before_the_rule(path, agent)
        assert KeyStore(path).verify(token) is None, repr(agent)


def test_a_stored_key_of_the_rule_still_authenticates(tmp_path: Path) -> None:
    """The near miss: a name of the rule, stored the same way, is the key's agent."""
    path = tmp_path / "api_keys.db"
    token = _minted_before_the_rule(path, "planner-1.v2:beta")
    found = KeyStore(path).verify(token)
    assert found is not None and found.agent == "planner-1.v2:beta"
