"""Operational events derived from a write (spec §14): emit where the data already is.

>>> from memvault.store.base import WriteSet
>>> with_op_events(WriteSet("acme", "2026-01-01T00:00:00.000000Z"), "hotpath").op_events
()
"""

from __future__ import annotations

from dataclasses import replace

from memvault.model.enums import HistoryOp
from memvault.store.base import WriteSet
from memvault.store.records import OpEvent

__all__ = ["OP_OF_HISTORY", "with_op_events"]

#: The operational verb of each audited write.
OP_OF_HISTORY: dict[HistoryOp, str] = {
    HistoryOp.CREATE: "create",
    HistoryOp.UPDATE: "update",
    HistoryOp.DELETE: "delete",
    HistoryOp.RESTORE: "restore",
    HistoryOp.LINK: "link",
    HistoryOp.MERGE: "merge",
    HistoryOp.SUPERSEDE: "supersede",
}


def with_op_events(write: WriteSet, node: str) -> WriteSet:
    """``write`` plus one operational event per audited write it carries.

    A write that already brings its own operational events is returned as is.
    """
    if write.op_events or not write.events:
        return write
    categories = {n.memory_id: n.category for n in write.nodes}
    ops = tuple(
        OpEvent(
            at=e.at,
            node=node,
            op=OP_OF_HISTORY[e.op],
            status="ok",
            memory_id=e.memory_id,
            category=categories.get(e.memory_id or ""),
        )
        for e in write.events
        if e.op in OP_OF_HISTORY
    )
    return replace(write, op_events=ops) if ops else write
