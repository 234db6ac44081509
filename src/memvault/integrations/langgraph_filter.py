"""The ``filter`` of a LangGraph search, as a predicate over item values, and the match
conditions of ``list_namespaces`` (:func:`namespace_matches`).

Equality on a top-level or dotted key (``"user.level"``), lists and objects compared
whole, and the operators :data:`FILTER_OPERATORS`; an unknown operator or a malformed
key raises ``ValueError`` — never an empty result. Used by
:mod:`memvault.integrations.langgraph_store`.

>>> compile_filter({"level": {"$gte": 2}})({"level": 3})
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from langgraph.store.base import MatchCondition

__all__ = ["FILTER_OPERATORS", "compile_filter", "namespace_matches"]

#: The filter operators a search understands.
FILTER_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
_FILTER_KEY = re.compile(r"^[\w\-]+(\.[\w\-]+)*$")

_MISSING = object()


def _lookup(value: Mapping[str, Any], key: str) -> Any:
    """``value[key]``, else the dotted path ``a.b.c`` walked through nested objects."""
    if key in value:
        return value[key]
    current: Any = value
    for part in key.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return _MISSING
        current = current[part]
    return current


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _compare(actual: Any, operator: str, expected: Any) -> bool:
    if operator == "$eq":
        return actual is not _MISSING and _equal(actual, expected)
    if operator == "$ne":
        return actual is _MISSING or not _equal(actual, expected)
    left, right = _number(actual), _number(expected)
    if left is None or right is None:
        if isinstance(actual, str) and isinstance(expected, str):
            left_s, right_s = actual, expected
            return {
                "$gt": left_s > right_s,
                "$gte": left_s >= right_s,
                "$lt": left_s < right_s,
                "$lte": left_s <= right_s,
            }[operator]
        return False
    if math.isnan(left) or math.isnan(right):
        return False
    return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[
        operator
    ]


def _equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return False
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and actual is expected
    return bool(actual == expected)


def compile_filter(spec: Mapping[str, Any]) -> Any:
    """A predicate over item values; raises ``ValueError`` for a key or operator it cannot apply."""
    checks: list[tuple[str, str, Any]] = []
    for key, wanted in spec.items():
        if not isinstance(key, str) or not _FILTER_KEY.match(key):
            raise ValueError(
                f"Invalid filter key {key!r}: use letters, digits, '_' and '-', "
                "with '.' between the keys of nested objects"
            )
        if isinstance(wanted, Mapping) and any(str(k).startswith("$") for k in wanted):
            for operator, operand in wanted.items():
                if operator not in FILTER_OPERATORS:
                    raise ValueError(
                        f"Unsupported filter operator {operator!r} on {key!r}; "
                        f"use one of {', '.join(FILTER_OPERATORS)}"
                    )
                checks.append((key, operator, operand))
        else:
            checks.append((key, "$eq", wanted))

    def predicate(value: Mapping[str, Any]) -> bool:
        return all(_compare(_lookup(value, key), op, operand) for key, op, operand in checks)

    return predicate


def namespace_matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    """Whether ``namespace`` meets a ``list_namespaces`` condition (``*``: any one label).

    >>> namespace_matches(("users", "alice", "prefs"), MatchCondition("suffix", ("*", "prefs")))
    True
    """
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    if condition.match_type == "prefix":
        part = namespace[: len(path)]
    elif condition.match_type == "suffix":
        part = namespace[len(namespace) - len(path) :]
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))
