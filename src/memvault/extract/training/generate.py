"""Generate the clause reader's corpus (``clauses.jsonl``) from the hand-written fragments.

Deterministic: one ``random.Random(seed)``, templates and slots in file order,
so the same fragments give the same file byte for byte. Each row is
``{"text", "label", "template"}``; ``template`` (a CRC-32 of the template) lets
the trainer keep every variant of one template on the same side of the
train/validation split, so validation measures new wordings, not new slot values.

Surface variation mimics chat: a filler in front ("btw", "oh and"), lower case,
no final full stop, "!" — and, for a quarter of the items, a second sentence
of another label is *not* added: the reader reads one clause at a time, and
the extractor splits turns into clauses before asking it.

>>> rows = generate(per_label=3, seed=1)
>>> sorted({r["label"] for r in rows}) == sorted(LABELS)
True
>>> generate(per_label=3, seed=1) == rows
True
"""

from __future__ import annotations

import json
import random
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault.extract.training import (
    fragments_chat,
    fragments_context,
    fragments_life,
    fragments_multi,
)
from memvault.extract.training.fragments import LABELS, PREFIXES
from memvault.extract.training.fragments import SLOTS as _SLOTS_1
from memvault.extract.training.fragments import TEMPLATES as _TEMPLATES_1
from memvault.learn.tables import load_tables

__all__ = ["BATCHES", "CORPUS_PATH", "PER_LABEL", "SEED", "Batch", "generate", "write_corpus"]

CORPUS_PATH = Path(__file__).with_name("clauses.jsonl")
SEED = 16
#: Items per label (fewer when a label's templates cannot give that many distinct texts).
PER_LABEL: dict[str, int] = {
    "fact": 1600,
    "preference": 1100,
    "decision": 700,
    "goal": 500,
    "todo": 650,
    "reminder": 450,
    "event": 600,
    "procedure": 250,
    "question": 800,
    "chitchat": 450,
    "oneoff": 1100,
}
#: Session 12 (``fragments_acts.toml``): jobs and tools said as what a person does
#: ("most of my week goes into …", "the designs sit in Figma", "Die Rechnungen
#: schreibe ich in …"), standing orders ("keep answers under ten lines"), and their
#: silent look-alikes (the state of things right now, the speaker's next hour).
_ACTS = load_tables(__file__.replace("generate", "fragments_acts"), tuples=True)
#: Session 14 (``fragments_team.toml``): a team's standing rules and size, where work goes
#: said with a thing as the subject, decisions (also in nine other languages), and their
#: silent look-alikes: the same words about today, leaving the chat, reactions, small talk.
_TEAM = load_tables(__file__.replace("generate", "fragments_team"), tuples=True)
#: Both batches of templates and slots (the second adds to the first, label by label).
TEMPLATES: dict[str, tuple[str, ...]] = {
    label: _TEMPLATES_1[label] + fragments_chat.TEMPLATES.get(label, ()) for label in LABELS
}
SLOTS: dict[str, tuple[str, ...]] = {**_SLOTS_1, **fragments_chat.SLOTS}
#: How often a clause gets a lead-in ("for context, …") and a tail ("…, thanks").
LEAD_RATE = 0.2
TAIL_RATE = 0.3
_SLOT = re.compile(r"\{(\w+)\}")


def _fill(
    template: str,
    rng: random.Random,
    depth: int = 0,
    slots: dict[str, tuple[str, ...]] | None = None,
) -> str:
    table = SLOTS if slots is None else slots

    def one(match: re.Match[str]) -> str:
        values = table.get(match.group(1))
        if not values:
            return match.group(0)
        value = rng.choice(values)
        return _fill(value, rng, depth + 1, table) if depth < 3 and "{" in value else value

    return _SLOT.sub(one, template)


@dataclass(frozen=True)
class Batch:
    """A later batch of fragments, generated after the first with its own seed and slots
    (so adding a batch never changes the rows of the batches before it)."""

    name: str
    templates: dict[str, tuple[str, ...]]
    slots: dict[str, tuple[str, ...]]
    per_label: dict[str, int]
    #: English fillers in front ("btw", "so"): only for English batches.
    prefixes: bool = True


def _table_batches(name: str, tables: dict[str, Any]) -> tuple[Batch, ...]:
    """The batches of one ``.toml`` of fragments: its English templates (with the shared
    slots), then one batch per other language (``TEMPLATES_OTHER``, no English fillers)."""
    other = tables["TEMPLATES_OTHER"]
    return (
        Batch(name, tables["TEMPLATES"], {**SLOTS, **tables["SLOTS"]}, tables["PER_LABEL"]),
        *(
            Batch(
                f"{name}.{lang}",
                other[lang],
                tables["SLOTS_OTHER"],
                tables["PER_LABEL_OTHER"],
                prefixes=False,
            )
            for lang in other
        ),
    )


