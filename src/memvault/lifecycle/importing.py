"""Reading back what ``export`` writes: the records of ``memvault import``.

:func:`read_export` checks a whole ``memvault.export/2`` file before anything is
written (a bad line is named and nothing is stored) and returns what to write:
the user's active memories as ``add`` fields, and the edges between them by
their exported ids. The engine writes them through the write pipeline
(:meth:`memvault.engine.MemoryEngine.import_user`): every memory is judged by
the gate again, gets a new id, and the edges are linked between the new ids.
An import is idempotent (:func:`without_held`): a memory the user already holds
is counted (``memory:already_held``), not written again, and its edges are linked
to the memory held. History, proposals, seen-marks and the copies outside the store (ingested
files, log lines, agent threads) are records of what happened, not memories:
they are counted, not replayed.

>>> lines = [
...     '{"record": "export", "format": "memvault.export/2", "user_id": "dana"}',
...     '{"record": "memory", "memory_id": "m1", "status": "active", "type": "Preference",'
...     ' "category": "PREFERENCE", "content": "Prefers tea", "ttl_class": "LONG",'
...     ' "user_id": "dana", "source": {"sourceKind": "USER_EXPLICIT"}, "edges": []}',
...     '{"record": "summary", "memories": 1}',
... ]
>>> found = read_export(lines)
>>> found.user_id, [m["content"] for m in found.memories], found.old_ids
('dana', ['Prefers tea'], ('m1',))
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError, create_model

from memvault.errors import ValidationFailed
from memvault.model.enums import MemoryStatus, StopReason
from memvault.model.jsonl import json_objects
from memvault.model.node import MemoryEdge, MemoryNode, Source
from memvault.model.text import clean_text
from memvault.model.validation import clean_user_id, to_validation_failed
from memvault.store.base import NodeFilter, Store
from memvault.write.spec import NewMemory

__all__ = [
    "IMPORT_FORMATS",
    "ExportFile",
    "ImportReport",
    "held_memories",
    "read_export",
    "without_held",
]

#: The export formats ``import`` reads (``memvault.export/2`` added the seen-marks).
IMPORT_FORMATS = frozenset({"memvault.export/1", "memvault.export/2"})

_EDGE_VALUES = ("edge_type", "weight", "reason")
#: A memory's own fields that ``add`` takes again (the rest is identity, state or time):
#: the fields ``NewMemory`` and ``MemoryNode`` share, the owner set by the import.
_NODE_FIELDS = tuple(
    f for f in NewMemory.model_fields if f in MemoryNode.model_fields and f != "user_id"
)
#: ``source`` (camelCase, as exported) → ``add``'s provenance fields of the same name.
_SOURCE_FIELDS = {
    str(info.alias or name): name
    for name, info in Source.model_fields.items()
    if name in NewMemory.model_fields and name not in _NODE_FIELDS
}
#: An exported edge's values ``link`` checks, as :class:`MemoryEdge` types them.
_EDGE_DEFINITIONS: dict[str, Any] = {
    n: (f.annotation, f) for n, f in MemoryEdge.model_fields.items() if n in _EDGE_VALUES
}
_EdgeValues: type[BaseModel] = create_model("_EdgeValues", **_EDGE_DEFINITIONS)
#: Records that say what happened to the memories; an import counts them only.
_COUNTED = frozenset(
    {"history", "proposal", "thread_mark", "ingest_file", "log", "agent_thread", "summary"}
)
#: What makes an exported memory one the user already holds (with ``key`` and
#: ``value``, matched only when the file gives them: ``add`` derives them otherwise).
_SAME = ("project_id", "agent_id", "type", "category", "content")
_SAME_WHEN_GIVEN = ("key", "value")
#: How many held memories one store call lists.
_PAGE = 5000


@dataclass(frozen=True, slots=True)
class ExportFile:
    """What an export file asks to write: active memories and the edges between them."""

    user_id: str
    memories: tuple[dict[str, Any], ...]
    old_ids: tuple[str, ...]
    #: ``(from id, to id, edge type, weight, reason)`` by exported ids, each edge once.
    edges: tuple[tuple[str, str, str, float, str | None], ...]
    #: Records not replayed, by kind (``memory:superseded`` for an inactive memory).
    skipped: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What ``import`` wrote: counts by stop reason, the id map, edges linked."""

    user_id: str
    memories: int
    stored: int
    by_stop_reason: Mapping[str, int]
    ids: Mapping[str, str]
    edges_linked: int
    edges_skipped: int
    skipped: Mapping[str, int]

    @property
    def refused(self) -> int:
        """Memories the write path did not store (the gate, validation)."""
        return self.memories - self.stored

    def to_json(self) -> dict[str, Any]:
        """Every field (mappings as dicts) and ``refused``."""
        data = {
            f.name: dict(v) if isinstance(v := getattr(self, f.name), Mapping) else v
            for f in dataclasses.fields(self)
        }
        return {**data, "refused": self.refused}


