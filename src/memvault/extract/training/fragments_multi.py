"""Hand-written fragments in other languages (fourth batch, session 5).

Users write to their assistant in their own language — about a third of
realistic turns are not in English. The reader reads hashed character
n-grams, so it can learn what a clause *is* in any language it has seen:
these fragments teach it the commonest shapes (a fact about one's family, work
or stack; a taste; a dated life event; a plan or goal; a decision; a task; a
reminder request) and the silent ones (a question back, a reaction, thanks,
today's mood or logistics) in eleven languages.

Each language has its own slots (relatives, activities, time phrases); tool,
city and person names are shared. Written from scratch for this corpus;
nothing is copied or paraphrased from an evaluation set.

The tables live in ``fragments_multi.toml`` beside this module (package data).
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["LANGUAGES", "PER_LABEL", "SLOTS", "TEMPLATES"]

_T = load_tables(__file__, tuples=True)

#: Items per label *per language*.
PER_LABEL: dict[str, int] = _T["PER_LABEL"]


TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = _T["TEMPLATES"]

LANGUAGES: tuple[str, ...] = tuple(TEMPLATES)
#: Slots per language (its own words plus the shared names).
SLOTS: dict[str, dict[str, tuple[str, ...]]] = {
    lang: {**_T["SHARED_SLOTS"], **_T["SLOTS_BY_LANGUAGE"][lang]} for lang in LANGUAGES
}
