"""memvault's governance gate: every write gets exactly one stop reason (DESIGN §2).

The gate is a pure function — text and metadata in, a
:class:`~memvault.model.decision.Decision` out, no I/O — that the engine calls
before anything touches the store::

    from memvault.policy import Candidate, GateContext, evaluate, load_contract

    ctx = GateContext(contract=load_contract("19.1.0"))
    d = evaluate(Candidate(text="Remember that I like diagrams in design docs."), ctx)
    d.stop_reason          # StopReason.SUCCESS_STORED
    d = evaluate(Candidate(text="Passport number: X4829175", declared_category="PREFERENCE"), ctx)
    d.stop_reason, d.detector, d.spans
    # FORBIDDEN_CATEGORY, 'detector.gov_id.labelled_id',
    # (Span(field='text', start=0, end=25, label='gov_id.national_id'),)

Public API
----------
``evaluate(candidate, context=None, *, checks=None) -> Decision``
    one stop reason; ``evaluate_detailed`` also returns every finding.
``Candidate(text, key=None, value=None, declared_category=None, type=None,
source_kind="USER_EXPLICIT", source_ref=None, ttl_class=None, consent=False,
caller_agent=None, op="STORE", memory_id=None, triggered_by_tool_output=False,
proposal=False, proposal_id=None, proposed_at=None)``
    the write being judged (``key=None`` derives a slug from the text).
``GateContext(contract, policy_enabled=True, caps=Caps(), usage=Usage(),
consent=ConsentState(), allowlist=None, now=None, classifier=None)``
    what the decision depends on besides the candidate.
``load_contract(version="19.1.0") -> Contract``, ``available_contracts()``
    validated contract files shipped in ``policy/contracts/``.
``infer_category(text, *, type=None, contract=None) -> str``
    a home for a candidate that declares no category.
``AgentAllowlist.from_mapping / from_text / load``, ``.permits(agent, category)``,
``.check(agent, categories) -> Decision``
    per-agent category allowlists (implementation-spec §5) for reads and writes.
``normalize(text) -> NormalizedText``
    the views detectors look at (NFKC, invisible characters, homoglyphs,
    spaced-out letters, leetspeak, spelled-out numbers, decoded runs).

>>> evaluate(Candidate(text="User prefers concise answers.")).stop_reason.value
'SUCCESS_STORED'
"""

from __future__ import annotations

from memvault.policy.allowlist import AgentAllowlist
from memvault.policy.candidate import (
    CONSENT_GATED_KEYS,
    PROPOSAL_TTL,
    Candidate,
    Caps,
    ClassifierHook,
    ConsentState,
    GateContext,
    Usage,
)
from memvault.policy.contract import (
    DEFAULT_CONTRACT_VERSION,
    CategorySpec,
    Contract,
    ContractError,
    available_contracts,
    load_contract,
    load_contract_file,
)
from memvault.policy.gate import (
    DEFAULT_CHECKS,
    Check,
    Finding,
    derive_key,
    evaluate,
    evaluate_detailed,
    is_structure_ref,
)
from memvault.policy.infer import infer_category
from memvault.policy.normalize import NormalizedText, normalize

__all__ = [
    "CONSENT_GATED_KEYS",
    "DEFAULT_CHECKS",
    "DEFAULT_CONTRACT_VERSION",
    "PROPOSAL_TTL",
    "AgentAllowlist",
    "Candidate",
    "Caps",
    "CategorySpec",
    "Check",
    "ClassifierHook",
    "ConsentState",
    "Contract",
    "ContractError",
    "Finding",
    "GateContext",
    "NormalizedText",
    "Usage",
    "available_contracts",
    "derive_key",
    "evaluate",
    "evaluate_detailed",
    "infer_category",
    "is_structure_ref",
    "load_contract",
    "load_contract_file",
    "normalize",
]
