"""The argument types of the public façades, checked in one place.

Every public method of :class:`~memvault.engine.MemoryEngine` (and so of the async
face, which runs it) and of a caller's façade checks its arguments against its own
signature before it runs (:func:`check_call`): an unknown keyword, a missing
argument or a value of the wrong type is :class:`~memvault.errors.ValidationFailed`
(SCHEMA_INVALID) naming the argument — never a ``TypeError`` or ``AttributeError``
from deep inside (``engine.get(5)``, ``list_memories(limit="5")``, ``add_many(["x"])``).

What is checked comes from the annotations: text, whole numbers (a bool is not one),
numbers, flags, mappings, concrete classes and unions of them; a list or tuple given
for a sequence of those has each item checked. Anything an annotation cannot say
plainly (``Any``, callables, protocols, literals, type variables) is left to the
method, which validates values (bounds, formats) itself.

>>> def get(self: object, memory_id: str, *, limit: int = 10) -> None: ...
>>> check_call(get, ("m1",), {"limit": 5})
>>> check_call(get, (5,), {})
Traceback (most recent call last):
...
memvault.errors.ValidationFailed: get: memory_id must be str, not int
"""

from __future__ import annotations

import collections.abc as abc
import functools
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from memvault.errors import ValidationFailed

__all__ = ["check_call", "checked_method"]

F = TypeVar("F", bound=Callable[..., Any])

#: A test of one value, and how the annotation reads in an error.
_Check = tuple[Callable[[object], bool], str]

#: Generic origins whose value may be any iterable that is not text (items of a list
#: or tuple are checked; a generator or a set is passed through unconsumed).
_ITERABLES = frozenset(
    {
        abc.Iterable,
        abc.Collection,
        abc.Sequence,
        abc.MutableSequence,
        abc.Set,
        abc.MutableSet,
        list,
        tuple,
        set,
        frozenset,
    }
)
_MAPPINGS = frozenset({abc.Mapping, abc.MutableMapping, dict})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_SCALARS: dict[object, _Check] = {
    str: (lambda v: isinstance(v, str), "str"),
    bool: (lambda v: isinstance(v, bool), "bool"),
    int: (_is_int, "int"),
    float: (_is_number, "a number"),
    type(None): (lambda v: v is None, "None"),
    None: (lambda v: v is None, "None"),
}


def _iterable(item: _Check | None, name: str) -> _Check:
    def ok(value: object) -> bool:
        if isinstance(value, str | bytes | abc.Mapping) or not isinstance(value, abc.Iterable):
            return False
        if item is None or not isinstance(value, list | tuple):
            return True
        return all(item[0](v) for v in value)

    return ok, name


def _union(parts: list[_Check]) -> _Check:
    tests = tuple(p[0] for p in parts)
    return (lambda v: any(t(v) for t in tests)), " | ".join(p[1] for p in parts)


def _check_of(ann: object) -> _Check | None:
    """The test an annotation states plainly, or ``None`` (left to the method)."""
    if ann is Any or isinstance(ann, TypeVar):
        return None
    if isinstance(ann, typing.Hashable) and ann in _SCALARS:
        return _SCALARS[ann]
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin in (types.UnionType, typing.Union):
        parts = [_check_of(a) for a in args]
        if any(p is None for p in parts):
            return None
        return _union([p for p in parts if p is not None])
    if origin in _ITERABLES or ann in _ITERABLES:
        # tuple[X, ...] and the one-parameter generics name their items' type; the
        # items of a sequence of numbers (a vector) are the method's to judge (shape,
        # NaN: it answers with its own refusal)
        same = args[:1] if origin is not tuple or args[1:] == (...,) else ()
        item = _check_of(same[0]) if same and same[0] not in (int, float) else None
        return _iterable(item, f"a sequence (each item {item[1]})" if item else "a sequence")
    if origin in _MAPPINGS or ann in _MAPPINGS or typing.is_typeddict(ann):
        return (lambda v: isinstance(v, abc.Mapping)), "a mapping"
    cls = origin if isinstance(origin, type) else ann
    if (
        isinstance(cls, type)
        and cls is not object
        and not getattr(cls, "_is_protocol", False)
        and not issubclass(cls, type)
    ):
        return (lambda v: isinstance(v, cls)), cls.__name__
    return None


def _resolved(ann: object, func: Callable[..., Any]) -> object:
    """A string annotation evaluated in its function's module (unknown names: unchecked)."""
    if not isinstance(ann, str):
        return ann
    try:
        return eval(ann, getattr(func, "__globals__", {}))  # the module's own annotation
    except Exception:  # a name imported for type checkers only
        return Any


@dataclass(frozen=True, slots=True)
class _Spec:
    """A method's signature (``self`` left out), what binds where, and each checked type."""

    signature: inspect.Signature
    positional: tuple[str, ...]  # given by position, in order
    keywords: frozenset[str]  # given by keyword
    # each parameter without a default: (its position, or None; its name, or None if
    # it may not be given by keyword)
    required: tuple[tuple[int | None, str | None], ...]
    var_args: str | None
    var_kwargs: str | None
    checks: dict[str, _Check]


