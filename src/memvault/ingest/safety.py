"""Finding files in the drop folder and reading them without trusting them.

Every check here happens on ``lstat`` data or an ``O_NOFOLLOW`` descriptor,
before a byte of content is read:

* ``..`` in a name, symlinks, directories, device files, FIFOs, sockets and
  files with more than one hard link (the other link may live outside the
  root) are ``UNSAFE_PATH``;
* a suffix other than ``.txt``/``.md``/``.json`` is ``UNSUPPORTED_TYPE``;
* a size above the limit is ``TOO_LARGE`` (a 1 GB sparse file is refused on
  its ``st_size`` alone); a size of zero is ``EMPTY``;
* a file whose size or mtime changed between discovery and reading is still
  being written: it is left for the next pass.

Names starting with ``.`` (editor swap files, partial uploads, our own lock
and temporary files) are ignored.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "a.md").write_text("# hi")
>>> [e.name for e in discover(root)]
['a.md']
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memvault.ingest.model import Rejection, RejectReason
from memvault.ingest.parsers import PARSERS

__all__ = ["Entry", "ReadResult", "discover", "pass_lock", "precheck", "read_stable"]

#: Folders inside the drop folder that belong to the pipeline.
RESERVED = frozenset({"processed", "rejected"})


@dataclass(frozen=True, slots=True)
class Entry:
    """A directory entry seen at discovery: its name and ``lstat`` snapshot."""

    path: Path
    name: str
    st: os.stat_result

    @property
    def signature(self) -> tuple[int, int, int, int]:
        return (self.st.st_dev, self.st.st_ino, self.st.st_size, self.st.st_mtime_ns)


@dataclass(frozen=True, slots=True)
class ReadResult:
    """The bytes of a stable file, ``changed`` when it moved under us, or an ``error``."""

    data: bytes
    changed: bool = False
    error: str | None = None


def discover(root: Path) -> list[Entry]:
    """Entries of ``root`` to consider, oldest first (ties by name)."""
    entries: list[Entry] = []
    try:
        with os.scandir(root) as it:
            for item in it:
                name = item.name
                if ".." not in name and (name.startswith(".") or name in RESERVED):
                    continue
                try:
                    st = os.lstat(item.path)
                except FileNotFoundError:
                    continue
                entries.append(Entry(Path(item.path), name, st))
    except FileNotFoundError:
        return []
    entries.sort(key=lambda e: (e.st.st_mtime_ns, e.name))
    return entries


def _unsafe(message: str, kind: str) -> Rejection:
    return Rejection(RejectReason.UNSAFE_PATH, message, detail={"kind": kind})


def precheck(entry: Entry, max_bytes: int) -> Rejection | None:
    """The first reason to reject ``entry`` without reading it, or ``None``."""
    mode = entry.st.st_mode
    # Trigger: anything that is not a plain, singly-linked regular file.
    # Why: following a link or reading a device could reach outside the root
    #      or block forever; a second hard link may be a file elsewhere.
    # Outcome: UNSAFE_PATH, decided on lstat data alone.
    if ".." in entry.name:
        return _unsafe("'..' in the file name", "dotdot")
    if stat.S_ISLNK(mode):
        return _unsafe("symbolic links are not followed", "symlink")
    if stat.S_ISDIR(mode):
        return _unsafe("directories are not ingested", "directory")
    if not stat.S_ISREG(mode):
        return _unsafe("not a regular file (device, FIFO or socket)", "special")
    if entry.st.st_nlink > 1:
        return _unsafe(f"file has {entry.st.st_nlink} hard links", "hardlink")
    suffix = os.path.splitext(entry.name)[1].lower()
    if suffix not in PARSERS:
        return Rejection(
            RejectReason.UNSUPPORTED_TYPE,
            f"unsupported file type {suffix or '(none)'!r}; supported: .txt, .md, .json",
            detail={"suffix": suffix[:16]},
        )
    if entry.st.st_size > max_bytes:
        return Rejection(
            RejectReason.TOO_LARGE,
            f"{entry.st.st_size} bytes is over the limit of {max_bytes}",
            detail={"size_bytes": entry.st.st_size, "max_bytes": max_bytes},
        )
    if entry.st.st_size == 0:
        return Rejection(RejectReason.EMPTY, "the file is empty")
    return None


def still(entry: Entry) -> bool:
    """True when a fresh ``lstat`` matches the discovery snapshot."""
    try:
        now = os.lstat(entry.path)
    except FileNotFoundError:
        return False
    return (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) == entry.signature


def read_stable(entry: Entry, max_bytes: int) -> ReadResult:
    """Read ``entry`` through ``O_NOFOLLOW``; ``changed`` if it is not what we saw."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(entry.path, flags)
    except FileNotFoundError:
        return ReadResult(b"", changed=True)
    except OSError as exc:  # permission denied, I/O error: a reason, not a retry
        return ReadResult(b"", error=f"{type(exc).__name__}: {exc.strerror or exc}")
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) != entry.signature:
            return ReadResult(b"", changed=True)
        chunks: list[bytes] = []
        remaining = min(st.st_size, max_bytes) + 1
        while remaining > 0:
            block = os.read(fd, min(remaining, 1 << 20))
            if not block:
                break
            chunks.append(block)
            remaining -= len(block)
        data = b"".join(chunks)
        if len(data) != st.st_size:
            return ReadResult(b"", changed=True)
        return ReadResult(data)
    finally:
        os.close(fd)


@contextlib.contextmanager
def pass_lock(path: Path) -> Iterator[None]:
    """One pass at a time per drop folder (a watcher and a ``--once`` may overlap)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
