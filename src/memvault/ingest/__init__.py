"""Drop-folder ingestion: ``.txt``/``.md``/``.json`` in, governed typed memories out.

The engine calls :func:`run_pass` from ``MemoryEngine.ingest_pending()``; the
CLI's ``memvault ingest`` is a skin over that. See ``docs/ingest.md`` for the
folder contract, the manifest format and the JSON schema.
"""

from memvault.ingest.model import Candidate, EdgeSpec, ParsedDocument, Rejection, RejectReason
from memvault.ingest.pipeline import (
    FileOutcome,
    IngestContext,
    IngestDisabledError,
    IngestReport,
    Judge,
    Progress,
    run_pass,
)
from memvault.ingest.watch import watch

__all__ = [
    "Candidate",
    "EdgeSpec",
    "FileOutcome",
    "IngestContext",
    "IngestDisabledError",
    "IngestReport",
    "Judge",
    "ParsedDocument",
    "Progress",
    "RejectReason",
    "Rejection",
    "run_pass",
    "watch",
]
