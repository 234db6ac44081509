"""Rules about the person and their work: where they live and moved, employer,
occupation, what they work on or learn, numbers and "my X is Y" facts.

Each rule is a named pattern matched against one cleaned clause and a builder
that turns the match into a candidate; :mod:`memvault.extract.rules` runs them
in its priority order (the first that builds a candidate wins the clause).
"""

from __future__ import annotations

import re

from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.clause import Clause, Rule, slot_rule
from memvault.extract.clause import candidate as _cand
from memvault.extract.clause import change_cue as _cue
from memvault.extract.clause import rx as _r
from memvault.extract.constraints import normalise_statement
from memvault.extract.reader import english_like
from memvault.extract.sensitive import sensitive_slot
from memvault.extract.text import head_phrase, slug
from memvault.model.enums import MemoryType

__all__ = ["RULES"]


def _moved(m: re.Match[str], c: Clause) -> Candidate:
    # The user's own words ("Dana moved to Lisbon in October 2026"), never a
    # paraphrase; the slot (city, consent-gated) and the previous value carry the update.
    new, old = c.value(head_phrase(m["new"])), c.value(m["old"] or "")
    return _cand(
        c,
        "moved",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        "city",
        new,
        exclusive=True,
        cue=ChangeCue.UPDATE,
        previous_value=old,
    )


def _lives(m: re.Match[str], c: Clause) -> Candidate:
    value = c.value(head_phrase(m["v"]) if " now" not in m["v"] else m["v"])
    negated = bool(m["neg"])
    verb = "no longer lives" if m["neg"] and "longer" in m["neg"] else "lives"
    if negated and verb == "lives":
        verb = "does not live"
    return _cand(
        c,
        "lives_in",
        normalise_statement(f"{c.subject} {verb} in {value}"),
        MemoryType.FACT,
        "KNOWLEDGE",
        "city",
        value,
        exclusive=True,
        negated=negated,
        cue=_cue(m["now"], m["neg"] and "longer" in m["neg"], m["any"]),
    )


def _employer(m: re.Match[str], c: Clause) -> Candidate:
    value = c.value(m["v"])
    return _cand(
        c,
        "employer",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        "employer",
        value,
        exclusive=True,
        cue=_cue(m["now"]),
    )


_occupation = slot_rule(
    "occupation",
    MemoryType.FACT,
    "KNOWLEDGE",
    "occupation",
    exclusive=True,
    cues=("now",),
)


#: Capitalised words an "I'm …" clause often starts with that are no name.
#: "I'm called …" in the other languages the reader reads: the name is said as a name.
_NAMED_AS = (
    r"me llamo|mi nombre es|je m'appelle|mon nom est|moi c'est|ich heiße|ich heisse"
    r"|mein name ist|me chamo|chamo-me|meu nome é|o meu nome é|mi chiamo|il mio nome è"
    r"|ik heet|mijn naam is|mam na imię|nazywam się|benim adım|adım|меня зовут|jag heter"
    r"|mitt namn är|jeg hedder|jeg heter|mera naam|mera naam hai"
)
_NAMED = re.compile(rf"^(?:{_NAMED_AS})$", re.I)
#: "I am …" in those languages: a name only when capitalised and no common word.
_I_AM_OTHER = r"soy|je suis|ich bin|sou|eu sou|sono|ik ben|jestem|ben|я|jag är|jeg er|main"
_I_AM = re.compile(rf"^(?:{_I_AM_OTHER})$", re.I)
#: A greeting before the introduction ("Hola, soy Ana", "Hallo, ich bin Jonas").
_GREETING = (
    r"(?:hi|hello|hey|hiya|hola|buenas|buenos días|buenas tardes|bonjour|salut|coucou|hallo"
    r"|moin|servus|guten tag|olá|oi|bom dia|ciao|salve|buongiorno|hoi|dag|cześć|dzień dobry"
    r"|merhaba|selam|привет|здравствуйте|hej|namaste)"
)

_NOT_A_NAME = frozenset(
    """back here home done fine good great ok okay sorry sure ready busy tired glad happy
    excited new not so just still also only going trying looking working thinking off out
    in on at from with into over late early free afraid curious confused stuck lost sick
    the a an this that very really totally pretty kinda almost always never all""".split()
)


