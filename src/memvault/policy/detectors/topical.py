"""Topical families attributed to the user (contract §4.1–4.4, §4.8).

A sensitive *topic* is fine ("user is writing a report on vaccine history");
a sensitive *fact about the user* is not ("user takes 20 mg of sertraline").
Each family has a term lexicon (several languages where words differ); a term
is a finding when, in the same clause,

* a subject that is the user (``I``, ``my``, ``user``, ``he/she/they``, ``der
  Nutzer``, ``tengo`` …) precedes it within a short window, and
* no framing word sits between them or before it (writing, research, novel,
  course, app, dataset, about …) — framing turns a fact into a topic, and
* the family's predicate shape holds (identity traits need a copula such as
  ``is``/``identifies as``; profiling needs an inference or a third-person
  emotional/behavioural predicate).

The families' rules are :mod:`~memvault.policy.detectors.topical_rules`; what makes a
term a topic, a job or someone else's is
:mod:`~memvault.policy.detectors.topical_framing`; this module reads each term's
clause and decides (:func:`detect`).

Self-attributing constructions (``my therapist``, ``identifies as``, ``mood
tracker:``) need no separate subject.

>>> from memvault.policy.normalize import normalize
>>> [h.family for h in detect(normalize("I started on lamotrigine 100 mg last week."))]
['health']
>>> detect(normalize("Dana is preparing slides about the history of anaesthesia."))
[]
"""

from __future__ import annotations

import re

from memvault.policy.detectors.base import NAME_POSSESSIVE, Hit, clause_of
from memvault.policy.detectors.prefilter import PatternIndex
from memvault.policy.detectors.topical_framing import (
    _DEFINITION_SUBJECT,
    _FIELD_HANDLING,
    _FIELD_NOUN,
    _IDENTITY_TOPIC_AFTER,
    _JOB_FAMILIES,
    _NON_USER_HEAD,
    _OBJECT_USER,
    _OWN_TERM,
    _OWNER,
    _PERSON_HEAD,
    _PLACE_HEAD,
    _PROFILE_FRAMING,
    _PROFILE_OWNER,
    _PROFILE_TOPIC_AFTER,
    _PROFILE_VALUE,
    _QUOTED,
    _SUBJ,
    _TOPIC_AFTER_FAMILIES,
    FRAMING,
    TOPIC_AFTER,
    _is_job,
    _of_population,
)
from memvault.policy.detectors.topical_rules import FAMILY_RULES, _c, _FamilyRule
from memvault.policy.normalize import NormalizedText, View

__all__ = ["FAMILY_RULES", "FRAMING", "TOPIC_AFTER", "detect"]

#: which rules' terms may occur in a view, for all rules at once (base.PatternIndex)
_TERMS = PatternIndex(r.term for r in FAMILY_RULES)


_THIRD_PERSON = _c(r"\b(?:the\s+)?user(?:'s)?\b|\bhe\b|\bshe\b|\bthey\b|\bthem\b|\bhis\b|\bher\b")


_FIRST_PERSON_ONLY = {"inferred_profiling"}


#: how far around a match its clause is read (characters)
_REACH = 400


#: matches of one term read per view (a term repeated through a long field costs each a read)
_MAX_MATCHES = 256


