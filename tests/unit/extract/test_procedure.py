"""Numbered steps are one Procedure; a numbered list that is not steps is not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def kept(text: str) -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="tom", speaker="Tom", at=NOW)
    return [(c.type.value, c.content) for c in RuleExtractor().extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    "text",
    [
        "Our rollback process:\n1. revert the merge\n2. redeploy main\n3. post in #ops",
        "how we rotate secrets: 1) create the new key 2) update vault 3) restart the pods",
        "Steps for a hotfix:\n- branch from the release tag\n- fix and test\n- deploy",
    ],
)
def test_numbered_steps_become_one_procedure(text: str) -> None:
    (got,) = kept(text)
    assert got[0] == "Procedure"
    assert got[1].startswith("Procedure for ") and "1. " in got[1] and "3. " in got[1]


def test_identifiers_in_steps_survive() -> None:
    (got,) = kept("To publish:\n1. run `make dist`\n2. upload to https://pypi.example.org/x")
    assert "`make dist`" in got[1] and "https://pypi.example.org/x" in got[1]


def test_a_numbered_list_that_is_not_steps_is_no_procedure() -> None:
    assert all(t != "Procedure" for t, _ in kept("I have 2 cats. 1. Tom 2. Jerry"))


@pytest.mark.parametrize(
    "step",
    [
        "uv sync --frozen",
        "kubectl rollout restart deploy/api",
        "gh pr merge --squash",
        "npx prisma migrate deploy",
        "make dist",
    ],
)
def test_a_step_that_starts_with_a_command_keeps_its_case(step: str) -> None:
    # session 12 stored "Uv sync --frozen": the step's first letter was capitalised
    (got,) = kept(f"how we cut a hotfix: 1) {step} 2) tag the build 3) tell #ops")
    assert f"1. {step}." in got[1], got
