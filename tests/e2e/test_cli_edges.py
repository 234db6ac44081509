"""The CLI's edges as a demanding new user meets them: mistakes are exit 2, nothing is lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app

runner = CliRunner()
ENV = {"MEMVAULT__EMBEDDER__NAME": "hashing"}
ADD = ["--type", "Preference", "--category", "PREFERENCE", "--source-kind", "USER_EXPLICIT"]


def cli(home: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--home", str(home), "-o", "acme", *args], env=ENV)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def home(tmp_path: Path) -> Path:
    code, _, err = cli(tmp_path, "add", "Dana prefers tea over coffee", *ADD, "--user-id", "dana")
    assert code == 0, err
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--category", "NOPE"],
        ["search", "tea", "--category", "NOPE"],
        ["query", "tea", "--category", "NOPE", "--user", "dana"],
    ],
)
def test_an_unknown_category_is_a_usage_error_not_an_empty_answer(
    home: Path, args: list[str]
) -> None:
    code, out, err = cli(home, *args)
    assert code == 2, out
    assert "unknown category: NOPE" in err
    assert "PREFERENCE" in err  # the hint names the categories that exist
    # a category the contract has still answers
    code, out, err = cli(home, *[a if a != "NOPE" else "PREFERENCE" for a in args], "--json")
    assert code == 0, err
    assert "Dana prefers tea" in out
