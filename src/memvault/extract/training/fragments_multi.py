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

``LATER`` is the fifth batch (session 7, ``fragments_langs.toml``): the shapes
this one lacked — the stack's and the team's facts said without "I" ("the
tests run on …"), relatives' standing facts, routines, impersonal todos ("hay
que …", "muss noch …"), tastes said without "I like" — and their silent
look-alikes (today's status of things, passing news and logistics, moods,
questions without a mark), with this batch's slots plus weekdays.
"""

from __future__ import annotations

from typing import Any

from memvault.learn.tables import load_tables

__all__ = ["LANGUAGES", "LATER", "PER_LABEL", "SLOTS", "TEMPLATES"]

_T = load_tables(__file__, tuples=True)

#: Items per label *per language*.
PER_LABEL: dict[str, int] = _T["PER_LABEL"]


TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = _T["TEMPLATES"]

LANGUAGES: tuple[str, ...] = tuple(TEMPLATES)
#: Slots per language (its own words plus the shared names).
SLOTS: dict[str, dict[str, tuple[str, ...]]] = {
    lang: {**_T["SHARED_SLOTS"], **_T["SLOTS_BY_LANGUAGE"][lang]} for lang in LANGUAGES
}


def _later() -> tuple[dict[str, tuple[str, ...]], ...]:
    tables = load_tables(__file__.replace("fragments_multi", "fragments_langs"), tuples=True)
    return tuple(
        {
            "templates": tables["TEMPLATES"][lang],
            "slots": {
                **(SLOTS.get(lang) or {**_T["SHARED_SLOTS"], **tables["NEW_SLOTS"][lang]}),
                "weekday": tables["WEEKDAYS"][lang],
            },
            "per_label": tables["PER_LABEL"],
            "lang": lang,
        }
        for lang in tables["TEMPLATES"]
    )


#: The fifth batch, one entry per language: templates, slots, per-label counts, language.
LATER: tuple[dict[str, Any], ...] = _later()
