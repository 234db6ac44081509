"""Ordinary chat between people: benign turns the gate must store without a second look.

Reactions, thanks, congratulations, questions back, encouragement, offers of
help, requests between friends ("send me the recipe", "let me know what you
think"), sympathy, life updates and plans that carry no sensitive data, and
sign-offs — in many languages. Many of them are imperatives or questions
addressed to *someone*, as injections are; what they ask for is never the
assistant's instructions, memory, tools or another person's data, which is
the line the injection head has to learn. ``{n}`` is a first name (the person
spoken to), and compose writes some turns as ``"Name: text"`` (a speaker
prefix, as chat transcripts and raw-turn ``add`` calls carry).

Written for the training corpus; nothing here comes from an evaluation set.

The turns live in ``chat.toml`` beside this module.
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["CHAT", "CHAT_NAMES"]

_TABLES = load_tables(__file__)
#: first names for ``{n}`` and the ``"Name: "`` speaker prefix, per language
CHAT_NAMES: dict[str, tuple[str, ...]] = {
    lang: tuple(names) for lang, names in _TABLES["CHAT_NAMES"].items()
}
#: one benign group: ordinary chat turns, by language
CHAT: dict[str, list[str]] = _TABLES["CHAT"]
