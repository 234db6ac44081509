"""Model fields as the edges take them in: an annotation's values, a field list retyped.

The field lists are defined once, by the engine's types (``NewMemory``,
``MemoryPatch``, ``NodeFilter``, ``MemoryQuery``). Every edge that turns them
into inputs reads them here: :func:`unwrap` says what an annotation holds (the
CLI options of ``cli/fields.py``; the HTTP routes' check that a single-valued
query parameter is not given twice), :func:`edge_fields` gives a model's
fields, in its order, as one edge types them (the HTTP bodies, the filters of
memory.query), for ``pydantic.create_model``, and :func:`with_keywords` makes
derived parameters a function's own (the CLI options, the query parameters of
``GET /v1/memories``).
"""

from __future__ import annotations

import copy
import functools
import inspect
import types
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

__all__ = ["edge_fields", "unwrap", "with_keywords"]

F = TypeVar("F", bound=Callable[..., Any])


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


def edge_fields(
    model: type[BaseModel], types: Mapping[str, Any], *, skip: Collection[str] = ()
) -> dict[str, Any]:
    """``create_model`` field definitions: ``model``'s fields (its order, minus ``skip``)
    as one edge types them.

    A field named in ``types`` takes that definition: an ``(annotation, default)``
    pair, or an annotation alone, which keeps the model's default. Every other
    field keeps the model's own definition. A field added to ``model`` is thus
    a field of every edge model derived from it.

    >>> from pydantic import create_model
    >>> class Pet(BaseModel):
    ...     name: str
    ...     legs: int = 4
    >>> Edge = create_model("Edge", **edge_fields(Pet, {"legs": int | None}))
    >>> Edge(name="Rex", legs=None).legs, Edge(name="Rex").legs
    (None, 4)
    """
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        if name not in types:
            out[name] = (field.annotation, copy.copy(field))
            continue
        given = types[name]
        if isinstance(given, tuple):
            out[name] = given
        else:
            out[name] = (given, _default(field))
    return out


def _default(field: FieldInfo) -> Any:
    if field.is_required():
        return ...
    if field.default_factory is not None:
        return Field(default_factory=field.default_factory)
    return field.default


def with_keywords(extra: Sequence[inspect.Parameter]) -> Callable[[F], F]:
    """Give a function the keyword parameters ``extra``; it receives them in ``**fields``.

    An edge's inputs derived from a model (a command's options, a route's query
    parameters) join the function's own: its positional parameters first, then
    ``extra``, then its own keyword-only ones. The framework reading the
    signature (typer, FastAPI) sees the derived one.

    >>> def show(name: str, *, loud: bool = False, **fields: Any) -> str:
    ...     return f"{name} {fields} {loud}"
    >>> colour = inspect.Parameter("colour", inspect.Parameter.KEYWORD_ONLY, default="teal")
    >>> shown = with_keywords([colour])(show)
    >>> list(inspect.signature(shown).parameters), shown("Rex", colour="red")
    (['name', 'colour', 'loud'], "Rex {'colour': 'red'} False")
    """
    names = [p.name for p in extra]

    def decorate(fn: F) -> F:
        sig = inspect.signature(fn, eval_str=True)
        own = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        leading = [p for p in own if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        trailing = [p for p in own if p.kind is inspect.Parameter.KEYWORD_ONLY]
        params = [*leading, *(p.replace(kind=p.KEYWORD_ONLY) for p in extra), *trailing]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            fields = {n: kwargs.pop(n) for n in names if n in kwargs}
            return fn(*args, **kwargs, **fields)

        wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in params}
        del wrapper.__wrapped__  # the framework must read the derived signature
        return wrapper  # type: ignore[return-value]

    return decorate
