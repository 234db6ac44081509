"""Ordinary memory-worthy statements: routines, sport, work and tools, hobbies, trips, docs.

What a memory system exists to keep — "{p} swims twice a week", "in the end we
kept Postgres for the billing service", a numbered deploy checklist in markdown —
written plainly, about the user and about other people. Session 5's
heads refused a few of these kinds (a running routine as location, a tool switch
as intimate, a guide chunk as intimate) because the benign corpus had little plain
work and routine wording; these groups give it some, built from parts so the heads
see the *kind* (a habit, a plan, a tool, a document), not a handful of sentences.

Each group is a list of templates per language (``{p}`` is a person from
``people.THIRD``); :func:`_build` crosses subjects' verbs with objects and times
in a fixed order, then shuffles with a seeded generator, so the same parts
always give the same list. Written for the training corpus; nothing here comes
from an evaluation set.

>>> len(MEMORIES["routine_sport"]["en"]) > 100
True
>>> MEMORIES == build_memories()
True
"""

from __future__ import annotations

import random
from itertools import product

from memvault.learn.tables import load_tables

__all__ = ["FICTION", "MEMORIES", "build_memories"]

_T = load_tables(__file__)


def _intros(rng: random.Random) -> list[str]:
    made = {
        t.replace("{name}", n)
        .replace("{job}", rng.choice(_T["JOBS"]))
        .replace("{thing}", rng.choice(_T["THINGS"]))
        for t in _T["INTRO"]
        for n in _T["NAMES"]
    }
    return sorted(made)


def _fillers(rng: random.Random) -> list[str]:
    out = [w + (" " + w) * rng.randint(3, 25) for w in _T["FILLER_WORDS"] for _ in range(4)]
    out += _T["COUNTING"] + _T["LOREM"]
    return sorted(set(out))


def _fiction(rng: random.Random) -> list[str]:
    made: list[str] = []
    for template, _copy in product(_T["EN_FICTION"], range(12)):
        text = template
        for slot, choices in (
            ("genre", _T["GENRES"]),
            ("role", _T["ROLES"]),
            ("outcome", _T["OUTCOMES"]),
        ):
            text = text.replace("{" + slot + "}", rng.choice(choices))
        made.append(text.replace("{n}", str(rng.randint(2, 9))))
    return sorted(set(made))


def _ops(rng: random.Random) -> list[str]:
    made: list[str] = []
    for template, _copy in product(_T["EN_OPS"], range(12)):
        made.append(
            template.replace("{level}", rng.choice(_T["LEVELS"]))
            .replace("{resource}", rng.choice(_T["RESOURCES"]))
            .replace("{pct}", str(rng.randint(70, 99)))
            .replace("{host}", rng.choice(_T["HOSTS"]))
        )
    return sorted(set(made))


def _food(rng: random.Random) -> list[str]:
    fills = {
        "drink2": _T["DRINKS"],
        "drink": _T["DRINKS"],
        "milk": _T["MILKS"],
        "how": _T["HOWS"],
        "food": _T["FOODS"],
        "taste": _T["TASTES"],
        "extra": _T["EXTRAS"],
        "sweet": _T["SWEETS"],
    }
    made: list[str] = []
    for template, _copy in product(_T["EN_FOOD"], range(10)):
        text = template
        for slot, choices in fills.items():
            text = text.replace("{" + slot + "}", rng.choice(choices))
        made.append(text)
    return sorted(set(made))


def _cross(template: str, rng: random.Random, lang: str) -> str:
    """Fill this module's own slots (people, ``{p}``, are left to compose)."""
    fills = {
        "when": _T["EN_WHEN"],
        "freq": _T["EN_FREQ"],
        "dist": _T["EN_DIST"],
        "month": _T["MONTHS"],
        "tool": _T["TOOLS"],
        "thing": _T["THINGS"],
        "lang": _T["CODE_LANGS"],
        "instrument": _T["INSTRUMENTS"],
        "language": _T["LANGUAGES"],
        "game": _T["GAMES"],
        "book_kind": _T["BOOK_KINDS"],
        "city": _T["CITIES"],
        "country": _T["COUNTRIES"],
        "p2": ["Sam", "Lena", "Ravi", "Jo", "Aiko", "Tomás"],
        **_T["THING_TR"],
    }
    out = template
    for name, choices in fills.items():
        while "{" + name + "}" in out:
            out = out.replace("{" + name + "}", rng.choice(choices), 1)
    for name, choices in (("tool2", _T["TOOLS"]), ("lang2", _T["CODE_LANGS"])):
        while "{" + name + "}" in out:
            out = out.replace("{" + name + "}", rng.choice(choices), 1)
    return out