def _bad(line: int | str, problem: str) -> ValidationFailed:
    where = f"line {line}" if isinstance(line, int) else line
    return ValidationFailed(
        f"{where}: {problem}",
        stop_reason=StopReason.SCHEMA_INVALID,
        errors=((where, problem),),
        hint="give a file written by `memvault export --user …` (JSON Lines); nothing was stored",
    )


def _memory_fields(number: int, record: Mapping[str, Any], user_id: str) -> dict[str, Any]:
    """``add``'s fields of an exported memory record (owned by ``user_id``)."""
    missing = [k for k in ("memory_id", "content", "type", "category") if k not in record]
    source = record.get("source")
    if missing or not isinstance(source, Mapping) or "sourceKind" not in source:
        missing += [] if isinstance(source, Mapping) and "sourceKind" in source else ["source"]
        raise _bad(number, f"memory record without {', '.join(missing)}")
    fields = {k: record[k] for k in _NODE_FIELDS if record.get(k) is not None}
    fields.update({new: source[old] for old, new in _SOURCE_FIELDS.items() if source.get(old)})
    fields["user_id"] = user_id
    # Trigger: a value add refuses ("type": "Nonsense", a text importance).
    # Why: add_many would store the file's other memories and refuse this one,
    #      so a bad line would be half imported and not named.
    # Outcome: checked as add checks it (NewMemory) before anything is written.
    _check(number, NewMemory, fields)
    return fields


def _check(number: int, model: type[BaseModel], values: Mapping[str, Any]) -> None:
    """Raise the line's error when ``model`` refuses ``values`` (nothing written yet)."""
    try:
        model(**values)
    except ValidationError as exc:
        raise _bad(number, str(to_validation_failed(exc))) from None


def read_export(
    lines: Iterable[str], *, user_id: str | None = None, agent_id: str | None = None
) -> ExportFile:
    """Check an export file and return what to write (``user_id``: import as that user;
    ``agent_id``: written by that agent, whatever agents the file names).

    Raises :class:`~memvault.errors.ValidationFailed` (SCHEMA_INVALID) naming the
    first bad line: not JSON, no ``export`` record first, an unknown format or
    record kind, a memory of another user than the file's, a memory without its
    fields or with a value ``add`` refuses (:class:`NewMemory`), an edge value
    ``link`` refuses (its type, weight, reason as :class:`MemoryEdge` types them).
    Nothing is written before the whole file has been read. ``user_id`` is
    trimmed, and refused first when blank (``clean_user_id``).
    """
    # the caller's argument is checked before the file (a blank id is not line 2's fault)
    as_user = clean_user_id(user_id) if user_id is not None else None
    header: Mapping[str, Any] | None = None
    memories: list[dict[str, Any]] = []
    old_ids: list[str] = []
    edges: dict[str, tuple[str, str, str, float, str | None]] = {}
    skipped: Counter[str] = Counter()
    owner = ""
    try:
        for number, record in json_objects(lines):
            kind = record.get("record")
            if header is None:
                if kind != "export" or record.get("format") not in IMPORT_FORMATS:
                    raise _bad(number, "not a memvault export (its first record is the export's)")
                header = record
                exported = record.get("user_id")
                if not isinstance(exported, str) or not exported.strip():
                    raise _bad(number, "the export names no user")
                owner = as_user if as_user is not None else clean_user_id(exported)
                continue
            if kind in _COUNTED:
                skipped[str(kind)] += 1
                continue
            if kind != "memory":
                raise _bad(number, f"unknown record {kind!r}")
            if record.get("user_id") != header.get("user_id"):
                raise _bad(number, "a memory of another user than the export's")
            if record.get("status", "active") != "active":
                skipped[f"memory:{record['status']}"] += 1
                continue
            fields = _memory_fields(number, record, owner)
            memories.append(fields if agent_id is None else {**fields, "agent_id": agent_id})
            old_ids.append(str(record["memory_id"]))
            for edge in record.get("edges") or ():
                try:
                    ends = (str(edge["from_memory_id"]), str(edge["to_memory_id"]))
                    values = (str(edge["edge_type"]), float(edge.get("weight", 1.0)))
                    edges[str(edge["edge_id"])] = (*ends, *values, edge.get("reason"))
                except (KeyError, TypeError, ValueError):
                    raise _bad(number, "an edge without its ends or type") from None
                _check(
                    number,
                    _EdgeValues,
                    dict(zip(_EDGE_VALUES, edges[str(edge["edge_id"])][2:], strict=True)),
                )
    except ValueError as exc:  # json_objects: invalid JSON / not an object
        if isinstance(exc, ValidationFailed):
            raise
        raise _bad(str(exc).split(":", 1)[0], str(exc).split(": ", 1)[-1]) from None
    if header is None:
        raise _bad("the file", "is empty")
    return ExportFile(owner, tuple(memories), tuple(old_ids), tuple(edges.values()), skipped)


