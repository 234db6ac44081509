"""What a turn's register wraps around what the user said.

Users paste more than chat: an e-mail with its subject line, a diary or
calendar entry, a voice memo's transcript with its "um"s, a YAML, CSV or SQL
record. The rules and the reader were built on chat; the register's own words
("Subject: Re:", "Dear diary, Sunday.", "Calendar:", "Nota de voz: eh,") read
like statements of their own, and a record's lines read like nothing at all.
:func:`read_register` takes the turn apart before anything is read:

- ``heading`` — an e-mail's subject line (without "Subject:", "Re:", "Fwd:"):
  read only when the body keeps nothing (the body says the thing, the subject
  names it);
- ``body`` — the rest, without the register's labels and a voice memo's
  fillers, in the user's words otherwise;
- ``records`` — each YAML / ``key: value`` block, CSV table or SQL ``INSERT``,
  as named fields: the extractor keeps a record as one statement holding its
  fields byte for byte (the gate judges it like any other).

>>> r = read_register("Subject: Re: tooling\\n\\nWe standardised on pnpm. Yarn is gone.")
>>> r.heading, r.body
('tooling', 'We standardised on pnpm. Yarn is gone.')
>>> read_register("Nota de voz: eh, bueno, mi equipo usa Terraform, eh, para todo.").body
'mi equipo usa Terraform, para todo.'
>>> read_register("Dear diary, Sunday. Took the kids climbing.").body
'Took the kids climbing.'
>>> rec = read_register("my setup:\\ntool,version\\nterraform,1.9.5").records[0]
>>> rec.name, rec.fields
('setup', (('tool', 'terraform'), ('version', '1.9.5')))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from memvault.extract import when
from memvault.extract.base import Candidate
from memvault.extract.clause import Clause, candidate
from memvault.extract.constraints import check_statement
from memvault.extract.gloss import HABIT_GLOSS, glosses
from memvault.extract.reader import Reading
from memvault.extract.reading import retype
from memvault.extract.sensitive import sensitive_slot
from memvault.extract.text import slug
from memvault.extract.verbatim import protect
from memvault.model.enums import MemoryType

__all__ = [
    "Record",
    "Register",
    "calendar_entry",
    "read_register",
    "record_candidates",
    "record_text",
]


@dataclass(frozen=True, slots=True)
class Record:
    """One pasted record: its name (a file or table name, or the line that
    introduced it) and its fields in order, values byte for byte."""

    name: str
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Register:
    """A turn taken apart (see the module docstring)."""

    body: str
    heading: str = ""
    records: tuple[Record, ...] = ()
    #: what the label said the text is: "calendar", "diary", "voice" (or "")
    kind: str = ""


_SUBJECT = re.compile(
    r"^\s*(?:subject|subj|betreff|assunto|asunto|objet|oggetto|onderwerp|temat|konu|тема|件名"
    r"|主题|主旨|ämne|emne|aihe)\s*[:：]\s*"
    r"(?:(?:re|fwd?|aw|wg|tr|rv|res|enc|odp|ynt|sv|vs|vl|antw)\s*[:：]\s*)*",
    re.I,
)
# A label that says what the text is, not what it says: "Calendar:", "Voice memo:",
# "Dear diary," — in the languages the reader reads.
_VOICE = (
    r"voice[ -]?(?:memo|note|message)(?: transcript(?:ion)?)?|transcript|dictated"
    r"|nota de voz|mensaje de voz|audio|memo vocale|nota vocale|messaggio vocale|mémo vocal"
    r"|note vocale|message vocal|sprachnotiz|sprachmemo|sprachnachricht|mensagem de voz"
    r"|áudio|spraakmemo|spraakbericht|notatka głosowa|wiadomość głosowa|sesli not"
    r"|sesli mesaj|голосовая заметка|голосовое(?: сообщение)?|ボイスメモ|音声メモ|语音备忘录?"
    r"|语音留言|语音"
)
_CALENDAR = (
    r"(?:calendar|cal|agenda|kalender|calendario|promemoria calendario|calendrier|kalendarz"
    r"|takvim|календарь|カレンダー|日历)(?: (?:entry|event|invite|note|reminder|item|eintrag"
    r"|evento|entrada|événement|wpis|kaydı))?|kalendereintrag|termin|evento|rendez-vous|rdv"
    r"|予定|日程"
)
_DIARY = (
    r"dear diary|diary(?: entry)?|journal(?: entry| intime)?|cher journal|liebes tagebuch"
    r"|tagebuch(?:eintrag)?|querido diario|diario|caro diario|dagboek|lief dagboek"
    r"|drogi pamiętniku|pamiętnik|sevgili günlük|günlük|дорогой дневник|дневник|日記|日记"
    r"|memo|メモ|备忘"
)
_LABEL = re.compile(
    rf"^\s*(?:(?P<voice>{_VOICE})|(?P<cal>{_CALENDAR})|(?P<diary>{_DIARY}))\s*[:：,—–-]+\s*",
    re.I,
)
# A diary's date after its label: "Sunday.", "3. November.", "mardi :", "Wed:", "12/03 -".
_DAY = (
    r"(?:mon|tue|wed|thu|fri|sat|sun|lun|mar|mer|jeu|ven|sam|dim|mié|jue|vie|sáb|dom|montag"
    r"|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|seg|ter|qua|qui|sex|gio|maandag"
    r"|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag|pon|wto|śro|czw|pią|sob|nie|pazar"
    r"|salı|çarşamba|perşembe|cuma|cumartesi|понедельник|вторник|среда|четверг|пятница|суббота"
    r"|воскресенье)[\w]*"
)
_DIARY_DATE = re.compile(
    rf"^(?:[^\W\d_]{{2,9}}[ ,]+){{0,2}}(?:{_DAY}|\d{{1,4}}(?:[./-]\d{{1,4}}){{0,2}}\.?)"
    r"(?:[ ,]+(?:[^\W\d_]{2,12}|\d{1,4}\.?)){0,2}[ ,]*[.:—–-]\s+(?=\S)",
    re.I,
)
# A voice memo's disfluencies ("um,", "uh…", "eh...", "ähm,", only as words of their
# own) and the openers a dictated note starts with ("okay so", "a ver,", "allora,").
_UM = r"u+m+|u+h+m*|e+r+m+|e+h+m*|ä+h+m*|e+u+h+|h+m{2,}|えーと|えっと|あの|嗯"
_OPENERS = (
    r"okay|ok|so|right|well|yeah|alright|a ver|bueno|pues|vale|allora|dunque|alors|bon|bref"
    r"|also|na ja|nou|goed|więc|no więc|yani|şey|ну|так|então|bom|olha|para que conste"
    r"|for the record"
)
_DISFLUENCY = re.compile(rf"(?:(?<=^)|(?<=[\s,]))(?:{_UM})(?:[,.…]+\s*|\s*(?=,))", re.I)
_SPOKEN_OPENER = re.compile(rf"^(?:(?:{_OPENERS})[\s,.:…]+)+", re.I)
_KEY_VALUE = re.compile(
    r"^(?P<indent>\s*)(?:-\s+)?(?P<k>[A-Za-z_][\w .-]{0,30}?)\s*:(?:\s+(?P<v>\S.*?))?\s*$"
)
_INSERT = re.compile(
    r"\binsert\s+into\s+(?P<table>[\w.\"`]+)\s*\((?P<cols>[^)]*)\)\s*"
    r"values\s*\((?P<vals>[^;]*?)\)\s*;?",
    re.I,
)
_CELL = re.compile(r"^[\w .+/@-]{1,40}$")


def _sql_values(raw: str) -> list[str]:
    """The values of an ``INSERT``'s tuple, quotes off ("'a, b'" is one value)."""
    out: list[str] = []
    for found in re.finditer(r"\s*('(?:[^']|'')*'|\"[^\"]*\"|[^,]+)\s*(?:,|$)", raw):
        value = found.group(1).strip()
        if value[:1] in "'\"" and value[-1:] == value[:1] and len(value) > 1:
            value = value[1:-1].replace("''", "'")
        out.append(value)
    return out