def _introduction(m: re.Match[str], c: Clause) -> Candidate | None:
    # Trigger: "I'm Maya", "my name is Maya", "this is Maya".
    # Why: an introduction names the user; rewritten naively it is "Maya is Maya".
    # Outcome: a name fact in the user's own name ("Maya is the user's name" when the
    #          speaker is the name itself), a name and nothing else in the clause.
    name = m["v"].strip()
    words = name.split()
    if _I_AM.match(m["lead"]) and not m["greet"]:
        return None  # "Ich bin Entwickler": German nouns are capitalised; only after a greeting
    if m["lead"].lower().startswith(("my name", "name")) or _NAMED.match(m["lead"]):
        ok = all(w[:1].isalpha() for w in words)
    else:  # "I'm tired", "this is fine": a name is capitalised and no common word
        ok = all(w[:1].isupper() for w in words) and words[0].lower() not in _NOT_A_NAME
    if not ok:
        return None
    # a name is capitalised; a handle is kept as written ("my name is kiki_b42": byte
    # for byte, an identifier)
    name = " ".join(w[:1].upper() + w[1:] if w.isalpha() else w for w in words)
    same = name.lower() == c.subject.lower() or c.subject == "The user"
    content = f"The user's name is {name}." if same else f"{c.subject}'s name is {name}."
    return _cand(
        c, "introduction", content, MemoryType.FACT, "KNOWLEDGE", "name", name, exclusive=True
    )


def _introduction_cjk(m: re.Match[str], c: Clause) -> Candidate | None:
    name = (m["v"] or m["w"] or m["x"] or m["y"] or m["z"] or "").strip()
    if not name:
        return None
    content = (
        f"The user's name is {name}."
        if c.subject == "The user"
        else (f"{c.subject}'s name is {name}.")
    )
    return _cand(
        c, "introduction_cjk", content, MemoryType.FACT, "KNOWLEDGE", "name", name, exclusive=True
    )


#: Who is "here" without being named: "Everybody here …", "Somebody here …".
_NOBODY_NAMED = frozenset(
    """everyone everybody someone somebody anyone anybody nobody noone people folks
    it that this they we he she you guests customers""".split()
)
#: "X here is / was / has …": a statement about X being here, no signature.
_HERE_IS = re.compile(
    r"\s*(?:is|are|was|were|has|have|had|seems?|looks?|loves?|hates?|just|all|too)\b", re.I
)
_GOES_ON = re.compile(r",\s+(?:i|i'm|i've|my|we|we're)\b", re.I)


def _introduction_lead(m: re.Match[str], c: Clause) -> Candidate | None:
    # Trigger: a name said at the start of a longer clause ("Meu nome é Thiago e sou
    #          agrônomo em Minas", "hey, Sven here.", "我是王伟，是一名工程师").
    # Why: the anchored introduction rules read a clause that is only the name; a turn
    #      that goes on in the same clause kept nothing or only its raw words.
    # Outcome: the name fact, as the introduction rules write it, when the clause says
    #          little else; else the whole clause, in the speaker's words.
    name = (m["v"] or m["w"] or m["x"] or "").strip()
    lead = (m["lead"] or "").lower()
    if not name or name.lower() in _NOT_A_NAME or name.lower() in {"i", "im"}:
        return None
    if lead in {"ich bin", "ben"} and not m["greet"]:
        return None  # "Ich bin Tischler, …": German nouns are capitalised
    if m["w"] and (
        name.lower() in _NOBODY_NAMED
        or name.lower().endswith(("'s", "’s"))
        or _HERE_IS.match(m.string[m.end() :]) is not None
    ):
        # "Everybody here was cheering", "The taxi's here": someone or something is
        # here, no name signed ("Sven here, quick one" is)
        return None
    after = m.string[m.end("v") :].lstrip()
    # "I'm Sven — indie dev", "I'm Kwame, I do pricing analytics": a sign-off's dash, or
    # a comma and the speaker going on about themselves
    signed = after.startswith(("—", "–", "-")) or _GOES_ON.match(after) is not None
    if lead in {"i'm", "i am"} and not m["greet"] and not signed:
        # "I'm British, so …", "I'm Catholic and …": a capital after "I'm" is no name
        # unless signed off as one
        return None
    same = name.lower() == c.subject.lower() or c.subject == "The user"
    rest = m.string[m.end() :].strip(" ,.!—–-")
    if len(rest.split()) >= 2 or len(rest) >= 6:
        # "Meu nome é Fernanda, sou desenvolvedora front-end em Recife": the clause says
        # who the speaker is as well — kept whole, the job with the name (word for word
        # in another language; "I" rewritten in English)
        text = " ".join(c.text.split())
        if english_like(text):  # "I'm Sven — indie dev": the name, then what follows it
            lead_in = "The user's name is" if same else f"{c.subject}'s name is"
            content = normalise_statement(f"{lead_in} {name} — {c.value(rest)}")
        else:
            content = normalise_statement(text)
        return _cand(
            c,
            "introduction_lead",
            content,
            MemoryType.FACT,
            "KNOWLEDGE",
            "name",
            name,
            exclusive=True,
        )
    content = f"The user's name is {name}." if same else f"{c.subject}'s name is {name}."
    return _cand(
        c, "introduction_lead", content, MemoryType.FACT, "KNOWLEDGE", "name", name, exclusive=True
    )


