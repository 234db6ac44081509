"""Parse a workflow step's output into Decision / Todo / Goal candidates.

Two shapes are understood:

- structured JSON: ``{"decisions": [...], "todos": [...], "goals": [...],
  "done": [...]}`` where an item is a string or an object with ``text`` (or
  ``title``/``description``) and optional ``done``/``status``;
- markdown: ``Decision: …``, ``TODO: …``, ``Goal: …`` lines, ``- [ ] …`` open
  and ``- [x] …`` finished checklist items, and bullets under ``## Decisions``,
  ``## TODO``/``## Next steps``, ``## Goals`` headings.

Candidates are SYSTEM_KNOWN, ``source_type`` workflow_output, captured by the
system; a finished item carries the ``done`` cue and the same key as the open
todo, so the resolver closes it (``Updates`` edge, old todo superseded).

>>> x = parse_workflow_output("Decision: use PostgreSQL\\n- [ ] write the migration")
>>> [(c.type.value, c.content) for c in x.candidates]
[('Decision', 'Decision: use PostgreSQL.'), ('Todo', 'Open todo: write the migration.')]
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from memvault.extract.base import Candidate, ChangeCue, Extraction
from memvault.extract.constraints import check_statement, normalise_statement
from memvault.extract.text import object_slug, slug
from memvault.model.enums import CapturedBy, MemoryType, SourceKind, SourceType, TTLClass

__all__ = ["MAX_ITEMS", "parse_workflow_output"]

MAX_ITEMS = 50
_TEXT_MAX = 240

_KINDS: dict[str, tuple[MemoryType, str, str, int, TTLClass]] = {
    # kind: (type, category, content prefix, importance, ttl)
    "decision": (MemoryType.DECISION, "DECISION", "Decision", 70, TTLClass.LONG),
    "todo": (MemoryType.TODO, "TODO", "Open todo", 60, TTLClass.MEDIUM),
    "done": (MemoryType.TODO, "TODO", "Completed todo", 50, TTLClass.MEDIUM),
    "goal": (MemoryType.GOAL, "GOAL", "Goal", 65, TTLClass.LONG),
}
_JSON_KEYS = {
    "decisions": "decision",
    "decision": "decision",
    "todos": "todo",
    "todo": "todo",
    "tasks": "todo",
    "action_items": "todo",
    "next_steps": "todo",
    "goals": "goal",
    "goal": "goal",
    "objectives": "goal",
    "done": "done",
    "completed": "done",
}
_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?(?P<label>decision|decided|todo|to-do|action item|goal|objective"
    r"|done|completed)(?:\*\*)?\s*:\s*(?P<text>.+)$",
    re.I,
)
_CHECK = re.compile(r"^\s*[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.+)$")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?P<text>.+)$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<title>.+?)\s*$")
_SECTIONS = {
    "decision": re.compile(r"\bdecisions?\b", re.I),
    "todo": re.compile(r"\b(?:todos?|to-dos?|next steps|action items|tasks)\b", re.I),
    "goal": re.compile(r"\b(?:goals?|objectives?)\b", re.I),
    "done": re.compile(r"\b(?:done|completed)\b", re.I),
}
_LABELS = {
    "decision": "decision",
    "decided": "decision",
    "todo": "todo",
    "to-do": "todo",
    "action item": "todo",
    "goal": "goal",
    "objective": "goal",
    "done": "done",
    "completed": "done",
}


def _candidate(kind: str, text: str) -> Candidate | None:
    text = " ".join(text.split()).strip(" .")[:_TEXT_MAX]
    if not text:
        return None
    type_, category, prefix, importance, ttl = _KINDS[kind]
    is_todo = kind in {"todo", "done"}
    key = ("todo." + object_slug(text)) if is_todo else f"{kind}.{slug(text)}"
    return Candidate(
        content=normalise_statement(f"{prefix}: {text}"),
        type=type_,
        category=category,
        key=key,
        value=text,
        importance=importance,
        confidence=1.0,
        ttl_class=ttl,
        cue=ChangeCue.DONE if kind == "done" else ChangeCue.ASSERT,
        source_kind=SourceKind.SYSTEM_KNOWN,
        source_type=SourceType.WORKFLOW_OUTPUT,
        captured_by=CapturedBy.SYSTEM,
        rule=f"workflow.{kind}",
    )


def _item_text(item: Any) -> tuple[str, bool]:
    if isinstance(item, str):
        return item, False
    if isinstance(item, Mapping):
        text = next(
            (str(item[k]) for k in ("text", "title", "description", "summary") if item.get(k)), ""
        )
        status = str(item.get("status", "")).lower()
        return text, bool(item.get("done")) or status in {"done", "completed", "closed"}
    return "", False


def _from_json(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    for raw_key, values in data.items():
        kind = _JSON_KEYS.get(str(raw_key).lower())
        if kind is None:
            continue
        for item in values if isinstance(values, list) else [values]:
            text, done = _item_text(item)
            items.append(("done" if kind == "todo" and done else kind, text))
    return items


def _from_markdown(text: str) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    section: str | None = None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            section = next((k for k, p in _SECTIONS.items() if p.search(heading["title"])), None)
            continue
        check = _CHECK.match(line)
        if check:
            items.append(("todo" if check["mark"] == " " else "done", check["text"]))
            continue
        labelled = _LINE.match(line)
        if labelled:
            items.append((_LABELS[labelled["label"].lower()], labelled["text"]))
            continue
        bullet = _BULLET.match(line)
        if bullet and section:
            items.append((section, bullet["text"]))
    return items


def parse_workflow_output(output: str | Mapping[str, Any]) -> Extraction:
    """Candidates from a workflow step's output (JSON object, JSON text, or markdown)."""
    data: Any = output
    if isinstance(output, str):
        stripped = output.strip()
        if stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError:
                data = output
    items = _from_json(data) if isinstance(data, Mapping) else _from_markdown(str(data))
    candidates: list[Candidate] = []
    dropped: list[tuple[str, str]] = []
    for kind, text in items[:MAX_ITEMS]:
        cand = _candidate(kind, text)
        if cand is None:
            continue
        # Workflow text is not about a person, so only length/shape constraints apply.
        problems = [p for p in check_statement(cand.content) if p != "first_or_second_person"]
        if problems:
            dropped.append((cand.content[:280], ",".join(problems)))
        elif all(c.content != cand.content for c in candidates):
            candidates.append(cand)
    return Extraction(tuple(candidates), extractor="workflow", dropped=tuple(dropped))
