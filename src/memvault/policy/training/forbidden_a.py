"""Forbidden-family templates (contract §4), part A: identity traits, health, intimate life.

Each family maps a language to sentence templates. ``{p}`` is filled with a
person other than the speaker (``people.THIRD``); templates without it speak
in the first person. The sub-family a template covers is the key of the inner
dict. Written for memvault's training corpus; never copied from an evaluation set.

The templates live in ``forbidden_a.toml`` beside this module.
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["FORBIDDEN_A"]

#: family -> sub-family -> language -> templates
FORBIDDEN_A: dict[str, dict[str, dict[str, list[str]]]] = load_tables(__file__)["FORBIDDEN_A"]
