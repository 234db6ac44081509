"""Erasure beyond the store: the copies of a user's data that live in files.

Purging a user's memories (``forget --user``) clears the database. The same
words also live in:

- the **ingested source files** in ``ingest/processed/`` (and ``rejected/``)
  and their **manifests** (file name, path, hash);
- the ``ingest_files`` rows (original file name);
- ``logs/memory.log`` (file names, hashes and memory ids of every ingest pass);
- the agent's **thread checkpoints** (``<home>/agent/checkpoints.db``: the
  user's raw messages and what memory gave back);
- materialised bulletins (handled by the engine).

Trigger: ``forget --user`` reported ``remaining: 0`` while all of these kept
the user's documents, names and messages (issue 20).
Why: the right to erasure covers every copy, not only the main table.
Outcome: the functions here find each copy that belongs to the user, remove
it (files, manifests, checkpoint threads, log lines; an ``ingest_files`` row
becomes a content-free tombstone: hash, status ``erased``, no name), and
count what they removed per place, so the report can say where it cleaned.
A user's files are those a manifest ties to one of the user's memories (a
stored or merged candidate) or whose content hash a memory of the user cites.

>>> import tempfile, pathlib, json
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "processed").mkdir()
>>> _ = (d / "processed" / "a.txt").write_text("secret")
>>> stored = str(d / "processed" / "a.txt")
>>> m = {"file": {"name": "a.txt", "sha256": "ab" * 32, "stored_as": stored},
...      "candidates": [{"memory_id": "mem_1"}]}
>>> _ = (d / "processed" / "a.txt.manifest.json").write_text(json.dumps(m))
>>> files = user_files(d, memory_ids={"mem_1"}, cited_hashes=set())
>>> [f.name for f in files], erase_files(files)
(['a.txt'], (1, 1))
>>> sorted(p.name for p in (d / "processed").iterdir())
[]
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault.model.node import MemoryNode
from memvault.model.threads import thread_affixes, thread_prefix
from memvault.store.base import IngestRecord

__all__ = [
    "UserFile",
    "cited_hashes",
    "erase_files",
    "forget_checkpoint_threads",
    "log_lines_about",
    "scrub_log",
    "thread_ids_of",
    "threads_quoting",
    "tombstones",
    "user_files",
]

MANIFEST_SUFFIX = ".manifest.json"
_DOC_HASH = re.compile(r"doc:sha256:([0-9a-f]{64})")


@dataclass(frozen=True, slots=True)
class UserFile:
    """One ingested file that holds a user's data, with its manifest."""

    name: str
    sha256: str | None
    stored_as: Path | None
    manifest: Path
    status: str
    #: The memories the manifest says this file stored or merged into.
    memory_ids: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            "record": "ingest_file",
            "name": self.name,
            "sha256": self.sha256,
            "stored_as": str(self.stored_as) if self.stored_as else None,
            "manifest": str(self.manifest),
            "status": self.status,
        }


def cited_hashes(nodes: Iterable[MemoryNode]) -> set[str]:
    """Content hashes of the ingested documents these memories cite (``source_ref``)."""
    found: set[str] = set()
    for node in nodes:
        ref = node.source.source_ref or ""
        found.update(_DOC_HASH.findall(ref))
    return found


