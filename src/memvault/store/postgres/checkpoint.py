"""LangGraph's PostgreSQL checkpointer, in the store's own database and schema.

When the memory store is PostgreSQL, the reference agent's thread
checkpoints (spec §15) live in the same database — and, by default, in the
same schema (``memvault``) — as the memories: one server to operate, back up
and replicate. The tables are LangGraph's own (``checkpoints``,
``checkpoint_blobs``, ``checkpoint_writes``, ``checkpoint_migrations``),
created and migrated by :meth:`PostgresSaver.setup`; their names do not clash
with the store's tables.

``langgraph-checkpoint-postgres`` is optional (the ``postgres`` extra):
without it the caller gets ``None`` and decides what to do (the agent falls
back to an in-process saver and says so).
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from memvault.errors import StoreUnavailableError
from memvault.store.postgres.connecting import (
    DEFAULT_KEEPALIVE_IDLE_S,
    DEFAULT_SCHEMA,
    DEFAULT_STATEMENT_TIMEOUT_S,
    keepalive_options,
    statement_timeout_option,
)
from memvault.store.postgres.schema import validate_schema_name

__all__ = ["INSTALL_HINT", "checkpointer_available", "postgres_checkpointer"]

INSTALL_HINT = 'pip install "memvault[postgres]"'


def checkpointer_available() -> bool:
    """Whether ``langgraph-checkpoint-postgres`` can be imported.

    >>> isinstance(checkpointer_available(), bool)
    True
    """
    try:
        import langgraph.checkpoint.postgres  # noqa: F401
    except ImportError:
        return False
    return True


def postgres_checkpointer(
    dsn: str,
    *,
    schema: str = DEFAULT_SCHEMA,
    pool_size: int = 4,
    timeout: float = 10.0,
    statement_timeout_s: float = DEFAULT_STATEMENT_TIMEOUT_S,
    keepalive_idle_s: int = DEFAULT_KEEPALIVE_IDLE_S,
) -> Any:
    """A ready ``PostgresSaver`` on ``dsn`` (tables created in ``schema``), or ``None``.

    ``None`` means ``langgraph-checkpoint-postgres`` is not installed. The
    saver's ``conn`` is a connection pool; close it with ``saver.conn.close()``.
    Raises :class:`StoreUnavailableError` when the server cannot be reached.
    ``statement_timeout_s`` / ``keepalive_idle_s``: as the store's
    (``store.postgres.*``): the server cancels a longer statement (0: no limit) and
    TCP keepalive finds a vanished server host (0: off).

    >>> saver = postgres_checkpointer("postgresql://db/memvault")  # doctest: +SKIP
    >>> saver.conn.close()  # doctest: +SKIP
    """
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError:
        return None
    name = validate_schema_name(schema)
    # Trigger: PostgresSaver's connection requirements (as its from_conn_string).
    # Why: ``setup()`` runs DDL outside a transaction and the saver reads rows
    # by column name; its few statements run many times with the same shape.
    # Outcome: autocommit, dict rows, ``prepare_threshold=0`` (prepared on first
    # use); ``check`` makes the pool replace a connection the server closed
    # (a restarted server). The store's statement timeout and keepalive: a checkpoint
    # read or write blocked by a lock or a vanished host ends instead of hanging a turn.
    pool: ConnectionPool[Any] = ConnectionPool(
        dsn,
        min_size=1,
        max_size=max(1, pool_size),
        kwargs={
            "autocommit": True,
            "prepare_threshold": 0,
            "row_factory": dict_row,
            "options": f"-c search_path={name},public "
            + statement_timeout_option(statement_timeout_s),
            "connect_timeout": max(1, round(timeout)),
            **keepalive_options(keepalive_idle_s),
        },
        check=ConnectionPool.check_connection,
        timeout=timeout,
        name=f"memvault-checkpoints-{name}",
        open=False,
    )
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=max(1, round(timeout))) as c:
            # Trigger: several processes may open the checkpointer at once.
            # Why: concurrent ``CREATE TABLE IF NOT EXISTS`` can still collide.
            # Outcome: schema creation and ``setup()`` run under one advisory
            # lock (released when this connection closes).
            c.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", [2, name])
            c.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
            pool.open(wait=True, timeout=timeout)
            saver = PostgresSaver(pool)
            saver.setup()
    except (psycopg.Error, PoolTimeout) as exc:
        pool.close()
        text = str(exc).strip().splitlines()
        raise StoreUnavailableError(
            f"cannot open the PostgreSQL checkpointer: {text[0] if text else type(exc).__name__}",
            hint="check the DSN, that the server runs, and that it accepts connections",
        ) from exc
    except BaseException:
        pool.close()
        raise
    return saver