def _name(intro: str) -> str:
    """What a record's introducing line calls it: a file name, else its last words."""
    spans = [s for s in protect(intro)[1] if "." in s or "_" in s]
    if spans:
        return spans[0].strip("`'\"")
    words = re.sub(
        r"(?i)\b(?:here(?:'s| is| are)|this is|as (?:a )?(?:csv|yaml|sql|table)|for you"
        r"|again|my|our|the|a)\b",
        " ",
        intro,
    ).split()
    return " ".join(words[-3:]).strip(" :,.") if words else ""


def _csv(lines: list[str]) -> list[tuple[str, str]] | None:
    """A CSV table (a header and rows of as many cells), as ``(column, value)`` pairs."""
    if len(lines) < 2 or "," not in lines[0]:
        return None
    header = [c.strip() for c in lines[0].split(",")]
    if not all(re.match(r"^[A-Za-z_][\w .-]{0,30}$", c) for c in header):
        return None
    fields: list[tuple[str, str]] = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(header) or not all(_CELL.match(c) for c in cells if c):
            return None
        fields += [(h, c) for h, c in zip(header, cells, strict=True) if c]
    return fields


def _key_values(
    lines: list[str], found: list[re.Match[str] | None], i: int
) -> tuple[int, list[tuple[str, str]]]:
    """The block of `key: value` lines from ``i``: where it ends, and its fields.

    A parent key without a value nests the next ones.
    """
    j, fields, parent = i, [], ""
    while j < len(lines) and (match := found[j]):
        key, value = match["k"].strip(), (match["v"] or "").strip()
        if not value and (" " in key or (j == i and not _opens(lines, j, match))):
            break  # "profile.yaml for you:", "config:" introduce the record
        if not value:
            parent = key
        else:
            nested = parent and match["indent"]
            fields.append((f"{parent}.{key}" if nested else key, value))
            parent = parent if nested else ""
        j += 1
    return j, fields


