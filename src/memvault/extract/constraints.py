"""Writing constraints for stored statements (implementation spec §9), and the
first-person → third-person rewriter the rule extractor uses.

A semantic memory is "a complete, self-contained, third-person summary with no
pronouns; neutral tone; 1–2 sentences; ≤ 280 chars". :func:`check_statement`
returns the list of violated constraints (empty = valid);
:func:`normalise_statement` fixes what can be fixed mechanically (spacing,
capital letter, final full stop) and never rewrites meaning.

>>> check_statement("Dana prefers tabs over spaces.")
()
>>> check_statement("I prefer tabs.")
('first_or_second_person',)
>>> third_person("I really love coffee", "Dana")
'Dana really loves coffee'
>>> third_person("my team uses Postgres and I'm happy with it", "Dana")
"Dana's team uses Postgres and Dana is happy with it"
"""

from __future__ import annotations

import re

from memvault.extract.verbatim import PLACEHOLDER_START, protect, protected
from memvault.learn.language import common_english

__all__ = [
    "STATEMENT_MAX",
    "STATEMENT_MAX_SENTENCES",
    "check_statement",
    "normalise_statement",
    "third_person",
    "verb_third_person",
]

STATEMENT_MAX = 280
STATEMENT_MAX_SENTENCES = 2

_PERSONAL = re.compile(
    r"(?i:\b(?:me|my|mine|myself|we|our|ours|ourselves|you|your|yours|yourself)\b"
    r"|\b(?:i'm|i've|i'll|i'd|we're|we've|you're|you've)\b)|\b(?:us|Us)\b"
    # a lone lower-case "i" before a capitalised word is "and" (Polish, Czech, Catalan:
    # "GitLab do kodu i Sentry"), never the speaker
    r"|\bI\b|\bi\b(?!\s+[A-Z])",
)
_ROLE_MARKER = re.compile(r"^\s*(?:user|assistant|system|human|ai)\s*:", re.I)
_SENTENCE_END = re.compile(r"[.!?](?:\s+|$)")
_QUOTE_OPENERS = ('"', "'", "`")

_IRREGULAR = {
    "am": "is",
    "'m": "is",
    "are": "is",
    "have": "has",
    "'ve": "has",
    "do": "does",
    "go": "goes",
    "don't": "does not",
    "dont": "does not",
    "doesn't": "does not",
    "haven't": "has not",
    "aren't": "is not",
    "ain't": "is not",
    "'m not": "is not",
}
_UNCHANGED = frozenset(
    """will would can could should must may might shall 'll 'd was were did had
    cannot can't won't wouldn't couldn't shouldn't didn't wasn't weren't hadn't mustn't
    used sent met went made built wrote took gave got bought paid told said saw found left
    began ran came became brought thought taught caught spent lost won ate drank flew drove
    chose spoke broke forgot knew grew kept felt held led meant sold understood woke wore
    began swam sang slept stood sat fell heard""".split()
)
_ADVERBS = frozenset(
    """really usually always never also now just still generally mostly often sometimes
    definitely absolutely totally actually recently finally currently normally typically
    rarely seldom mainly strongly personally honestly already even only truly much
    no longer no more""".split()
)
# Possessive and object forms are written as markers first and chosen once the
# whole clause is rewritten: the first mention of the speaker is their name,
# later ones "their"/"them" ("Dana needs to renew their passport", not
# "Dana needs to renew Dana's passport").
_MY, _ME, _OUR, _US, _SELF, _TEAM = "\ue100", "\ue101", "\ue102", "\ue103", "\ue104", "\ue105"
_OURS, _SELVES = "\ue106", "\ue107"
#: "there are three of us": how many the speaker's team counts, not three of someone.
_HEADCOUNT = re.compile(
    r"\b(there(?:'s| is| are)\s+(?:just\s+|only\s+|about\s+|around\s+)?(?:\d+|two|three|four"
    r"|five|six|seven|eight|nine|ten|eleven|twelve|a dozen|a handful))\s+of\s+us\b",
    re.I,
)
_PRONOUNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bi'm\b", re.I), "{S} is"),
    (re.compile(r"\bi am\b", re.I), "{S} is"),
    (re.compile(r"\bi've\b", re.I), "{S} has"),
    (re.compile(r"\bi'll\b", re.I), "{S} will"),
    (re.compile(r"\bi'd\b", re.I), "{S} would"),
    (re.compile(r"\bmyself\b", re.I), _SELF),
    (re.compile(r"\bmy\b", re.I), _MY),
    (re.compile(r"\bmine\b", re.I), _MY),
    (re.compile(r"\bme\b", re.I), _ME),
    (re.compile(r"\bwe're\b", re.I), "{S}'s team is"),
    (re.compile(r"\bwe've\b", re.I), "{S}'s team has"),
    (re.compile(r"\bwe'll\b", re.I), "{S}'s team will"),
    (re.compile(r"\bwe'd\b", re.I), "{S}'s team would"),
    (re.compile(r"\bwe\b", re.I), "{S}'s team"),
    (re.compile(r"\bour team\b", re.I), _TEAM),
    (re.compile(r"\bourselves\b", re.I), _SELVES),
    (re.compile(r"\bours\b", re.I), _OURS),
    (re.compile(r"\bour\b", re.I), _OUR),
    # "us" only in lower case (or capitalised first): "the US" is a country.
    (re.compile(r"\b(?:us|Us)\b"), _US),
    (re.compile(r"\byou're\b", re.I), "the assistant is"),
    (re.compile(r"\byour\b", re.I), "the assistant's"),
    (re.compile(r"\byou\b", re.I), "the assistant"),
)
_MARKERS = re.compile(f"[{_MY}{_ME}{_OUR}{_US}{_SELF}{_TEAM}{_OURS}{_SELVES}]")
_ADVERB_RE = "no longer|no more|" + "|".join(sorted(_ADVERBS - {"no", "longer", "more"}))
# An adverb is never the verb: before a masked word ("I always post-edit", the hyphenated
# verb protected as an identifier) it stays as said, not "always" → "alwayses".
_NOT_ADVERB = r"(?!(?:" + _ADVERB_RE + r")\b)"
_WE_VERB = re.compile(
    r"\b[Ww]e\s+((?:(?:" + _ADVERB_RE + r")\s+)*)" + _NOT_ADVERB + r"([A-Za-z]+)\b(?!')"
)
_I_VERB = re.compile(
    r"\bI\s+((?:(?:" + _ADVERB_RE + r")\s+)*)" + _NOT_ADVERB + r"([a-z][A-Za-z']*)"
)
#: "you" as the subject of a subordinate clause ("when you write …"): its verb agrees.
_YOU_VERB = re.compile(
    r"\b(when|whenever|if|once|before|after|unless|until)\s+you\s+((?:(?:"
    + _ADVERB_RE
    + r")\s+)*)([A-Za-z]+)\b(?!')",
    re.I,
)


