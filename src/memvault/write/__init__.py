"""The write path below the engine: resolve (dedup / update / contradiction /
relations) and commit, one transaction per candidate (DESIGN §4).

The engine's ``capture_message`` / ``capture_workflow_output`` /
``capture_diagnostics`` delegate to :class:`CapturePipeline`; the document
ingester reuses :meth:`CapturePipeline.capture_candidates` and the pure
:func:`resolve`.
"""

from memvault.write.capture import CapturePipeline, GateFn, Provenance, RecallFn
from memvault.write.config import DEFAULT_BANDS, CaptureConfig, SimilarityBands, bands_for
from memvault.write.report import CandidateReport, CaptureResult, EdgeRef
from memvault.write.resolve import NeighbourView, Outcome, Resolution, resolve
from memvault.write.similarity import EmbeddingSimilarity, LexicalSimilarity, Similarity

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
    "resolve",
]
