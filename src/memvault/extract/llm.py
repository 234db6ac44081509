"""Optional LLM extractor: an OpenAI-compatible chat-completions endpoint (off by default).

Implements :class:`~memvault.extract.base.Extractor`. It asks the model for
1–5 candidate memories as JSON (``response_format`` with a JSON schema),
validates every statement with the writing constraints, and falls back to the
rule extractor on **any** failure — no ``httpx`` installed, timeout, HTTP
error, budget spent, daily cap reached, malformed JSON, a type or category the
schema does not know. The turn is never lost to the LLM.

Cost control: a per-request timeout, retries with exponential backoff inside a
total time budget, a per-user daily cap (in process), and a minimum turn
length below which the rules answer alone (spec §13: "trigger only when the
user turn length > N chars").

>>> from datetime import UTC, datetime
>>> from memvault.extract.base import Message
>>> x = LLMExtractor(LLMConfig(base_url="http://127.0.0.1:9", model="m", max_retries=0,
...                            timeout_s=0.2, budget_s=0.5, min_chars=0))
>>> r = x.extract(Message(text="I love coffee", speaker="Dana"), now=datetime.now(UTC))
>>> r.extractor, [c.content for c in r.candidates]
('rules', ['Dana loves coffee.'])
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from memvault.extract.base import Candidate, Extraction, Message, Role
from memvault.extract.constraints import check_statement, normalise_statement
from memvault.extract.dates import resolve_relative_dates
from memvault.extract.rules import MAX_CANDIDATES, RuleExtractor
from memvault.extract.sensitive import sensitive_slot
from memvault.extract.text import has_negation, slug
from memvault.model.enums import MemoryType, TTLClass

__all__ = ["CANDIDATE_SCHEMA", "LLMConfig", "LLMExtractor"]

_CATEGORIES = (
    "PREFERENCE",
    "WORKFLOW_DEFAULT",
    "PROJECT_CONFIG",
    "CONSTRAINT",
    "REMINDER",
    "KNOWLEDGE",
    "EVENT",
    "DECISION",
    "GOAL",
    "TODO",
)
_TYPES = ("Fact", "Preference", "Decision", "Event", "Goal", "Todo")

#: The JSON schema the model must answer with (OpenAI ``response_format``).
CANDIDATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["memories"],
    "properties": {
        "memories": {
            "type": "array",
            "maxItems": MAX_CANDIDATES,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["content", "type", "category", "key", "value", "importance"],
                "properties": {
                    "content": {"type": "string", "maxLength": 280},
                    "type": {"type": "string", "enum": list(_TYPES)},
                    "category": {"type": "string", "enum": list(_CATEGORIES)},
                    "key": {"type": "string", "maxLength": 128},
                    "value": {"type": "string", "maxLength": 256},
                    "importance": {"type": "integer", "minimum": 0, "maximum": 100},
                },
            },
        }
    },
}

_SYSTEM = (
    "Extract durable memories about the user from the user's own message. Return 0-5 items. "
    "Each content is a complete, self-contained, third-person statement using the name {name} "
    "instead of pronouns; neutral tone; 1-2 sentences; at most 280 characters; resolve relative "
    "dates against {today}. Skip small talk, questions, anything about the assistant's own "
    "output, and anything sensitive (health, religion, sexuality, politics, credentials, "
    "government ids, precise location). key is a short snake_case slot name such as city "
    "or likes.coffee; value is the slot's value."
)


class LLMConfig(BaseModel):
    """Settings of the LLM extractor (validated once; unknown keys fail)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str = "http://127.0.0.1:11434/v1"
    model: str = "qwen2.5:0.5b-instruct"
    #: The endpoint's key, given by the entry point (this module reads no environment).
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=5.0, gt=0, le=120)
    max_retries: int = Field(default=2, ge=0, le=10)
    budget_s: float = Field(default=8.0, gt=0, le=600)
    backoff_s: float = Field(default=0.2, ge=0, le=10)
    daily_cap_per_user: int = Field(default=200, ge=0)
    min_chars: int = Field(default=40, ge=0)
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=400, gt=0, le=4000)


class _Failure(Exception):
    """Anything that sends the turn to the rule extractor."""