def _opens(lines: list[str], j: int, match: re.Match[str]) -> bool:
    """The line after ``j`` is indented deeper than line ``j`` (a parent key opens)."""
    following = lines[j + 1] if j + 1 < len(lines) else ""
    return len(following) - len(following.lstrip()) > len(match["indent"])


@dataclass(frozen=True, slots=True)
class _Starts:
    """Per line, what a record starting there would span (one backward pass).

    Trigger: ``_records`` asks at every line whether a record starts there.
    Why: it walked the rest of the block or run each time — a run of comma lines
      that is no table ("a,b" then 4,000 lines "x!,y") or of `key:` lines without
      values ("a:" / "  b:" repeated) cost O(lines²) in one turn (review R6b).
    Outcome: each line is matched once; a record can start at ``i`` only when
      what it spans holds two fields (key-value) or valid rows with a value (CSV);
      ``_key_values`` and ``_csv`` still build it, once, as before.
    """

    found: list[re.Match[str] | None]
    block_end: list[int]  # where a key-value block from the line ends
    valued: list[int]  # key-value lines with a value before the line (prefix counts)
    run_end: list[int]  # where the line's run of lines with as many commas ends
    bad_from: list[int]  # the first line from here that is no CSV row
    filled_from: list[int]  # the first line from here with a non-empty cell

    @classmethod
    def of(cls, lines: list[str]) -> _Starts:
        n = len(lines)
        found = [_KEY_VALUE.match(line) for line in lines]
        has = [m is not None and bool((m["v"] or "").strip()) for m in found]
        valued = [0] * (n + 1)
        for k in range(n):
            valued[k + 1] = valued[k] + has[k]
        counts = [line.count(",") for line in lines]
        block_end, run_end = [0] * n, [0] * n
        stop_from, bad_from, filled_from = [n] * (n + 1), [n] * (n + 1), [n] * (n + 1)
        for k in range(n - 1, -1, -1):
            m = found[k]
            spaced = m is not None and " " in m["k"].strip()
            stop_from[k] = k if m is None or (not has[k] and spaced) else stop_from[k + 1]
            first_breaks = m is None or (not has[k] and (spaced or not _opens(lines, k, m)))
            block_end[k] = k if first_breaks else stop_from[k + 1]
            same = counts[k] > 0 and k + 1 < n and counts[k + 1] == counts[k]
            run_end[k] = run_end[k + 1] if same else (k + 1 if counts[k] > 0 else k)
            cells = [c.strip() for c in lines[k].split(",")]
            row = all(_CELL.match(c) for c in cells if c)
            bad_from[k] = bad_from[k + 1] if row else k
            filled_from[k] = k if any(cells) else filled_from[k + 1]
        return cls(found, block_end, valued, run_end, bad_from, filled_from)

    def block(self, i: int) -> bool:
        """A key-value record may start at ``i`` (two lines, two fields)."""
        j = self.block_end[i]
        return j - i >= 2 and self.valued[j] - self.valued[i] >= 2

    def table(self, i: int) -> bool:
        """A CSV table may start at ``i`` (its rows valid, one with a value)."""
        j = self.run_end[i]
        return j - i >= 2 and self.bad_from[i + 1] >= j and self.filled_from[i + 1] < j


