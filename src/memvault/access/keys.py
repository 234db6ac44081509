"""API keys bound to one orchestrator and one agent, stored hashed, revocable.

Keys live in ``<home>/api_keys.db`` (SQLite, outside every orchestrator's
memory database, because one server hosts several orchestrators and a key must
be resolved before we know which one). Only a SHA-256 of the secret is stored;
the full key is shown once, when it is created. The same file holds the access
audit: every refused or out-of-scope request leaves a row.

A key looks like ``mvk_<key id>_<secret>``; the key id is public (it names the
key in ``memvault keys list`` and in the audit), the secret is not.

>>> import tempfile, pathlib
>>> keys = KeyStore(pathlib.Path(tempfile.mkdtemp()) / "api_keys.db")
>>> token, record = keys.create("acme", "planner", categories=["tasks"])
>>> who = keys.verify(token).principal()
>>> who.agent, who.categories, who.read_only
('planner', frozenset({'TASKS'}), False)
>>> keys.revoke(record.key_id), keys.verify(token)
(True, None)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvault.errors import ConfigError, StoreUnavailableError, ValidationFailed
from memvault.layout import validate_orchestrator
from memvault.model.validation import clean_user_id

__all__ = [
    "AGENT_RULE",
    "KEY_FILE_NAME",
    "ApiKey",
    "KeyStore",
    "Principal",
    "checked_grant",
    "is_agent_name",
    "normalise_categories",
]

KEY_FILE_NAME = "api_keys.db"
#: An agent's name, as a key, ``policy.allowlists`` and the LangGraph store take it.
_AGENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}")
AGENT_RULE = "1-64 letters, digits, '_', '.', ':' or '-', starting with a letter or digit"
_CATEGORY = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
_TOKEN = re.compile(r"^mvk_([0-9a-f]{12})_([A-Za-z0-9_\-]{20,128})$")


def is_agent_name(value: object) -> bool:
    """Whether ``value`` is an agent's name (:data:`AGENT_RULE`), the whole of it.

    Trigger: ``re.match`` with ``$`` took ``"planner\\n"`` (``$`` matches before a
        final line break): a key's agent no allowlist entry could name.
    Outcome: the whole text must be the name (``fullmatch``).

    >>> is_agent_name("planner"), is_agent_name("planner\\n"), is_agent_name(" planner")
    (True, False, False)
    """
    return isinstance(value, str) and _AGENT.fullmatch(value) is not None


#: Append-only, like the memory schema: add a migration, never edit one.
MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE api_keys (
            key_id          TEXT PRIMARY KEY,
            secret_sha256   TEXT NOT NULL,
            orchestrator_id TEXT NOT NULL,
            agent           TEXT NOT NULL,
            categories      TEXT,
            read_only       INTEGER NOT NULL CHECK (read_only IN (0, 1)),
            label           TEXT NOT NULL DEFAULT '',
            created_at      TEXT NOT NULL,
            revoked_at      TEXT
        );
        CREATE TABLE access_audit (
            seq             INTEGER PRIMARY KEY AUTOINCREMENT,
            at              TEXT NOT NULL,
            orchestrator_id TEXT,
            agent           TEXT,
            key_id          TEXT,
            event           TEXT NOT NULL,
            route           TEXT NOT NULL DEFAULT '',
            memory_id       TEXT,
            detail          TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX access_audit_scope ON access_audit (orchestrator_id, seq);
        """,
    ),
    (
        2,
        """
        CREATE TABLE auth_failures (
            minute          TEXT NOT NULL,
            key_prefix      TEXT NOT NULL,
            count           INTEGER NOT NULL,
            PRIMARY KEY (minute, key_prefix)
        );
        """,
    ),
    (
        3,
        """
        ALTER TABLE api_keys ADD COLUMN user_id TEXT;
        ALTER TABLE api_keys ADD COLUMN all_users INTEGER NOT NULL DEFAULT 0
            CHECK (all_users IN (0, 1));
        """,
    ),
)

