"""Hand-written fragments of a turn's context and of plainly worded durables (session 6).

A realistic turn mixes what is worth keeping with what only explains it. The
reader kept too much of the second kind as facts:

- **status reports** — how things stand right now ("the nightly job is red
  again", "staging has been slow since lunch");
- **reasons and consequences** — "because the vendor changed the API", "which
  is why the migration failed", "that's why I'm asking";
- **other people's passing events** — "Marco was out sick", "my boss is on
  holiday this week", "my sister starts her new job on Monday";
- **acknowledgements and promises of the moment** — "I'll try that tomorrow",
  "let me check and get back to you".

All of those are ``oneoff`` (silent). And it kept too little of the durable
statements worded without "I": the stack ("the staging db is on Postgres 15"),
team conventions ("PRs need two approvals"), household facts, tasks worded as
chat ("gotta renew the domain"), tastes said sideways ("more of a tea person").

Same labels and surface variation as :mod:`.fragments`; English first, then
short sets in six other languages. Written from scratch for this corpus;
nothing is copied or paraphrased from an evaluation set (``bench/data/*.jsonl``,
``../shared/data``).

The tables live in ``fragments_context.toml`` beside this module (package data).
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = [
    "LANGUAGES",
    "PER_LABEL",
    "PER_LABEL_CJK",
    "PER_LABEL_OTHER",
    "SLOTS",
    "SLOTS_OTHER",
    "TEMPLATES",
    "TEMPLATES_OTHER",
]

_T = load_tables(__file__, tuples=True)

#: Items generated per label from the English part of this batch.
PER_LABEL: dict[str, int] = _T["PER_LABEL"]

SLOTS: dict[str, tuple[str, ...]] = _T["SLOTS"]

TEMPLATES: dict[str, tuple[str, ...]] = _T["TEMPLATES"]

#: Items per label *per language* from the short sets in other languages.
PER_LABEL_OTHER: dict[str, int] = _T["PER_LABEL_OTHER"]


TEMPLATES_OTHER: dict[str, dict[str, tuple[str, ...]]] = _T["TEMPLATES_OTHER"]

LANGUAGES: tuple[str, ...] = tuple(TEMPLATES_OTHER)

#: Slots of the other-language sets (names and numbers only; the sentences are whole).
SLOTS_OTHER: dict[str, tuple[str, ...]] = _T["SLOTS_OTHER"]
#: The scripts read worst (no spaces, no shared words with the other languages): more.
PER_LABEL_CJK: dict[str, int] = {
    **PER_LABEL_OTHER,
    "fact": 90,
    "preference": 40,
    "todo": 50,
    "oneoff": 80,
}
