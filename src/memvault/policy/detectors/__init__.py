"""Content detectors: each a pure ``detect(NormalizedText) -> list[Hit]``.

``CONTENT_DETECTORS`` maps a detector group to its function; the gate runs every
group on every text field and turns hits into findings. Forbidden families
yield FORBIDDEN_CATEGORY, the injection group INJECTION_DETECTED.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from memvault.policy.detectors import (
    biometric,
    cjk,
    credentials,
    genetic,
    identifiers,
    injection,
    location,
    named,
    topical,
    traits,
)
from memvault.policy.detectors.base import FAMILIES, Hit
from memvault.policy.detectors.prefilter import register_patterns
from memvault.policy.normalize import NormalizedText

__all__ = ["CONTENT_DETECTORS", "FAMILIES", "Detector", "Hit"]

Detector = Callable[[NormalizedText], list[Hit]]

# One shared prefilter scan, built once for every rule (base.register_patterns).
register_patterns(
    [
        *(
            r.pattern
            for m in (injection, identifiers, credentials, location, genetic, named, traits, cjk)
            for r in m.RULES
        ),
        *(
            r.needs
            for m in (injection, identifiers, credentials, location, genetic)
            for r in m.RULES
            if r.needs is not None
        ),
        *(r.term for r in topical.FAMILY_RULES),
        *injection.CUES,
        biometric.TERM,
        identifiers.SPOKEN_RULES[-1].pattern,
    ]
)

CONTENT_DETECTORS: Mapping[str, Detector] = {
    "injection": injection.detect,
    "credentials": credentials.detect,
    "identifiers": identifiers.detect,
    "location": location.detect,
    "biometric": biometric.detect,
    "genetic": genetic.detect,
    "topical": topical.detect,
    "named": named.detect,
    "traits": traits.detect,
    "cjk": cjk.detect,
}