@functools.cache
def _spec(func: Callable[..., Any]) -> _Spec:
    """``func``'s :class:`_Spec` (computed once per method)."""
    signature = inspect.signature(func)
    params = list(signature.parameters.values())[1:]
    kind = inspect.Parameter
    positional = tuple(
        p.name for p in params if p.kind in (kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD)
    )
    checks: dict[str, _Check] = {}
    for param in params:
        if param.annotation is inspect.Parameter.empty:
            continue
        check = _check_of(_resolved(param.annotation, func))
        if check is not None:
            checks[param.name] = check
    return _Spec(
        signature=signature.replace(parameters=params),
        positional=positional,
        keywords=frozenset(
            p.name for p in params if p.kind in (kind.POSITIONAL_OR_KEYWORD, kind.KEYWORD_ONLY)
        ),
        required=tuple(
            (
                positional.index(p.name) if p.name in positional else None,
                None if p.kind is kind.POSITIONAL_ONLY else p.name,
            )
            for p in params
            if p.default is kind.empty and p.kind not in (kind.VAR_POSITIONAL, kind.VAR_KEYWORD)
        ),
        var_args=next((p.name for p in params if p.kind is kind.VAR_POSITIONAL), None),
        var_kwargs=next((p.name for p in params if p.kind is kind.VAR_KEYWORD), None),
        checks=checks,
    )


def _bound(spec: _Spec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
    """``(parameter, value)`` of each argument (a ``*args`` / ``**kwargs`` value under
    that parameter's name), or :class:`TypeError` as Python's own call would raise it."""
    n = len(spec.positional)
    fits = (len(args) <= n or spec.var_args is not None) and all(
        (k in spec.keywords or spec.var_kwargs is not None)
        and k not in spec.positional[: len(args)]
        for k in kwargs
    )
    fits = fits and all(
        (at is not None and at < len(args)) or (name is not None and name in kwargs)
        for at, name in spec.required
    )
    if not fits:  # the signature decides (and says why: unknown keyword, missing argument …)
        kinds = {p.name: p.kind for p in spec.signature.parameters.values()}
        pairs: list[tuple[str, Any]] = []
        for key, value in spec.signature.bind(*args, **kwargs).arguments.items():
            if kinds[key] is inspect.Parameter.VAR_POSITIONAL:
                pairs += [(key, v) for v in value]
            elif kinds[key] is inspect.Parameter.VAR_KEYWORD:
                pairs += [(key, v) for v in value.values()]
            else:
                pairs.append((key, value))
        return pairs
    pairs = list(zip(spec.positional, args, strict=False))
    pairs += [(spec.var_args or "", v) for v in args[n:]]
    pairs += [(k if k in spec.keywords else spec.var_kwargs or "", v) for k, v in kwargs.items()]
    return pairs


def _described(value: object, expected: str) -> str:
    """What ``value`` is, for an error: its type and, when ``expected`` names the items'
    type, the type of the first item that is not a mapping.

    >>> _described(5, "a sequence"), _described([{"content": "x"}, 3], "each item a mapping")
    ('int', 'list with an item of type int')
    """
    kind = type(value).__name__
    if "each item a mapping" in expected and isinstance(value, list | tuple):
        odd = next((v for v in value if not isinstance(v, abc.Mapping)), None)
        if odd is not None:
            return f"{kind} with an item of type {type(odd).__name__}"
    return kind


def _refuse(name: str, problem: str, field: str) -> typing.NoReturn:
    raise ValidationFailed(
        f"{name}: {problem}",
        errors=((field, problem),),
        hint=f"see help() of {name} for its arguments",
    )


def check_call(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    name: str = "",
) -> None:
    """Raise :class:`ValidationFailed` unless ``args`` / ``kwargs`` fit method ``func``
    (its ``self`` left out): every argument known and given, each of its annotated type.
    ``name``: what the error calls the method (default: ``func``'s name).
    """
    spec = _spec(func)
    try:
        pairs = _bound(spec, args, kwargs)
    except TypeError as exc:  # unknown keyword, missing or surplus argument
        _refuse(name or func.__name__, str(exc), "arguments")
    for param_name, value in pairs:
        check = spec.checks.get(param_name)
        if check is not None and not check[0](value):
            problem = f"{param_name} must be {check[1]}, not {_described(value, check[1])}"
            _refuse(name or func.__name__, problem, param_name)


def checked_method(method: F) -> F:
    """``method`` (a function of a class) checking its arguments first (:func:`check_call`).

    >>> class Box:
    ...     @checked_method
    ...     def put(self, item: str) -> str:
    ...         return item
    >>> Box().put(item="x")
    'x'
    >>> Box().put(["x"])
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: put: item must be str, not list
    """

    @functools.wraps(method)
    def call(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        check_call(method, args, kwargs)
        return method(self, *args, **kwargs)

    return typing.cast(F, call)
