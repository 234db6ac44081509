"""The write path below the engine: resolve (dedup / update / contradiction /
relations) and commit, one transaction per candidate (DESIGN §4).

The engine's ``capture_message`` / ``capture_workflow_output`` /
``capture_diagnostics`` delegate to :class:`CapturePipeline`; the document
ingester reuses :meth:`CapturePipeline.capture_candidates` and the pure
:func:`resolve`.
"""

# Trigger: importing any ``memvault.write.*`` module (``write.spec``'s NewMemory
# for the CLI's ``add`` options) ran this file, which imported the capture
# pipeline and with it the whole gate (~0.5 s on ``memvault --help``).
# Outcome: the names below resolve on first access (PEP 562), as in memvault/__init__.
# ``memvault.write.resolve`` is the module (the pure ``resolve`` function is
# ``memvault.write.resolve.resolve``): a lazy name equal to a submodule's would be
# the module or the function depending on what was imported first.
from typing import TYPE_CHECKING

from memvault._lazy import lazy_getattr

if TYPE_CHECKING:
    from memvault.write.capture import CapturePipeline, GateFn, Provenance, RecallFn
    from memvault.write.config import DEFAULT_BANDS, CaptureConfig, SimilarityBands, bands_for
    from memvault.write.report import CandidateReport, CaptureResult, EdgeRef
    from memvault.write.resolve import NeighbourView, Outcome, Resolution
    from memvault.write.similarity import EmbeddingSimilarity, LexicalSimilarity, Similarity

_LAZY: dict[str, str] = {
    **dict.fromkeys(("CapturePipeline", "GateFn", "Provenance", "RecallFn"), "capture"),
    **dict.fromkeys(("DEFAULT_BANDS", "CaptureConfig", "SimilarityBands", "bands_for"), "config"),
    **dict.fromkeys(("CandidateReport", "CaptureResult", "EdgeRef"), "report"),
    **dict.fromkeys(("NeighbourView", "Outcome", "Resolution"), "resolve"),
    **dict.fromkeys(("EmbeddingSimilarity", "LexicalSimilarity", "Similarity"), "similarity"),
}


#: Import a public name's module on first access (``memvault.write.EdgeRef``).
__getattr__ = lazy_getattr(
    __name__, {name: f"{__name__}.{module}" for name, module in _LAZY.items()}, globals()
)


__all__ = [
    "DEFAULT_BANDS",
    "CandidateReport",
    "CaptureConfig",
    "CapturePipeline",
    "CaptureResult",
    "EdgeRef",
    "EmbeddingSimilarity",
    "GateFn",
    "LexicalSimilarity",
    "NeighbourView",
    "Outcome",
    "Provenance",
    "RecallFn",
    "Resolution",
    "Similarity",
    "SimilarityBands",
    "bands_for",
]
