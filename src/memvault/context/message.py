"""The per-message bundle: delta header (if anything changed) plus the bulletin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memvault.context.bulletin import Bulletin
from memvault.context.delta import DeltaHeader

__all__ = ["MessageContext"]


@dataclass(frozen=True, slots=True)
class MessageContext:
    """What to put before the selector/step prompt of one message.

    >>> from memvault.context.bulletin import BulletinConfig, empty_bulletin
    >>> MessageContext(None, empty_bulletin(BulletinConfig())).text.startswith("<memory-bulletin")
    True
    """

    delta: DeltaHeader | None
    bulletin: Bulletin

    @property
    def text(self) -> str:
        """Delta header first (spec §1: "emit on retrieval as first lines"), then the bulletin."""
        if self.delta is None:
            return self.bulletin.text
        return f"{self.delta.text}\n\n{self.bulletin.text}"

    def to_json(self) -> dict[str, Any]:
        data = self.bulletin.to_json()
        data["delta"] = self.delta.to_json() if self.delta else None
        return data
