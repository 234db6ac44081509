"""Choose and open the store backend (the only place that knows the backends by name).

Until the typed settings (issue 10) carry ``store.backend`` and
``store.postgres.*``, the selection is read from the environment, with the
names those settings will use::

    MEMVAULT__STORE__BACKEND=sqlite|postgres         (default sqlite)
    MEMVAULT__STORE__POSTGRES__DSN=postgresql://...  (required for postgres)

(Tables go to the schema ``memvault``; the pool holds up to 10 connections.
Both are arguments of :meth:`PostgresStore.connect` for library users.)

SQLite keeps one file per orchestrator (``db_path``); PostgreSQL keeps every
orchestrator in one schema, partitioned by ``orchestrator_id``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from memvault.errors import ConfigError, StoreMissingError
from memvault.store.anchor import bind_identity, check_identity, read_anchor
from memvault.store.base import Store

__all__ = [
    "BACKENDS",
    "ENV_BACKEND",
    "ENV_DSN",
    "open_bound_store",
    "open_store",
    "store_backend",
]

ENV_BACKEND = "MEMVAULT__STORE__BACKEND"
ENV_DSN = "MEMVAULT__STORE__POSTGRES__DSN"

BACKENDS = ("sqlite", "postgres")


def store_backend(env: Mapping[str, str] | None = None) -> str:
    """The configured backend name (``sqlite`` unless the environment says otherwise).

    >>> store_backend({"MEMVAULT__STORE__BACKEND": "postgres"})
    'postgres'
    >>> store_backend({})
    'sqlite'
    """
    values = os.environ if env is None else env
    name = values.get(ENV_BACKEND, "").strip().lower() or "sqlite"
    if name not in BACKENDS:
        raise ConfigError(
            f"unknown store backend {name!r}",
            hint=f"set {ENV_BACKEND} to one of: {', '.join(BACKENDS)}",
        )
    return name


def open_store(
    db_path: str | Path, env: Mapping[str, str] | None = None, *, create: bool = True
) -> Store:
    """Open the configured store: SQLite at ``db_path``, or PostgreSQL from the DSN.

    ``create=False``: a missing or 0-byte SQLite file raises
    :class:`~memvault.errors.StoreMissingError` instead of becoming a new database.

    >>> import tempfile, pathlib
    >>> store = open_store(pathlib.Path(tempfile.mkdtemp()) / "memory.db", env={})
    >>> type(store).__name__
    'SQLiteStore'
    >>> store.close()
    """
    values = os.environ if env is None else env
    backend = store_backend(values)
    if backend == "postgres":
        dsn = values.get(ENV_DSN, "").strip()
        if not dsn:
            raise ConfigError(
                "the postgres store backend needs a DSN",
                hint=f"set {ENV_DSN}=postgresql://user@host/db",
            )
        # Imported here: psycopg is an optional extra (ConfigError with the install hint).
        from memvault.store.postgres import PostgresStore

        return PostgresStore.connect(dsn)
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
    env: Mapping[str, str] | None = None,
) -> Store:
    """Open the orchestrator's store and bind it to its identity and anchor file.

    See :func:`memvault.store.anchor.bind_identity` for what is refused. A
    store that does not exist (and is not to be created) raises
    :class:`StoreMissingError` naming the orchestrators ``known()`` lists.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> at = "2026-01-01T00:00:00.000000Z"
    >>> open_bound_store("acme", d / "memory.db", d / "a.json", create=False, at=at, env={})
    Traceback (most recent call last):
    ...
    memvault.errors.StoreMissingError: no memory store for orchestrator 'acme' at ...
    >>> store = open_bound_store("acme", d / "memory.db", d / "a.json", create=True, at=at, env={})
    >>> (d / "a.json").is_file()
    True
    >>> store.close()
    """
    orch = orchestrator
    values = os.environ if env is None else env
    where = str(db_path) if store_backend(values) == "sqlite" else "the PostgreSQL store"
    recorded = read_anchor(anchor_path)
    try:
        # A store that existed (it has an anchor) is never created anew.
        store = open_store(db_path, values, create=create and recorded is None)
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
