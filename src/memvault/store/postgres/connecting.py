"""Reaching a PostgreSQL server: the driver, the connection options, the first probe.

What every pool of this backend shares (the store's, the agent checkpointer's): the
statement limit and TCP keepalive as libpq options, the DSN as it may be printed, one
direct connection that fails fast with libpq's reason.
"""

from __future__ import annotations

from typing import TypedDict

from memvault.errors import ConfigError, StoreUnavailableError

try:  # one guard for the backend: its other modules take ``psycopg`` from here
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ConfigError(
        "the PostgreSQL backend needs psycopg 3 and psycopg-pool",
        hint='pip install "memvault[postgres]"',
    ) from exc

__all__ = [
    "DEFAULT_KEEPALIVE_IDLE_S",
    "DEFAULT_POOL_SIZE",
    "DEFAULT_SCHEMA",
    "DEFAULT_STATEMENT_TIMEOUT_S",
    "UNREACHABLE",
    "PostgresOptions",
    "first_line",
    "keepalive_options",
    "probe",
    "psycopg",
    "redacted_dsn",
    "statement_timeout_option",
]

DEFAULT_SCHEMA = "memvault"
DEFAULT_POOL_SIZE = 10
#: The longest a statement may run before the server cancels it (seconds; 0: no limit).
DEFAULT_STATEMENT_TIMEOUT_S = 30.0
#: Idle seconds before TCP keepalive probes start on a pooled connection (0: off).
DEFAULT_KEEPALIVE_IDLE_S = 30


def _milliseconds(seconds: float) -> int:
    """A limit in whole milliseconds: 0 stays "no limit", any other value is at least 1 ms.

    >>> _milliseconds(30), _milliseconds(0.0004), _milliseconds(0)
    (30000, 1, 0)
    """
    return max(1, round(seconds * 1000)) if seconds > 0 else 0


def statement_timeout_option(seconds: float) -> str:
    """The libpq ``options`` switch that makes the server cancel a longer statement.

    >>> statement_timeout_option(30), statement_timeout_option(0)
    ('-c statement_timeout=30000', '-c statement_timeout=0')
    """
    return f"-c statement_timeout={_milliseconds(seconds)}"


def keepalive_options(idle_s: int) -> dict[str, int]:
    """libpq's TCP keepalive parameters for ``idle_s`` idle seconds (``0``: keepalive off).

    Probes every third of ``idle_s`` (at least 1 s), three unanswered ones close the
    connection: a dead peer is found within about twice ``idle_s``.

    >>> keepalive_options(30)
    {'keepalives': 1, 'keepalives_idle': 30, 'keepalives_interval': 10, 'keepalives_count': 3}
    >>> keepalive_options(0)
    {'keepalives': 0}
    """
    if idle_s <= 0:
        return {"keepalives": 0}
    return {
        "keepalives": 1,
        "keepalives_idle": idle_s,
        "keepalives_interval": max(1, idle_s // 3),
        "keepalives_count": 3,
    }


class PostgresOptions(TypedDict, total=False):
    """The keywords of :class:`PostgresStore` besides its DSN (one definition)."""

    schema: str  # default DEFAULT_SCHEMA
    pool_size: int  # default DEFAULT_POOL_SIZE
    timeout: float  # seconds to reach the server, default 10.0
    statement_timeout_s: float  # longest statement, default 30.0 (0: no limit)
    keepalive_idle_s: int  # TCP keepalive after this idle time, default 30 (0: off)


UNREACHABLE = "check the DSN, that the server runs, and that it accepts connections"


def redacted_dsn(dsn: str, schema: str) -> str:
    """Where a PostgreSQL store lives, safe to print: the DSN without its password.

    Only user, host, port and database are kept (any other parameter may hold
    a secret), then the schema.

    >>> redacted_dsn("postgresql://al:s3cret@db.internal:5433/mem?sslmode=require", "memvault")
    'postgresql://al@db.internal:5433/mem (schema memvault)'
    >>> redacted_dsn("host=/run/pg dbname=mem password=s3cret", "memvault")
    'postgresql:///mem?host=/run/pg (schema memvault)'
    """
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.Error:
        return f"postgresql (unreadable DSN) (schema {schema})"
    user, host, port = parts.get("user"), parts.get("host"), parts.get("port")
    where = str(host or "")
    if where.startswith("/"):  # a socket directory: libpq's URI form puts it in the query
        where, query = "", f"?host={where}"
    else:
        query = ""
    login = f"{user}@" if user else ""
    at = f"{where}:{port}" if where and port else where
    return f"postgresql://{login}{at}/{parts.get('dbname') or ''}{query} (schema {schema})"


def probe(dsn: str, timeout: float) -> None:
    """One direct connection before the pool opens.

    Trigger: a wrong DSN or a server that is down.
    Why: the pool would retry in the background for ``timeout`` seconds and
    log every attempt; a caller (the CLI) deserves one clear, fast error.
    Outcome: :class:`StoreUnavailableError` with libpq's reason (which never
    contains the password), at once.
    """
    try:
        with psycopg.connect(dsn, connect_timeout=max(1, round(timeout))):
            pass
    except psycopg.Error as exc:
        raise StoreUnavailableError(
            f"cannot connect to PostgreSQL: {first_line(exc)}", hint=UNREACHABLE
        ) from exc


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
