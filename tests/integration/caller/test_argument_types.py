"""A wrong argument type on a public façade is bad input (ValidationFailed), not a crash.

``engine.get(5)`` raised ``TypeError: 'int' object is not subscriptable``,
``list_memories(limit="5")`` a comparison TypeError, ``add_many(["x"])`` a ValueError
from ``dict()``, ``record_event(unknown_kw=1)`` a TypeError from a service three calls
down. Every public method of the engine, of its async face and of a caller's façade now
checks its arguments against its own signature in one place (engine/_args.py).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memvault.engine import AsyncMemoryEngine, Grant, MemoryEngine
from memvault.engine._aio import async_methods
from memvault.errors import ValidationFailed
from memvault.model.enums import StopReason

from .conftest import PREF

#: the calls of the finding, and what each names
BAD_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any], str]] = [
    ("get", (5,), {}, "memory_id"),
    ("list_memories", (), {"limit": "5"}, "limit"),
    ("list_memories", (), {"offset": 2.5}, "offset"),
    ("add_many", (["x"],), {}, "items"),
    ("record_event", ("context", "search"), {"unknown_kw": 1}, "arguments"),
    ("record_event", (), {}, "arguments"),  # node and op missing
    ("delete", (None,), {}, "memory_id"),
    ("history", (["m1"],), {}, "memory_id"),
    ("count_memories", (5,), {}, "filters"),
    ("search", ("tea",), {"top_k": "ten"}, "top_k"),
    ("confirm_proposal", (7,), {}, "proposal_id"),
    ("capture_message", (5,), {}, "message"),
    ("add", (), {"thread_id": "t1"}, "arguments"),  # the memory missing
    ("add_many", ([{"content": "x"}],), {"index_texts": "abc"}, "index_texts"),
]


def _refused(call: Callable[[], Any], field: str) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        call()
    assert caught.value.stop_reason is StopReason.SCHEMA_INVALID
    assert [f for f, _ in caught.value.errors] == [field], caught.value.errors
    return caught.value


@pytest.mark.parametrize(("name", "args", "kwargs", "field"), BAD_CALLS)
def test_the_engine_refuses_a_wrong_argument_as_bad_input(
    engine: MemoryEngine, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], field: str
) -> None:
    method = getattr(engine, name)
    error = _refused(lambda: method(*args, **kwargs), field)
    assert str(error).startswith(f"{name}: "), str(error)


@pytest.mark.parametrize(("name", "args", "kwargs", "field"), BAD_CALLS)
def test_a_callers_facade_refuses_a_wrong_argument_as_bad_input(
    engine: MemoryEngine, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], field: str
) -> None:
    for grant in (Grant("svc", all_users=True), Grant("dana", user="dana")):
        if name == "record_event" and grant.user is not None:
            continue  # refused to a bound key whatever its arguments (user_bound)
        method = getattr(engine.as_caller(grant), name)
        _refused(lambda m=method: m(*args, **kwargs), field)


def test_the_async_face_refuses_a_wrong_argument_as_bad_input(tmp_path: Path) -> None:
    async def run() -> None:
        engine = await AsyncMemoryEngine.open(tmp_path, "acme", embedder=None)
        try:
            with pytest.raises(ValidationFailed, match="memory_id must be str, not int"):
                await engine.get(5)  # type: ignore[arg-type]
            with pytest.raises(ValidationFailed, match="items"):
                await engine.add_many(["x"])  # type: ignore[list-item]
        finally:
            await engine.close()

    asyncio.run(run())


def test_nothing_is_written_or_lost_by_a_refused_call(engine: MemoryEngine) -> None:
    good = {"content": "Dana prefers oat milk", **PREF}
    with pytest.raises(ValidationFailed):
        engine.add_many([good, "Dana prefers soy milk"])  # type: ignore[list-item]
    assert engine.count_memories() == 0
    assert [r.ok for r in engine.add_many([good])] == [True]
    assert engine.list_memories(limit=5)[0].content == "Dana prefers oat milk"


def _keyword_checked(function: Callable[..., Any]) -> bool:
    kinds = {p.kind for p in inspect.signature(function).parameters.values()}
    return inspect.Parameter.VAR_KEYWORD not in kinds


def test_every_public_method_refuses_an_unknown_keyword(engine: MemoryEngine) -> None:
    """No public method of the engine or of a caller's façade lets an unknown keyword
    reach its implementation (a method taking ``**fields`` checks those itself)."""
    names = sorted(n for n, f in async_methods().items() if _keyword_checked(f))
    assert {"get", "list_memories", "add_many", "bulletin", "as_caller"} <= set(names)
    caller = engine.as_caller(Grant("svc", all_users=True))
    for facade in (engine, caller):
        for name in names:
            if facade is caller and name in ("acting", "as_caller"):
                continue  # not on a caller's façade at all
            method = getattr(facade, name)
            with pytest.raises(ValidationFailed, match=r"unexpected keyword|missing a required"):
                method(not_an_argument=1)
    assert engine.count_memories() == 0


def test_the_error_names_the_item_that_is_not_a_mapping(engine: MemoryEngine) -> None:
    """``add_many([NewMemory(...)])`` said "not list" of a list: it names the item's type."""
    from memvault.write.spec import NewMemory

    memory = NewMemory(content="Dana prefers oat milk", **PREF)
    with pytest.raises(ValidationFailed, match="an item of type NewMemory"):
        engine.add_many([memory])  # type: ignore[list-item]
    assert [r.ok for r in engine.add_many([memory.model_dump(exclude_none=True)])] == [True]
