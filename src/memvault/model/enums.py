"""Every closed vocabulary of the memory model (DESIGN §1.2, §2.2).

Values are exact strings: ``MemoryType("Fact")`` works, ``MemoryType("fact")``
raises. They are ``StrEnum`` so they serialise as their value everywhere.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "STOP_PRIORITY",
    "CapturedBy",
    "ChangeKind",
    "EdgeType",
    "HistoryOp",
    "MemoryOp",
    "MemoryStatus",
    "MemoryType",
    "SourceKind",
    "SourceType",
    "StopReason",
    "TTLClass",
]


class MemoryType(StrEnum):
    """What a memory node means (the typed graph's node types)."""

    FACT = "Fact"
    PREFERENCE = "Preference"
    DECISION = "Decision"
    IDENTITY = "Identity"
    EVENT = "Event"
    OBSERVATION = "Observation"
    GOAL = "Goal"
    TODO = "Todo"
    PROCEDURE = "Procedure"


class EdgeType(StrEnum):
    """How two memory nodes relate."""

    RELATED_TO = "RelatedTo"
    UPDATES = "Updates"
    CONTRADICTS = "Contradicts"
    CAUSED_BY = "CausedBy"
    PART_OF = "PartOf"


class MemoryStatus(StrEnum):
    """Life state of a node. Only ``active`` nodes are recalled by default."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    SOFT_DELETED = "soft_deleted"


class SourceType(StrEnum):
    """Where a memory's provenance comes from (memory-subsystem spec)."""

    WORKFLOW_OUTPUT = "workflow_output"
    CHANNEL_TRANSCRIPT = "channel_transcript"
    INGEST_FILE = "ingest_file"
    DIAGNOSTICS = "diagnostics"
    MANUAL = "manual"


class CapturedBy(StrEnum):
    """Who captured a memory."""

    EXTRACTOR = "extractor"
    USER = "user"
    SYSTEM = "system"


class SourceKind(StrEnum):
    """Governance origin of a memory (contract §2.2)."""

    USER_EXPLICIT = "USER_EXPLICIT"
    SYSTEM_KNOWN = "SYSTEM_KNOWN"
    CITED_SOURCE = "CITED_SOURCE"
    DERIVED_UNVERIFIED = "DERIVED_UNVERIFIED"


class MemoryOp(StrEnum):
    """Operations the governance contract knows (contract §2.3)."""

    STORE = "STORE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    READ = "READ"
    LIST = "LIST"


class TTLClass(StrEnum):
    """Retention class (contract §2.4)."""

    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"


class StopReason(StrEnum):
    """The exactly-one outcome of every memory operation (contract §6)."""

    SUCCESS_STORED = "SUCCESS_STORED"
    SUCCESS_UPDATED = "SUCCESS_UPDATED"
    SUCCESS_DELETED = "SUCCESS_DELETED"
    POLICY_DISABLED = "POLICY_DISABLED"
    ENTITLEMENT_CAP = "ENTITLEMENT_CAP"
    FORBIDDEN_CATEGORY = "FORBIDDEN_CATEGORY"
    MISSING_EXPLICIT_CONSENT = "MISSING_EXPLICIT_CONSENT"
    NO_SOURCE_DERIVED_FACT = "NO_SOURCE_DERIVED_FACT"
    INJECTION_DETECTED = "INJECTION_DETECTED"
    SCHEMA_INVALID = "SCHEMA_INVALID"
    BOUNDS_EXCEEDED = "BOUNDS_EXCEEDED"
    TTL_NOT_ALLOWED = "TTL_NOT_ALLOWED"
    INTERNAL_INCONSISTENCY = "INTERNAL_INCONSISTENCY"

    @property
    def is_success(self) -> bool:
        """True for the three ``SUCCESS_*`` reasons."""
        return self.value.startswith("SUCCESS_")

    @property
    def priority(self) -> int:
        """Rank in the contract's §7 order: 0 is the highest priority."""
        return STOP_PRIORITY.index(self)


#: Contract §7, highest priority first. The three successes share the last rank
#: in the contract; they are listed last here and never compete with each other
#: because one operation can only succeed in one way.
STOP_PRIORITY: tuple[StopReason, ...] = (
    StopReason.INTERNAL_INCONSISTENCY,
    StopReason.INJECTION_DETECTED,
    StopReason.FORBIDDEN_CATEGORY,
    StopReason.POLICY_DISABLED,
    StopReason.ENTITLEMENT_CAP,
    StopReason.MISSING_EXPLICIT_CONSENT,
    StopReason.NO_SOURCE_DERIVED_FACT,
    StopReason.SCHEMA_INVALID,
    StopReason.BOUNDS_EXCEEDED,
    StopReason.TTL_NOT_ALLOWED,
    StopReason.SUCCESS_STORED,
    StopReason.SUCCESS_UPDATED,
    StopReason.SUCCESS_DELETED,
)


class HistoryOp(StrEnum):
    """Kinds of audit events written to ``history``."""

    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    RESTORE = "RESTORE"
    LINK = "LINK"
    MERGE = "MERGE"
    SUPERSEDE = "SUPERSEDE"
    TTL = "TTL"
    PURGE = "PURGE"
    REFUSE = "REFUSE"
    SCOPE_DENIED = "SCOPE_DENIED"


class ChangeKind(StrEnum):
    """Change-log kinds shown in the delta header (implementation-spec §1)."""

    CREATED = "created"
    UPDATED = "updated"
    MERGED = "merged"
    DELETED = "deleted"
    SOFT_DELETED = "soft_deleted"
    RESTORED = "restored"
