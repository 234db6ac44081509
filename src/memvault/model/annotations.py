"""What a field's type annotation says about its values: base type, optional, several.

Both edges that turn model fields into inputs read it: the CLI options built
from ``NewMemory`` / ``NodeFilter`` (``cli/fields.py``) and the HTTP routes'
check that a single-valued query parameter is not given twice
(``api/routes.py``).
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any

__all__ = ["unwrap"]


def unwrap(annotation: Any) -> tuple[Any, bool, bool]:
    """``(base type, optional, many)`` of an annotation (Annotated and None stripped).

    >>> unwrap(list[str] | None)
    (<class 'str'>, True, True)
    >>> unwrap(Annotated[int, "meta"])
    (<class 'int'>, False, False)
    """
    optional = many = False
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            optional = optional or len(args) < len(typing.get_args(annotation))
            annotation = args[0]
        elif origin in (tuple, list, frozenset, set):
            many = True
            annotation = typing.get_args(annotation)[0]
        else:
            return annotation, optional, many
