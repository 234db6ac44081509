"""The CLI's edges as a demanding new user meets them: mistakes are exit 2, nothing is lost."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli import app
from memvault.store.postgres.store import redacted_dsn

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


@pytest.mark.parametrize("flag", ["--updated-after", "--updated-before"])
def test_date_bounds_take_any_iso_8601_day_or_moment(home: Path, flag: str) -> None:
    for moment in ("2000-01-01", "2000-01-01T00:00:00Z", "2000-01-01T02:00:00+02:00"):
        code, out, err = cli(home, "list", flag, moment, "--json")
        assert code == 0, err
        found = [m["content"] for m in json.loads(out)["memories"]]
        assert found == (["Dana prefers tea over coffee"] if flag == "--updated-after" else [])
    code, out, err = cli(home, "search", "tea", flag, "2000-01-01", "--json")
    assert code == 0, err
    code, out, err = cli(home, "list", flag, "nope")
    assert code == 2
    assert f"{flag} is not an ISO-8601 moment: 'nope'" in err


@pytest.mark.parametrize("user", ["", "   ", "da\x01na", "da\nna", "x" * 129])
def test_export_forget_and_insights_refuse_what_cannot_name_a_user(home: Path, user: str) -> None:
    for command in ("export", "forget", "lifecycle insights"):
        code, out, err = cli(home, *command.split(), "--user", user)
        assert code == 2, (command, out)
        assert "--user is not a user id" in err
    # nothing was touched: Dana's memory is still there
    code, out, _ = cli(home, "list", "--user-id", "dana", "--json")
    assert [m["content"] for m in json.loads(out)["memories"]] == ["Dana prefers tea over coffee"]


def test_a_user_id_with_surrounding_whitespace_names_the_same_user(home: Path) -> None:
    # 'dana ' is 'dana' at every entry point (model/validation.clean_user_id)
    code, out, err = cli(home, "export", "--user", " dana\n")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["user_id"] == "dana"
    assert [r["content"] for r in records if r["record"] == "memory"] == [
        "Dana prefers tea over coffee"
    ]
    code, out, err = cli(home, "add", "Dana likes oat milk in her coffee", *ADD, "--user-id",
                         "dana ", "--json")  # fmt: skip
    assert code == 0, err
    code, out, _ = cli(home, "list", "--user-id", "dana", "--json")
    assert len(json.loads(out)["memories"]) == 2


def test_a_key_or_mcp_allowlist_names_contract_categories_or_is_refused(tmp_path: Path) -> None:
    def keys(*args: str) -> tuple[int, str, str]:
        result = runner.invoke(app, ["--home", str(tmp_path), "keys", *args], env=ENV)
        return result.exit_code, result.stdout, result.stderr

    code, _, err = keys(
        "create",
        "--orchestrator",
        "acme",
        "--agent",
        "planner",
        "--categories",
        "tasks,goal",
        "--json",
    )
    assert code == 0, err
    for bad in ("NOPE", "TODO,NOPE", "", " , "):
        code, _, err = keys("create", "--orchestrator", "acme", "--agent", "x", "--categories", bad)
        assert code == 2, bad
        assert "--categories" in err and "PREFERENCE" in err
        code, _, err = cli(tmp_path, "mcp", "--agent", "x", "--categories", bad)
        assert code == 2, bad
    code, out, _ = keys("list", "--json")
    # the alias expanded to the contract's categories; no key was made for a refused name
    assert [k["categories"] for k in json.loads(out)["keys"]] == [["GOAL", "REMINDER", "TODO"]]


def test_init_and_stats_name_the_store_they_use(tmp_path: Path) -> None:
    from tests.integration.store.postgres import server as pg

    code, out, err = cli(tmp_path / "lite", "init", "--json")
    assert code == 0, err
    lite = json.loads(out)
    assert lite["store"] == "sqlite" and Path(lite["db_path"]).is_file()

    server = pg.shared_server()
    server.claim_schema("memvault")  # the store factory's default schema
    env = {
        **ENV,
        "MEMVAULT__STORE__BACKEND": "postgres",
        "MEMVAULT__STORE__POSTGRES__DSN": server.dsn,
    }
    home = tmp_path / "pg"
    orch = f"edges-{secrets.token_hex(4)}"
    result = runner.invoke(app, ["--home", str(home), "-o", orch, "init", "--json"], env=env)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    # no SQLite file is made or read on PostgreSQL: none is named; the server is
    where = redacted_dsn(server.dsn, "memvault")
    assert data["store"] == "postgres" and data["db_path"] is None
    assert data["location"] == where and where.startswith("postgresql://")
    assert not list(home.rglob("*.db"))
    result = runner.invoke(app, ["--home", str(home), "-o", orch, "stats"], env=env)
    assert result.exit_code == 0, result.stderr
    assert "memory.db" not in result.stdout and "schema memvault" in result.stdout
    result = runner.invoke(app, ["--home", str(home), "-o", orch, "stats", "--json"], env=env)
    assert result.exit_code == 0, result.stderr
    stats = json.loads(result.stdout)
    assert stats["db_path"] is None and stats["location"] == where  # was <home>/…/memory.db
    lite_stats = json.loads(cli(tmp_path / "lite", "stats", "--json")[1])
    assert lite_stats["db_path"] == lite["db_path"] == lite_stats["location"]


def test_a_postgres_location_never_shows_the_password() -> None:
    where = redacted_dsn("postgresql://mv:hunter2@db:5432/mem?sslmode=require&password=x", "s1")
    assert where == "postgresql://mv@db:5432/mem (schema s1)"
    assert "hunter2" not in redacted_dsn("user=mv password=hunter2 host=db dbname=mem", "s1")


def test_every_bench_writes_its_default_result_under_bench_results() -> None:
    """A bench run in a checkout leaves nothing git would pick up (bench/results/ is ignored)."""
    import typer

    from memvault.cli.app import bench_app

    group = typer.main.get_command(bench_app)
    ctx = group.context_class(group)
    defaults = {}
    for name in group.list_commands(ctx):  # type: ignore[attr-defined]
        command = group.get_command(ctx, name)  # type: ignore[attr-defined]
        for param in command.params:
            if param.name in ("out", "json_out", "json") and isinstance(param.default, Path):
                defaults[name] = str(param.default)
    assert "context" in defaults
    assert {n: d for n, d in defaults.items() if not d.startswith("bench/results/")} == {}
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text(encoding="utf-8")
    assert "bench/results/" in ignored.split()
