"""Lifecycle settings: one frozen value, validated once, passed to the engine.

>>> LifecyclePolicy().idle_after.days, LifecyclePolicy().purge_after.days
(60, 30)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType

from memvault.errors import ConfigError
from memvault.model.enums import TTLClass

__all__ = ["DEFAULT_CLASS_LIFETIMES", "ConsolidationPolicy", "LifecyclePolicy"]

#: How long a memory of each TTL class may live without being updated.
#: ``None`` means the class adds no cap of its own (only the idle rule applies).
DEFAULT_CLASS_LIFETIMES: Mapping[TTLClass, timedelta | None] = MappingProxyType(
    {
        TTLClass.SHORT: timedelta(days=1),
        TTLClass.MEDIUM: timedelta(days=30),
        TTLClass.LONG: None,
    }
)


@dataclass(frozen=True, slots=True)
class ConsolidationPolicy:
    """The daily consolidation worker's pool, pre-filters and budget (spec §4).

    - pool: memories created or updated within ``recent_window``, or with
      importance at least ``important_min``, or among the most retrieved
      (``access_count`` in the top ``frequent_fraction``), at most
      ``max_candidates`` of them, most recent first;
    - pairs: a candidate and its ``neighbours`` nearest memories of the same
      user and project, both updated within ``max_age``, sharing a content
      word or both carrying numbers, with similarity at least the model's
      ``related`` band;
    - budget: at most ``pairs_per_user_per_day`` pairs per user and UTC day and
      ``time_budget`` of wall time per run; a pair already checked with the
      same rounded score within ``fingerprint_ttl`` is skipped.
    """

    recent_window: timedelta = timedelta(hours=72)
    important_min: int = 60
    frequent_fraction: float = 0.1
    max_candidates: int = 2000
    neighbours: int = 5
    max_age: timedelta = timedelta(days=90)
    pairs_per_user_per_day: int = 50
    fingerprint_ttl: timedelta = timedelta(days=14)
    time_budget: timedelta = timedelta(seconds=60)

    def __post_init__(self) -> None:
        if self.pairs_per_user_per_day < 0 or self.max_candidates < 0 or self.neighbours < 1:
            raise ConfigError("consolidation caps must be non-negative (neighbours ≥ 1)")
        if not 0.0 <= self.frequent_fraction <= 1.0:
            raise ConfigError("frequent_fraction must be within 0..1")


@dataclass(frozen=True, slots=True)
class LifecyclePolicy:
    """TTL, purge, consent and consolidation settings (DESIGN §7).

    - ``idle_after``: a memory untouched this long (no update, no recorded
      access) whose importance is below ``importance_threshold`` and that is
      not pinned is soft-deleted by the sweep.
    - ``class_lifetimes``: a cap per TTL class, measured from the last update,
      that applies whatever the importance (pinned memories are exempt).
    - ``purge_after``: a soft-deleted memory is hard-deleted this long after.
    - ``proposal_ttl``: an unanswered consent proposal expires this long after.
    """

    idle_after: timedelta = timedelta(days=60)
    importance_threshold: int = 60
    class_lifetimes: Mapping[TTLClass, timedelta | None] = field(
        default_factory=lambda: DEFAULT_CLASS_LIFETIMES
    )
    purge_after: timedelta = timedelta(days=30)
    proposal_ttl: timedelta = timedelta(days=7)
    batch_size: int = 200
    consolidation: ConsolidationPolicy = field(default_factory=ConsolidationPolicy)

    def __post_init__(self) -> None:
        if not 0 <= self.importance_threshold <= 101:
            raise ConfigError("importance_threshold must be 0..101")
        for name in ("idle_after", "purge_after", "proposal_ttl"):
            if getattr(self, name) <= timedelta(0):
                raise ConfigError(f"{name} must be positive")
        for ttl_class, lifetime in self.class_lifetimes.items():
            if lifetime is not None and lifetime <= timedelta(0):
                raise ConfigError(f"lifetime of TTL class {ttl_class} must be positive")
        if self.batch_size < 1:
            raise ConfigError("batch_size must be at least 1")

    def lifetime(self, ttl_class: TTLClass) -> timedelta | None:
        return self.class_lifetimes.get(ttl_class)

    def shortest_window(self) -> timedelta:
        """The smallest age at which any rule can expire a memory (a safe pre-filter)."""
        caps = [v for v in self.class_lifetimes.values() if v is not None]
        return min([self.idle_after, *caps])
