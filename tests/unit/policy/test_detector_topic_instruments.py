"""Topic, not a person (issue 21, session 8): instruments, standards, forms and definitions.

Rule false positives the session-8 hard negatives showed, as general shapes: a profiling
model or a mood-chart product described, a biometric standard cited, a definition asked
("what is house arrest?"), a workshop about passphrases, a form that does not collect a
field, a benefits event. Each benign sentence must pass the pattern detectors; each twin
states the same kind of fact about a person and must still be refused by the same rule.
Sentences written for this file (English, German, Spanish, Italian, French), not taken
from any corpus or evaluation set. The learned layer is off: it has its own owner.
"""

from __future__ import annotations

import pytest

from memvault.model.enums import StopReason
from memvault.policy import Candidate, GateContext, evaluate

DETECTORS_ONLY = GateContext(learned=None)


def judge(text: str) -> tuple[StopReason, str | None]:
    d = evaluate(Candidate(text=text), DETECTORS_ONLY)
    return d.stop_reason, d.detector


TOPICS = [
    # profiling instruments, practices and products
    "Neuroticism is one of the five factors in the OCEAN framework, alongside openness.",
    "Das MBTI-Modell teilt Menschen in sechzehn Typen ein.",
    "El test MBTI clasifica a las personas en dieciséis tipos.",
    "This printable mood chart template has a row for every day of the month.",
    "The watchdog fined an insurer for scoring callers' emotional states from audio.",
    # a biometric format or test programme, not anyone's print
    "The NIST MINEX test measures how fingerprint minutiae templates interoperate.",
    "Die Norm ISO/IEC 19794-2 beschreibt, wie Fingerabdruck-Minutien gespeichert werden.",
    # a definition asked, in Italian (the copula "sono" is no subject here)
    "Cos'è la libertà vigilata? Sono curioso di saperlo per l'esame.",
    "Cosa sono gli arresti domiciliari e chi li decide?",
    # talk about passwords, no password
    "Seminar on passwords: how long should a master password be?",
    "Atelier mots de passe : pourquoi une phrase longue vaut mieux que des symboles.",
    # a form or a policy that does (not) collect a field
    "We never ask applicants for nationality, and we don't record ethnicity either.",
    # a benefits event in a calendar line
    "Mon 07:45 - webinar: egg freezing benefits for staff",
    # a place the speaker belongs to is not the speaker
    "Our village school got a new defibrillator after the heart attack drill last year.",
    "In unserer Stadt ist das alte Gefängnis jetzt ein Museum.",
]


@pytest.mark.parametrize("text", TOPICS)
def test_an_instrument_or_a_definition_passes_the_detectors(text: str) -> None:
    assert judge(text) == (StopReason.SUCCESS_STORED, None)


FACTS = [
    ("User's Big Five: neuroticism high, agreeableness low.", "profiling.profile_record"),
    ("Dana's mood chart this week: Mon low, Tue anxious, Wed flat.", "profiling.profile_record"),
    ("Das MBTI-Ergebnis meines Kollegen: INTJ, sehr introvertiert.", "profiling.profile_record"),
    ("Ravi's phone app shows his mood chart dipping every Sunday.", "profiling.profile_record"),
    ("Store my right index fingerprint template: 4f9ac01be7d2e88310a9.", "biometric.template"),
    ("Mein Fingerabdruck-Template für die Tür: 7c1e99ab03f4d2.", "biometric.template"),
    (
        '{"standard": "ISO/IEC 19794-2", "minutiae": [[101, 44, 90], [87, 12, 270]], "uid": "me"}',
        "biometric.template",
    ),
    ("Sono agli arresti domiciliari fino a marzo.", "criminal.attributed"),
    ("Sono stato arrestato a Napoli nel 2019.", "criminal.attributed"),
    ("my wifi password is tangerine-Otter-42", "credentials.password_assignment"),
    ("Mot de passe : pourquoiPas!88", "credentials.password_assignment"),
    ("Her ethnicity is Hmong, please note it in her file.", "identity.origin"),
    ("Mon 09:15 - call with the clinic about my IVF cycle", "intimate.attributed"),
    ("Mon mari et moi suivons une FIV depuis un an.", "intimate.attributed"),
    ("A man from our village was arrested for burglary today.", "criminal.attributed"),
    ("Our town is small; I was arrested there in 2010.", "criminal.attributed"),
]


@pytest.mark.parametrize(("text", "name"), FACTS)
def test_the_same_words_about_a_person_are_still_refused(text: str, name: str) -> None:
    assert judge(text) == (StopReason.FORBIDDEN_CATEGORY, f"detector.{name}")
