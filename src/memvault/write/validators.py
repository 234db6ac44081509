"""Validator steps every write kind runs through the pipeline (``WritePipeline.validators``).

:func:`writing_constraints` is the writing-constraints check (implementation
spec §9) that capture's extractor always applied to its own statements, now
applied to every new semantic memory whatever wrote it — ``add``, capture,
ingest: a stored fact, preference, decision, goal or todo is a self-contained
third-person statement of one or two sentences, not a pasted transcript.
Episodic records (events, observations) and procedures (numbered steps) keep
their own shapes.

>>> from memvault.model.enums import MemoryOp
>>> from memvault.write.validators import writing_constraints, problems_of
>>> problems_of("Dana prefers tea. She hates coffee. She drinks water. She likes juice.")
('too_many_sentences',)
>>> problems_of("Dana prefers tea over coffee.")
()
"""

from __future__ import annotations

from memvault.extract.constraints import check_statement
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, MemoryType, StopReason
from memvault.model.node import MemoryNode

__all__ = ["CHECKED", "SEMANTIC_TYPES", "problems_of", "writing_constraints"]

#: The memory types held to the writing constraints.
SEMANTIC_TYPES = frozenset(
    {MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.DECISION, MemoryType.GOAL, MemoryType.TODO}
)
#: The constraints enforced on every write (length is bounded by the schema). Pronouns
#: are left to the writers that rewrite them (capture): callers of ``add`` and JSON
#: ingest state their own subjects, and existing stores hold such statements.
CHECKED = frozenset({"too_many_sentences", "role_marker"})


def problems_of(content: str) -> tuple[str, ...]:
    """The enforced writing constraints ``content`` violates (empty: fine)."""
    return tuple(p for p in check_statement(content, max_chars=10**9) if p in CHECKED)


def writing_constraints(op: MemoryOp, node: MemoryNode) -> Decision | None:
    """A validator step: ``None`` when a new semantic memory is a proper statement."""
    if op is not MemoryOp.STORE or node.type not in SEMANTIC_TYPES:
        return None
    problems = problems_of(node.content)
    if not problems:
        return None
    return Decision(
        StopReason.SCHEMA_INVALID,
        detector="validator.writing_constraints",
        reason=(
            "a stored statement is one or two sentences, not a pasted transcript "
            f"({', '.join(problems)})"
        ),
    )
