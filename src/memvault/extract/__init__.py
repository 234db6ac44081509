"""Extraction: typed candidate memories from transcripts, workflow outputs, findings.

The default :class:`RuleExtractor` is deterministic and needs no LLM; the
optional :class:`~memvault.extract.llm.LLMExtractor` speaks to an
OpenAI-compatible endpoint and falls back to the rules on any failure. Both
implement :class:`Extractor` (one method, ``extract(message, now=...)``), so
the write path and the document ingester treat them alike.

>>> from datetime import UTC, datetime
>>> x = RuleExtractor().extract(Message(text="Never deploy on Fridays", speaker="Dana"),
...                             now=datetime(2026, 1, 15, tzinfo=UTC))
>>> x.candidates[0].category, x.candidates[0].content
('CONSTRAINT', 'Dana wants the assistant to never deploy on Fridays.')
"""

from memvault.extract.base import Candidate, ChangeCue, Extraction, Extractor, Message, Role
from memvault.extract.constraints import check_statement, normalise_statement, third_person
from memvault.extract.dates import resolve_relative_dates
from memvault.extract.diagnostics import parse_findings
from memvault.extract.llm import LLMConfig, LLMExtractor
from memvault.extract.rules import RuleExtractor, extract_procedure
from memvault.extract.workflow import parse_workflow_output

__all__ = [
    "Candidate",
    "ChangeCue",
    "Extraction",
    "Extractor",
    "LLMConfig",
    "LLMExtractor",
    "Message",
    "Role",
    "RuleExtractor",
    "check_statement",
    "extract_procedure",
    "normalise_statement",
    "parse_findings",
    "parse_workflow_output",
    "resolve_relative_dates",
    "third_person",
]
