"""Hand-written fragments of friendly, long-conversation chat (third batch, session 5).

The first two batches are a user talking to a work assistant: stacks, tools,
team rules. People also talk about their lives — a friend catching up with a
friend, or a user telling their assistant what happened at the weekend — and
there the durable content is worded as a story: "last weekend we took the kids
to the lake", "I've been painting a lot lately", "my brother just moved to
Leeds". Around it sit reactions ("that's so sweet!"), compliments, questions
back ("how was your trip?") and moods of the moment ("I'm wiped out").

Labels follow :mod:`.fragments` (``fact`` … ``oneoff``). Life events of the
past or scheduled with a date are ``event``; standing facts about the person
(family, pets, where they work, what they do every week) are ``fact``; tastes
are ``preference``; aspirations are ``goal``.

Written from scratch for this corpus; nothing is copied or paraphrased from an
evaluation set (``bench/data/*.jsonl``, ``../shared/data``): the topics of
everyday life are common to every chat, the sentences are ours.

The tables live in ``fragments_life.toml`` beside this module (package data).
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["PER_LABEL", "SLOTS", "TEMPLATES"]

_T = load_tables(__file__, tuples=True)

#: Items generated per label from this batch.
PER_LABEL: dict[str, int] = _T["PER_LABEL"]

SLOTS: dict[str, tuple[str, ...]] = _T["SLOTS"]

TEMPLATES: dict[str, tuple[str, ...]] = _T["TEMPLATES"]