def _records(lines: list[str]) -> tuple[list[str], list[Record]]:
    """The lines that are not records, and the records (with the line introducing each)."""
    rest: list[str] = []
    records: list[Record] = []
    starts = _Starts.of(lines)
    i = 0
    while i < len(lines):
        if starts.block(i):
            j, fields = _key_values(lines, starts.found, i)
            intro = rest.pop() if rest and rest[-1].rstrip().endswith(":") else ""
            records.append(Record(_name(intro), tuple(fields)))
            i = j
            continue
        # a CSV table: the longest run of lines with as many commas as its header
        j = starts.run_end[i]
        table = _csv([ln.strip() for ln in lines[i:j]]) if starts.table(i) else None
        if table:
            intro = rest.pop() if rest and rest[-1].rstrip().endswith(":") else ""
            records.append(Record(_name(intro) or "table", tuple(table)))
            i = j
            continue
        rest.append(lines[i])
        i += 1
    return rest, records


def _inserts(text: str) -> tuple[str, list[Record]]:
    """SQL ``INSERT`` statements out of ``text``, as records of column: value."""
    records: list[Record] = []

    def take(found: re.Match[str]) -> str:
        cols = [c.strip(' "`') for c in found["cols"].split(",")]
        vals = _sql_values(found["vals"])
        if len(cols) != len(vals):
            return found.group(0)
        fields = tuple((c, v) for c, v in zip(cols, vals, strict=True) if v and v.upper() != "NULL")
        records.append(Record(found["table"].strip('"`'), fields))
        return " "

    return _INSERT.sub(take, text), records


def read_register(text: str) -> Register:
    """``text`` taken apart into its heading, body and records (see the module docstring)."""
    heading = ""
    subject = _SUBJECT.match(text)
    if subject:
        first, _, rest = text[subject.end() :].partition("\n")
        heading, text = first.strip(), rest.strip()
    text, records = _inserts(text)
    lines, blocks = _records(text.split("\n"))
    records += blocks
    body = "\n".join(lines).strip()
    label = _LABEL.match(body)
    if label:
        body = body[label.end() :]
        if label["diary"]:
            body = _DIARY_DATE.sub("", body, count=1)
    spoken = bool(label and label["voice"]) or bool(_DISFLUENCY.search(body))
    if spoken:
        body = _DISFLUENCY.sub("", body)
        body = _SPOKEN_OPENER.sub("", body.lstrip(" ,.…"))
    body = re.sub(r"[ \t]{2,}", " ", body).strip()
    if not body and not records:
        body, heading = heading, ""
    kind = next((k for k in ("voice", "cal", "diary") if label and label[k]), "")
    return Register(body, heading, tuple(records), {"cal": "calendar"}.get(kind, kind))


_PREFERENCE_WORDS = re.compile(
    r"pref|favou?rite|likes?\b|repl(?:y|ies)|answers?|tone|style|format", re.I
)


def record_text(record: Record, *, limit: int = 270) -> tuple[str, bool]:
    """A record as one statement's text (fields byte for byte, as many as fit in
    ``limit``) and whether it states preferences (its name or a key says so).

    >>> record_text(Record("user_prefs", (("pref", "editor"), ("value", "neovim"))))
    ('user_prefs: pref: editor; value: neovim', True)
    """
    out = f"{record.name}:" if record.name else ""
    for key, value in record.fields:
        part = f"{key}: {value}"
        joined = f"{out} {part}" if out.endswith(":") else f"{out}; {part}" if out else part
        if len(joined) > limit:
            break
        out = joined
    said = " ".join([record.name, *(k for k, _ in record.fields)])
    return out, _PREFERENCE_WORDS.search(said) is not None


