"""The PostgreSQL backend (pgvector + tsvector), behind the same Store protocol.

Needs the ``postgres`` extra (``pip install "memvault[postgres]"``); importing
this package without it raises :class:`~memvault.errors.ConfigError` with that
hint.
"""

from memvault.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
