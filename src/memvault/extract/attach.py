"""What a turn says about a kept memory stays with it: identifiers, who a name is.

A turn often keeps one memory and tells its detail in a clause no rule or
reading keeps on its own: "I need to automate the drift report. Right now it's
``notebooks/drift.ipynb``.", "Ik kweek tulpen bij Lisse. Ons hoofdras heet
Pink Delight ``TL-7``.", "redesign the Wi-Fi in the library, which sits on
``VLAN 240``". Read alone the clause is context (or unread); dropped, the
identifier it names — a path, a ticket, a version, a lot number — is lost, and
it is the one word that cannot be recalled from anything else.

:func:`attach_identifiers` puts such a clause, in the user's words (rewritten
in the third person as the kept memory is, never inside an identifier), after
the memory of its turn it is nearest to: a clause of the same sentence joins
with a comma, a later sentence becomes the statement's second sentence. Never
attached: a question, a clause naming a forbidden family, the moment's plans
("today", "until noon"), a clause whose only identifiers are a date or a clock
time, or anything that would break the statement's constraints (two sentences,
280 characters).

>>> from datetime import date
>>> from memvault.extract.base import Candidate
>>> from memvault.model.enums import MemoryType
>>> kept = Candidate(content="Ana needs to fix the login bug.", type=MemoryType.TODO,
...                  category="TODO", key="todo.login_bug", value="fix the login bug",
...                  said="I need to fix the login bug.")
>>> [c.content for c in attach_identifiers([kept], {id(kept): 0},
...     [Unkept(1, "It's ticket WEB-88.", "silent:oneoff")], "Ana", date(2026, 1, 5))[0]]
["Ana needs to fix the login bug. It's ticket WEB-88."]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from memvault.extract import when
from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.change import changed_from
from memvault.extract.clause import Clause
from memvault.extract.constraints import check_statement, normalise_statement
from memvault.extract.context import of_the_moment
from memvault.extract.gloss import glosses
from memvault.extract.reading import UPDATE_CUE, VERBATIM_RULE, english_like
from memvault.extract.sensitive import sensitive_slot, sensitive_words
from memvault.extract.verbatim import identifiers
from memvault.model.enums import MemoryType, StopReason
from memvault.policy import Candidate as GateCandidate
from memvault.policy import evaluate
from memvault.policy.learned import default_layer

__all__ = [
    "RELATIVE",
    "WHEN_TO_REMIND",
    "Unkept",
    "attach_identifiers",
    "bare_reminder",
    "join_change",
    "join_detail",
    "join_introduction",
    "refused_alone",
]

#: A date or a clock time names when, not what: "2026-12-01", "15:00", "9:30".
_WHEN_ONLY = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}(?::\d{2})?|\d{1,2}[./]\d{1,2})$")
#: A clause with a statement's end ("。", "！") keeps it; others get a full stop.
_ENDS = (".", "!", "。", "！", "…")


@dataclass(frozen=True, slots=True)
class Unkept:
    """A clause of the turn that became no candidate: its sentence, its words, why."""

    sentence: int
    said: str
    why: str


#: What marks a token written for a machine: a digit, or a path's, a file's, a handle's or
#: code's punctuation ("burn-out", "e-mail" are hyphenated prose; "BigQuery" is a name).
_MACHINE = re.compile(r"\d|[/_.:@#=`\\]|^-")


def _names(said: str) -> tuple[str, ...]:
    """The identifiers of a clause that a memory must keep byte for byte."""
    return tuple(
        t for t in identifiers(said) if _MACHINE.search(t) and not _WHEN_ONLY.match(t.strip("`\"'"))
    )


#: Words that come with a secret, in the languages the reader reads: a clause that holds
#: one is never attached (a key id, a token, a code is the gate's business alone).
_SECRETISH = re.compile(
    r"(?<!\w)(?:keys?|key id|tokens?|secrets?|passwords?|passwd|pwd|passphrase|passcode"
    r"|credentials?|api[-_ ]?keys?|otp|2fa|mfa|pin|seed phrase|recovery (?:code|phrase)|private"
    r"|contraseña|clave|mot de passe|clé|passwort|kennwort|schlüssel|senha|chave|parola"
    r"|chiave|wachtwoord|sleutel|hasło|klucz|şifre|parola|пароль|ключ|lösenord|adgangskode"
    r"|passord)(?!\w)|パスワード|暗証番号|鍵|密码|密碼|秘钥|密钥|비밀번호",
    re.I,
)
#: A long run of letters and digits in mixed case ("AKIAQ74YW1…", "ghp_x9…"): a secret's
#: shape, whatever the words around it say.
_OPAQUE = re.compile(r"^(?=[\w-]*\d)(?=[\w-]*[A-Z])[\w-]{16,}$")


#: Why a relative clause of a kept memory kept nothing (``rules``' trace words).
RELATIVE = "silent:relative clause of a kept memory"
#: Why a later sentence kept nothing: it comments on the memory before it (``rules``).
CONTEXT = "silent:context of a kept memory"
#: Why a bare reminder request ("Please remind me Friday.") kept nothing: it asks to be
#: reminded of the todo the turn keeps (``rules``' trace words).
WHEN_TO_REMIND = "silent:when to remind of a kept todo"
#: "remind me Friday", "please ping me about it on the 3rd": no action of its own.
_BARE_REMIND = re.compile(
    r"^(?:please\s+)?(?:can you\s+)?(?:remind|ping|nudge)\s+me"
    r"(?:\s+(?:about|of)\s+(?:it|this|that))?(?P<when>(?:\s+(?!to\b|about\b|that\b|of\b)"
    r"[\w'-]+){0,5})\s*[.!]?$",
    re.I,
)


_WEEKDAY = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I)


def bare_reminder(said: str, *, english: bool) -> bool:
    """Whether a reminder request names no action: it points at a todo said before.

    >>> bare_reminder("Please remind me Friday.", english=True)
    True
    >>> bare_reminder("remind me to call Jo", english=True)
    False
    >>> bare_reminder("Lembra-me na quinta.", english=False)
    True
    """
    text = said.strip()
    if english:
        return _BARE_REMIND.match(text) is not None
    spaced = len(text.split())
    return spaced <= 4 if spaced > 1 else len(text) <= 20


#: Moments a status is true for: attached only to a todo (itself dated and short-lived).
_MOMENT = ("silent:about today", "silent:logistics")


#: How a question starts, in English; in other languages a glossed question word.
_ASKS = re.compile(
    r"^(?:what|why|how|where|when|who|whom|which|whose|is|are|was|were|do|does|did|can"
    r"|could|would|will|should|shall|have|has|any|anyone|anybody|anything)\b",
    re.I,
)


def _asks(said: str) -> bool:
    return _ASKS.match(said) is not None or "what how where why" in glosses(said)


#: What the gate refuses for the words themselves, whatever the memory's kind.
_WORD_REFUSALS = frozenset({StopReason.FORBIDDEN_CATEGORY, StopReason.INJECTION_DETECTED})


def refused_alone(*texts: str) -> bool:
    """Whether the gate's rules or one of its learned heads refuse one of ``texts`` by
    its words alone (a broken learned layer refuses, as the gate does).

    Capture joins a clause to another memory before the gate judges it; the gate then
    judges the joined memory whole, and a refused clause would take the memory it
    joined down with it (review S17-R4). Asked before a join, so a refused clause
    stays a candidate of its own and is refused alone.

    >>> refused_alone("Sim is in Gazebo."), refused_alone("The admin password is hunter2.")
    (False, True)
    """
    layer = default_layer()
    for text in dict.fromkeys(t for t in texts if t.strip()):
        if evaluate(GateCandidate(text=text)).stop_reason in _WORD_REFUSALS:
            return True
        if layer.error is not None or any(
            s.flagged for s in layer.judge_text(text, use_encoder=False)
        ):
            return True
    return False


def _attachable(clause: Unkept, target: Candidate) -> bool:
    said = clause.said.strip()
    if clause.why.startswith(WHEN_TO_REMIND):
        return target.type is MemoryType.TODO
    relative = clause.why.startswith(RELATIVE)
    # "Our brief is code-named PF-22. It's a vetiver for a hotel chain.": the sentence
    # after a lasting memory tells its detail — kept with it rather than lost
    context = clause.why.startswith(CONTEXT) and target.type in _HOLDS_DETAIL
    dated = target.type is MemoryType.TODO
    of_now = (
        clause.why.startswith(_MOMENT)
        or when.TODAY.search(said) is not None
        or when.TODAY_OTHER.search(said) is not None
        or of_the_moment(said)
    )
    return (
        (relative or context or bool(_names(said)))
        and not said.endswith(("?", "？"))
        and not clause.why.startswith(("silent:praise", "silent:temporary"))
        # a question, not a statement a weak reading called one ("The old site was
        # wiki-v1.internal." read question 0.05)
        and not (clause.why.startswith("silent:question") and _asks(said))
        and _SECRETISH.search(said) is None
        and not any(_OPAQUE.match(name) for name in _names(said))
        # never a clause that names a forbidden family, a credential, an id, an account
        # or an address ("here's the db password: …"): kept alone it would have been
        # silent, so no gate ever judged it
        and not sensitive_words(said)
        and sensitive_slot(said) is None
        and when.TEMPORARY.search(said) is None
        and (dated or not of_now)
        and not refused_alone(said)
    )


def _words(said: str, subject: str, today: date, *, joined: bool) -> str:
    """The clause as the kept statement says things: third person in English, else as said."""
    text = " ".join(said.split()).strip(" ,;:-")
    if english_like(text):
        clause = Clause(text.rstrip(".!"), subject, today)
        return clause.value(text) if joined else clause.statement()
    if joined:
        return text.rstrip(".!")
    return text if text.endswith(_ENDS) else normalise_statement(text)


def _when_to_remind(said: str, subject: str, today: date) -> str:
    """ "Please remind me Friday." → "Dana wants a reminder Friday 2026-01-09." (English)."""
    bare = _BARE_REMIND.match(said.strip())
    if bare is None:
        return _words(said, subject, today, joined=False)
    when = " ".join(bare["when"].split())
    if _WEEKDAY.match(when):
        when = f"on {when}"  # "remind me Friday": the date a weekday names is resolved
    return Clause(f"I want a reminder {when}".strip(), subject, today).statement()


def _target(
    candidates: Sequence[Candidate], sentence_of: dict[int, int], sentence: int
) -> Candidate | None:
    """The kept memory nearest the clause: the last one at or before it, else the next."""
    placed = [
        (sentence_of[id(c)], i, c)
        for i, c in enumerate(candidates)
        if id(c) in sentence_of and c.type is not MemoryType.PROCEDURE and not c.sensitive
    ]
    before = [p for p in placed if p[0] <= sentence]
    if before:
        return max(before, key=lambda p: (p[0], p[1]))[2]
    after = [p for p in placed if p[0] > sentence]
    return min(after, key=lambda p: (p[0], p[1]))[2] if after else None


def attach_identifiers(
    candidates: Sequence[Candidate],
    sentence_of: dict[int, int],
    unkept: Sequence[Unkept],
    subject: str,
    today: date,
) -> tuple[list[Candidate], dict[int, int], set[int]]:
    """The candidates with the unkept clauses that name an identifier attached, their
    sentences (by ``id``, as ``sentence_of``) and the indexes (into ``unkept``) of the
    clauses attached.

    ``sentence_of`` maps a candidate's ``id`` to its sentence's index (candidates
    not in it — a pasted record — are never extended, nor is a procedure).
    """
    out = list(candidates)
    where = dict(sentence_of)
    attached: set[int] = set()
    for index, clause in enumerate(unkept):
        names = _names(clause.said)
        if names and any(all(n in c.content for n in names) for c in out):
            continue  # already kept, in another memory of the turn
        target = _target(out, where, clause.sentence)
        if target is None or not _attachable(clause, target):
            continue
        at = where[id(target)]
        same = at == clause.sentence
        if clause.why.startswith(RELATIVE) and not same:
            continue
        if clause.why.startswith(CONTEXT) and at != clause.sentence - 1 and not names:
            continue  # a comment joins the memory of the sentence right before it
        remind = clause.why.startswith(WHEN_TO_REMIND)
        if remind and at > clause.sentence:
            continue
        words = (
            _when_to_remind(clause.said, subject, today)
            if remind
            else _words(clause.said, subject, today, joined=same and at <= clause.sentence)
        )
        if not words:
            continue
        if at > clause.sentence:
            content = f"{words} {target.content}"
        elif same:
            content = f"{target.content.rstrip('.!。')}, {words}"
            content += "" if content.endswith(_ENDS) else "."
        else:
            gap = "" if target.content.endswith(("。", "！")) else " "
            content = f"{target.content}{gap}{words}"
        problems = check_statement(content)
        if target.rule.startswith(VERBATIM_RULE) or not english_like(clause.said):
            problems = tuple(p for p in problems if p != "first_or_second_person")
        if problems:
            continue
        said = (
            f"{clause.said.strip()} {target.said}"
            if at > clause.sentence
            else f"{target.said} {clause.said.strip()}"
        )
        grown = replace(target, content=content, said=said)
        if remind:
            grown = replace(grown, category="REMINDER")
        out[next(i for i, c in enumerate(out) if c is target)] = grown
        del where[id(target)]
        where[id(grown)] = at
        attached.add(index)
    return out, where, attached


#: The rules that write a name memory ("The user's name is Ana.").
_NAMING = frozenset({"introduction", "introduction_cjk", "introduction_lead"})


def join_introduction(
    candidates: Sequence[Candidate], sentence_of: dict[int, int]
) -> tuple[list[Candidate], dict[int, int]]:
    """The name memory of an introduction with the fact that follows it, as one memory.

    "Hi, I'm Ana. I restore church organs." keeps "The user's name is Ana. Ana
    restores church organs." — keyed as the name, as an introduction said in one
    clause is. Only the next memory of the turn, a fact from the name's sentence
    or the next one, and only when the statement stays within its constraints.

    >>> from memvault.model.enums import MemoryType
    >>> name = Candidate(content="The user's name is Ana.", type=MemoryType.FACT,
    ...                  category="KNOWLEDGE", key="name", value="Ana", rule="introduction")
    >>> job = Candidate(content="Ana restores church organs.", type=MemoryType.FACT,
    ...                 category="KNOWLEDGE", key="fact.organs", value="x", rule="reader.fact")
    >>> [c.content for c in join_introduction([name, job], {id(name): 0, id(job): 1})[0]]
    ["The user's name is Ana. Ana restores church organs."]
    """
    out = list(candidates)
    where = dict(sentence_of)
    for i, name in enumerate(out[:-1]):
        if name.rule not in _NAMING or name.key != "name" or id(name) not in where:
            continue
        if not name.content.endswith(f" {name.value}."):
            return out, where  # "The user's name is Sven — indie dev": said whole already
        after = out[i + 1]
        at = where[id(name)]
        if (
            where.get(id(after)) not in (at, at + 1)
            or after.type is not MemoryType.FACT
            or after.rule in _NAMING
            or after.sensitive
        ):
            return out, where
        content = f"{name.content} {after.content}"
        problems = check_statement(content)
        if after.rule.startswith(VERBATIM_RULE):
            problems = tuple(p for p in problems if p != "first_or_second_person")
        if problems:
            return out, where
        joined = replace(
            name,
            content=content,
            said=f"{name.said} {after.said}".strip(),
            importance=max(name.importance, after.importance),
        )
        del where[id(name)], where[id(after)]
        where[id(joined)] = at
        return [*out[:i], joined, *out[i + 2 :]], where
    return out, where


#: What stops: "we dropped Airtable", "I left Zoho", "ya no uso FalconLog" (and the
#: change words of :data:`~memvault.extract.reading.UPDATE_CUE` in other languages).
_STOPPED = re.compile(
    r"\b(?:dropped|ditched|dumped|stopped|left|quit|abandoned|retired|phased out|got rid of"
    r"|gave up|moved (?:\w+ )?(?:off|away from)|switched (?:\w+ )?(?:off|away from)"
    r"|migrated (?:\w+ )?(?:off|away from)|no longer|not using|anymore|any more)\b",
    re.I,
)
_CHANGEABLE = frozenset({MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.EVENT})


def join_change(
    candidates: Sequence[Candidate], sentence_of: dict[int, int]
) -> tuple[list[Candidate], dict[int, int]]:
    """A change told in two sentences — what stopped, then what is used now — as one memory.

    "We dropped Airtable last month. The schedule lives in Notion now." keeps one
    update (the second memory's key, type and cue) that says both; two memories
    would leave the dropped tool standing as a fact of its own.

    >>> from memvault.model.enums import MemoryType
    >>> old = Candidate(content="Ana left Zoho.", type=MemoryType.EVENT, category="EVENT",
    ...                 key="event.left_zoho", value="x", rule="reader.event", said="I left Zoho.")
    >>> new = Candidate(content="Ana's quotes go out through FreeAgent now.",
    ...                 type=MemoryType.FACT, category="KNOWLEDGE", key="fact.quotes", value="y",
    ...                 rule="reader.fact", said="My quotes go out through FreeAgent now.")
    >>> [c.content for c in join_change([old, new], {id(old): 0, id(new): 1})[0]]
    ["Ana left Zoho. Ana's quotes go out through FreeAgent now."]
    """
    out = list(candidates)
    where = dict(sentence_of)
    for i in range(len(out) - 1):
        gone, now = out[i], out[i + 1]
        at = where.get(id(gone))
        if (
            at is None
            or where.get(id(now)) != at + 1
            or gone.type not in _CHANGEABLE
            or now.type not in _CHANGEABLE - {MemoryType.EVENT}
            or gone.sensitive
            or now.sensitive
            or UPDATE_CUE.search(now.said or now.content) is None
            or not (_STOPPED.search(gone.said) or UPDATE_CUE.search(gone.said))
        ):
            continue
        content = f"{gone.content} {now.content}"
        problems = check_statement(content)
        if now.rule.startswith(VERBATIM_RULE) or gone.rule.startswith(VERBATIM_RULE):
            problems = tuple(p for p in problems if p != "first_or_second_person")
        if problems:
            continue
        joined = replace(
            now,
            content=content,
            said=f"{gone.said} {now.said}".strip(),
            cue=ChangeCue.UPDATE,
            previous_value=now.previous_value or gone.previous_value or changed_from(gone.said),
        )
        del where[id(gone)], where[id(now)]
        where[id(joined)] = at + 1
        return [*out[:i], joined, *out[i + 2 :]], where
    return out, where


#: Memories a later sentence's detail may join: what the turn keeps as lasting (a task,
#: a reminder or a procedure keeps its own words; a detail stays a memory of its own).
_HOLDS_DETAIL = frozenset(
    {MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.DECISION, MemoryType.GOAL}
)


def join_detail(
    candidates: Sequence[Candidate], sentence_of: dict[int, int], details: set[int]
) -> tuple[list[Candidate], dict[int, int], list[Candidate]]:
    """A later sentence's fact that names something, as the second sentence of the memory
    it follows.

    "Our robot arm runs ROS 2 on a Jetson. Sim is in Gazebo." keeps one memory that
    says both: the later sentence (no rule read it, ``details`` holds it) names a
    thing of its own, so it is no mere comment, but alone it says little ("Sim is in
    Gazebo." — whose sim?) and the turn told one thing. Joined only to the memory of
    an earlier sentence, a fact, preference, decision or goal, both in English or both
    kept word for word, neither sensitive nor refused by the gate alone
    (:func:`refused_alone`), and only when the statement stays within its constraints
    (two sentences, 280 characters); otherwise it stays a memory of
    its own. Returns the candidates, their sentences and the details joined.

    >>> from memvault.model.enums import MemoryType
    >>> arm = Candidate(content="Ana's team's arm runs ROS 2.", type=MemoryType.FACT,
    ...                 category="KNOWLEDGE", key="fact.arm", value="x", rule="reader.fact")
    >>> sim = Candidate(content="Sim is in Gazebo.", type=MemoryType.FACT,
    ...                 category="KNOWLEDGE", key="fact.sim", value="y", rule="reader.fact")
    >>> out, _, joined = join_detail([arm, sim], {id(arm): 0, id(sim): 1}, {id(sim)})
    >>> [c.content for c in out], [c.content for c in joined]
    (["Ana's team's arm runs ROS 2. Sim is in Gazebo."], ['Sim is in Gazebo.'])
    """
    out = list(candidates)
    where = dict(sentence_of)
    joined: list[Candidate] = []
    i = 1
    while i < len(out):
        detail = out[i]
        at = where.get(id(detail))
        host = next(
            (
                c
                for c in reversed(out[:i])
                if where.get(id(c)) is not None and at is not None and where[id(c)] < at
            ),
            None,
        )
        verbatim = detail.rule.startswith(VERBATIM_RULE)
        if (
            id(detail) not in details
            or host is None
            or host.type not in _HOLDS_DETAIL
            or host.rule.startswith(VERBATIM_RULE) is not verbatim
            or host.sensitive
            or detail.sensitive
        ):
            i += 1
            continue
        content = f"{host.content} {detail.content}"
        problems = check_statement(content)
        if verbatim:
            problems = tuple(p for p in problems if p != "first_or_second_person")
        if problems or refused_alone(host.said or host.content, detail.said or detail.content):
            # Trigger: the gate refuses the host or the detail by its words alone (a
            #          password, an injection, an access key after a harmless fact).
            # Why: joined, the gate judges both as one memory and refuses it whole: the
            #      harmless sentence would be lost with the refused one (review S17-R4).
            # Outcome: not joined; each is judged (and refused or kept) on its own.
            i += 1
            continue
        both = replace(host, content=content, said=f"{host.said} {detail.said}".strip())
        h = out.index(host)
        where[id(both)] = where.pop(id(host))
        del where[id(detail)]
        out[h] = both
        del out[i]
        joined.append(detail)
    return out, where, joined
