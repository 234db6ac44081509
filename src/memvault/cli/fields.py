"""CLI options derived from the engine's types (one field list: ``NewMemory``, ``NodeFilter``).

:func:`options_from` adds one ``--option`` per field of a pydantic model to a
command; the command receives them as keywords. A field added to the model is
an option of every command built on it, with the model's default: the CLI
never keeps its own copy of the field list.

Values stay text at the edge (an enum is a ``str`` option): a bad ``--type``
reaches the engine, whose write path ranks the schema problem with the gate's
findings (contract §7), instead of failing in the option parser.

>>> from memvault.engine import NewMemory
>>> [p.name for p in model_options(NewMemory, skip={"content"})][:4]
['type', 'category', 'source_kind', 'key']
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Collection, Mapping
from typing import Annotated, Any, TypedDict, TypeVar

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from typing_extensions import Unpack

from memvault.model.annotations import unwrap, with_keywords

__all__ = ["model_options", "options_from"]

F = TypeVar("F", bound=Callable[..., Any])


def _option(
    name: str,
    field: FieldInfo,
    help: str | None,
    flag: str | None = None,
    unset: bool = False,
) -> inspect.Parameter:
    base, optional, many = unwrap(field.annotation)
    if (isinstance(base, type) and issubclass(base, enum.Enum)) or base not in (bool, int, float):
        base = str
    option = typer.Option(flag or "--" + name.replace("_", "-"), help=help)
    if many:
        annotation: Any = Annotated[list[base] | None, option]  # type: ignore[valid-type]
        default: Any = None
    elif field.is_required():
        annotation, default = Annotated[base, option], inspect.Parameter.empty
    elif unset:  # the engine decides when the option is not given
        annotation, default = Annotated[base | None, option], None
    else:
        default = field.get_default(call_default_factory=True)
        if isinstance(default, enum.Enum):
            default = default.value
        kind = base | None if optional or default is None else base
        annotation = Annotated[kind, option]
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def model_options(
    model: type[BaseModel],
    *,
    skip: Collection[str] = (),
    help: Mapping[str, str] | None = None,
    flags: Mapping[str, str] | None = None,
    unset: Collection[str] = (),
) -> list[inspect.Parameter]:
    """One keyword-only ``--option`` parameter per field of ``model`` (minus ``skip``).

    ``flags`` names a field's option otherwise than ``--field-name``
    (``{"pinned": "--pinned/--unpinned"}``: an on/off pair); an ``unset`` field's
    option defaults to nothing (the engine picks its value).
    """
    texts, named = help or {}, flags or {}
    return [
        _option(name, field, texts.get(name), named.get(name), name in unset)
        for name, field in model.model_fields.items()
        if name not in skip
    ]


class OptionChoices(TypedDict, total=False):
    """How :func:`options_from` shapes the options (:func:`model_options`' keywords)."""

    skip: Collection[str]
    help: Mapping[str, str] | None
    flags: Mapping[str, str] | None
    unset: Collection[str]


def options_from(model: type[BaseModel], **choices: Unpack[OptionChoices]) -> Callable[[F], F]:
    """Give a command the options of ``model``; it receives them in ``**fields``.

    ``choices`` are :func:`model_options`' (``skip``, ``help``, ``flags``,
    ``unset``). The command's own parameters come first (arguments, then its
    options); ``--json`` and the like stay last.
    """
    return with_keywords(model_options(model, **choices))
