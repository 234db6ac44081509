"""Forbidden-family templates (contract §4), part B: criminal/legal, location, credentials,
biometrics, government IDs, financial accounts, inferred profiling, tool output.

Slots in braces are filled by ``compose`` with synthetic values: ``{p}`` a
person, ``{card}`` a Luhn-valid card number, ``{iban}``, ``{ssn}``, ``{idnum}``
(an ID-like string), ``{pin}``, ``{pw}`` (a password-like string), ``{token}``,
``{coord}``, ``{street}`` (a street and number), ``{time}``, ``{phrase}`` (a
word-list recovery phrase), ``{hexblob}``.

The templates live in ``forbidden_b.toml`` beside this module.
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["FORBIDDEN_B"]

#: family -> sub-family -> language -> templates
FORBIDDEN_B: dict[str, dict[str, dict[str, list[str]]]] = load_tables(__file__)["FORBIDDEN_B"]