def _build(name: str, templates: list[str], lang: str, copies: int) -> list[str]:
    rng = random.Random(f"memories:{name}:{lang}")
    made: list[str] = []
    seen: set[str] = set()
    for template, _copy in product(templates, range(copies)):
        text = _cross(template, rng, lang)
        if text not in seen:
            seen.add(text)
            made.append(text)
    rng.shuffle(made)
    return made


def build_memories() -> dict[str, dict[str, list[str]]]:
    """Every group's templates by language (deterministic)."""
    subject = ["{p} "]
    sport = [s + t for s, t in product(subject, _T["EN_SPORT"])]
    hobby = [s + t for s, t in product(subject, _T["EN_HOBBY"])]
    return {
        "routine_sport": {
            "en": _build("sport", sport, "en", 8),
            "es": _build("sport", _T["ES"][:3] + _T["ES"][6:], "es", 2),
            "fr": _build("sport", [_T["FR"][i] for i in (0, 1, 4)], "fr", 2),
            "de": _build("sport", [_T["DE"][i] for i in (0, 1, 4)], "de", 2),
            "pt": _build("sport", [_T["PT"][i] for i in (0, 1, 4)], "pt", 2),
            "it": _build("sport", _T["IT"][:2], "it", 2),
            "nl": _build("sport", [_T["NL"][0], _T["NL"][2]], "nl", 2),
        },
        "work_tools": {
            "en": _build("work", _T["EN_WORK"], "en", 10),
            "es": _build("work", _T["ES"][3:5], "es", 6) + _T["TRACKER"]["es"],
            "fr": _build("work", [_T["FR"][2], _T["FR"][6]], "fr", 6) + _T["TRACKER"]["fr"],
            "de": _build("work", [_T["DE"][2], _T["DE"][6]], "de", 6) + _T["TRACKER"]["de"],
            "pt": _build("work", [_T["PT"][2]], "pt", 6) + _T["TRACKER"]["pt"],
            "it": _build("work", [_T["IT"][2]], "it", 6) + _T["TRACKER"]["it"],
            "nl": _build("work", [_T["NL"][1]], "nl", 6) + _T["TRACKER"]["nl"],
        },
        "hobby_travel": {
            "en": _build("hobby", hobby, "en", 4) + _build("travel", _T["EN_TRAVEL"], "en", 6),
            "es": _build("travel", [_T["ES"][5]], "es", 4),
            "fr": _build("travel", [_T["FR"][3], _T["FR"][5]], "fr", 4),
            "de": _build("travel", [_T["DE"][3], _T["DE"][5]], "de", 4),
            "pt": _build("travel", [_T["PT"][3]], "pt", 4),
            "it": _build("travel", [_T["IT"][3]], "it", 4),
        },
        "docs_chunks": {"en": list(_T["DOCS"])},
        "filler_text": {"en": _fillers(random.Random("memories:filler"))},
        "introductions": {"en": _intros(random.Random("memories:intro"))},
        "food_drink": {"en": _food(random.Random("memories:food"))},
        "ops_findings": {"en": _ops(random.Random("memories:ops"))},
        "work_languages": {
            lang: _build("work_lang", templates, lang, 3)
            for lang, templates in _T["WORK_LANGS"].items()
        },
    }


MEMORIES = build_memories()
#: hard negatives (hard_negative: true): crime and courts in films, series and books
FICTION: dict[str, dict[str, list[str]]] = {
    "screen_fiction": {
        "en": _fiction(random.Random("memories:fiction")),
        "es": [
            "anoche vimos un drama judicial donde el acusado sale absuelto",
            "a {p} le encantan las series policiacas",
        ],
        "fr": [
            "on a regardé un film de procès où l'accusé est acquitté",
            "{p} adore les séries policières où le héros est arrêté",
        ],
        "de": [
            "wir haben einen Justizkrimi gesehen, am Ende wird der Angeklagte freigesprochen",
            "{p} mag Krimiserien, in denen der Kommissar den Täter verhaftet",
        ],
    },
}