def _manifests(ingest_dir: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for folder in (ingest_dir / "processed", ingest_dir / "rejected"):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob(f"*{MANIFEST_SUFFIX}")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                yield path, data


def user_files(ingest_dir: Path, *, memory_ids: set[str], cited_hashes: set[str]) -> list[UserFile]:
    """The ingested files (and duplicates of them) that hold the user's data."""
    out = []
    for manifest, data in _manifests(ingest_dir):
        raw = data.get("file")
        info: dict[str, Any] = raw if isinstance(raw, dict) else {}
        sha = info.get("sha256") if isinstance(info.get("sha256"), str) else None
        ids = {
            c.get("memory_id")
            for c in data.get("candidates") or ()
            if isinstance(c, dict) and isinstance(c.get("memory_id"), str)
        }
        if not (ids & memory_ids or (sha is not None and sha in cited_hashes)):
            continue
        stored = info.get("stored_as")
        stored_as = Path(stored) if isinstance(stored, str) else None
        if stored_as is None or not _inside(stored_as, ingest_dir):
            stored_as = manifest.with_name(manifest.name[: -len(MANIFEST_SUFFIX)])
        out.append(
            UserFile(
                name=str(info.get("name") or stored_as.name),
                sha256=sha,
                stored_as=stored_as,
                manifest=manifest,
                status=str(data.get("status") or ""),
                memory_ids=frozenset(i for i in ids if isinstance(i, str)),
            )
        )
    return out


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def erase_files(files: Sequence[UserFile]) -> tuple[int, int]:
    """Delete each file and its manifest; ``(files removed, manifests removed)``."""
    removed = manifests = 0
    for f in files:
        if f.stored_as is not None and f.stored_as.is_file():
            _shred(f.stored_as)
            removed += 1
        if f.manifest.is_file():
            f.manifest.unlink()
            manifests += 1
    return removed, manifests


def _shred(path: Path) -> None:
    """Overwrite, then unlink (best effort: the filesystem may keep old blocks)."""
    with contextlib.suppress(OSError):
        size = path.stat().st_size
        with path.open("r+b") as fh:
            fh.write(b"\0" * size)
            fh.flush()
            os.fsync(fh.fileno())
    path.unlink(missing_ok=True)


def tombstones(hashes: Iterable[str], at: str) -> tuple[IngestRecord, ...]:
    """Content-free ``ingest_files`` rows: the hash stays (so the row is not re-read
    as a crashed ingest), the name goes, status ``erased``, no manifest.

    >>> tombstones(["ab" * 32], "2026-01-01T00:00:00.000000Z")[0].original_name
    ''
    """
    return tuple(IngestRecord(sha, "", 0, "erased", None, at, at) for sha in sorted(set(hashes)))


def _needles(user_id: str | None, words: Iterable[str]) -> list[str]:
    quoted = [json.dumps(user_id, ensure_ascii=False)] if user_id else []
    return [*quoted, *(w for w in words if w)]


def log_lines_about(
    log_path: Path, words: Iterable[str], *, user_id: str | None = None
) -> list[str]:
    """Lines of the JSON-lines log naming the user, or one of ``words`` (ids, names, hashes)."""
    needles = _needles(user_id, words)
    try:
        lines = log_path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [line for line in lines if any(n in line for n in needles)]


def scrub_log(log_path: Path, words: Iterable[str], *, user_id: str | None = None) -> int:
    """Rewrite the log without the lines :func:`log_lines_about` finds; how many went."""
    needles = _needles(user_id, words)
    try:
        lines = log_path.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        return 0
    kept = [line for line in lines if not any(n in line for n in needles)]
    if len(kept) == len(lines):
        return 0
    tmp = log_path.with_name(f".{log_path.name}.{os.getpid()}.tmp")
    tmp.write_text("".join(kept), encoding="utf-8")
    os.replace(tmp, log_path)
    return len(lines) - len(kept)


def thread_ids_of(conn: sqlite3.Connection, orchestrator: str, user_id: str) -> list[str]:
    """The agent's thread ids of (orchestrator, any channel, user) in a checkpoint database."""
    prefix, suffix = thread_affixes(orchestrator, user_id)
    rows = conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
    return sorted(
        str(r[0])
        for r in rows
        if str(r[0]).startswith(prefix) and str(r[0]).endswith(suffix) and str(r[0]).count(":") >= 2
    )


def threads_quoting(
    conn: sqlite3.Connection, orchestrator: str, needles: Iterable[str]
) -> list[str]:
    """Threads of ``orchestrator`` whose checkpoints or writes hold one of ``needles``.

    Trigger: memory is shared inside an orchestrator, so another user's thread
    may have been handed one of the erased memories (its id and its text).
    Why: that copy holds the erased user's words just the same.
    Outcome: such threads are found by the bytes of the ids and texts.
    """
    wanted = [n.encode("utf-8") for n in needles if n]
    if not wanted:
        return []
    prefix = thread_prefix(orchestrator)
    found: set[str] = set()
    queries = (
        "SELECT thread_id, checkpoint, metadata FROM checkpoints",
        "SELECT thread_id, value, NULL FROM writes",
    )
    for sql in queries:
        for thread, first, second in conn.execute(sql):
            if thread in found or not str(thread).startswith(prefix):
                continue
            blob = bytes(first or b"") + bytes(second or b"")
            if any(w in blob for w in wanted):
                found.add(str(thread))
    return sorted(found)


def forget_checkpoint_threads(
    path: Path, orchestrator: str, user_id: str, quoting: Iterable[str] = ()
) -> list[str]:
    """Delete the user's threads — and threads quoting ``quoting`` — from LangGraph's
    SQLite checkpoint file; return the ids of the threads deleted.

    Freed pages are zeroed (``secure_delete``), the file is vacuumed and its
    WAL emptied, so the messages are gone from the bytes on disk as well.
    """
    if not path.is_file():
        return []
    conn = sqlite3.connect(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "checkpoints" not in tables or "writes" not in tables:
            return []
        threads = sorted(
            set(thread_ids_of(conn, orchestrator, user_id))
            | set(threads_quoting(conn, orchestrator, quoting))
        )
        if not threads:
            return []
        conn.execute("PRAGMA secure_delete = ON")
        marks = ", ".join("?" for _ in threads)
        with conn:
            for table in ("checkpoints", "writes"):
                conn.execute(f"DELETE FROM {table} WHERE thread_id IN ({marks})", threads)
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return threads
    finally:
        conn.close()
