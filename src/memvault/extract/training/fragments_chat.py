"""More hand-written fragments: longer, messier chat (second batch, session 4).

The first batch (:mod:`.fragments`) is short, clean clauses; real turns are
longer — a lead-in ("small correction:", "for context,"), the clause, and a
tail that gives a reason or an aside ("…, it's easier to review"). Features
are L2-normalised n-grams, so a reader trained only on short clauses is
unsure of every long one. This batch adds:

- :data:`TEMPLATES` — new phrasings per label: team "we" conventions and
  rules, stack and infrastructure facts with identifiers, standing
  instructions phrased as rules, dated plans, one-offs (today's logistics,
  moods, status of a build), indirect questions, reactions;
- :data:`LEADS` — lead-ins any non-chit-chat clause may carry;
- :data:`TAILS` — label-preserving asides appended to a clause.

Written from scratch for this corpus; nothing is copied or paraphrased from
an evaluation set (``bench/data/*.jsonl``, ``../shared/data``).

The tables live in ``fragments_chat.toml`` beside this module (package data).
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["LEADS", "SLOTS", "TAILS", "TEMPLATES"]

_T = load_tables(__file__, tuples=True)

#: Extra slot values (merged into the first batch's slots by the generator).
SLOTS: dict[str, tuple[str, ...]] = _T["SLOTS"]

#: Lead-ins a clause may carry (never chit-chat); none changes what it is.
LEADS: tuple[str, ...] = _T["LEADS"]

#: Asides appended to a clause, by label: they keep the clause's label.
TAILS: dict[str, tuple[str, ...]] = _T["TAILS"]

TEMPLATES: dict[str, tuple[str, ...]] = _T["TEMPLATES"]