#: Field names that make a record what they say, whatever their value.
_FIELD_FAMILIES = (
    (
        "health",
        r"condition|diagnos\w*|illness|medication|medicine|allerg\w*|disabilit\w*|krankheit"
        r"|enfermedad|maladie|malattia|doença|ziekte|choroba",
    ),
    (
        "identity_trait",
        r"union(?:_member)?|sindacato|syndicat|gewerkschaft|vakbond|religion|religi[oó]n|ethnicity"
        r"|etnia|herkunft|orientation|party|partei|partido|caste",
    ),
    ("criminal", r"protective[ _]order|restraining[ _]order|convictions?|offen[cs]es?|arrests?"),
)
_FIELD_PATTERNS = tuple(
    (family, re.compile(rf"(?<![^\W\d_])(?:{words})(?![^\W\d_])", re.I))
    for family, words in _FIELD_FAMILIES
)


def sensitive_field(name: str) -> str | None:
    """The forbidden family a record's field name names (its value does not matter).

    >>> sensitive_field("union_member"), sensitive_field("condition"), sensitive_field("tool")
    ('identity_trait', 'health', None)
    """
    return sensitive_slot(name) or next(
        (family for family, pattern in _FIELD_PATTERNS if pattern.search(name)), None
    )


def record_candidates(
    records: Sequence[Record], subject: str, today: date, dropped: list[tuple[str, str]]
) -> list[Candidate]:
    """One candidate per pasted record: "Olu's profile.yaml: name: Olu; role: SRE lead."

    Its fields stay byte for byte (no pronoun or date rewriting: a record is
    written for a machine); a Preference when the record says so (a ``prefs``
    table, a ``replies`` key), else a Fact. A statement that fails the
    writing constraints is added to ``dropped``, never kept.

    >>> [c.content for c in record_candidates(
    ...     [Record("setup", (("tool", "terraform"), ("version", "1.9.5")))], "Olu",
    ...     date(2026, 11, 2), [])]
    ["Olu's setup: tool: terraform; version: 1.9.5."]
    """
    out: list[Candidate] = []
    for record in records:
        text, taste = record_text(record if record.name else Record("record", record.fields))
        if not record.fields:
            continue
        content = f"{subject}'s {text}" + ("" if text.endswith((".", "!", "?")) else ".")
        problems = [p for p in check_statement(content) if p != "first_or_second_person"]
        if problems:
            dropped.append((content[:280], ",".join(problems)))
            continue
        clause = Clause(text, subject, today, said=text)
        type_, category = (
            (MemoryType.PREFERENCE, "PREFERENCE") if taste else (MemoryType.FACT, "KNOWLEDGE")
        )
        key = f"record.{slug(record.name or record.fields[0][0])}"
        # "condition: COPD", "union_member: true", "sindacato: UIL": a field whose
        # name is a forbidden slot makes the record what the slot says, whatever its value
        slot = next(
            (f for f in (sensitive_field(k) for k, _ in record.fields) if f),
            "",
        )
        extra = {"sensitive": slot, "sensitive_in": "slot"} if slot else {}
        out.append(candidate(clause, "record", content, type_, category, key, text, **extra))
    return out


#: What a calendar entry is retyped as: an event on a named date, a fact when it recurs.
_AS_EVENT = Reading("event", 1.0, (("event", 1.0),))
_AS_FACT = Reading("fact", 1.0, (("fact", 1.0),))


def calendar_entry(cand: Candidate, why: str, raw: str) -> tuple[Candidate | None, str]:
    """A calendar entry no rule read, typed by what a calendar says of it.

    A recurring entry ("every Monday 09:00 standup") is a standing fact; an entry on a
    named date ("quarterly planning in Berlin, 4-6 December") is an event; one on a
    weekday and an hour only ("Thu 14:00 dentist") is this week's logistics.
    """
    if not cand.rule.startswith("reader."):
        return cand, why
    if when.RECURRING.search(raw) or when.HABITUAL.search(raw) or HABIT_GLOSS in glosses(raw):
        if cand.type in (MemoryType.PREFERENCE, MemoryType.EVENT):
            return retype(cand, _AS_FACT), why + " (a recurring calendar entry)"
        return cand, why
    if when.CALENDAR_DATE.search(raw):
        return retype(cand, _AS_EVENT), why + " (a dated calendar entry)"
    return None, f"silent:calendar logistics ({why})"
