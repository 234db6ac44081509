"""What a pass needs from the engine, and the error a disabled drop folder raises.

>>> IngestDisabledError().hint
'set memory.ingest.enabled = true to process the drop folder'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from memvault.embed.base import Embedder
from memvault.errors import ConfigError
from memvault.ingest.judge import Judge, JudgeMany
from memvault.layout import RuntimeLayout
from memvault.store.base import Store
from memvault.write import SimilarityBands
from memvault.write.pipeline import WritePipeline

__all__ = ["IngestContext", "IngestDisabledError", "LogFn", "Progress"]

#: ``(files done, files total, name of the file just finished)``.
Progress = Callable[[int, int, str], None]
#: ``log(level, event, **fields)`` — a JSON line in ``logs/memory.log``.
LogFn = Callable[..., None]


class IngestDisabledError(ConfigError):
    """``memory.ingest.enabled`` (or ``memory.enabled``) is false: the drop folder is not read."""

    def __init__(self, setting: str = "memory.ingest.enabled") -> None:
        super().__init__(
            f"ingestion is disabled ({setting} = false); nothing was read",
            hint=f"set {setting} = true to process the drop folder",
        )


@dataclass(frozen=True)
class IngestContext:
    """What a pass needs from the engine: store, scope, gate, embedder, clock and log.

    ``embedder`` is the engine's (``None``: stored without vectors, with
    ``embedder_error`` as the manifest's reason); ``bands`` and
    ``merge_nudge`` are the engine's capture settings, so a merge means the
    same thing here as in capture.
    """

    store: Store
    orchestrator: str
    layout: RuntimeLayout
    judge: Judge
    now: Callable[[], str]
    #: The write pipeline: builds the nodes and each file's write set.
    writes: WritePipeline
    log: LogFn | None = None
    workspace_roots: tuple[Path, ...] = ()
    actor: str | None = None
    embedder: Embedder | None = None
    embedder_error: str | None = None
    bands: Mapping[str, SimilarityBands] | None = None
    merge_nudge: float = 0.05
    #: the gate on a file's nodes at once (exactly ``judge`` per node); None: one by one
    judge_many: JudgeMany | None = None
    #: gate each window on a thread of its own that hands it to the gate's second
    #: process (``policy.parallel_gate``) while this thread commits the previous one
    offload_gate: bool = False
