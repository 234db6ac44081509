"""Hand-written fragments the clause corpus is generated from (``generate.py``).

Every template is one clause or short sentence a user might type in a chat
with their assistant, with ``{slot}`` holes filled from :data:`SLOTS`. They
were written for this corpus from scratch — never copied or paraphrased from
an evaluation set (``bench/data/*.jsonl``, ``../shared/data``).

Labels (what the clause is, for memory):

``fact``        a durable fact about the user, their work, team, stack, tools
``preference``  a standing like/dislike, taste or instruction to the assistant
``decision``    a choice the user or their team has settled
``goal``        something the user is working towards over weeks or more
``todo``        a task the user has to do (often dated)
``reminder``    an explicit request to be reminded / a note to self
``event``       a notable dated happening (past or scheduled) worth keeping
``procedure``   how something is done, step by step
``question``    a question or request for help (nothing to keep)
``chitchat``    greetings, thanks, reactions, filler (nothing to keep)
``oneoff``      today's plans, moods and logistics (true now, not tomorrow)

The tables live in ``fragments.toml`` beside this module (package data).
"""

from __future__ import annotations

from memvault.extract.reader import LABELS
from memvault.learn.tables import load_tables

__all__ = ["LABELS", "PREFIXES", "SLOTS", "TEMPLATES"]

_T = load_tables(__file__, tuples=True)


SLOTS: dict[str, tuple[str, ...]] = _T["SLOTS"]

# Fillers users put before a clause in chat; none changes what the clause is.
PREFIXES = _T["PREFIXES"]

TEMPLATES: dict[str, tuple[str, ...]] = _T["TEMPLATES"]
