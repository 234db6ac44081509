"""Manifests and moves: the two file-system effects of ingesting a file.

Order matters for crash safety. The manifest is written first (to a hidden
temporary file, fsynced, then renamed into place), the source file is moved
second. A crash between the two leaves the source in ``ingest/`` and a
manifest that the rerun overwrites at the same path, because a destination
name is "taken" only when the *file* (not its manifest) is there.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.md").write_text("x")
>>> free_destination(d, "a.md").name
'a-1.md'
>>> manifest_path(d / "a-1.md").name
'a-1.md.manifest.json'
"""

from __future__ import annotations

import json
import os
from collections.abc import Container, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memvault.ingest.commit import FilePlan
    from memvault.ingest.judge import Judged

__all__ = [
    "MANIFEST_SUFFIX",
    "MANIFEST_VERSION",
    "candidate_entries",
    "clean_temporaries",
    "free_destination",
    "manifest_path",
    "move",
    "refusal_entries",
    "write_manifest",
]

MANIFEST_SUFFIX = ".manifest.json"
MANIFEST_VERSION = 1
_TMP_SUFFIX = ".tmp"


def manifest_path(destination: Path) -> Path:
    """``<name>.manifest.json`` beside the moved file."""
    return destination.with_name(destination.name + MANIFEST_SUFFIX)


def free_destination(directory: Path, name: str, taken: Container[Path] = ()) -> Path:
    """``directory/name``, or ``stem-N.suffix`` for the first N not taken by a file.

    ``taken``: destinations promised to files not moved yet (a window's files move
    after their one commit).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> free_destination(d, "a.txt").name, free_destination(d, "a.txt", {d / "a.txt"}).name
    ('a.txt', 'a-1.txt')
    """

    def free(candidate: Path) -> bool:
        return candidate not in taken and not os.path.lexists(candidate)

    candidate = directory / name
    if free(candidate):
        return candidate
    stem, dot, suffix = name.rpartition(".")
    if not stem:  # no suffix (or a leading dot only)
        stem, dot, suffix = name, "", ""
    n = 1
    while True:
        candidate = directory / f"{stem}-{n}{dot}{suffix}"
        if free(candidate):
            return candidate
        n += 1


def write_manifest(path: Path, data: Mapping[str, Any], *, durable: bool = False) -> None:
    """Atomically write ``data`` as pretty JSON at ``path`` (tmp, rename).

    Trigger: ``durable`` — also fsync before the rename.
    Why: a killed process cannot leave a torn manifest either way (the rename
    is atomic and the page cache survives the process); only a power cut can,
    and an fsync per file costs about as much as the database commit itself.
    Outcome: off by default; the database (synchronous=FULL) stays the durable
    record, and a manifest is a view a rerun can rebuild while its file waits.
    """
    tmp = path.with_name(f".{path.name}{_TMP_SUFFIX}")
    payload = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(payload.encode("utf-8"))
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def move(source: Path, destination: Path) -> None:
    """Rename ``source`` to ``destination`` (same file system; links are not followed)."""
    os.rename(source, destination)


def clean_temporaries(directories: Iterable[Path]) -> int:
    """Remove manifest temporaries a crash left behind; return how many."""
    removed = 0
    for directory in directories:
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            continue
        for name in names:
            if name.startswith(".") and name.endswith(MANIFEST_SUFFIX + _TMP_SUFFIX):
                try:
                    os.unlink(directory / name)
                    removed += 1
                except FileNotFoundError:
                    pass
    return removed


def refusal_entries(judged: Judged) -> tuple[dict[str, Any], ...]:
    """The manifest's ``refused`` list: where, why and which fields — never the text."""
    return tuple(
        {
            "chunk_id": c.chunk_id,
            "line": c.line,
            "ref": c.ref,
            "stop_reason": d.stop_reason.value,
            "detector": d.detector,
            "fields": list(fields),
        }
        for c, d, fields in judged.refused
    )


def candidate_entries(plan: FilePlan) -> list[dict[str, Any]]:
    """The manifest's accepted ``candidates``: stored as a new memory, or merged."""
    stored = [
        {
            "chunk_id": c.chunk_id,
            "line": c.line,
            "ref": c.ref,
            "memory_id": n.memory_id,
            "outcome": "stored",
            "type": n.type.value,
            "category": n.category,
            "stop_reason": d.stop_reason.value,
            "detector": d.detector,
        }
        for c, n, d in plan.created
    ]
    merged = [
        {
            "chunk_id": c.chunk_id,
            "line": c.line,
            "ref": c.ref,
            "memory_id": target,
            "outcome": "merged",
            "merge_reason": why,
            "type": n.type.value,
            "category": n.category,
            "stop_reason": "SUCCESS_UPDATED",
            "detector": "resolve",
        }
        for c, n, _, target, why in plan.merged
    ]
    return stored + merged
