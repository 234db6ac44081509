"""The names of the environment variables memvault's settings come from (nothing is read here).

``memvault.config`` reads them (the one reader of settings); an entry point
that only needs a name — a CLI option's ``envvar=`` — imports it from here, so
``memvault --help`` does not load the settings machinery (pydantic-settings).

>>> ENV_POSTGRES_DSN
'MEMVAULT__STORE__POSTGRES__DSN'
"""

from __future__ import annotations

__all__ = ["ENV_DELIMITER", "ENV_HOME", "ENV_POSTGRES_DSN", "ENV_PREFIX", "ENV_STORE_BACKEND"]

ENV_PREFIX = "MEMVAULT__"
ENV_DELIMITER = "__"
#: The environment variable naming the runtime home (read by entry points only).
ENV_HOME = "MEMVAULT_HOME"
#: The store backend's environment variable (``store.backend``).
ENV_STORE_BACKEND = f"{ENV_PREFIX}STORE{ENV_DELIMITER}BACKEND"
#: The PostgreSQL DSN's environment variable (``store.postgres.dsn``).
ENV_POSTGRES_DSN = f"{ENV_PREFIX}STORE{ENV_DELIMITER}POSTGRES{ENV_DELIMITER}DSN"
