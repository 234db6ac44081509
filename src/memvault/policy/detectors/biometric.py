"""Biometric data (contract §4.7): templates, measurements and samples that identify a person.

A biometric word alone is a topic ("I use Face ID"); it becomes a finding with
data (a template, hash, embedding, scan, sample, measurements with units) or
when the stored item is meant to identify, verify or match someone.

>>> from memvault.policy.normalize import normalize
>>> [h.label for h in detect(normalize("Voiceprint enrollment for phone banking: ID VP-88213."))]
['biometric_data']
>>> detect(normalize("I use Face ID to unlock my phone."))
[]
"""

from __future__ import annotations

import re

from memvault.policy.detectors.base import PERSON_OWNER, Hit, clause_of
from memvault.policy.detectors.prefilter import may_match
from memvault.policy.normalize import NormalizedText

__all__ = ["detect"]

TERM = re.compile(
    r"(?i)\b(?:finger ?prints?|fingerabdr(?:u|ü)cke?|empreintes? digitales?|huellas? dactilar\w*|"
    r"minutiae|thumb ?prints?|iris(?:es)?|retina[l]?|retinal|palm ?(?:vein|print)s?|vein "
    r"pattern|hand geometry|voice ?prints?|voice ?(?:sample|id|signature|profile|biometrics?|"
    r"template|recording)s?|speaker (?:profile|embedding|model)|face ?(?:prints?|id|embeddings?|"
    r"measurements?|"
    r"templates?|geometry|recognition|scans?|encodings?|vectors?|mesh|unlock|data)|facial "
    r"(?:recognition|geometry|templates?|features|scans?|embeddings?|landmarks|data|"
    r"measurements?)|"
    r"reference (?:selfie|photo)|selfie|gait(?: signature| pattern| analysis| profile)?|"
    r"walking (?:pattern|signature|gait)|(?:3d )?face (?:map|mesh|model)|facial map|3d face|"
    r"keystroke (?:dynamics|biometrics|timings?|rhythm|profile|patterns?|cadence)|"
    r"typing (?:biometrics|rhythm|pattern|dynamics|"
    r"cadence)|heartbeat (?:signature|id)|ecg (?:signature|template)|dna (?:profile|sequence|"
    r"sample|test results?)|biometrics?(?: data| template| hash| id| profile)?|ear shape|"
    r"signature dynamics)\b"
)
_DATA = re.compile(
    r"(?i)\b(?:template|hash|embedding|vector|minutiae|scan(?:ned)?|image|photo|sample|"
    r"enrol(?:l)?(?:ment|ed)?|measurements?|encoding|code|print|signature|ridge|bifurcations?|"
    r"reference|geometry)\b"
)
# Words that name a template's contents: data in a record, but also in a standard's prose.
_VALUE_WORDS = re.compile(
    r"(?i)\b(?:minutiae|ridge endings?|ridge count|whorl|loop pattern|arch pattern|"
    r"bifurcations?|base64|hex)\b"
)
_VALUE = re.compile(
    r"(?i)\b\d+\s+(?:ridge|points|"
    r"landmarks|features)\b"
    r"|\b\d+(?:\.\d+)?\s?(?:mm|ms|cm|m|steps/min|spm|°|degrees|hz|px)\b|\bcadence\s*:?\s*\d+"
    r"|\b[0-9a-f]{12,}\b|(?=[A-Za-z+/]*\d)[A-Za-z0-9+/]{16,}={0,2}|\[\s*-?\d+\.\d+\s*,"
    r"|(?-i:\b[A-Z]{1,4}-[A-Z0-9]{2,}(?:-[A-Z0-9]+)*\b)|s3://|https?://\S+\.(?:jpg|jpeg|png|wav|mp3)"
    r"|\b[\w-]+\.(?:jpg|jpeg|png|heic|wav|mp3|m4a|flac|bin|dat|npy|pkl|iso|tpl)\b"
    r"|(?-i:\b[A-Z]\d[A-Z0-9]{2,}\b)|\b\d+/\d+\b|\[\s*\[\s*-?\d+(?:\.\d+)?\s*,"
)
_DATA_TERM = re.compile(
    r"(?i)(?:voice ?print|face ?print|palm ?print|sample|template|scan|embedding|hash|minutiae|"
    r"geometry|signature|encoding|vector|mesh|map|model|data|profile|recording|timings?|"
    r"measurements?)s?$"
)
_PURPOSE = re.compile(
    r"(?i)\b(?:identify|identifies|identification|verify|verification|match|matching|"
    r"recogni[sz]e|authenticate|authentication|log ?in|login|unlock|sign in|enrol\w*|"
    r"access|door|badge|scanner|bank|banking)\b"
)
_OWNER = re.compile(
    r"(?i)\b(?:my|me|I|mine|myself|user|user's|their|them|his|her|him|they)\b|\bstore\b|\bsave\b|"
    r"\bkeep\b"
)
_FRAMING = re.compile(
    r"(?i)\b(?:writing|article|blog|research(?:ing)?|paper|thesis|explain\w*|overview|how "
    r"(?:\w+ )?works?|comparison|compare|vendor|library|sdk|feature|building|develop\w*|"
    r"implement\w*|design\w*|course|lecture|regulation|gdpr|law|policy|accuracy|benchmark|"
    r"makes?|manufactur\w*|sells?|company|readers?|sensors?|products?|devices|market|privacy|"
    r"notice|opt[- ]?outs?|novel|villain|fiction|story|rules|don't|doesn't|do not|does not|"
    # talks and code changes about a biometric feature
    r"talks?|keynote|conference|webinar|podcast|cloning|dropping|deprecat\w*|fix|feat|"
    r"refactor|bug|logging)\b"
)
# Standards and test programmes describe the format, not anyone's print, unless a person's
# print is named beside them ("Dana's voiceprint per the NIST spec is stored ...": base's
# PERSON_OWNER).
_STANDARD = re.compile(
    r"(?i)\b(?:iso|iec|ansi|nist|ieee|icao|standards?|specs?|specification|interoperab\w*|"
    r"minex|norm|norma|norme)\b"
)
# Trigger: the clause says the print is not kept: it stays on the device, is never
#          uploaded, is not collected ("Your face template is stored only on your device",
#          "speichert keine Bilder, nur ein verschlüsseltes Template auf dem Gerät").
# Why: a privacy notice or a decision record describes how prints are (not) held.
# Outcome: no finding unless a value is written down beside it.
_NOT_KEPT = re.compile(
    r"(?i)\b(?:stays? on|stored only on|only (?:on|in) (?:your|the|its) (?:device|phone|reader)|"
    r"never (?:uploaded|leaves?|stored|sent|shared)|not (?:be )?(?:collected|stored|uploaded|kept)|"
    r"no (?:\w+ )?(?:data|images?|prints?|templates?) (?:will be |is |are )?(?:collected|stored|"
    r"kept|uploaded)|keine? \w+ (?:gespeichert|erfasst|hochgeladen)|speicher\w* keine|"
    r"auf dem ger[äa]t|sur l'appareil|en el dispositivo|no (?:se )?(?:guarda|almacena|recoge)\w*|"
    r"ne (?:sont|est) (?:pas|jamais) (?:stock|conserv|envoy)\w*)"
)
# a fingerprint of a key or certificate is not a person's ("SSH host key fingerprint")
_TECH_PRINT = re.compile(
    r"(?i)\b(?:key|keys|ssh|gpg|pgp|tls|ssl|certificate|cert|browser|device)\s*$"
)