#: Failed authentications are counted in memory and written at most this often.
AUTH_FLUSH_SECONDS = 5.0
#: The ``auth_failures`` table keeps at most this many (minute, key prefix) rows.
AUTH_FAILURES_MAX_ROWS = 10_000


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def checked_grant(
    orchestrator: str, agent: object, *, user: object = None, all_users: bool = False
) -> str | None:
    """The user a grant binds (trimmed), once its names follow the rules every key follows.

    Trigger: a principal made from names a caller typed (``keys create``, ``memvault mcp``).
    Why: an agent no ``policy.allowlists`` entry can name escaped it (review S17-R2,
      S18-R9: ``mcp --agent " planner "`` read and wrote every category), and a padded
      user bound the tools to a user no write could name.
    Outcome: :class:`~memvault.errors.ConfigError` for an orchestrator or agent off its
      rule, a user id that is not one, or a user with ``all_users``; else the user id
      as every write path stores it.

    >>> checked_grant("acme", "planner", user=" dana ")
    'dana'
    >>> checked_grant("acme", " planner ")
    Traceback (most recent call last):
    ...
    memvault.errors.ConfigError: invalid agent name ' planner '
    """
    validate_orchestrator(orchestrator)
    if not is_agent_name(agent):
        raise ConfigError(f"invalid agent name {agent!r}", hint=f"use {AGENT_RULE}")
    if user is None:
        return None
    try:
        cleaned = clean_user_id(user, "user")  # a key for 'dana ' is dana's
    except ValidationFailed:
        raise ConfigError(
            f"invalid user {user!r}", hint="use a user id of 1-128 printable characters"
        ) from None
    if all_users:
        raise ConfigError(
            "a key bound to a user cannot see all users",
            hint="choose --user or --all-users, not both",
        )
    return cleaned


def normalise_categories(categories: Iterable[str] | None) -> tuple[str, ...] | None:
    """Upper-case, de-duplicate and check category names (``None`` = unrestricted).

    >>> normalise_categories(["tasks", " Goal", "TASKS"])
    ('GOAL', 'TASKS')
    """
    if categories is None:
        return None
    names = sorted({c.strip().upper() for c in categories if c.strip()})
    bad = [c for c in names if not _CATEGORY.match(c)]
    if bad:
        raise ConfigError(f"invalid category name(s): {', '.join(bad)}")
    return tuple(names)


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request is: always derived from its key, never from its body.

    ``categories`` is the effective allowlist (``None`` means unrestricted).
    ``user``: the key is bound to that user — every read is theirs and shared
    memories, every write is theirs (store/scope.py). ``all_users``: the key may
    ask for the orchestrator-wide view (administrators; never with ``user``).

    >>> Principal("acme", "planner", "k1", frozenset({"TASKS"})).allows("tasks")
    True
    """

    orchestrator: str
    agent: str
    key_id: str
    categories: frozenset[str] | None = None
    read_only: bool = False
    user: str | None = None
    all_users: bool = False

    def allows(self, category: str) -> bool:
        return self.categories is None or category.upper() in self.categories

    def to_json(self) -> dict[str, Any]:
        cats = sorted(self.categories) if self.categories is not None else None
        return _record_json(self, cats)


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key's public record (never the secret)."""

    key_id: str
    orchestrator: str
    agent: str
    categories: tuple[str, ...] | None = None
    read_only: bool = False
    label: str = ""
    created_at: str = ""
    revoked_at: str | None = None
    ephemeral: bool = field(default=False, compare=False)
    user: str | None = None
    all_users: bool = False

    def principal(self) -> Principal:
        cats = frozenset(self.categories) if self.categories is not None else None
        return Principal(
            self.orchestrator,
            self.agent,
            self.key_id,
            cats,
            self.read_only,
            self.user,
            self.all_users,
        )

    def to_json(self) -> dict[str, Any]:
        return _record_json(self, list(self.categories) if self.categories is not None else None)


def _record_json(record: Principal | ApiKey, categories: list[str] | None) -> dict[str, Any]:
    """A key record's JSON: its fields in order (never the in-process ``ephemeral`` mark),
    the categories as a list."""
    data = {f.name: getattr(record, f.name) for f in fields(record) if f.name != "ephemeral"}
    data["categories"] = categories
    return data


