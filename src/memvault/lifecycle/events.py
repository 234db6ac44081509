"""Operational events derived from a write (spec §14); defined by the write pipeline.

>>> from memvault.store.base import WriteSet
>>> with_op_events(WriteSet("acme", "2026-01-01T00:00:00.000000Z"), "hotpath").op_events
()
"""

from __future__ import annotations

from memvault.write.commit import OP_OF_HISTORY, with_op_events

__all__ = ["OP_OF_HISTORY", "with_op_events"]