_working_on = slot_rule("working_on", MemoryType.FACT, "KNOWLEDGE", "works_on.", slot="v")


_learning = slot_rule("learning", MemoryType.FACT, "KNOWLEDGE", "learning.", slot="v", head=True)


def _numeric(m: re.Match[str], c: Clause) -> Candidate:
    return _cand(
        c,
        "numeric",
        c.statement(),
        MemoryType.FACT,
        "KNOWLEDGE",
        slug(m["thing"], max_words=4),
        c.value(f"{m['n']} {m['unit']}".strip()),
        exclusive=True,
        cue=_cue(m["now"], m["now0"]),
        sensitive=sensitive_slot(m["thing"]) or "",
    )


_PREFERENCE_NOUNS = re.compile(
    r"\b(?:favou?rite|preferred|name|nickname|pronouns|editor|ide|shell|timezone|time zone"
    r"|language|stack|os|browser|theme)\b",
    re.I,
)


def _my_x_is(m: re.Match[str], c: Clause) -> Candidate | None:
    thing = m["thing"].strip()
    if thing.lower() in {"point", "question", "bad", "guess", "god", "pleasure", "day"}:
        return None
    preference = _PREFERENCE_NOUNS.search(thing) is not None
    return _cand(
        c,
        "my_x_is",
        c.statement(),
        MemoryType.PREFERENCE if preference else MemoryType.FACT,
        "PREFERENCE" if preference else "KNOWLEDGE",
        slug(thing, max_words=4),
        c.value(m["v"]),
        exclusive=True,
        negated=bool(m["neg"]),
        cue=_cue(m["now"], m["neg"]),
        sensitive=sensitive_slot(thing) or "",
    )