#: Verbs whose past is their present ("I just hit", "I already put"): after an adverb of
#: the recent past they are past, and keep their form.
_PAST_AS_PRESENT = frozenset("hit put set cut quit read let shut spread cost hurt split".split())
_PAST_ADVERB = re.compile(r"\b(?:just|already|recently|finally)\b", re.I)


_PREFIXES = ("mis", "over", "under", "re", "with", "out", "fore", "up")

#: Present-tense verbs ending in "-eed" ("agreed", "freed" are past).
_PRESENT_EED = frozenset(
    "need feed seed proceed exceed succeed bleed breed speed heed weed plead".split()
)


def verb_third_person(verb: str) -> str:
    """The third-person singular present of a first-person verb form.

    >>> [verb_third_person(v) for v in ["love", "go", "try", "am", "will", "moved", "agreed"]]
    ['loves', 'goes', 'tries', 'is', 'will', 'moved', 'agreed']
    >>> [verb_third_person(v) for v in ["misspoke", "overtook", "rewrote", "redo", "outrun"]]
    ['misspoke', 'overtook', 'rewrote', 'redoes', 'outruns']
    """
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    past = low.endswith("ed") and (not low.endswith("eed") or low not in _PRESENT_EED)
    # "misspoke", "overtook", "rewrote", "withdrew": a prefix before an irregular past
    prefixed = any(
        low.startswith(p) and low[len(p) :] in _UNCHANGED | {"drew", "did"} for p in _PREFIXES
    )
    if low in _UNCHANGED or past or prefixed or low.endswith("n't"):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str, subject: str) -> str:
    """Rewrite a first-person clause about ``subject`` in the third person.

    Only the forms a user's statement about themself uses are rewritten ("I",
    "my", "me", "we", "our", "you" → "the assistant"), at word boundaries and
    never inside a protected span (:mod:`memvault.extract.verbatim`: code,
    quotes, URLs, paths, versions, identifiers such as ``us-west-2``);
    everything else is kept verbatim. Verb agreement is fixed for the verb right
    after "I" (skipping adverbs such as "really", "usually"). The first mention
    of the speaker is their name, later possessives and objects are
    "their"/"them".

    >>> third_person("our servers are in us-west-2", "Lee")
    "Lee's team's servers are in us-west-2"
    >>> third_person("I need to renew my passport", "Dana")
    'Dana needs to renew their passport'
    >>> third_person("when you write SQL for me, always use CTEs", "Dana")
    'when the assistant writes SQL for Dana, always use CTEs'
    """
    return protected(lambda masked: _third_person(masked, subject), text)


