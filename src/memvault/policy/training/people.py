"""Who a sentence is about, per language: the user and any other person.

Contract §4 forbids categories of *data*, whoever they are about, so every
forbidden template is filled with first-person speakers and with colleagues,
partners, relatives and named people alike. ``{p}`` in a template is one of
``THIRD[lang]``.

The names live in ``people.toml`` beside this module.
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["LANGS", "THIRD"]

_TABLES = load_tables(__file__, tuples=True)
LANGS: tuple[str, ...] = _TABLES["LANGS"]
THIRD: dict[str, tuple[str, ...]] = _TABLES["THIRD"]
