"""The async face of the engine, derived from the sync one (no hand-kept list).

Every public method of :class:`MemoryEngine` becomes a coroutine method of
:class:`AsyncMemoryEngine` that runs the synchronous implementation in a
worker thread, so there is exactly one copy of the logic (STYLE principle 6)
and a method added to the engine is async at once.
``tests/integration/test_engine.py`` checks that the two method sets match.

>>> import inspect
>>> inspect.iscoroutinefunction(AsyncMemoryEngine.memory_query)
True
>>> AsyncMemoryEngine.bulletin.__doc__ == MemoryEngine.bulletin.__doc__
True
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import GeneratorType
from typing import TYPE_CHECKING, Any

from memvault.engine._sync import MemoryEngine

__all__ = ["AsyncMemoryEngine", "async_methods"]

#: Engine methods that are not forwarded as they are (the async face has its own).
_OWN = frozenset({"open", "close"})


def async_methods(cls: type = MemoryEngine) -> dict[str, Callable[..., Any]]:
    """The public methods of ``cls`` the async face forwards, by name.

    >>> "add" in async_methods() and "open" not in async_methods()
    True
    """
    return {
        name: member
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_") and name not in _OWN
    }


def _collected(bound: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``bound``; a generator it returns is collected here, in the worker thread.

    Checked on the result, not the method: ``export_user`` checks its argument at
    once and returns a generator (it is not itself a generator function).

    >>> _collected(lambda n: (i for i in range(n)), 3)
    [0, 1, 2]
    """
    result = bound(*args, **kwargs)
    if isinstance(result, GeneratorType):  # would be consumed on the event loop
        return list(result)
    return result


def _forwarder(name: str, method: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def forward(self: AsyncMemoryEngine, /, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(_collected, getattr(self.sync, name), *args, **kwargs)

    return forward


class AsyncMemoryEngine:
    """The async face of :class:`MemoryEngine`: same methods, as coroutines.

    Each method awaits the synchronous implementation in a worker thread (a
    method that yields records returns them as a list).
    """

    def __init__(self, engine: MemoryEngine) -> None:
        self.sync = engine

    @classmethod
    async def open(
        cls, home: str | Path | None = None, orchestrator: str = "default", **options: Any
    ) -> AsyncMemoryEngine:
        """:meth:`MemoryEngine.open` off the event loop."""
        engine = await asyncio.to_thread(MemoryEngine.open, home, orchestrator, **options)
        return cls(engine)

    async def close(self) -> None:
        """Flush and close the engine (its store) off the event loop."""
        await asyncio.to_thread(self.sync.close)

    async def __aenter__(self) -> AsyncMemoryEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    if TYPE_CHECKING:  # the forwarders below are made at import time

        def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]: ...


for _name, _method in async_methods().items():
    setattr(AsyncMemoryEngine, _name, _forwarder(_name, _method))
