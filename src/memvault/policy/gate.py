"""The write gate: one pure function from a candidate and its context to one Decision.

Every check runs; each returns zero or more :class:`Finding` values; the
finding whose stop reason ranks highest in the contract's §7 order wins
(ties: the detector name decides, alphabetically), so the answer never depends
on the order checks are listed in. Any exception — in preparation, in a check,
in ranking — becomes INTERNAL_INCONSISTENCY (INV-8, fail closed).

What runs for which operation:

=================  ==============================================================
STORE, UPDATE      everything below
DELETE             policy switch, agent allowlist, tool-output provenance, schema
                   (removing data is always privacy-safe, so content is not judged)
READ, LIST         not writes: SCHEMA_INVALID (use ``AgentAllowlist.check``)
=================  ==============================================================

Checks and the stop reason each can produce:

- ``policy_enabled`` → POLICY_DISABLED
- ``entitlement_caps`` (per turn, per session, per user per day) → ENTITLEMENT_CAP
- ``category_allowlist`` (INV-1), ``agent_allowlist``, ``tool_output_provenance``
  (INV-4), ``category_rules`` (REMINDER/TODO: no location-based triggers) →
  FORBIDDEN_CATEGORY
- ``detector.*`` content detectors on text, key and value → FORBIDDEN_CATEGORY
  (forbidden families) or INJECTION_DETECTED
- ``consent`` (consent-gated keys, proposals, 7-day expiry) → MISSING_EXPLICIT_CONSENT
- ``source`` (DERIVED_UNVERIFIED; CITED_SOURCE without a structure-id
  ``source_ref``; raw text in any ``source_ref``) → NO_SOURCE_DERIVED_FACT
- ``schema`` (unknown op/source kind/TTL class/type, empty text or key, a source
  kind the category does not allow, missing memory_id) → SCHEMA_INVALID
- ``bounds`` (category-specific key/value limits, source_ref, memory_id,
  category name, the text's ``CONTENT_MAX``) → BOUNDS_EXCEEDED; a field is judged
  on at most its first ``JUDGED_MAX`` characters (a longer text is refused anyway)
- ``ttl`` (a TTL class the category does not allow) → TTL_NOT_ALLOWED
- ``classifier`` the learned layer (:mod:`memvault.policy.learned`): one head per
  forbidden family plus injection on every text field → FORBIDDEN_CATEGORY or
  INJECTION_DETECTED (detector ``classifier.<family>``, with score and threshold);
  a broken weights file → INTERNAL_INCONSISTENCY (fail closed)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, StopReason
from memvault.policy import checks_content, checks_record
from memvault.policy.candidate import Candidate, GateContext
from memvault.policy.checks_content import slug_of
from memvault.policy.checks_record import is_structure_ref
from memvault.policy.detectors import CONTENT_DETECTORS
from memvault.policy.findings import (
    CONTENT_OPS,
    JUDGED_MAX,
    Check,
    Finding,
    Prepared,
    finding,
)
from memvault.policy.infer import infer_category
from memvault.policy.normalize import NormalizedText, clean_only, normalize

__all__ = [
    "DEFAULT_CHECKS",
    "JUDGED_MAX",
    "Check",
    "Finding",
    "Prepared",
    "derive_key",
    "evaluate",
    "evaluate_detailed",
    "is_structure_ref",
]

_SUCCESS = {
    MemoryOp.STORE: StopReason.SUCCESS_STORED,
    MemoryOp.UPDATE: StopReason.SUCCESS_UPDATED,
    MemoryOp.DELETE: StopReason.SUCCESS_DELETED,
}


_SLUG = re.compile(r"[^a-z0-9]+")


def derive_key(text: str, *, max_len: int = 64) -> str:
    """A key slug from the first words of ``text`` (used when a candidate has no key).

    >>> derive_key("User prefers concise answers, with bullets!")
    'user_prefers_concise_answers_with_bullets'
    """
    slug = _SLUG.sub("_", text.lower()).strip("_")
    return (slug[:max_len].rstrip("_") or "memory") if text.strip() else ""


# ----------------------------------------------------------------- preparation


def _prepare(candidate: Candidate, context: GateContext) -> Prepared:
    contract = context.contract
    try:
        op: MemoryOp | None = MemoryOp(candidate.op)
    except ValueError:
        op = None
    text = candidate.text if isinstance(candidate.text, str) else ""
    judged = text[:JUDGED_MAX]
    declared = candidate.declared_category
    if isinstance(declared, str) and declared.strip():
        category = declared.strip().upper()
        inferred = False
    else:
        category = infer_category(judged, type=candidate.type, contract=contract)
        inferred = True
    key = candidate.key if candidate.key is not None else derive_key(text)
    value = candidate.value if candidate.value is not None else text
    fields: list[tuple[str, NormalizedText]] = []
    key_is_slug = False
    if op in CONTENT_OPS:
        known = context.normalized or {}

        def normal(field: str) -> NormalizedText:
            field = field[:JUDGED_MAX]
            doc = known.get(field)  # the batch entry's normalize(field), if it made one
            return doc if doc is not None and doc.original == field else normalize(field)

        fields.append(("text", normal(judged)))
        if isinstance(candidate.key, str) and candidate.key.strip():
            key_is_slug = slug_of(candidate.key, fields[0][1].clean.text)
            # Trigger: the key the write path derives from the text (every ``add``).
            # Why: normalising it cost ~30 µs a candidate, and nothing reads more of a
            #   slug key than its clean view (the detectors and the heads skip it; the
            #   category rules and the classifier hook read ``clean``), which for ASCII
            #   is the key itself. A check that reads more of a slug key must drop this.
            # Outcome: an ASCII slug of the text (no longer than ``JUDGED_MAX``) gets its
            #   clean view only; any other key is normalised as before.
            if key_is_slug and candidate.key.isascii() and len(candidate.key) <= JUDGED_MAX:
                fields.append(("key", clean_only(candidate.key)))
            else:
                fields.append(("key", normal(candidate.key)))
        if isinstance(candidate.value, str) and candidate.value != text:
            fields.append(("value", normal(candidate.value)))
    return Prepared(
        candidate=candidate,
        context=context,
        op=op,
        category=category,
        category_inferred=inferred,
        spec=contract.category(category),
        key=key if isinstance(key, str) else "",
        value=value if isinstance(value, str) else "",
        fields=tuple(fields),
        key_is_slug=key_is_slug,
    )


DEFAULT_CHECKS: tuple[Check, ...] = (
    Check("policy_enabled", checks_record.check_policy),
    Check("entitlement_caps", checks_record.check_caps),
    Check("category_allowlist", checks_record.check_category),
    Check("agent_allowlist", checks_record.check_agent),
    Check("tool_output_provenance", checks_record.check_tool_output),
    Check("category_rules", checks_record.check_category_rules),
    Check("consent", checks_record.check_consent),
    Check("source", checks_record.check_source),
    Check("schema", checks_record.check_schema),
    Check("bounds", checks_record.check_bounds),
    Check("ttl", checks_record.check_ttl),
    *(
        Check(f"detector.{g}", checks_content.content_check(g, fn))
        for g, fn in CONTENT_DETECTORS.items()
    ),
    Check("classifier_hook", checks_content.check_classifier),
    Check("classifier", checks_content.check_learned),
)


# ------------------------------------------------------------------- the gate


def _internal(where: str, exc: BaseException) -> Finding:
    return finding(
        StopReason.INTERNAL_INCONSISTENCY,
        where,
        f"{where} failed with {type(exc).__name__}; refusing (fail closed, INV-8)",
    )


def evaluate_detailed(
    candidate: Candidate,
    context: GateContext | None = None,
    *,
    checks: Sequence[Check] | None = None,
) -> tuple[Decision, tuple[Finding, ...]]:
    """The decision plus every finding behind it (for ``policy explain`` and audits)."""
    findings: list[Finding] = []
    try:
        ctx = context if context is not None else GateContext()
        prepared = _prepare(candidate, ctx)
    except Exception as exc:  # INV-8: anything unexpected fails closed
        f = _internal("prepare", exc)
        return Decision(f.stop_reason, f.detector, f.reason), (f,)
    for check in DEFAULT_CHECKS if checks is None else checks:
        try:
            findings.extend(check.run(prepared))
        except Exception as exc:  # INV-8
            findings.append(_internal(check.name, exc))
    try:
        return _decide(prepared, findings), tuple(findings)
    except Exception as exc:  # INV-8
        f = _internal("decide", exc)
        return Decision(f.stop_reason, f.detector, f.reason), (*findings, f)


def _decide(p: Prepared, findings: Sequence[Finding]) -> Decision:
    if not findings:
        op = p.op if p.op is not None else MemoryOp.STORE
        return Decision(_SUCCESS.get(op, StopReason.SUCCESS_STORED), None, f"{p.category}: allowed")
    rank = p.context.contract.rank
    # Trigger: a pattern detector and a learned head agree on a stop reason.
    # Why: the pattern names an exact span and a validated identifier; the
    #      head names only a family and a score.
    # Outcome: within one stop reason, pattern findings are named first.
    ordered = sorted(
        findings,
        key=lambda f: (
            rank(f.stop_reason),
            f.detector.startswith("classifier."),
            f.detector,
            f.reason,
        ),
    )
    top = ordered[0]
    spans = tuple(s for f in ordered if f.stop_reason is top.stop_reason for s in f.spans)
    return Decision(top.stop_reason, top.detector, top.reason, spans)


def evaluate(
    candidate: Candidate,
    context: GateContext | None = None,
    *,
    checks: Sequence[Check] | None = None,
) -> Decision:
    """Judge one write: exactly one stop reason (contract §6, §7).

    >>> evaluate(Candidate(text="User prefers concise answers.")).stop_reason.value
    'SUCCESS_STORED'
    >>> d = evaluate(Candidate(text="Passport number: X4829175", declared_category="PREFERENCE"))
    >>> d.stop_reason.value, d.detector
    ('FORBIDDEN_CATEGORY', 'detector.gov_id.labelled_id')
    """
    return evaluate_detailed(candidate, context, checks=checks)[0]
