"""What every extractor takes and gives: a :class:`Message` in, :class:`Candidate` s out.

An extractor turns one inbound item (a user's transcript turn, a workflow
step's output, a diagnostics finding) into typed *candidate* memories. A
candidate is not a memory yet: the write path gates it, resolves it against
what is already stored and only then commits it (DESIGN §4).

Extractors are pure (text and metadata in, candidates out, no store access),
so the rule extractor, the optional LLM extractor and the document ingester
(issue 8) can share one resolve-and-commit step.

>>> from datetime import UTC, datetime
>>> m = Message(text="I prefer tabs", user_id="dana", speaker="Dana",
...             at=datetime(2026, 1, 15, 9, 0, tzinfo=UTC))
>>> m.subject
'Dana'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Protocol

from pydantic import BaseModel, ConfigDict, StringConstraints, field_validator

from memvault.extract.verbatim import identifiers
from memvault.model.enums import CapturedBy, MemoryType, SourceKind, SourceType, TTLClass

__all__ = [
    "MESSAGE_MAX",
    "Candidate",
    "ChangeCue",
    "ClauseTrace",
    "Extraction",
    "Extractor",
    "Message",
    "Role",
]

#: Longest transcript turn an extractor looks at (longer turns are cut, never stored).
MESSAGE_MAX = 20_000

_Id = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class Role(StrEnum):
    """Who produced a transcript turn. Only ``user`` turns are write triggers (INV-4)."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


class Message(BaseModel):
    """One inbound transcript turn (pydantic at the edge).

    ``speaker`` is the display name used instead of pronouns in extracted
    statements; it defaults to ``user_id``, then to "The user". ``at`` is the
    moment relative dates ("yesterday", "next Friday") are resolved against;
    naive datetimes are rejected so a resolved date never depends on the host.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: Annotated[str, StringConstraints(max_length=MESSAGE_MAX)]
    user_id: _Id | None = None
    role: Role = Role.USER
    speaker: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    conversation_id: _Id | None = None
    channel: _Id | None = None
    at: datetime | None = None

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("at must carry a timezone (e.g. 2026-01-15T09:00:00Z)")
        return value

    @property
    def subject(self) -> str:
        """The name statements are written about."""
        name = (self.speaker or self.user_id or "").strip()
        if not name:
            return "The user"
        if identifiers(name):
            # "dana@example.com", "user-7f3a9c", "acct_12ab": an id, kept byte for byte
            # (review S13-R12: "Dana@example.com prefers …"); a name is capitalised
            return name
        return name[:1].upper() + name[1:]


class ChangeCue(StrEnum):
    """What the statement says about an earlier value of the same key.

    ``assert``: a plain statement; ``update``: an explicit change ("moved to",
    "now prefers", "no longer"); ``done``: a todo reported finished.
    """

    ASSERT = "assert"
    UPDATE = "update"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One typed statement proposed for memory.

    ``key`` names the slot the statement fills (``dana.home_city``,
    ``dana.likes.coffee``); two statements with the same key are about the
    same thing. ``exclusive`` slots hold one value at a time (a home city, a
    team size), so a different value is an update or a contradiction, never a
    second fact. ``negated`` marks a negative statement ("does not drink
    coffee"). ``rule`` names the rule (or extractor) that produced it.
    ``said`` is the clause as the user said it: the gate judges it too (a
    third-person rewrite must not hide "I'm allergic to …" from a detector),
    and it is never stored. ``sensitive`` names the forbidden family when the
    slot itself is one ("my religion is …", :mod:`memvault.extract.sensitive`):
    capture refuses such a candidate whatever its value. ``sensitive_in`` says
    where it was found: ``slot`` (the slot noun) or ``words`` (the words of the
    clause the candidate came from, whatever rule read it). ``repeat``: the clause
    said it repeats something ("like I said, …"); resolve merges it with the
    closest memory of its type on the same topic.
    """

    content: str
    type: MemoryType
    category: str
    key: str
    value: str
    subject: str = ""
    negated: bool = False
    exclusive: bool = False
    cue: ChangeCue = ChangeCue.ASSERT
    previous_value: str = ""
    importance: int = 50
    confidence: float = 0.9
    ttl_class: TTLClass = TTLClass.LONG
    source_kind: SourceKind = SourceKind.USER_EXPLICIT
    source_type: SourceType = SourceType.CHANNEL_TRANSCRIPT
    captured_by: CapturedBy = CapturedBy.EXTRACTOR
    rule: str = ""
    said: str = ""
    sensitive: str = ""
    sensitive_in: str = "slot"
    #: the clause says it repeats something said before ("as I mentioned, …")
    repeat: bool = False


@dataclass(frozen=True, slots=True)
class ClauseTrace:
    """What the extractor decided about one clause (``bench extraction --trace``).

    ``said`` is the clause as split from the turn, ``text`` what the rules and
    the reader read; ``reading``/``sentence`` are the reader's ``label:score``
    for the clause and (when it shares its sentence) the whole sentence;
    ``decision`` names what happened (``rule:<name>``, ``reader.<label>``,
    ``silent:<why>``, ``dropped:<problems>``, ``none``) and ``content`` the
    candidate it became, if any. Never stored.
    """

    sentence: str
    said: str
    text: str
    reading: str
    sentence_reading: str
    decision: str
    content: str = ""

    def to_json(self) -> dict[str, str]:
        return {
            "sentence": self.sentence,
            "said": self.said,
            "text": self.text,
            "reading": self.reading,
            "sentence_reading": self.sentence_reading,
            "decision": self.decision,
            "content": self.content,
        }


@dataclass(frozen=True, slots=True)
class Extraction:
    """An extractor's answer: candidates, plus what went wrong on the way.

    ``errors`` name rules or backends that failed; a failure never removes the
    candidates other rules produced. ``trace``: one :class:`ClauseTrace` per
    clause the extractor read (the rule extractor fills it; others may not).
    """

    candidates: tuple[Candidate, ...] = ()
    errors: tuple[str, ...] = ()
    extractor: str = "rules"
    skipped: str = ""
    dropped: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    trace: tuple[ClauseTrace, ...] = field(default_factory=tuple)


class Extractor(Protocol):
    """The one-method interface every transcript extractor implements."""

    @property
    def name(self) -> str:
        """Short name reported in every :class:`Extraction` (``rules``, ``llm``)."""
        ...

    def extract(self, message: Message, *, now: datetime) -> Extraction:
        """Candidates from ``message``; ``now`` is used when the message has no ``at``."""
        ...
