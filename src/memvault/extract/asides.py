"""Asides: the sentence of a turn that is small talk, after which the turn carries it on.

"Snowed in again. So I'm reading docs instead.", "Haha, herrlich. Das muss ich
meiner Frau zeigen.": a sentence read surely as a one-off or chit-chat, a question
asked, praise of the assistant, a one-off said of the day ("Lovely light in the
studio today.") or — session 18 — a happening of the moment silenced for whatever
reason ("Saw a heron on the canal this morning.", "I'm at a wedding this
weekend.") opens an aside; a later sentence no rule read that names nothing is its
consequence or reaction and is not kept (``rules``). After a happening of the
moment only a sentence that opens as a comment does ("So I won't be online.",
"Made my week."); "I sell handmade soap." after "I'm at a trade fair this
weekend." is the speaker's own fact.

>>> from memvault.extract.reader import Reading
>>> weak = Reading("event", 0.4, (("event", 0.4),))
>>> aside(weak, "silent:not the speaker's event (0.40)", "Saw a heron this morning.", "")
'moment'
>>> aside(weak, "silent:not the speaker's event (0.40)", "Saw a heron last year.", "") is None
True
>>> comments("So I won't be online."), comments("I sell handmade soap.")
(True, False)
"""

from __future__ import annotations

from memvault.extract import when
from memvault.extract.reader import Reading

__all__ = ["ASIDE_MIN", "MOMENT", "aside", "comments", "of_the_day"]

#: A sentence read surely as one of these (at least ``ASIDE_MIN``) is an aside: a later
#: sentence no rule read carries it on.
_ASIDE = frozenset({"oneoff", "chitchat"})
ASIDE_MIN = 0.9
#: What :func:`aside` says of a happening of the moment (then only a comment follows it).
MOMENT = "moment"
#: Why a sentence of the moment was silenced.
_MOMENTS_SILENCED = ("silent:not the speaker's event", "silent:oneoff", "silent:chitchat")
#: How a comment on the moment opens ("So I won't …", "Made my week.", "Best part of …").
_COMMENT_WORDS = frozenset(
    "so and but which made makes that that's it it's this still anyway best worst honestly"
    " such what".split()
)


def of_the_day(raw: str) -> bool:
    """Whether ``raw`` is said of today ("today", "all morning", "what a day", "hoy").

    >>> of_the_day("What a day, the printer jammed twice."), of_the_day("Oggi piove.")
    (True, True)
    >>> of_the_day("The printer jams every week.")
    False
    """
    return any(p.search(raw) for p in (when.TODAY, when.TODAY_OTHER, when.THE_DAY))


def aside(reading: Reading | None, why: str, raw: str, text: str) -> str | None:
    """Whether a silenced sentence opens an aside: "sure", "day", "question", "praise",
    :data:`MOMENT`, or None. ``why`` is the sentence's decision, ``text`` its clause."""
    if reading is None:
        return None
    if (
        reading.label in _ASIDE
        and reading.score >= ASIDE_MIN
        and why.startswith(("silent:oneoff", "silent:chitchat", "silent:praise", "silent:one-off"))
    ):
        return "sure"
    # a one-off said of the day ("Lovely light in the studio today.", "What a day, the
    # printer jammed twice.", "Oggi in bottega c'è un profumo di vernice"), however
    # unsure the reading: the turn is about the moment
    if (
        reading.label in _ASIDE
        and why.startswith(("silent:oneoff", "silent:chitchat"))
        and of_the_day(raw)
    ):
        return "day"
    # a question asked ("is it worth moving to X? we're a small team")
    if why.startswith("silent:question") and text.rstrip().endswith(("?", "？")):
        return "question"
    # praise of the assistant ("You explain so clearly. My lead should take notes."),
    # however the reader reads its words
    if why.startswith("silent:praise"):
        return "praise"
    if why.startswith(_MOMENTS_SILENCED) and (
        of_the_day(raw) or when.LOGISTICS.search(raw) is not None
    ):
        return MOMENT
    return None


def comments(raw: str) -> bool:
    """Whether a sentence opens as a comment on what was just said."""
    words = raw.split(maxsplit=1)
    return bool(words) and words[0].lower().strip(",.!;:") in _COMMENT_WORDS