class KeyStore:
    """Hashed API keys and the access audit, in one small SQLite file. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._ephemeral: dict[str, tuple[str, ApiKey]] = {}
        self._lock = threading.Lock()
        self._migrated = False
        self._failures: Counter[tuple[str, str]] = Counter()
        self._flush_at = 0.0

    @classmethod
    def for_home(cls, home: Path) -> KeyStore:
        """The key file of a runtime home: ``<home>/api_keys.db``."""
        return cls(Path(home) / KEY_FILE_NAME)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(self.path, timeout=30)
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnavailableError(f"cannot open key file {self.path}: {exc}") from exc
        with closing(con):
            try:
                with con:
                    if not self._migrated:
                        self._migrate(con)
                    yield con
            except sqlite3.Error as exc:
                raise StoreUnavailableError(f"key file {self.path}: {exc}") from exc

    def _migrate(self, con: sqlite3.Connection) -> None:
        con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)")
        done = {row[0] for row in con.execute("SELECT version FROM schema_version")}
        for version, sql in MIGRATIONS:
            if version not in done:
                for statement in filter(str.strip, sql.split(";")):
                    con.execute(statement)
                con.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
        self._migrated = True

    def create(
        self,
        orchestrator: str,
        agent: str,
        *,
        categories: Iterable[str] | None = None,
        read_only: bool = False,
        label: str = "",
        persist: bool = True,
        user: str | None = None,
        all_users: bool = False,
    ) -> tuple[str, ApiKey]:
        """Mint a key; returns ``(token, record)``. The token is shown only now.

        ``persist=False`` keeps the key in this process only (the dev key of
        ``memvault serve``): it stops working when the process exits. ``user``
        binds the key to one user (it reads and writes only theirs and shared
        memories); ``all_users`` lets it ask for the orchestrator-wide view.
        """
        user = checked_grant(orchestrator, agent, user=user, all_users=all_users)
        key_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        record = ApiKey(
            key_id=key_id,
            orchestrator=orchestrator,
            agent=agent,
            categories=normalise_categories(categories),
            read_only=read_only,
            label=label[:200],
            created_at=_now(),
            ephemeral=not persist,
            user=user,
            all_users=all_users,
        )
        if persist:
            with self._connect() as con:
                con.execute(
                    "INSERT INTO api_keys (key_id, secret_sha256, orchestrator_id, agent,"
                    " categories, read_only, label, created_at, user_id, all_users)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (
                        key_id,
                        _digest(secret),
                        orchestrator,
                        agent,
                        None if record.categories is None else json.dumps(record.categories),
                        int(read_only),
                        record.label,
                        record.created_at,
                        user,
                        int(all_users),
                    ),
                )
        else:
            with self._lock:
                self._ephemeral[key_id] = (_digest(secret), record)
        return f"mvk_{key_id}_{secret}", record

    @staticmethod
    def _record(row: sqlite3.Row | tuple[Any, ...]) -> ApiKey:
        (key_id, orchestrator, agent, cats, read_only, label, created_at, revoked_at, user) = row[
            :9
        ]
        return ApiKey(
            key_id=key_id,
            orchestrator=orchestrator,
            agent=agent,
            categories=tuple(json.loads(cats)) if cats is not None else None,
            read_only=bool(read_only),
            label=label,
            created_at=created_at,
            revoked_at=revoked_at,
            user=user,
            all_users=bool(row[9]),
        )

    _COLUMNS = (
        "key_id, orchestrator_id, agent, categories, read_only, label, created_at, revoked_at,"
        " user_id, all_users"
    )

    def verify(self, token: str | None) -> ApiKey | None:
        """The live key record for ``token``, or ``None`` (unknown, malformed, revoked, or
        stored with an agent that is no agent's name)."""
        match = _TOKEN.match(token or "")
        if match is None:
            return None
        key_id, secret = match.groups()
        digest = _digest(secret)
        with self._lock:
            held = self._ephemeral.get(key_id)
        if held is not None:
            return held[1] if hmac.compare_digest(held[0], digest) else None
        with self._connect() as con:
            row = con.execute(
                f"SELECT secret_sha256, {self._COLUMNS} FROM api_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        if row is None or not hmac.compare_digest(row[0], digest):
            return None
        record = self._record(row[1:])
        if record.revoked_at is not None:
            return None
        # Trigger: a key minted before the agents' rule was held whole (review S18-R11).
        # Why: its agent (" planner ", "planner\n") is named by no policy.allowlists entry,
        #   so its principal read and wrote every category.
        # Outcome: no key (401, counted as a failed authentication); mint a new one.
        return record if is_agent_name(record.agent) else None

    def revoke(self, key_id: str) -> bool:
        """Revoke a key by id; ``False`` if there is no live key with that id."""
        with self._lock:
            if self._ephemeral.pop(key_id, None) is not None:
                return True
        with self._connect() as con:
            cur = con.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                (_now(), key_id),
            )
            return cur.rowcount == 1

    def list_keys(self, *, include_revoked: bool = False) -> list[ApiKey]:
        """Stored keys, oldest first (never their secrets)."""
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {self._COLUMNS} FROM api_keys{where} ORDER BY created_at, key_id"
            ).fetchall()
        return [self._record(r) for r in rows]

    def record_access(
        self,
        event: str,
        *,
        principal: Principal | None = None,
        route: str = "",
        memory_id: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """Append one access-audit row (a denial, an out-of-scope id, a bad key)."""
        with self._connect() as con:
            con.execute(
                "INSERT INTO access_audit (at, orchestrator_id, agent, key_id, event, route,"
                " memory_id, detail) VALUES (?,?,?,?,?,?,?,?)",
                (
                    _now(),
                    principal.orchestrator if principal else None,
                    principal.agent if principal else None,
                    principal.key_id if principal else None,
                    event,
                    route[:200],
                    memory_id[:128] if memory_id else None,
                    json.dumps(detail or {}, sort_keys=True),
                ),
            )

    # -- failed authentication (bounded) ---------------------------------------

    @staticmethod
    def key_prefix(token: str | None) -> str:
        """What a failed token is counted under: its key id, never its secret.

        >>> KeyStore.key_prefix("mvk_0123456789ab_" + "s" * 32)
        'mvk_0123456789ab'
        >>> KeyStore.key_prefix("garbage"), KeyStore.key_prefix(None)
        ('malformed', 'none')
        """
        if not token:
            return "none"
        match = _TOKEN.match(token)
        return f"mvk_{match.group(1)}" if match else "malformed"

    def record_failed_auth(self, token: str | None) -> None:
        """Count one failed authentication (per key prefix per minute).

        Trigger: every request with a garbage bearer token inserted an audit row.
        Why: unauthenticated traffic must not grow the key file without bound
        nor cost one synchronous write each (issue 20).
        Outcome: counted in memory, written as ``(minute, key_prefix, count)``
        at most every :data:`AUTH_FLUSH_SECONDS`, the table capped at
        :data:`AUTH_FAILURES_MAX_ROWS` rows (the oldest minutes go first).
        """
        key = (_now()[:16], self.key_prefix(token))
        with self._lock:
            self._failures[key] += 1
            due = time.monotonic() >= self._flush_at
        if due:
            self.flush_failed_auth()

    def flush_failed_auth(self) -> None:
        """Write the counted failures now (also done by :meth:`failed_auth`)."""
        with self._lock:
            pending, self._failures = self._failures, Counter()
            self._flush_at = time.monotonic() + AUTH_FLUSH_SECONDS
        if not pending:
            return
        try:
            with self._connect() as con:
                con.executemany(
                    "INSERT INTO auth_failures (minute, key_prefix, count) VALUES (?, ?, ?) "
                    "ON CONFLICT (minute, key_prefix) DO UPDATE SET count = count + excluded.count",
                    [(minute, prefix, n) for (minute, prefix), n in sorted(pending.items())],
                )
                rows = con.execute("SELECT count(*) FROM auth_failures").fetchone()[0]
                if rows > AUTH_FAILURES_MAX_ROWS:
                    con.execute(
                        "DELETE FROM auth_failures WHERE rowid IN (SELECT rowid FROM "
                        "auth_failures ORDER BY minute, key_prefix LIMIT ?)",
                        (rows - AUTH_FAILURES_MAX_ROWS,),
                    )
        except StoreUnavailableError:
            with self._lock:  # kept for the next flush; the request is refused anyway
                self._failures.update(pending)

    def failed_auth(self) -> list[dict[str, Any]]:
        """Failed authentications per minute and key prefix, oldest first."""
        self.flush_failed_auth()
        with self._connect() as con:
            rows = con.execute(
                "SELECT minute, key_prefix, count FROM auth_failures ORDER BY minute, key_prefix"
            ).fetchall()
        return [{"minute": m, "key_prefix": p, "count": int(n)} for m, p, n in rows]

    def access_events(self, orchestrator: str | None = None) -> list[dict[str, Any]]:
        """Access-audit rows, oldest first (all, or one orchestrator's)."""
        sql = "SELECT seq, at, orchestrator_id, agent, key_id, event, route, memory_id, detail"
        sql += " FROM access_audit"
        args: tuple[Any, ...] = ()
        if orchestrator is not None:
            sql += " WHERE orchestrator_id = ?"
            args = (orchestrator,)
        with self._connect() as con:
            rows = con.execute(sql + " ORDER BY seq", args).fetchall()
        names = ("seq", "at", "orchestrator", "agent", "key_id", "event", "route", "memory_id")
        return [{**dict(zip(names, r[:8], strict=True)), "detail": json.loads(r[8])} for r in rows]