class LLMExtractor:
    """Candidates from an OpenAI-compatible endpoint, rules on any failure.

    ``sleep`` and ``today`` are injectable for tests (no real waiting).
    """

    name = "llm"

    def __init__(
        self,
        config: LLMConfig | None = None,
        *,
        fallback: RuleExtractor | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config or LLMConfig()
        self.fallback = fallback or RuleExtractor()
        self.sleep = sleep
        self._lock = threading.Lock()
        self._usage: dict[tuple[str, str], int] = {}

    def _spend(self, user: str, day: str) -> bool:
        """Count one call against the user's daily cap; False when the cap is reached."""
        with self._lock:
            used = self._usage.get((user, day), 0)
            if used >= self.config.daily_cap_per_user:
                return False
            self._usage = {k: v for k, v in self._usage.items() if k[1] == day}
            self._usage[(user, day)] = used + 1
            return True

    def extract(self, message: Message, *, now: datetime) -> Extraction:
        """LLM candidates for a user turn; the rule extractor's on any failure."""
        if message.role is not Role.USER:
            return Extraction(extractor=self.name, skipped=f"role {message.role.value!r}")
        moment = message.at or now
        if len(message.text) < self.config.min_chars:
            return self.fallback.extract(message, now=now)
        if not self._spend(message.user_id or "-", moment.date().isoformat()):
            return self._fallback(message, now, "daily cap reached")
        try:
            raw = self._call(message, moment)
            return self._parse(raw, message, moment)
        except _Failure as exc:
            return self._fallback(message, now, str(exc))
        except Exception as exc:  # the contract: any failure falls back
            return self._fallback(message, now, f"{type(exc).__name__}: {exc}")

    def _fallback(self, message: Message, now: datetime, why: str) -> Extraction:
        rules = self.fallback.extract(message, now=now)
        return Extraction(
            rules.candidates,
            (f"llm: {why}; fell back to rules"[:200], *rules.errors),
            extractor="rules",
            dropped=rules.dropped,
        )

    def _call(self, message: Message, moment: datetime) -> str:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - httpx is present in dev installs
            raise _Failure("httpx is not installed (pip install 'memvault[openai]')") from exc
        cfg = self.config
        headers = {"Content-Type": "application/json"}
        if cfg.api_key is not None:
            headers["Authorization"] = f"Bearer {cfg.api_key.get_secret_value()}"
        body = {
            "model": cfg.model,
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
            "messages": [
                {
                    "role": "system",
                    "content": _SYSTEM.format(
                        name=message.subject, today=moment.date().isoformat()
                    ),
                },
                {"role": "user", "content": message.text},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "memories", "strict": True, "schema": CANDIDATE_SCHEMA},
            },
        }
        deadline = time.monotonic() + cfg.budget_s
        url = cfg.base_url.rstrip("/") + "/chat/completions"
        last = "no attempt"
        for attempt in range(cfg.max_retries + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                response = httpx.post(
                    url, json=body, headers=headers, timeout=min(cfg.timeout_s, remaining)
                )
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}"
            else:
                if response.status_code == 200:
                    data = response.json()
                    return str(data["choices"][0]["message"]["content"])
                last = f"HTTP {response.status_code}"
                if response.status_code not in (408, 409, 429) and response.status_code < 500:
                    raise _Failure(last)  # a client error will not get better by retrying
            if attempt < cfg.max_retries:
                pause = cfg.backoff_s * (2**attempt)
                if time.monotonic() + pause >= deadline:
                    break
                self.sleep(pause)
        raise _Failure(f"{last} after retries within the {cfg.budget_s:g}s budget")

    def _parse(self, raw: str, message: Message, moment: datetime) -> Extraction:
        try:
            items = json.loads(raw)["memories"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise _Failure(f"malformed JSON answer ({type(exc).__name__})") from exc
        if not isinstance(items, list):
            raise _Failure("memories is not a list")
        candidates: list[Candidate] = []
        dropped: list[tuple[str, str]] = []
        for item in items[:MAX_CANDIDATES]:
            if not isinstance(item, dict):
                raise _Failure("a memory is not an object")
            type_, category = item.get("type"), item.get("category")
            if type_ not in _TYPES or category not in _CATEGORIES:
                raise _Failure(f"unknown type/category {type_!r}/{category!r}")
            content = normalise_statement(
                resolve_relative_dates(str(item.get("content", "")), moment.date())
            )
            problems = check_statement(content)
            if problems:
                dropped.append((content[:280], ",".join(problems)))
                continue
            importance = item.get("importance", 50)
            candidates.append(
                Candidate(
                    content=content,
                    type=MemoryType(type_),
                    category=str(category),
                    key=slug(str(item.get("key") or content), max_words=6)[:128],
                    value=str(item.get("value") or content)[:256],
                    subject=message.subject,
                    negated=has_negation(content),
                    importance=max(0, min(100, int(importance)))
                    if isinstance(importance, int)
                    else 50,
                    confidence=0.8,
                    ttl_class=TTLClass.MEDIUM
                    if category in {"TODO", "REMINDER", "EVENT"}
                    else TTLClass.LONG,
                    rule="llm",
                    said=message.text[:4000],
                    sensitive=sensitive_slot(str(item.get("key") or "")) or "",
                )
            )
        return Extraction(tuple(candidates), extractor=self.name, dropped=tuple(dropped))
