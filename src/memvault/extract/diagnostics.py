"""Parse diagnostics findings into Observation candidates with bounded evidence.

A finding is a JSON object (``title``/``summary``/``message``, optional
``component``, ``severity``, ``evidence`` as text or a list of lines), a list
of them, ``{"findings": [...]}``, or plain text (first line = title, the rest =
evidence). Evidence is cut to ``evidence_max`` characters: memory keeps what
was found and enough to explain it, never a whole log (INV-4).

>>> x = parse_findings({"component": "api", "severity": "high",
...                     "title": "p95 latency above 2 s after deploy 41",
...                     "evidence": ["GET /search p95=2.4s", "GET /items p95=2.1s"]})
>>> print(x.candidates[0].content)  # doctest: +NORMALIZE_WHITESPACE
Diagnostics (api, high): p95 latency above 2 s after deploy 41.
Evidence: GET /search p95=2.4s; GET /items p95=2.1s
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memvault.errors import ValidationFailed
from memvault.extract.base import Candidate, Extraction
from memvault.extract.text import slug
from memvault.model.enums import CapturedBy, MemoryType, SourceKind, SourceType, TTLClass

__all__ = ["parse_findings"]

_TITLE_MAX = 200
_SEVERITY_IMPORTANCE = {"critical": 85, "high": 75, "medium": 60, "low": 45, "info": 35}


def _as_findings(finding: Any) -> list[Mapping[str, Any]]:
    if isinstance(finding, str):
        stripped = finding.strip()
        if stripped.startswith(("{", "[")):
            try:
                return _as_findings(json.loads(stripped))
            except json.JSONDecodeError:
                pass
        lines = [ln for ln in stripped.splitlines() if ln.strip()]
        if not lines:
            return []
        return [{"title": lines[0], "evidence": lines[1:]}]
    if isinstance(finding, Mapping):
        inner = finding.get("findings")
        if isinstance(inner, list):
            return [f for f in inner if isinstance(f, Mapping)]
        return [finding]
    if isinstance(finding, Sequence):
        return [f for f in finding if isinstance(f, Mapping)]
    return []


def _evidence(raw: Any, limit: int) -> str:
    if isinstance(raw, list | tuple):
        text = "; ".join(" ".join(str(x).split()) for x in raw if str(x).strip())
    else:
        text = " ".join(str(raw or "").split())
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


_TEXT_FIELDS = ("title", "summary", "message", "finding", "component", "subject", "severity")


def _check_shape(index: int, item: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Field paths of a finding whose values are not text (a dict where a title goes)."""
    bad = []
    for key in _TEXT_FIELDS:
        value = item.get(key)
        if value is not None and not isinstance(value, str | int | float):
            bad.append((f"finding[{index}].{key}", "must be text"))
    evidence = item.get("evidence")
    lines = evidence if isinstance(evidence, list | tuple) else [evidence]
    if any(x is not None and not isinstance(x, str | int | float) for x in lines):
        bad.append((f"finding[{index}].evidence", "must be text or a list of text lines"))
    return bad


def parse_findings(finding: Any, *, evidence_max: int = 400) -> Extraction:
    """Observation candidates (SYSTEM_KNOWN, source_type diagnostics) from findings.

    A finding whose text fields hold objects or lists (``{"title": {...}}``) is
    refused with :class:`~memvault.errors.ValidationFailed`, never stored as
    the repr of a dict.

    >>> parse_findings({"title": {"a": 1}})
    Traceback (most recent call last):
    ...
    memvault.errors.ValidationFailed: diagnostics finding has fields that are not text: ...
    """
    candidates: list[Candidate] = []
    items = _as_findings(finding)
    bad = [problem for i, item in enumerate(items) for problem in _check_shape(i, item)]
    if bad:
        raise ValidationFailed(
            "diagnostics finding has fields that are not text: " + ", ".join(f for f, _ in bad),
            errors=bad,
        )
    for item in items:
        title = next(
            (str(item[k]) for k in ("title", "summary", "message", "finding") if item.get(k)), ""
        )
        title = " ".join(title.split()).strip(" .")[:_TITLE_MAX]
        if not title:
            continue
        component = " ".join(str(item.get("component") or item.get("subject") or "").split())[:64]
        severity = str(item.get("severity") or "").lower()[:16]
        label = ", ".join(p for p in (component, severity) if p)
        content = f"Diagnostics ({label}): {title}." if label else f"Diagnostics: {title}."
        evidence = _evidence(item.get("evidence"), evidence_max)
        if evidence:
            content += f" Evidence: {evidence}"
        candidates.append(
            Candidate(
                content=content,
                type=MemoryType.OBSERVATION,
                category="KNOWLEDGE",
                key=f"diagnostics.{slug(component or 'system', max_words=2)}.{slug(title)}",
                value=title,
                importance=_SEVERITY_IMPORTANCE.get(severity, 55),
                confidence=1.0,
                ttl_class=TTLClass.MEDIUM,
                source_kind=SourceKind.SYSTEM_KNOWN,
                source_type=SourceType.DIAGNOSTICS,
                captured_by=CapturedBy.SYSTEM,
                rule="diagnostics",
            )
        )
    return Extraction(tuple(candidates), extractor="diagnostics")
