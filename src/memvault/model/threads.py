"""The agent's thread ids: ``<orchestrator>:<channel>:<user>``, unsafe characters as ``_``.

The agent keys its checkpoints and delta headers by them; erasure finds an
erased user's threads by the same rule, on SQLite and PostgreSQL checkpoints.

>>> agent_thread_id("acme", "slack #ops", "al")
'acme:slack__ops:al'
>>> thread_affixes("acme", "al b")
('acme:', ':al_b')
"""

from __future__ import annotations

import re

__all__ = ["agent_thread_id", "thread_affixes", "thread_prefix"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@\-]")


def agent_thread_id(orchestrator: str, channel: str, user: str) -> str:
    """The thread of (orchestrator, channel, user), at most 128 characters.

    >>> agent_thread_id("acme", "web", "bea@example.com")
    'acme:web:bea@example.com'
    """
    return _UNSAFE.sub("_", f"{orchestrator}:{channel}:{user}")[:128]


def thread_prefix(orchestrator: str) -> str:
    """What every thread of ``orchestrator`` starts with.

    >>> thread_prefix("acme")
    'acme:'
    """
    return _UNSAFE.sub("_", f"{orchestrator}:")


def thread_affixes(orchestrator: str, user: str) -> tuple[str, str]:
    """The prefix and suffix every thread of (orchestrator, any channel, user) has.

    >>> thread_affixes("acme", "al")
    ('acme:', ':al')
    """
    return thread_prefix(orchestrator), _UNSAFE.sub("_", f":{user}")
