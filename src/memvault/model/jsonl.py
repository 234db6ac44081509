"""JSON Lines read one way: numbered objects, blank lines skipped, the bad line named.

Scripts (``memvault agent run``), labelled corpora (the benches) and ``policy
check`` read their input with :func:`json_objects`, so a broken line gets the
same answer everywhere: ``line N: invalid JSON (…)`` or ``line N: expected a
JSON object``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["json_objects"]


def json_objects(
    lines: Iterable[str], where: str = "line "
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of each non-blank line (numbered from 1).

    Raises :class:`ValueError` naming the first line that is not a JSON object
    (``where`` + its number: ``line 3`` or, with ``where="turns.jsonl:"``,
    ``turns.jsonl:3``); the lines before it have been yielded.

    >>> list(json_objects(['{"a": 1}', "", '{"b": 2}']))
    [(1, {'a': 1}), (3, {'b': 2})]
    >>> list(json_objects(["[1]"]))
    Traceback (most recent call last):
    ...
    ValueError: line 1: expected a JSON object
    """
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}{number}: invalid JSON ({exc.msg})") from None
        if not isinstance(item, dict):
            raise ValueError(f"{where}{number}: expected a JSON object")
        yield number, item