_RULES: tuple[Rule, ...] = (
    Rule(
        "moved",
        _r(
            r"^(?:i|we)(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)"
            r"\s+(?:from\s+(?P<old>.+?)\s+)?to\s+(?P<new>.+)$"
        ),
        _moved,
    ),
    Rule(
        "lives_in",
        _r(
            r"^i\s+(?:(?P<now>now|currently)\s+)?(?P<neg>no longer|don't|do not)?\s*"
            r"(?:live|am living|'m living|reside)\s+in\s+(?P<v>.+?)(?P<any>\s+any\s?more)?$"
        ),
        _lives,
    ),
    Rule(
        "based_in",
        _r(r"^i(?:'m| am)\s+(?:(?P<now>now)\s+)?based\s+in\s+(?P<v>.+?)(?P<neg>)(?P<any>)$"),
        _lives,
    ),
    Rule(
        "employer",
        _r(
            r"^i(?:'ve| have)?\s+(?:(?P<now>now|just|recently)\s+)?(?:work|am working|'m working"
            r"|joined|started (?:at|working at|working for|a new job at|my new job at))\s+"
            r"(?:at\s+|for\s+)?(?P<v>[A-Z0-9].+)$"
        ),
        _employer,
    ),
    Rule(
        "introduction",
        _r(
            rf"^(?:(?P<greet>{_GREETING})[,!.]?\s+)?"
            rf"(?P<lead>i'm|i am|im|my name is|my name's|name's|this is|{_NAMED_AS}|{_I_AM_OTHER})"
            r"\s+(?P<v>[^\W\d_][\w'-]{1,30}(?:\s+[^\W\d_][\w'-]{1,30})?)$"
        ),
        _introduction,
    ),
    Rule(
        "introduction_cjk",
        # Chinese and Japanese: "我叫明轩", "田中と申します", "私の名前は健二です"
        re.compile(
            r"^(?:(?:你好|您好|大家好|こんにちは|はじめまして)[，,、!！。\s]*)?"
            r"(?:我叫|我的名字(?:是|叫)|私の名前は|名前は)(?P<v>[^\W\d_]{1,6}?)(?:です)?[。.!！]?$"
            r"|^(?:(?:こんにちは|はじめまして)[、,!！。\s]*)?(?P<w>[^\W\d_]{1,6}?)と申します[。.!！]?$"
            # after a greeting only: "元気です" and "学生です" are no names
            r"|^(?:こんにちは|はじめまして)[、,!！。\s]*(?:私は)?(?P<x>[^\W\d_]{1,5}?)です[。.!！]?$"
            r"|^안녕하세요[,.!\s]*(?:저는\s*)?(?P<y>[^\W\d_]{1,5}?)(?:입니다|이에요|예요)[.!]?$"
            r"|^(?:제 이름은)\s*(?P<z>[^\W\d_]{1,5}?)(?:입니다|이에요|예요)[.!]?$"
        ),
        _introduction_cjk,
    ),
    Rule(
        "introduction_lead",
        # "hey, Sven here.", "I'm Sven — indie dev", "Meu nome é Thiago e sou agrônomo",
        # "Hola, soy Lucía, veterinaria de …", "aqui é o Thiago", "Привет, я Ольга, …",
        # "大家好，我是王伟，是一名…": a name said first, the rest of the clause after it
        re.compile(
            rf"^(?:(?P<greet>(?:{_GREETING}|γεια σας|γεια σου|γεια)"
            r"(?: all| everyone| there| a todos| à tous| zusammen)?)[,!.]?\s+)?(?:"
            rf"(?P<lead>i'm|i am|my name is|my name's|name's|{_NAMED_AS}|{_I_AM_OTHER}"
            r"|aqui é|sóc|em dic|είμαι|με λένε)\s+(?:(?:o|a|el|la|en|η|ο)\s+)?"
            r"(?P<v>(?-i:[A-ZÀ-ÖØ-ÞА-ЯЁΑ-Ω][\w'-]{1,30}))"
            r"(?=\s*(?:[,—–-]|\s(?:and|y|e|und|et|i|og|och|и|και|ed|en)\s|[.!]?$))"
            r"|(?P<w>(?-i:[A-ZÀ-ÖØ-Þ][\w'-]{1,30}))\s+(?:here|speaking)\b"
            r"|(?:(?:你好|您好|大家好|嗨)[，,！!\s]*)?(?:我是|我叫)(?P<x>[\u4e00-\u9fff]{2,4})"
            r"(?=[，,。！!]))",
            re.I,
        ),
        _introduction_lead,
    ),
    Rule(
        "occupation",
        _r(
            r"^i(?:'m| am| work as)\s+(?:(?P<now>now)\s+)?(?:a|an|the)\s+(?P<v>(?:[\w-]+\s+){0,3}"
            r"(?:engineer|developer|designer|manager|scientist|analyst|researcher|teacher|writer"
            r"|consultant|architect|student|founder|lead|director|nurse|lawyer|accountant"
            r"|product owner|administrator|admin|intern|freelancer|editor|marketer)s?\b.*)$"
        ),
        _occupation,
    ),
    Rule(
        "working_on",
        _r(
            r"^(?:i|we)(?:'m| am|'re| are)\s+(?:currently\s+|now\s+)?(?:working on|building"
            r"|leading|maintaining|developing)\s+(?P<v>.+)$"
        ),
        _working_on,
    ),
    Rule(
        "learning",
        _r(r"^i(?:'m| am)\s+(?:currently\s+|now\s+)?(?:learning|studying|taking)\s+(?P<v>.+)$"),
        _learning,
    ),
    Rule(
        "numeric",
        _r(
            r"^(?:my|our)\s+(?P<thing>[\w\s'-]{2,40}?)\s+(?:(?P<now0>now)\s+)?(?:has|have|is"
            r"|are|costs|takes)\s+(?:(?P<now>now)\s+)?(?:about\s+|around\s+)?(?P<n>\d[\d,.]*k?)\s*(?P<unit>[\w\s]*)$"
        ),
        _numeric,
    ),
    Rule(
        "my_x_is",
        _r(
            r"^(?:my|our)\s+(?P<thing>[\w\s'-]{2,40}?)\s+(?:(?:is|are)\s+(?:(?P<now>now)\s+)?"
            r"(?P<neg>no longer\s+)?|(?P<changed>changed to|has changed to)\s+)(?P<v>.+)$"
        ),
        _my_x_is,
    ),
)

#: This module's rules, by name (the priority order is kept in ``rules.py``).
RULES: dict[str, Rule] = {rule.name: rule for rule in _RULES}
