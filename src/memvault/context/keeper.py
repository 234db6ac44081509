"""Materialised bulletins and the never-raise fallback (memory-subsystem spec).

Every successful bulletin is written to ``bulletins/`` (``<revision>-<digest>.json``
plus ``latest.json``). When building a bulletin fails for any reason — store
unavailable, a bug, a bad row — the caller gets the last good bulletin (from
this process, else from ``latest.json``), else an empty one, and a warning
line goes to ``logs/memory.log``. Bulletin generation never blocks a workflow.

>>> import tempfile, pathlib
>>> from memvault.context.bulletin import BulletinConfig, empty_bulletin
>>> keeper = BulletinKeeper(pathlib.Path(tempfile.mkdtemp()))
>>> def broken(): raise OSError("disk gone")
>>> keeper.build(broken, BulletinConfig(), lambda *a, **k: None).status
'empty'
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memvault.context.bulletin import Bulletin, BulletinConfig, empty_bulletin
from memvault.store.scope import UserScope, reader_key

__all__ = ["BulletinKeeper", "KeeperPerReader", "Warn", "stale_notice"]

#: ``warn(level, event, **fields)`` — the engine's structured log.
Warn = Callable[..., None]

LATEST = "latest.json"


def stale_notice(revision: int) -> str:
    """The first line of a bulletin served from the last good one.

    >>> stale_notice(7)
    '[stale: memory is unavailable; this is the last good bulletin, from revision 7]'
    """
    return (
        f"[stale: memory is unavailable; this is the last good bulletin, from revision {revision}]"
    )


class BulletinKeeper:
    """Writes good bulletins to ``directory`` and serves the last one on failure."""

    def __init__(self, directory: Path | None, keep_files: int = 20) -> None:
        self.directory = directory
        self.keep_files = keep_files
        self._last: Bulletin | None = None
        self._cache: tuple[tuple[object, int], Bulletin] | None = None
        self._written: str | None = None  # digest of what latest.json holds
        self._lock = threading.Lock()

    def build(
        self,
        make: Callable[[], Bulletin],
        cfg: BulletinConfig,
        warn: Warn,
        *,
        key: tuple[object, ...] | None = None,
        revision: Callable[[], int] | None = None,
    ) -> Bulletin:
        """Run ``make``; on any exception fall back (never raises).

        With ``key`` and ``revision``, a bulletin built for the same key at the
        same revision is returned without rebuilding: the bulletin is a pure
        function of (state, query, config) and every memory change moves the
        revision, so it would be the same bytes.
        """
        try:
            if key is not None and revision is not None:
                with self._lock:
                    cached = self._cache
                if cached is not None and cached[0] == (key, revision()):
                    return cached[1]
            bulletin = make()
        except Exception as exc:
            # Trigger: anything at all went wrong while building.
            # Why: spec — bulletin failure must not block workflow execution.
            # Outcome: last good bulletin, else an empty one, and a warning line.
            fallback = self.last_good()
            warn(
                "warning",
                "bulletin_failed",
                error=f"{type(exc).__name__}: {exc}"[:500],
                fallback=fallback.status if fallback else "empty",
                revision=fallback.revision if fallback else None,
            )
            return fallback or empty_bulletin(cfg)
        with self._lock:
            self._last = bulletin
            if key is not None:
                self._cache = ((key, bulletin.revision), bulletin)
        try:
            self._write(bulletin)
        except OSError as exc:
            warn("warning", "bulletin_not_materialised", error=str(exc)[:500])
        return bulletin

    def last_good(self) -> Bulletin | None:
        """The last successful bulletin: the one on disk, else (none kept there) this process's.

        Trigger: the bulletin could not be built and a last good one is wanted.
        Why: an erasure (``forget --user``) in another process deletes the
          materialised files; a copy held in this process's memory would serve the
          erased text again.
        Outcome: with a directory, ``latest.json`` is the last good bulletin; when it
          is gone (erased, or never written) there is none. This process's copy
          serves only when bulletins are not materialised, or the file cannot be read
          for another reason than its absence.
        """
        with self._lock:
            last = self._last
        if self.directory is not None:
            try:
                data: Any = json.loads((self.directory / LATEST).read_text(encoding="utf-8"))
                last = Bulletin.from_json(data, "last_good")
            except FileNotFoundError:
                return None
            except (OSError, ValueError, KeyError, TypeError):
                pass  # unreadable, not erased: this process's copy, if any
        if last is None:
            return None
        # Trigger: the bulletin could not be built now (store unavailable, damaged…).
        # Why: an old bulletin served as if current misleads the model (issue 20).
        # Outcome: its text opens with a line saying it is stale and from which revision.
        notice = stale_notice(last.revision)
        text = last.text if last.text.startswith(notice) else f"{notice}\n{last.text}"
        return Bulletin(last.revision, last.sections, last.truncated, text, "last_good")

    def _write(self, bulletin: Bulletin) -> None:
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        payload = bulletin.dumps() + "\n"
        digest = bulletin.digest
        if digest == self._written and (self.directory / LATEST).exists():
            return  # the same bytes are already latest.json (a rebuild of an unchanged state)
        name = f"{bulletin.revision:012d}-{digest[:16]}.json"
        target = self.directory / name
        if not target.exists():
            _atomic_write(target, payload)
        _atomic_write(self.directory / LATEST, payload)
        kept = sorted(p for p in self.directory.glob("*-*.json") if p.name != LATEST)
        for old in kept[: max(len(kept) - self.keep_files, 0)]:
            old.unlink(missing_ok=True)
        self._written = digest


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class KeeperPerReader:
    """One :class:`BulletinKeeper` per reader: its own cache, last good bulletin and files.

    Trigger: bulletins are built per user (store/scope.py).
    Why: a cached or last-good bulletin of Bob must never be served to Alice.
    Outcome: ``bulletins/`` keeps the shared-only bulletin (no user named: what
    ``memvault bulletin`` prints) at its top, each user's in
    ``u-<sha256 of the user id>/`` and the orchestrator-wide view
    (:data:`ALL_USERS`) in ``all/``; at most ``max_readers`` keepers stay in memory.

    >>> from memvault.store.scope import ALL_USERS
    >>> keepers = KeeperPerReader(None)
    >>> keepers.of("alice") is keepers.of("alice"), keepers.of("alice") is keepers.of("bob")
    (True, False)
    """

    def __init__(
        self, directory: Path | None, keep_files: int = 20, *, max_readers: int = 1024
    ) -> None:
        self.directory = directory
        self.keep_files = keep_files
        self.max_readers = max_readers
        self._keepers: dict[str, BulletinKeeper] = {}
        self._lock = threading.Lock()

    def of(self, reader: UserScope) -> BulletinKeeper:
        """The keeper of ``reader`` (created on first use)."""
        key = reader_key(reader)
        with self._lock:
            keeper = self._keepers.pop(key, None)
            if keeper is None:
                where = self.directory
                if where is not None and key != "shared":
                    where = where / key
                keeper = BulletinKeeper(where, self.keep_files)
            self._keepers[key] = keeper  # most recently used last
            while len(self._keepers) > self.max_readers:
                self._keepers.pop(next(iter(self._keepers)))
        return keeper