#: Batches after the first two (each adds rows; earlier rows stay byte-identical).
BATCHES: tuple[Batch, ...] = (
    Batch(
        "life",
        fragments_life.TEMPLATES,
        {**SLOTS, **fragments_life.SLOTS},
        fragments_life.PER_LABEL,
    ),
    *(
        Batch(
            f"multi.{lang}",
            fragments_multi.TEMPLATES[lang],
            fragments_multi.SLOTS[lang],
            fragments_multi.PER_LABEL,
            prefixes=False,
        )
        for lang in fragments_multi.LANGUAGES
    ),
    Batch(
        "context",
        fragments_context.TEMPLATES,
        {**SLOTS, **fragments_context.SLOTS},
        fragments_context.PER_LABEL,
    ),
    *(
        Batch(
            f"context.{lang}",
            fragments_context.TEMPLATES_OTHER[lang],
            fragments_context.SLOTS_OTHER,
            fragments_context.PER_LABEL_CJK
            if lang in {"ja", "zh"}
            else fragments_context.PER_LABEL_OTHER,
            prefixes=False,
        )
        for lang in fragments_context.LANGUAGES
    ),
    *(
        Batch(f"langs.{b['lang']}", b["templates"], b["slots"], b["per_label"], prefixes=False)
        for b in fragments_multi.LATER
    ),
    # session 12: jobs and tools said as what a person does, standing orders, and the
    # state of things right now (silent)
    *_table_batches("acts", _ACTS),
    # session 14: team rules and sizes, things routed to tools, decisions, and the same
    # words about today; reactions to a suggestion and small talk (silent)
    *_table_batches("team", _TEAM),
)


def _surface(text: str, label: str, rng: random.Random, *, english: bool = True) -> str:
    prefix = rng.choice(PREFIXES) if label not in {"chitchat"} and english else ""
    tails = fragments_chat.TAILS.get(label, ()) if english else ()
    if tails and not text.endswith("?") and rng.random() < TAIL_RATE:
        text += _fill(rng.choice(tails), rng)
    if english and not prefix and label != "chitchat" and rng.random() < LEAD_RATE:
        prefix = _fill(rng.choice(fragments_chat.LEADS), rng)
    out = prefix + text
    roll = rng.random()
    if roll < 0.45:
        out = out.lower()
    elif roll < 0.8:
        out = out[:1].upper() + out[1:]
    if out.endswith(("?", "？")):
        if rng.random() < 0.25:
            out = out[:-1]
        return out
    end = rng.random()
    if label == "question":
        return out + ("?" if end < 0.6 else "")
    if end < 0.45:
        out += "."
    elif end < 0.55:
        out += "!"
    return out


def generate(*, per_label: int | None = None, seed: int = SEED) -> list[dict[str, Any]]:
    """The labelled clauses (``per_label`` overrides :data:`PER_LABEL`, for tests)."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for label in LABELS:
        templates = TEMPLATES[label]
        want = per_label if per_label is not None else PER_LABEL[label]
        seen: set[str] = set()
        attempts = 0
        while len(seen) < want and attempts < want * 20:
            attempts += 1
            template = templates[attempts % len(templates)]
            text = _surface(_fill(template, rng), label, rng).strip()
            if not text or text in seen:
                continue
            seen.add(text)
            rows.append(
                {
                    "text": text,
                    "label": label,
                    "template": zlib.crc32(template.encode("utf-8")),
                }
            )
    taken = {r["text"] for r in rows}
    for number, batch in enumerate(BATCHES, start=1):
        rows.extend(_batch(batch, seed + number, per_label, taken))
    return rows


def _batch(batch: Batch, seed: int, per_label: int | None, taken: set[str]) -> list[dict[str, Any]]:
    """The rows of one later batch (texts already in the corpus are skipped)."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for label in LABELS:
        templates = batch.templates.get(label, ())
        if not templates:
            continue
        want = per_label if per_label is not None else batch.per_label.get(label, 0)
        count = 0
        attempts = 0
        while count < want and attempts < want * 20:
            attempts += 1
            template = templates[attempts % len(templates)]
            filled = _fill(template, rng, slots=batch.slots)
            text = _surface(filled, label, rng, english=batch.prefixes).strip()
            if not text or text in taken:
                continue
            taken.add(text)
            count += 1
            rows.append(
                {
                    "text": text,
                    "label": label,
                    "template": zlib.crc32(template.encode("utf-8")),
                }
            )
    return rows


def write_corpus(path: Path = CORPUS_PATH, *, seed: int = SEED) -> int:
    """Write the corpus as JSON Lines; return the number of rows."""
    rows = generate(seed=seed)
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows),
        encoding="utf-8",
    )
    return len(rows)


if __name__ == "__main__":  # pragma: no cover - `python -m memvault.extract.training.generate`
    print(write_corpus())