def _third_person(text: str, subject: str) -> str:
    def _agree(match: re.Match[str]) -> str:
        adverbs, verb = match.group(1), match.group(2)
        if verb.lower() in {"do", "don't", "dont"} and verb.lower() != "do":
            return f"{subject} {adverbs}does not"
        if verb.lower() == "do" and re.match(r"\s*not\b", text[match.end() :]):
            return f"{subject} {adverbs}does"
        if _PAST_ADVERB.search(adverbs) and verb.lower() in _PAST_AS_PRESENT:
            return f"{subject} {adverbs}{verb}"  # "I just hit 10k": past, not "hits"
        return f"{subject} {adverbs}{verb_third_person(verb)}"

    out = re.sub(r"\bi\b(?!'|\s+[A-Z])", "I", text)
    out = re.sub(r"\bI\s+(?:do not|don't)\b", f"{subject} does not", out)
    out = re.sub(r"\bI\s+(?:am not|'m not)\b", f"{subject} is not", out)
    out = re.sub(r"\bI\s+(?:cannot|can't|can not)\b", f"{subject} cannot", out)
    for pattern, replacement in _PRONOUNS[:5]:
        out = pattern.sub(replacement.replace("{S}", subject), out)
    out = _I_VERB.sub(_agree, out)
    out = re.sub(r"\bI\b", subject, out)
    out = _WE_VERB.sub(
        lambda m: f"{subject}'s team {m.group(1)}{verb_third_person(m.group(2))}", out
    )
    # "when you write SQL for me" → "when the assistant writes SQL for …"
    out = _YOU_VERB.sub(
        lambda m: f"{m.group(1)} the assistant {m.group(2)}{verb_third_person(m.group(3))}", out
    )
    out = _HEADCOUNT.sub(rf"\1 people in {_TEAM}", out)
    for pattern, replacement in _PRONOUNS[5:]:
        out = pattern.sub(replacement.replace("{S}", subject), out)
    return _mentions(out, subject)


def _mentions(text: str, subject: str) -> str:
    """Markers → the name on first mention of the speaker, "their"/"them" after it."""
    out: list[str] = []
    pos = 0
    for match in _MARKERS.finditer(text):
        before = text[pos : match.start()]
        out.append(before)
        seen = subject in "".join(out)
        mark = match.group(0)
        if mark == _MY:
            out.append("their" if seen else f"{subject}'s")
        elif mark == _ME:
            out.append("them" if seen else subject)
        elif mark == _SELF:
            out.append("themself" if seen else subject)
        elif mark == _OUR:
            out.append("their" if seen else f"{subject}'s team's")
        elif mark == _TEAM:
            out.append("their team" if seen else f"{subject}'s team")
        elif mark == _OURS:
            out.append("theirs" if seen else f"{subject}'s team's")
        elif mark == _SELVES:
            out.append("themselves" if seen else f"{subject}'s team")
        else:
            out.append("them" if seen else f"{subject}'s team")
        pos = match.end()
    out.append(text[pos:])
    return "".join(out).replace(f"{subject}'s's", f"{subject}'s")


#: A statement whose subject is one lower-case word ("pnpm is …", "redis and …").
_NAME_FIRST = re.compile(
    r"(?P<w>[a-z]+)(?:\s+(?:is|are|was|were|has|have|had|runs|handles|does|powers|and|or"
    r"|with|for|on|in|at|as|v?\d[\w.]*)\b)"
)


def _keeps_case(out: str) -> bool:
    named = _NAME_FIRST.match(out)
    return named is not None and not common_english(named["w"])


def normalise_statement(text: str) -> str:
    """Collapse whitespace, capitalise the first letter, end with a full stop.

    >>> normalise_statement("  the api   is written in go ")
    'The api is written in go.'
    >>> normalise_statement("pnpm is what Ana's team uses")
    "pnpm is what Ana's team uses."
    """
    out = " ".join(text.split()).strip(" ,;:-")
    if not out:
        return ""
    masked = protect(out)[0]
    if not masked.startswith(PLACEHOLDER_START) and not _keeps_case(out):
        # never "Npm", "Us-west-2", "`Make`"; nor "Pnpm is what we use" or "Ripgrep is
        # my go-to": a word in lower case, no common English word, as the subject of
        # the statement may be a tool's name — kept byte for byte
        out = out[0].upper() + out[1:]
    if out[-1] not in ".!?。！？" and not out.endswith(_QUOTE_OPENERS):
        out += "."
    return out


def _sentences(text: str) -> int:
    cleaned = re.sub(r"\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|st)\.", "", text, flags=re.I)
    cleaned = re.sub(r"\d\.\d", "0", cleaned)
    return max(1, len([s for s in _SENTENCE_END.split(cleaned) if s.strip()]))


def check_statement(
    text: str,
    *,
    max_chars: int = STATEMENT_MAX,
    max_sentences: int = STATEMENT_MAX_SENTENCES,
) -> tuple[str, ...]:
    """Names of the writing constraints ``text`` violates (empty tuple: valid).

    Constraints: ``empty``, ``too_long`` (> ``max_chars``), ``too_many_sentences``,
    ``first_or_second_person`` (a pronoun instead of a name), ``role_marker``
    (looks like a transcript line), ``question`` (not a statement).
    """
    problems: list[str] = []
    stripped = text.strip()
    if not stripped:
        return ("empty",)
    if len(stripped) > max_chars:
        problems.append("too_long")
    if _sentences(stripped) > max_sentences:
        problems.append("too_many_sentences")
    if _PERSONAL.search(protect(stripped)[0]):
        problems.append("first_or_second_person")
    if _ROLE_MARKER.search(stripped):
        problems.append("role_marker")
    if stripped.endswith("?"):
        problems.append("question")
    return tuple(problems)
