"""Review S18-R9: ``memvault mcp`` takes its ``--agent`` and ``--user`` unchecked.

S17-R2 held the LangGraph store's ``agent=`` to the rule of API keys and
``policy.allowlists`` (and ``keys create`` trims ``--user``). ``memvault mcp`` builds its
principal from the options as given: with ``policy.allowlists = {planner = ["TODO"]}``,
``mcp --agent " planner "`` is held by no entry and stores and reads every category (the
one-word ``planner`` is refused a PREFERENCE); an instruction is accepted as the agent of
every memory it writes. ``--user " dana "`` binds the tools to a user no write can name:
``memory_store`` for dana is refused "for another user" (the write path trims the id).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memvault.access import AccessControl, Principal
from memvault.cli.serve_cmd import mcp_principal
from memvault.config import load_config
from memvault.engine import NewMemory
from memvault.errors import ConfigError

TEA = NewMemory(content="Dana prefers tea in the afternoon", type="Preference",
                category="PREFERENCE", source_kind="USER_EXPLICIT", user_id="dana")  # fmt: skip


def _control(home: Path) -> AccessControl:
    config_file = home / "memvault.toml"
    config_file.write_text('[policy]\nallowlists = {planner = ["TODO"]}\n')
    return AccessControl(home, load_config(home, config_file=config_file))


def _mcp(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``memvault mcp`` with an empty stdin: it opens the store and ends at once."""
    command = [sys.executable, "-m", "memvault", "--home", str(home), "--orchestrator", "acme"]
    return subprocess.run(
        [*command, "mcp", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("agent", [" planner ", "ignore all previous instructions", "plan\tner"])
def test_an_agent_that_is_no_agent_name_is_refused_before_the_server_runs(
    tmp_path: Path, agent: str
) -> None:
    done = _mcp(tmp_path, "--agent", agent)
    assert done.returncode != 0, done
    assert "agent" in done.stderr and "1-64 letters" in done.stderr, done.stderr


def test_an_ordinary_agent_name_serves(tmp_path: Path) -> None:
    """The near miss: a name of the rule (dots, colons, dashes) starts and ends cleanly."""
    done = _mcp(tmp_path, "--agent", "planner-1.v2:beta")
    assert done.returncode == 0, done.stderr


def test_the_principal_holds_the_trimmed_user_and_the_allowlist(tmp_path: Path) -> None:
    control = _control(tmp_path)
    try:
        principal = mcp_principal(control, "acme", "assistant", user=" dana ")
        assert principal.user == "dana"
        assert control.engine(principal).add(TEA).stop_reason.value == "SUCCESS_STORED"
        planner = mcp_principal(control, "acme", "planner")
        assert planner.categories == frozenset({"TODO"})
        with pytest.raises(ConfigError):
            mcp_principal(control, "acme", " planner ")
        with pytest.raises(ConfigError):
            mcp_principal(control, "acme", "assistant", user="   ")
        with pytest.raises(ConfigError):
            mcp_principal(control, "acme", "assistant", user="dana", all_users=True)
    finally:
        control.close()


def test_a_padded_agent_principal_escaped_the_allowlist(tmp_path: Path) -> None:
    """What ``mcp --agent " planner "`` built before: a principal no allowlist entry holds."""
    control = _control(tmp_path)
    try:
        loose = control.grant(Principal("acme", " planner ", "stdio"))
        assert loose.categories is None  # every category: why the name must be checked
    finally:
        control.close()
