"""The model boundary: what the model call node talks to.

:class:`ModelBoundary` is one method, ``complete(messages) -> str``.
:class:`OfflineResponder` is deterministic and needs no model: it answers from
the memory block it is handed, so demos and tests show memory changing the
answer. :class:`OpenAICompatibleModel` posts to any ``/chat/completions``
endpoint (OpenAI, Ollama, vLLM …); it needs ``httpx``.

>>> OfflineResponder().complete([
...     {"role": "system", "content": "<memory>\\n- Dana prefers green tea. [mem_1]\\n</memory>"},
...     {"role": "user", "content": "What tea should I buy?"}])
'From memory: Dana prefers green tea. [mem_1]'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "ChatMessage",
    "ModelBoundary",
    "ModelError",
    "OfflineResponder",
    "OpenAICompatibleModel",
    "memory_lines",
]

ChatMessage = Mapping[str, str]

_MEMORY = re.compile(r"<memory>\n(.*?)\n</memory>", re.S)
_WORD = re.compile(r"[a-z0-9]+")
_CITED = re.compile(r"\[(mem_[A-Za-z0-9_]+)\]")
_STOP = frozenset(
    "the and for with what which that this from have has was were are you your about "
    "should would could does did into over under open todo decision diagnostics evidence "
    "memory memories relevant request source".split()
)


class ModelError(Exception):
    """The model endpoint failed (network, HTTP status, or an unexpected body)."""


@runtime_checkable
class ModelBoundary(Protocol):
    """A chat model: role/content messages in, the assistant's text out."""

    def complete(self, messages: Sequence[ChatMessage]) -> str: ...


def memory_lines(messages: Sequence[ChatMessage]) -> list[str]:
    """The cited ``- … [mem_…]`` lines inside the ``<memory>`` block of the system message(s)."""
    lines: list[str] = []
    for m in messages:
        if m.get("role") != "system":
            continue
        for block in _MEMORY.findall(m.get("content", "")):
            lines.extend(ln[2:].strip() for ln in block.splitlines() if ln.startswith("- "))
    seen: dict[str, str] = {}
    for line in lines:  # cited lines only, one per memory (bulletin and recall may both cite it)
        cited = _CITED.search(line)
        if cited:
            seen.setdefault(cited[1], line)
    return list(seen.values())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}


class OfflineResponder:
    """A deterministic stand-in for a model that quotes the memory most related to the ask.

    The answer is "From memory: <up to ``max_items`` lines>" when memory holds
    lines sharing words with the user's message, else "No stored context.".
    """

    def __init__(self, max_items: int = 2) -> None:
        self.max_items = max_items

    def complete(self, messages: Sequence[ChatMessage]) -> str:
        ask = " ".join(m.get("content", "") for m in messages if m.get("role") == "user")
        wanted = _words(ask)
        scored = [
            (len(wanted & _words(line)), -i, line) for i, line in enumerate(memory_lines(messages))
        ]
        best = [line for score, _, line in sorted(scored, reverse=True) if score > 0]
        if not best:
            return "No stored context."
        return "From memory: " + " | ".join(best[: self.max_items])


class OpenAICompatibleModel:
    """An OpenAI-compatible chat-completions client (``POST {base_url}/chat/completions``).

    >>> m = OpenAICompatibleModel("http://localhost:11434/v1", model="llama3.2")
    >>> m.url
    'http://localhost:11434/v1/chat/completions'
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        temperature: float = 0.0,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.temperature = temperature

    def complete(self, messages: Sequence[ChatMessage]) -> str:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - httpx ships with the dev/serve extras
            raise ModelError("the OpenAI-compatible model needs httpx: pip install httpx") from exc
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.temperature,
        }
        try:
            response = httpx.post(self.url, json=body, headers=headers, timeout=self.timeout_s)
            response.raise_for_status()
            data = response.json()
            return str(data["choices"][0]["message"]["content"])
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise ModelError(f"{self.url}: {type(exc).__name__}: {exc}") from exc