def _same(fields: Mapping[str, Any], names: tuple[str, ...]) -> tuple[Any, ...]:
    """``fields``' values of ``names``, text as the write path stores it (cleaned, trimmed)."""
    return tuple(
        clean_text(v).text.strip() if isinstance(v := fields.get(n), str) else v for n in names
    )


def held_memories(store: Store, orchestrator: str, user_id: str) -> Iterator[MemoryNode]:
    """The active memories of ``user_id`` (paged through the store's filtered listing)."""
    flt = NodeFilter(user_id=user_id, status=(MemoryStatus.ACTIVE,))
    offset = 0
    while True:
        page = store.list_nodes(orchestrator, flt, limit=_PAGE, offset=offset)
        yield from page
        offset += len(page)
        if len(page) < _PAGE:
            return


def without_held(
    found: ExportFile, held: Iterable[MemoryNode]
) -> tuple[ExportFile, dict[str, str]]:
    """``found`` without the memories the user already holds, and their ids by exported id.

    Trigger: ``memvault import`` run twice on one export (or a restore into the
        store it came from) wrote every memory again (review S17-R1).
    Why: an import is a copy of what the file holds; a second run, or a run
        after a partial one, must not duplicate what the first wrote.
    Outcome: a memory of the file with the content, type, category, project and
        agent (and key and value, when the file gives them) of an active memory the
        user holds is counted as ``memory:already_held`` and not written; one held
        memory answers one memory of the file, so twins the user said twice stay
        two. Its edges are linked to the held memory.

    >>> held = Source(source_type="manual", captured_by="user", source_kind="USER_EXPLICIT")
    >>> node = MemoryNode(memory_id="h1", orchestrator_id="acme", content="Prefers tea",
    ...                   type="Preference", category="PREFERENCE", key="prefers_tea",
    ...                   user_id="dana", source=held, created_at="2026-01-01T00:00:00.000000Z",
    ...                   updated_at="2026-01-01T00:00:00.000000Z")
    >>> tea = {"content": "Prefers tea", "type": "Preference", "category": "PREFERENCE"}
    >>> found = ExportFile("dana", (tea, tea), ("m1", "m2"), ())
    >>> rest, ids = without_held(found, [node])
    >>> rest.old_ids, ids, dict(rest.skipped)
    (('m2',), {'m1': 'h1'}, {'memory:already_held': 1})
    """
    by_same: dict[tuple[Any, ...], list[MemoryNode]] = {}
    for node in held:
        record = node.to_json()
        by_same.setdefault(_same(record, _SAME), []).append(node)
    memories: list[dict[str, Any]] = []
    old_ids: list[str] = []
    ids: dict[str, str] = {}
    for fields, old in zip(found.memories, found.old_ids, strict=True):
        given = _same(fields, _SAME_WHEN_GIVEN)
        candidates = by_same.get(_same(fields, _SAME), [])
        match = next(
            (
                n
                for n in candidates
                if all(
                    g is None or g == h
                    for g, h in zip(given, _same(n.to_json(), _SAME_WHEN_GIVEN), strict=True)
                )
            ),
            None,
        )
        if match is None:
            memories.append(fields)
            old_ids.append(old)
            continue
        candidates.remove(match)
        ids[old] = match.memory_id
    if not ids:
        return found, ids
    skipped = Counter(found.skipped)
    skipped["memory:already_held"] += len(ids)
    rest = dataclasses.replace(
        found, memories=tuple(memories), old_ids=tuple(old_ids), skipped=dict(skipped)
    )
    return rest, ids
