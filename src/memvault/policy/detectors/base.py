"""What every detector returns, and the small helpers they share.

A detector is a pure function ``detect(doc: NormalizedText) -> list[Hit]``. A
:class:`Hit` names its detector (``family.rule``), the forbidden family or
injection technique, the view it matched in and where, and a reason a person can
read. The gate turns hits into findings with spans on the original text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from memvault.policy.detectors.prefilter import PatternIndex
from memvault.policy.normalize import NormalizedText, View

__all__ = [
    "FAMILIES",
    "NAME",
    "NAME_POSSESSIVE",
    "NOT_A_NAME",
    "PERSON_OWNER",
    "POSSESSIVES",
    "Hit",
    "Rule",
    "clause_of",
    "rule_index",
    "run_rules",
    "words",
]

#: Forbidden families (contract §4) as the detectors and the bench name them.
FAMILIES = (
    "identity_trait",
    "health",
    "intimate",
    "criminal",
    "location",
    "credentials",
    "gov_id",
    "biometric",
    "financial",
    "inferred_profiling",
    "tool_output",
)


@dataclass(frozen=True, slots=True)
class Hit:
    """One detector firing on one span of one view."""

    detector: str
    family: str
    label: str
    view: View
    start: int
    end: int
    reason: str

    def original_span(self) -> tuple[int, int]:
        return self.view.to_original(self.start, self.end)


Validator = Callable[[re.Match[str], View], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """A regex (plus an optional validator) that is a finding by itself."""

    name: str
    family: str
    label: str
    pattern: re.Pattern[str]
    reason: str
    validate: Validator | None = None
    group: int = 0
    views: tuple[str, ...] = ("clean", "collapsed", "numeric")
    #: a pattern every match of ``pattern`` contains a match of (a part all its branches
    #: share): its literals join the rule's prefilter, so a text without any is skipped
    needs: re.Pattern[str] | None = None

    @classmethod
    def named(
        cls,
        family: str,
        name: str,
        label: str,
        pattern: str | re.Pattern[str],
        reason: str,
        **options: Any,
    ) -> Rule:
        r"""A rule of ``family`` called ``family.name`` (a ``str`` pattern is compiled as is).

        >>> Rule.named("location", "coordinates", "coordinates", r"\d+", "why").name
        'location.coordinates'
        """
        compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
        return cls(f"{family}.{name}", family, label, compiled, reason, **options)


#: rule tuple -> (that tuple, its index): detectors pass module-level constants
_RULE_INDEXES: dict[int, tuple[Sequence[Rule], PatternIndex]] = {}


def rule_index(rules: Sequence[Rule]) -> PatternIndex:
    """The :class:`PatternIndex` of ``rules``' patterns (built once per rule tuple)."""
    entry = _RULE_INDEXES.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = (rules, PatternIndex((r.pattern for r in rules), [r.needs for r in rules]))
        _RULE_INDEXES[id(rules)] = entry
    return entry[1]


def run_rules(doc: NormalizedText, rules: Iterable[Rule], *, first_only: bool = True) -> list[Hit]:
    """Apply ``rules`` to the views each one names (one hit per rule unless ``first_only``)."""
    hits: list[Hit] = []
    if isinstance(rules, tuple):
        ordered: Sequence[Rule] = rules
        index = rule_index(rules)
    else:  # a passing collection: indexed for this call only
        ordered = tuple(rules)
        index = PatternIndex((r.pattern for r in ordered), [r.needs for r in ordered])
    if doc.extra:
        views = list(doc.views())
        maybe = [index.candidates(v.lower) for v in views]
        indices = frozenset().union(*maybe)
    else:  # most fields: the clean view alone
        views = [doc.clean]
        maybe = [index.candidates(doc.clean.lower)]
        indices = maybe[0]
        if not indices:
            return hits
    for i in sorted(indices):
        rule = ordered[i]
        found = False
        for view, may in zip(views, maybe, strict=True):
            if i not in may or (
                view.name not in rule.views
                and not ("decoded" in rule.views and view.name.startswith("decoded"))
            ):
                continue
            for m in rule.pattern.finditer(view.text):
                if rule.validate is not None and not rule.validate(m, view):
                    continue
                hits.append(
                    Hit(
                        detector=rule.name,
                        family=rule.family,
                        label=rule.label,
                        view=view,
                        start=m.start(rule.group),
                        end=m.end(rule.group),
                        reason=rule.reason,
                    )
                )
                found = True
                if first_only:
                    break
            if found and first_only:
                break
    return hits


def words(listing: str) -> str:
    r"""``\b(?:w1|w2|…)\b`` from whitespace-separated words (each may be a regex piece).

    >>> re.search(words("fine fines regulat\\w*"), "regulators fined it").group()
    'regulators'
    """
    return rf"\b(?:{'|'.join(listing.split())})\b"


