"""The gate's inputs: a write candidate and the context it is judged in.

Both are frozen dataclasses (domain objects are data). Enum-valued fields are
typed ``str`` on purpose: a candidate built from untrusted input may carry an
unknown source kind or TTL class, and the gate must answer SCHEMA_INVALID for
it rather than fail to construct the object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memvault.model.enums import MemoryOp, SourceKind
from memvault.policy.allowlist import AgentAllowlist
from memvault.policy.contract import Contract, load_contract
from memvault.policy.learned import LearnedLayer, default_layer
from memvault.policy.normalize import NormalizedText

__all__ = [
    "CONSENT_GATED_KEYS",
    "PROPOSAL_TTL",
    "Candidate",
    "Caps",
    "ClassifierHook",
    "ConsentState",
    "GateContext",
    "Usage",
]

#: Optional classifier hook: text -> [(family, reason), ...]. Off by default.
ClassifierHook = Callable[[str], list[tuple[str, str]]]

#: Fields that change how memvault addresses the user; applying them needs the
#: user's explicit consent (implementation-spec §10).
CONSENT_GATED_KEYS = frozenset({"preferred_name", "pronouns", "city", "language"})

#: Consent proposals expire after seven days (DESIGN §2.4).
PROPOSAL_TTL = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One write the gate judges.

    ``text`` is what the write says (the natural-language memory); ``value``
    defaults to it. ``op`` is a :class:`~memvault.model.enums.MemoryOp` value;
    restore is judged as ``UPDATE``. Provenance flags:

    * ``triggered_by_tool_output`` — the write was prompted by tool output,
      retrieved web text or assistant output (INV-4: refused);
    * ``proposal`` — a theory-of-mind or consolidation proposal that needs the
      user's consent (``proposal_id`` and ``proposed_at`` identify and date it).

    ``provenance_ids``: the write's provenance ids as ``(field, value)`` pairs
    (``conversation_id``, ``workflow_run_id``, ``step_id``, ``run_id``,
    ``actor_id``, ``role``). They are ids, never text: the gate refuses one that
    holds whitespace or a control character, as it does a prose ``source_ref``.

    ``vector`` / ``vector_model``: the text's document vector, when the caller
    already computed it (the write path embeds every candidate once), and the
    ``model_id`` of the embedder that did. The learned layer reads it instead
    of embedding again when the model is the one its heads were trained on.
    """

    text: str
    key: str | None = None
    value: str | None = None
    declared_category: str | None = None
    type: str | None = None
    source_kind: str = SourceKind.USER_EXPLICIT
    source_ref: str | None = None
    ttl_class: str | None = None
    consent: bool = False
    caller_agent: str | None = None
    op: str = MemoryOp.STORE
    memory_id: str | None = None
    triggered_by_tool_output: bool = False
    proposal: bool = False
    proposal_id: str | None = None
    proposed_at: datetime | None = None
    provenance_ids: tuple[tuple[str, str], ...] = ()
    vector: Any = field(default=None, compare=False, repr=False)
    vector_model: str | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Caps:
    """Entitlement limits (DESIGN §4). ``None`` disables a limit."""

    per_turn: int | None = 3
    per_session: int | None = 100
    per_user_daily: int | None = 500


@dataclass(frozen=True, slots=True)
class Usage:
    """Writes already made, counted by the caller (the engine owns the counters)."""

    turn: int = 0
    session: int = 0
    user_today: int = 0


@dataclass(frozen=True, slots=True)
class ConsentState:
    """What the user has explicitly consented to.

    ``granted_keys`` are consent-gated keys the user confirmed; ``granted_proposals``
    are proposal ids the user accepted, with the time of acceptance.
    """

    granted_keys: frozenset[str] = frozenset()
    granted_proposals: frozenset[str] = frozenset()
    gated_keys: frozenset[str] = CONSENT_GATED_KEYS
    proposal_ttl: timedelta = PROPOSAL_TTL


@dataclass(frozen=True, slots=True)
class GateContext:
    """Everything besides the candidate that a decision depends on.

    ``now`` makes proposal expiry deterministic (defaults to the current UTC
    time when the gate runs). ``classifier`` is an optional hook — a callable
    from text to a list of ``(family, reason)`` pairs — that is off (None) by
    default; the gate never needs a network or an LLM. ``learned`` is the
    learned layer (:mod:`memvault.policy.learned`): by default the shipped one
    (``default_layer()``, loaded and verified once per process) — on every path
    that judges a write; ``learned=None`` leaves the pattern detectors alone
    (tests of other checks, ``bench governance --encoder off``).

    ``normalized``: fields a batched entry already normalised, by original
    text — each value is ``normalize(key)``, so the gate reads it instead of
    normalising the same text again (``policy.parallel.judge_candidates``
    primes the learned heads with these); the decision is the same.
    """

    contract: Contract = field(default_factory=load_contract)
    policy_enabled: bool = True
    caps: Caps = field(default_factory=Caps)
    usage: Usage = field(default_factory=Usage)
    consent: ConsentState = field(default_factory=ConsentState)
    allowlist: AgentAllowlist | None = None
    now: datetime | None = None
    classifier: ClassifierHook | None = None
    learned: LearnedLayer | None = field(default_factory=default_layer)
    normalized: Mapping[str, NormalizedText] | None = field(default=None, repr=False)

    def current_time(self) -> datetime:
        return self.now if self.now is not None else datetime.now(UTC)
