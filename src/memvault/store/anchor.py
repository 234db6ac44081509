"""The store's identity and audit anchor, kept in a small file beside the database.

``<home>/<orchestrator>/memory/memory.anchor.json`` holds::

    {"orchestrator_id": "acme", "store_uuid": "3f0c…", "created_at": "2026-…Z",
     "revision": 42, "history_count": 97, "last_hash": "9b1e…"}

Trigger: a database file that is deleted, emptied, swapped for another
store's copy or restored from an old backup still opens as a valid SQLite
database (SQLite re-creates a missing file without a word).
Why: memory that silently starts over looks healthy — ``audit verify`` says
"holds: 0 events" and every later answer is wrong.
Outcome: the identity (``orchestrator_id`` + ``store_uuid`` + ``created_at``)
lives both in the database and in this file, and the store rewrites the file
after every committed write with the audit head (``history_count``,
``last_hash``) and the ``revision``. Opening a store whose database does not
match its anchor is an error, never a fresh start; an anchor that is *ahead*
of its database reveals a rollback.

The file is written atomically (temporary file, ``fsync``, ``rename``), so a
crash leaves the old anchor or the new one,
never half of one. :func:`advance_anchor` only ever moves it forward, so two
processes committing at once cannot leave the older state on disk.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / ANCHOR_NAME
>>> read_anchor(path) is None
True
>>> anchor = new_anchor("acme", "2026-01-01T00:00:00.000000Z")
>>> write_anchor(path, anchor)
>>> read_anchor(path) == anchor
True
>>> advance_anchor(path, anchor.advanced(revision=3, history_count=5, last_hash="a" * 64)).revision
3
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import threading
import uuid
import weakref
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memvault.errors import AnchorError, StoreError, StoreIdentityError, StoreMissingError

if TYPE_CHECKING:
    from memvault.store.base import Store

__all__ = [
    "ANCHOR_NAME",
    "GENESIS_HASH",
    "AnchorKeeper",
    "StoreAnchor",
    "advance_anchor",
    "anchor_path",
    "bind_identity",
    "check_identity",
    "new_anchor",
    "read_anchor",
    "write_anchor",
]

ANCHOR_NAME = "memory.anchor.json"
GENESIS_HASH = "0" * 64
_HASH = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = ("orchestrator_id", "store_uuid", "created_at", "revision", "history_count", "last_hash")
# One lock per anchor path inside this process; flock orders processes.
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@dataclass(frozen=True, slots=True)
class StoreAnchor:
    """One store's identity and the audit head of its last committed write.

    >>> a = new_anchor("acme", "2026-01-01T00:00:00.000000Z")
    >>> (a.revision, a.history_count, a.last_hash == GENESIS_HASH)
    (0, 0, True)
    """

    orchestrator_id: str
    store_uuid: str
    created_at: str
    revision: int = 0
    history_count: int = 0
    last_hash: str = GENESIS_HASH

    def __post_init__(self) -> None:
        problems = []
        if not isinstance(self.orchestrator_id, str) or not self.orchestrator_id:
            problems.append("orchestrator_id must be a non-empty string")
        if not isinstance(self.store_uuid, str) or not self.store_uuid:
            problems.append("store_uuid must be a non-empty string")
        if not isinstance(self.created_at, str) or not self.created_at:
            problems.append("created_at must be a non-empty string")
        for name in ("revision", "history_count"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                problems.append(f"{name} must be an integer >= 0")
        if not isinstance(self.last_hash, str) or not _HASH.match(self.last_hash):
            problems.append("last_hash must be 64 lowercase hex characters")
        if problems:
            raise AnchorError("invalid store anchor: " + "; ".join(problems))

    def advanced(self, *, revision: int, history_count: int, last_hash: str) -> StoreAnchor:
        """The same identity at a later audit head.

        >>> a = new_anchor("acme", "2026-01-01T00:00:00.000000Z")
        >>> a.advanced(revision=1, history_count=2, last_hash="b" * 64).history_count
        2
        """
        return replace(self, revision=revision, history_count=history_count, last_hash=last_hash)

    def is_behind(self, other: StoreAnchor) -> bool:
        """True when ``other`` (same identity) records more history or a later revision.

        A live store whose audit head is behind its anchor file was rolled back.

        >>> a = new_anchor("acme", "2026-01-01T00:00:00.000000Z")
        >>> a.is_behind(a.advanced(revision=1, history_count=1, last_hash="c" * 64))
        True
        """
        return self.history_count < other.history_count or self.revision < other.revision

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def new_anchor(orchestrator_id: str, created_at: str, store_uuid: str | None = None) -> StoreAnchor:
    """A fresh identity (a random ``store_uuid``) at the genesis of the audit chain.

    >>> len(new_anchor("acme", "2026-01-01T00:00:00.000000Z").store_uuid)
    32
    """
    return StoreAnchor(orchestrator_id, store_uuid or uuid.uuid4().hex, created_at)


def anchor_path(memory_dir: str | Path) -> Path:
    """Where the anchor of the store in ``memory_dir`` lives.

    >>> anchor_path("/home/acme/memory").name
    'memory.anchor.json'
    """
    return Path(memory_dir) / ANCHOR_NAME


def read_anchor(path: str | Path) -> StoreAnchor | None:
    """The anchor at ``path``; ``None`` when there is no file.

    A file that exists but cannot be read or parsed raises :class:`AnchorError`
    (a damaged anchor is reported, never mistaken for "no anchor").
    """
    path = Path(path)
    for keeper in list(_KEEPERS):
        keeper.flush()  # this process's own pending anchor writes land first
    return _read(path)


def _read(path: Path) -> StoreAnchor | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AnchorError(f"cannot read the store anchor {path}: {exc}") from exc
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AnchorError(f"the store anchor {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or set(data) != set(_FIELDS):
        raise AnchorError(
            f"the store anchor {path} does not have exactly the fields {', '.join(_FIELDS)}"
        )
    try:
        return StoreAnchor(**data)
    except AnchorError as exc:
        raise AnchorError(f"{path}: {exc}") from exc


def write_anchor(path: str | Path, anchor: StoreAnchor) -> None:
    """Replace the anchor at ``path`` atomically (tmp + fsync + rename).

    Trigger: the directory is not fsynced after the rename.
    Why: it doubled the cost of every write (measured ~10 → ~5 ms at load 19);
    a crash right after may leave the previous anchor, which is merely behind
    (the database then holds more than the anchor says — never read as a rollback).
    Outcome: the file's bytes are durable before it replaces the old one.
    """
    path = Path(path)
    body = json.dumps(anchor.to_json(), sort_keys=True, indent=1).encode("utf-8") + b"\n"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise AnchorError(f"cannot write the store anchor {path}: {exc}") from exc


def advance_anchor(path: str | Path, anchor: StoreAnchor) -> StoreAnchor:
    """Write ``anchor`` unless the file already records a later head; return what is on disk.

    Trigger: two processes commit one after the other and write their anchors
    in the opposite order.
    Why: the older anchor must not win, or a rollback check would miss the
    newer write.
    Outcome: under a lock (threads and processes), the file only moves forward.
    """
    path = Path(path)
    with _locked(path):
        current = _read(path)
        if (
            current is not None
            and current.store_uuid == anchor.store_uuid
            and (current.history_count, current.revision) >= (anchor.history_count, anchor.revision)
        ):
            return current
        write_anchor(path, anchor)
        return anchor


def check_identity(anchor: StoreAnchor | None, live: StoreAnchor | None, where: str) -> None:
    """Raise :class:`StoreIdentityError` unless the database ``live`` matches ``anchor``.

    ``live`` is the identity recorded inside the database (``None``: the
    database records none — missing, empty or re-created). No anchor means
    nothing to compare against (a new store, or one from before anchors).

    >>> a = new_anchor("acme", "2026-01-01T00:00:00.000000Z")
    >>> check_identity(a, a, "memory.db")
    >>> check_identity(a, new_anchor("acme", "2026-01-02T00:00:00.000000Z"), "memory.db")
    Traceback (most recent call last):
    ...
    memvault.errors.StoreIdentityError: memory.db is not the store its anchor describes ...
    """
    if anchor is None:
        return
    if live is None:
        raise StoreIdentityError(
            f"{where} holds no memory store, but its anchor says store {anchor.store_uuid} of "
            f"{anchor.orchestrator_id!r} (created {anchor.created_at}) had "
            f"{anchor.history_count} audit events at revision {anchor.revision}",
            hint="the database was deleted, emptied or re-created: restore it from a backup; "
            "to start over with an empty store instead, move memory.anchor.json away "
            "and run `memvault init`",
        )
    if (live.orchestrator_id, live.store_uuid) != (anchor.orchestrator_id, anchor.store_uuid):
        raise StoreIdentityError(
            f"{where} is not the store its anchor describes (database: store {live.store_uuid} "
            f"of {live.orchestrator_id!r}; anchor: store {anchor.store_uuid} of "
            f"{anchor.orchestrator_id!r})",
            hint="the database file was replaced by another store's copy: put the right file "
            "back or restore it from a backup",
        )


def bind_identity(
    store: Store,
    orchestrator_id: str,
    path: str | Path,
    *,
    create: bool,
    at: str,
    recorded: StoreAnchor | None = None,
    where: str = "the database",
) -> StoreAnchor:
    """Match the store's identity for ``orchestrator_id`` with its anchor file, then keep it.

    ``recorded`` is the anchor already read from ``path`` (read here when
    ``None``). The outcomes:

    - database and anchor agree → the store is used, the anchor kept up to date;
    - the anchor records a store the database does not hold (deleted, emptied,
      re-created or swapped) → :class:`StoreIdentityError`, whatever ``create`` says;
    - neither records anything → a new store when ``create``, else
      :class:`StoreMissingError`;
    - the database holds data but no identity (a store from before anchors) →
      the identity is recorded now and the anchor written.

    >>> import tempfile, pathlib
    >>> from memvault.store.memory import InMemoryStore
    >>> path = pathlib.Path(tempfile.mkdtemp()) / ANCHOR_NAME
    >>> store = InMemoryStore()
    >>> bind_identity(store, "acme", path, create=True, at="2026-01-01T00:00:00.000000Z").revision
    0
    >>> bind_identity(InMemoryStore(), "acme", path, create=True, at="2026-01-01T00:00:00.000000Z",
    ...               where="memory.db")
    Traceback (most recent call last):
    ...
    memvault.errors.StoreIdentityError: memory.db holds no memory store, but its anchor says ...
    """
    path = Path(path)
    if recorded is None:
        recorded = read_anchor(path)
    if recorded is not None and recorded.orchestrator_id != orchestrator_id:
        raise StoreIdentityError(
            f"the anchor {path} belongs to orchestrator {recorded.orchestrator_id!r}, "
            f"not {orchestrator_id!r}",
            hint="the memory folder was copied from another orchestrator: put it back",
        )
    live = store.identity(orchestrator_id)
    if live is None:
        check_identity(recorded, None, where)  # an anchor without its store: damage
        holds_data = (
            store.revision(orchestrator_id) > 0 or store.audit_head(orchestrator_id).events > 0
        )
        if not create and not holds_data:
            raise StoreMissingError(orchestrator_id, where)
        live = store.claim_identity(new_anchor(orchestrator_id, at))
    else:
        check_identity(recorded, live, where)
    store.keep_anchor(orchestrator_id, path)
    return live


class AnchorKeeper:
    """The anchor files one store object keeps up to date, by orchestrator.

    A backend calls :meth:`committed` after each committed write; the keeper
    advances that orchestrator's file if one was registered with :meth:`keep`.
    An anchor that cannot be written never undoes or fails the write that was
    already committed: the error is kept in :attr:`last_error` (health reports it).

    Trigger: the anchor's fsync doubled the disk sync of every write (the
      database's COMMIT is the other one): ~3–11 ms of a 20–45 ms capture.
    Why: the anchor detects swaps and rollbacks; it must never be *ahead* of
      the database, and a crash may already leave it one write behind.
    Outcome: :meth:`committed` hands the new head to a writer thread and
      returns; the thread writes the newest head (tmp + fsync + rename, only
      forward), so a burst of commits costs one anchor write. Whatever reads the
      anchor in this process (:func:`read_anchor`, :attr:`last_error`, ``close``)
      waits for the pending write first (docs/adr/0007-anchor-written-behind.md).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / ANCHOR_NAME
    >>> keeper = AnchorKeeper()
    >>> keeper.keep(new_anchor("acme", "2026-01-01T00:00:00.000000Z"), path)
    >>> keeper.committed("acme", revision=1, history_count=2, last_hash="9" * 64)
    >>> read_anchor(path).history_count
    2
    >>> keeper.close()
    """

    #: an idle writer thread ends after this many seconds (a new commit starts one)
    idle_seconds = 2.0

    def __init__(self) -> None:
        self._kept: dict[str, tuple[Path, StoreAnchor]] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._pending: dict[Path, StoreAnchor] = {}
        self._writing = 0
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._error: str | None = None
        self._closed = False
        _KEEPERS.add(self)

    @property
    def last_error(self) -> str | None:
        """Why the last anchor write failed (``None``: the file is up to date)."""
        self.flush()
        return self._error

    def keep(self, identity: StoreAnchor, path: str | Path) -> None:
        """Keep ``path`` in step with ``identity``'s orchestrator; write it now."""
        path = Path(path)
        with self._lock:
            self._kept[identity.orchestrator_id] = (path, identity)
        self._write(path, identity)

    def keep_identity(
        self, orchestrator_id: str, identity: StoreAnchor | None, path: str | Path
    ) -> None:
        """:meth:`keep` for a backend's ``keep_anchor``: ``identity`` is what the store
        recorded for ``orchestrator_id`` (``None``: nothing claimed yet — an error).

        >>> AnchorKeeper().keep_identity("acme", None, "/nowhere")
        Traceback (most recent call last):
        ...
        memvault.errors.StoreError: orchestrator 'acme' has no store identity to anchor
        """
        if identity is None:
            raise StoreError(f"orchestrator {orchestrator_id!r} has no store identity to anchor")
        self.keep(identity, path)

    def wants(self, orchestrator_id: str) -> bool:
        return orchestrator_id in self._kept

    def committed(
        self, orchestrator_id: str, *, revision: int, history_count: int, last_hash: str
    ) -> None:
        """A write committed: its head goes to the writer thread (newest head wins)."""
        kept = self._kept.get(orchestrator_id)
        if kept is None:
            return
        path, identity = kept
        anchor = identity.advanced(
            revision=revision, history_count=history_count, last_hash=last_hash
        )
        with self._changed:
            if self._closed or self._pid != os.getpid():
                inline = True  # closed, or a forked child: no writer thread here
            else:
                inline = False
                current = self._pending.get(path)
                if current is None or _order(anchor) >= _order(current):
                    self._pending[path] = anchor
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="memvault-anchor", daemon=True
                    )
                    self._thread.start()
                self._changed.notify_all()
        if inline:
            self._write(path, anchor)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every committed head handed over so far is on disk."""
        with self._changed:
            if self._pid != os.getpid():
                self._pending.clear()  # a forked child never writes its parent's heads
                return
            self._changed.wait_for(lambda: not self._pending and not self._writing, timeout)

    def close(self) -> None:
        """Write what is pending and stop the writer thread (later commits write inline)."""
        self.flush()
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def _run(self) -> None:
        while True:
            with self._changed:
                if not self._pending:
                    self._changed.wait_for(
                        lambda: bool(self._pending) or self._closed, self.idle_seconds
                    )
                if not self._pending:
                    self._thread = None  # idle or closed: the next commit starts another
                    return
                path, anchor = next(iter(self._pending.items()))
                del self._pending[path]
                self._writing += 1
            try:
                self._write(path, anchor)
            finally:
                with self._changed:
                    self._writing -= 1
                    self._changed.notify_all()

    def _write(self, path: Path, anchor: StoreAnchor) -> None:
        try:
            advance_anchor(path, anchor)
            self._error = None
        except AnchorError as exc:
            self._error = str(exc)
        except Exception as exc:  # the writer thread must outlive any surprise
            self._error = f"cannot write the store anchor {path}: {type(exc).__name__}: {exc}"


def _order(anchor: StoreAnchor) -> tuple[int, int]:
    return (anchor.history_count, anchor.revision)


#: every keeper of this process, so a reader of an anchor file sees its pending writes
_KEEPERS: weakref.WeakSet[AnchorKeeper] = weakref.WeakSet()


@atexit.register
def _flush_at_exit() -> None:
    for keeper in list(_KEEPERS):
        keeper.flush(timeout=10.0)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    key = str(path)
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: the rename is still atomic
            yield
            return
        lock_path = path.with_name(f".{path.name}.lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise AnchorError(f"cannot lock the store anchor {path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the flock