#: The owner words of the detectors, defined once: after one of these a term is someone's
#: own ("my therapist", "his voiceprint", "mein Arzt", "minha médica", "the user's dose"),
#: not a topic. Whitespace-separated regex pieces for :func:`words`; a detector that needs
#: more (pronouns, a language's case forms) adds them beside this list, not in a copy of it.
#: Left out on purpose: "our" ("our clinic offers treatment"), "son" ("her son is a doctor"),
#: "sa" (Tagalog "at"), "su"/"suo"/"seu"/"sua"/"sus"/"ihr" (also the polite "your" of a leaflet:
#: "consulte seu médico"), Dutch "zijn"/"haar" ("are", "hair"). Hinglish "mein" ("in": "hall
#: mein free diabetes checkup camp hai") is no owner when Hindi function words follow it;
#: the romanised Hindi possessives ("mere", "uski", "hamare") are.
POSSESSIVES = (
    r"my his her their (?:the\s)?user'?s sein\w* mi mis mon ma mes ses leurs? meu "
    r"mein(?![^.;!?\n]{0,40}\b(?:hai|hain|ke|ki|ka|ko|se|tha|thi|liye)\b)\w* "
    # romanised Hindi: "mere bhai", "uski maa", "hamare manager"
    r"mer[aei] us[kc][aei] unk[aei] ha?m[aā]r[aei] apn[aei] "
    r"minha dele dela mio mia moj\w* jego jej мой моя моё мои моего моей моему моих его её ее их"
)
#: Capitalised words that start a sentence but name no person ("It was charged",
#: "Nobody was arrested", "Police say", "Das ist"): never read as a first name.
NOT_A_NAME = (
    r"The|This|That|These|Those|It|Its|There|Here|Each|Every|Such|Which|What|Who|Whoever|One|"
    r"Our|Your|Test|Model|App|Scale|Tool|Nobody|Nothing|Everyone|Everybody|Someone|Somebody|"
    r"Anyone|Anybody|None|No|Police|Suspect|Suspects|Defendant|Victim|Driver|Man|Woman|Teen|"
    r"Officer|Everything|Something|Anything|Today|Yesterday|Tomorrow|Monday|Tuesday|Wednesday|"
    r"Thursday|Friday|Saturday|Sunday|Es|Das|Dies|Diese|Dieser|Niemand|Jemand|Wer|Ce|Cela|Ça|"
    r"Personne|Esto|Eso|Nadie|Alguien|Isso|Isto|Ninguém|Alguém|Questo|Quello|Nessuno|Qualcuno|"
    r"To|Nikt|Ktoś|Het|Dit|Dat|Niemand|Iemand|Bu|Şu|Kimse|Это|Никто|Кто|Team|Company|Group|Firm|"
    r"Bank|Government|Court|City|State|Country|Council|Hanukkah|Christmas|Easter|Ramadan|Eid|"
    r"Diwali|Passover|Pride"
)
_UPPER = r"A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽА-ЯЁ"
_LOWER = r"a-zß-öø-ÿā-žа-яёı"
#: A first name: one capitalised word in a Latin or Cyrillic script ("Dana", "Łukasz",
#: "Ayşe", "Андрей", "Jean-Luc"), not a word of :data:`NOT_A_NAME`, case-sensitive.
NAME = (
    # the capital first: a lower-case word fails before the list is tried
    rf"(?-i:\b(?=[{_UPPER}])(?!(?:{NOT_A_NAME})\b)[{_UPPER}][{_LOWER}]+"
    rf"(?:[-'’][{_UPPER}]?[{_LOWER}]+)?\b)"
)
#: A capitalised name's ("Tom's"), not an app's, a model's or a test's.
NAME_POSSESSIVE = r"(?-i:\b[A-Z][a-z]+'s\b)(?<!App's)(?<!Model's)(?<!Test's)"
#: Someone's: an owner word or a name's ("her", "the user's", "Dana's").
PERSON_OWNER = re.compile("(?i)" + words(POSSESSIVES) + "|" + NAME_POSSESSIVE)

# A clause ends at ; ! ? a line break, or a full stop not followed by a letter or digit
# ("2.5 mg" and "e.g" hold no break). Searched in C: a Python walk char by char made a
# term repeated through a long clause cost O(n^2).
_CLAUSE_BREAK = re.compile(r"[;!?\n]|\.(?![^\W_])")


def clause_of(text: str, start: int, end: int) -> str:
    """The sentence-ish clause around ``[start, end)`` (split on . ; ! ? and newlines).

    >>> clause_of("I moved. My dose is 2.5 mg; fine", 12, 16)
    ' My dose is 2.5 mg'
    """
    left = 0
    for brk in _CLAUSE_BREAK.finditer(text, 0, min(len(text), start + 1)):
        if brk.start() < start:
            left = brk.start() + 1
    stop = _CLAUSE_BREAK.search(text, end)
    return text[left : stop.start() if stop else len(text)]
