"""Open the store backend (the only place that knows the backends by name).

The choice comes from the configuration (``store.backend``,
``store.postgres.dsn``), which only entry points read and hand down; this
module reads no environment. SQLite keeps one file per orchestrator
(``db_path``); PostgreSQL keeps every orchestrator in one schema, partitioned
by ``orchestrator_id`` (tables in the schema ``memvault``; the pool holds up
to 10 connections — arguments of :meth:`PostgresStore.connect`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memvault.errors import ConfigError, StoreMissingError
from memvault.store.anchor import bind_identity, check_identity, read_anchor
from memvault.store.base import Store

__all__ = ["BACKENDS", "open_bound_store", "open_store"]

BACKENDS = ("sqlite", "postgres")


def open_store(
    db_path: str | Path,
    *,
    backend: str = "sqlite",
    dsn: str | None = None,
    create: bool = True,
    postgres: Mapping[str, Any] | None = None,
) -> Store:
    """Open ``backend``: SQLite at ``db_path``, or PostgreSQL at ``dsn``.

    ``postgres``: keywords of :meth:`PostgresStore.connect` (the configuration's
    ``store.postgres`` statement timeout and keepalive, read by the entry point).

    ``create=False``: a missing or 0-byte SQLite file raises
    :class:`~memvault.errors.StoreMissingError` instead of becoming a new database.

    >>> import tempfile, pathlib
    >>> store = open_store(pathlib.Path(tempfile.mkdtemp()) / "memory.db")
    >>> type(store).__name__
    'SQLiteStore'
    >>> store.close()
    >>> open_store("x.db", backend="postgres")
    Traceback (most recent call last):
    ...
    memvault.errors.ConfigError: the postgres store backend needs a DSN
    """
    if backend not in BACKENDS:
        raise ConfigError(
            f"unknown store backend {backend!r}", hint=f"one of: {', '.join(BACKENDS)}"
        )
    if backend == "postgres":
        if not dsn:
            raise ConfigError(
                "the postgres store backend needs a DSN",
                hint="set store.postgres.dsn (or MEMVAULT__STORE__POSTGRES__DSN)",
            )
        # Imported here: psycopg is an optional extra (ConfigError with the install hint).
        from memvault.store.postgres import PostgresStore

        return PostgresStore.connect(dsn, **dict(postgres or {}))
    from memvault.store.sqlite import SQLiteStore

    return SQLiteStore(db_path, create=create)


def open_bound_store(
    orchestrator: str,
    db_path: Path,
    anchor_path: Path,
    *,
    create: bool,
    at: str,
    known: Callable[[], Sequence[str]] = list,
    backend: str = "sqlite",
    dsn: str | None = None,
    postgres: Mapping[str, Any] | None = None,
) -> Store:
    """Open the orchestrator's store and bind it to its identity and anchor file.

    See :func:`memvault.store.anchor.bind_identity` for what is refused. A
    store that does not exist (and is not to be created) raises
    :class:`StoreMissingError` naming the orchestrators ``known()`` lists.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> at = "2026-01-01T00:00:00.000000Z"
    >>> open_bound_store("acme", d / "memory.db", d / "a.json", create=False, at=at)
    Traceback (most recent call last):
    ...
    memvault.errors.StoreMissingError: no memory store for orchestrator 'acme' at ...
    >>> store = open_bound_store("acme", d / "memory.db", d / "a.json", create=True, at=at)
    >>> (d / "a.json").is_file()
    True
    >>> store.close()
    """
    orch = orchestrator
    where = str(db_path) if backend == "sqlite" else "the PostgreSQL store"
    recorded = read_anchor(anchor_path)
    try:
        # A store that existed (it has an anchor) is never created anew.
        store = open_store(
            db_path,
            backend=backend,
            dsn=dsn,
            create=create and recorded is None,
            postgres=postgres,
        )
    except StoreMissingError:
        check_identity(recorded, None, where)
        raise StoreMissingError(orch, where, known()) from None
    try:
        bind_identity(
            store, orch, anchor_path, create=create, at=at, recorded=recorded, where=where
        )
    except StoreMissingError:
        store.close()
        raise StoreMissingError(orch, where, known()) from None
    except BaseException:
        store.close()
        raise
    return store


def postgres_checkpointer(dsn: str, **options: Any) -> tuple[Any, str]:
    """LangGraph's PostgreSQL checkpointer in the store's database (spec §15).

    Returns ``(saver, install_hint)``; ``saver`` is ``None`` when
    ``langgraph-checkpoint-postgres`` is not installed. Raises what the
    server raises when it cannot be reached. The one place outside
    ``store/postgres`` that names the backend's checkpointer. ``options``: the
    store's connection settings (``PostgresSettings.to_options()``: statement
    timeout, keepalive).

    >>> postgres_checkpointer("postgresql://db/memvault")  # doctest: +SKIP
    """
    from memvault.store.postgres.checkpoint import INSTALL_HINT
    from memvault.store.postgres.checkpoint import postgres_checkpointer as saver

    return saver(dsn, **options), INSTALL_HINT