def _match_rule(rule: _FamilyRule, view: View) -> Hit | None:
    """The rule's hit in ``view``, if any (asked only for a rule :data:`_TERMS` lets
    through for the view: exactly the rules ``may_match`` passes, so not tested again)."""
    text = view.text
    quotes = [(q.start(), q.end()) for q in _QUOTED.finditer(text)]
    for seen, m in enumerate(rule.term.finditer(text)):
        if seen >= _MAX_MATCHES:
            break  # a term said this often in one field is a list, not one statement
        if any(qs < m.start() and m.end() < qe for qs, qe in quotes):
            continue
        # Trigger: a term repeated through one long clause ("insulin insulin …", 8,000 chars).
        # Why: reading the whole clause around every match is O(n^2).
        # Outcome: the clause is read within _REACH characters of the match (framing words
        #          and subjects sit near the term; rule windows are 70-120 characters).
        lo = max(0, m.start() - _REACH)
        piece = text[lo : m.end() + _REACH]
        clause = clause_of(piece, m.start() - lo, m.end() - lo)
        c_start = piece.find(clause, max(0, m.start() - lo - len(clause)))
        left = piece[c_start : m.start() - lo] if c_start >= 0 else piece[: m.start() - lo]
        right = text[m.end() : m.end() + 40]
        if rule.family in _TOPIC_AFTER_FAMILIES and TOPIC_AFTER.match(right):
            continue  # "cancer research", "diabetes prevention programs": a topic
        if rule.family == "identity_trait" and _IDENTITY_TOPIC_AFTER.match(right):
            continue  # "caste politics", "caste bias in hiring": a topic
        if rule.family in _JOB_FAMILIES and _is_job(left, m.group(), right):
            continue  # "my cousin is a court clerk", "es auxiliar de farmacia": a job
        if rule.family == "inferred_profiling" and (
            _PROFILE_TOPIC_AFTER.match(right)
            or (rule.self_attributing and _of_population(text[lo : m.start()], right))
            or (
                rule.self_attributing
                and _PROFILE_FRAMING.search(clause)
                and not _PROFILE_OWNER.search(clause.replace(m.group(), " "))
                and not _PROFILE_VALUE.match(right)
            )
        ):
            continue  # "the MBTI workshop", "a Big Five quiz": the instrument, not a person
        if rule.self_attributing:
            if (
                not rule.strong
                and not _own_marked(rule.family, left, right)
                and FRAMING.search(left[-80:] + m.group())
            ):
                continue
            return _hit(rule, view, m)
        window = left[-rule.window :]
        # a subject word's lookahead reads past the term (Hinglish "hall mein … hai")
        ahead = window + text[m.start() : m.start() + 60]
        subjects = [s for s in _SUBJ.finditer(ahead) if s.end() <= len(window)]
        if not subjects and _OWN_TERM.match(m.group()) and not FRAMING.search(left):
            return _hit(rule, view, m)  # the term names its owner: "my probation officer"
        if not subjects:
            tail = (
                clause[clause.find(m.group()) + len(m.group()) :][:50]
                if m.group() in clause
                else ""
            )
            if (
                rule.between is None
                and rule.family not in _FIRST_PERSON_ONLY
                and _OBJECT_USER.search(tail)
                and not FRAMING.search(left)
            ):
                return _hit(rule, view, m)  # "a restraining order against me"
            continue
        subjects = [s for s in subjects if not _DEFINITION_SUBJECT.search(window[: s.end()])]
        if not subjects:
            continue
        subj = subjects[-1]
        if rule.family in _FIRST_PERSON_ONLY and not _THIRD_PERSON.match(subj.group()):
            # Inferences are made about someone else: "user seems anxious", not "I feel calm".
            continue
        between = window[subj.end() :]
        before_subject = left[: len(left) - len(window) + subj.start()]
        if rule.family in _FIRST_PERSON_ONLY:
            before_subject = ""  # "based on their writing, user is …" is still an inference
        if (
            not rule.strong
            and not _own_marked(rule.family, left, right)
            and (
                FRAMING.search(
                    _PERSON_HEAD.sub("", between) if _OWNER.fullmatch(subj.group()) else between
                )
                or FRAMING.search(before_subject)
            )
        ):
            continue
        if (
            _FIELD_NOUN.match(m.group())
            and _FIELD_HANDLING.search(between)
            and not _PROFILE_VALUE.match(right)
        ):
            continue  # "we don't collect ethnicity": a form field, not the user's origin
        if _PLACE_HEAD.match(between) and not window[: subj.start()].rstrip().endswith("from"):
            continue
        if _NON_USER_HEAD.match(between):
            continue  # "user's dog had surgery": about someone or something else
        # The shape may hold from an earlier subject too ("User and husband ... sleep").
        if rule.between is not None and not any(
            rule.between.match(window[s.end() :]) for s in subjects
        ):
            continue
        return _hit(rule, view, m)
    return None


# Trigger: a framing word before a term that is marked as a person's own: "I'm translating
#          the leaflet for my own diabetes medication", "… for Dana's HIV medication", "je
#          traduis la notice de mon propre traitement contre le diabète" (review S18-R12).
# Why: a leaflet, a report or a translation frames a topic; "my own", "mon propre" or a
#      name's possessive before the matter's noun makes it the person's, whatever frame
#      the sentence has.
# Outcome: framing does not cancel a term right after "my own …" (three words at most
#          between, none of them a framing word: "my own novel about cancer" stays a
#          topic) or after a name's possessive ("Dana's") when a treatment word follows
#          the term; the subject and every other check stay.
_OWN_BEFORE = re.compile(
    r"(?i)\b(?:(?:my|his|her|their|our) own|mon propre|ma propre|mes propres|mi propi[oa]|"
    r"mis propi[oa]s|su propi[oa]|mein(?:e[mnrs]?)? eigene[mnrs]?|meu pr[óo]prio|"
    r"minha pr[óo]pria|mijn eigen)\s+(?:[\w'-]+\s+){0,3}$"
)
_NAME_OWNS = re.compile(NAME_POSSESSIVE + r"\s+$")
_TREATMENT_AFTER = re.compile(
    r"(?i)^\s*(?:medication|meds|medicine|treatment|prescription|diagnosis|therapy|"
    r"traitement|m[ée]dicaments?|tratamiento|medicaci[óo]n|medikament\w*|behandlung)\b"
)


def _own_marked(family: str, left: str, right: str) -> bool:
    """A health term marked as someone's own (see above)."""
    if family != "health":
        return False
    own = _OWN_BEFORE.search(left[-80:])
    if own is not None:  # "my own novel about cancer": the frame is the own thing
        return FRAMING.search(own.group()) is None
    return bool(_NAME_OWNS.search(left[-40:]) and _TREATMENT_AFTER.match(right))


def _hit(rule: _FamilyRule, view: View, m: re.Match[str]) -> Hit:
    return Hit(
        detector=rule.name,
        family=rule.family,
        label=rule.label,
        view=view,
        start=m.start(),
        end=m.end(),
        reason=rule.reason,
    )


def detect(doc: NormalizedText) -> list[Hit]:
    """Topical findings: at most one per family."""
    hits: list[Hit] = []
    done: set[str] = set()
    views = [(v, v.lower) for v in doc.views() if v.name in ("clean", "numeric", "collapsed")]
    maybe = [_TERMS.candidates(lower) for _view, lower in views]
    for i in sorted(frozenset().union(*maybe)):
        rule = FAMILY_RULES[i]
        if rule.family in done:
            continue
        for (view, _lower), may in zip(views, maybe, strict=True):
            if i not in may:  # the rule's term cannot occur in this view
                continue
            hit = _match_rule(rule, view)
            if hit is not None:
                hits.append(hit)
                done.add(rule.family)
                break
    return hits