def detect(doc: NormalizedText) -> list[Hit]:
    """Biometric findings: a biometric term with data or identification purpose, owned."""
    hits: list[Hit] = []
    for view in doc.views():
        if view.name.startswith("decoded") or not may_match(TERM, view.lower):
            continue
        for m in TERM.finditer(view.text):
            clause = clause_of(view.text, m.start(), m.end())
            context = view.text if len(view.text) < 300 else clause
            rest = context.replace(m.group(), " ")
            has_value = _VALUE.search(rest) is not None
            value_words = _VALUE_WORDS.search(rest) is not None
            # A term that names the data itself ("voiceprint", "face embedding") is data.
            has_data = (
                has_value
                or value_words
                or _DATA.search(rest) is not None
                or _DATA_TERM.search(m.group()) is not None
            )
            has_purpose = _PURPOSE.search(context) is not None
            owned = _OWNER.search(context) is not None
            standard = _STANDARD.search(clause) is not None and not PERSON_OWNER.search(context)
            not_kept = _NOT_KEPT.search(context) is not None
            framed = (_FRAMING.search(clause) is not None or standard or not_kept) and not has_value
            if _TECH_PRINT.search(view.text[max(0, m.start() - 24) : m.start()]):
                continue
            if framed or not has_data or not (owned or has_purpose or has_value or value_words):
                continue
            hits.append(
                Hit(
                    detector="biometric.template",
                    family="biometric",
                    label="biometric_data",
                    view=view,
                    start=m.start(),
                    end=m.end(),
                    reason="biometric data that identifies a person",
                )
            )
            return hits
    return hits
