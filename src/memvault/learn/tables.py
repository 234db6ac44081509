"""The word lists and templates of the training generators, read from their data files.

A generator module ``x.py`` (``policy/training``, ``extract/training``) keeps the
code that composes a corpus; its hand-written tables live beside it in ``x.toml``
(shipped as package data). :func:`load_tables` reads that file: TOML keeps the
order of keys and items, so the generators stay deterministic byte for byte.

>>> from memvault.policy.training import people
>>> tables = load_tables(people.__file__, tuples=True)
>>> tables["LANGS"][:3]
('en', 'es', 'fr')
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

__all__ = ["as_tuples", "load_tables"]


def as_tuples(value: Any) -> Any:
    """``value`` with every list, at any depth, turned into a tuple.

    >>> as_tuples({"a": ["x", ["y"]]})
    {'a': ('x', ('y',))}
    """
    if isinstance(value, dict):
        return {k: as_tuples(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(as_tuples(v) for v in value)
    return value


def load_tables(module_file: str, *, tuples: bool = False) -> dict[str, Any]:
    """The tables of the generator module at ``module_file``: its ``.toml`` sibling.

    ``tuples=True`` gives tuples instead of lists (for modules whose tables are
    typed ``tuple[str, ...]``). Raises OSError when the file is missing and
    ``tomllib.TOMLDecodeError`` when it is not TOML.
    """
    with Path(module_file).with_suffix(".toml").open("rb") as fh:
        tables = tomllib.load(fh)
    return as_tuples(tables) if tuples else tables
