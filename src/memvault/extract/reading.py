"""What the clause reader's verdict does to a clause: drop it, type it, or word it.

The rules fill slots and resolve dates; the reader (:mod:`memvault.extract.reader`)
decides what is kept and as which type:

- :func:`silent` — the clause is a question, chit-chat or a one-off (or its
  whole sentence is a one-off: "dentist appointment tomorrow, so I can't join
  the standup" is about tomorrow, not a standing constraint): nothing is kept;
- :func:`retype` — a rule built a candidate and the reader is confident it is
  another type ("I use helix every day" read as a fact about the stack, not a
  like): the rule's wording and slot stay, the type and category change;
- :func:`statement_candidate` — no rule knows the phrasing ("the api is
  written in go", "gotta fix the flaky test before friday", "ping me tomorrow
  about the invoice"): the user's own words, in the third person, become the
  statement, typed by the reader.

>>> from datetime import date
>>> from memvault.extract.clause import Clause
>>> from memvault.extract.reader import Reading
>>> r = Reading("todo", 0.9, (("todo", 0.9),))
>>> c = statement_candidate(Clause("gotta fix the flaky test before friday", "Tom",
...                                date(2026, 11, 23)), r)
>>> c.type.value, c.content
('Todo', 'Tom needs to fix the flaky test before friday 2026-11-27.')
"""

from __future__ import annotations

import re
import zlib
from dataclasses import replace

from memvault.extract.base import Candidate, ChangeCue
from memvault.extract.clause import IMPORTANCE, TTL_BY_CATEGORY, Clause, candidate
from memvault.extract.constraints import normalise_statement
from memvault.extract.reader import SILENT, TYPES, Reading, english_like
from memvault.extract.text import object_slug, slug
from memvault.model.enums import MemoryType

__all__ = [
    "INTRODUCTIONS",
    "RETYPE_MIN",
    "SILENT_OVER_RULE",
    "UPDATE_CUE",
    "as_current_state",
    "durable_fallback",
    "english_like",
    "overrules_rules",
    "reading_label",
    "retype",
    "says_task",
    "silent",
    "statement_candidate",
    "verbatim_candidate",
]

#: The reader overrides a rule's type only at or above this probability.
RETYPE_MIN = 0.6
#: A clause a rule understood is dropped as silent only at or above this probability.
SILENT_OVER_RULE = 0.7
#: A sentence read as a one-off silences its clauses at or above this probability.
SENTENCE_SILENT_MIN = 0.5

_UPDATE_EN = (
    r"\b(?:now|no longer|no more|these days|nowadays|any ?more|scratch that|used to|instead"
    r"|gave up(?: on)?|quit|stopped"
    r"|from now on|change of plan|after all|on second thought|actually no|correction"
    # a reversal: "I changed my mind, we're keeping RabbitMQ", "decided against Kafka"
    r"|chang(?:ed|ing) (?:my|our) minds?|decided against|(?:sticking|stick) with"
    # "switched to", "moved the builds to", "upgraded the cluster to", "replaced X with"
    r"|(?:switched|changed|moved|migrated|upgraded|downgraded|upgrade|migrate|switch|bumped|bump"
    r"|moves|switches|switching|migrates|migrating"
    r"|pushed|postponed|rescheduled|went back)"
    r"(?:\s+[\w.+#/-]+){0,4}?\s+(?:to|from|over|onto)"
    r"|replaced(?:\s+[\w.+#/-]+){1,4}?\s+with)\b"
)
#: The same cues in the other languages the reader reads (a clause kept word for word
#: is an update when it says "ahora uso …", "inzwischen …", "改用 …").
_UPDATE_OTHER = (
    r"(?<!\w)(?:ahora|ya no|últimamente|cambi(?:é|amos) a|me pasé a|nos pasamos a|en (?:vez|lugar)"
    r" de|a partir de ahora|desde ahora|al final|maintenant|désormais|ne \w+ plus|plus jamais"
    r"|(?:je suis|on est|nous sommes) pass(?:é|és) (?:à|sur)|j'ai changé|au lieu de|finalement"
    r"|dorénavant|jetzt|inzwischen|mittlerweile|nicht mehr|kein\w* \w+ mehr|gewechselt"
    r"|umgestiegen|stattdessen|ab jetzt|agora|já não|não \w+ mais|mudei para|mudamos para"
    r"|troquei|troc(?:amos|ei) para|em vez de|a partir de agora|afinal|adesso|ormai|non \w+ più"
    r"|(?:sono|siamo) passat[oi] a|invece di|d'ora in poi|alla fine|tegenwoordig|niet meer"
    r"|overgestapt|in plaats van|vanaf nu|teraz|już nie|przeszli?(?:śmy|łem|łam) na|zamiast"
    r"|od teraz|artık|yerine|geçtim|geçtik|теперь|больше не|перешл[иа] на|вместо"
    # a move said with its verb and its target: "mudamos o catálogo … para", "cambiamos
    # el CI a", "wir bleiben doch bei", "on est passé de … à", "abbiamo migrato"
    r"|mud(?:ei|amos|ou|aram)(?: \S+){0,5}? para|cambi(?:é|amos|ó|aron)(?: \S+){0,5}? (?:a|por)"
    r"|pas(?:é|amos|aron)(?: \S+){0,5}? a|migr(?:é|amos|ei|ou|ato|ati|iert|ierten|é|és)"
    r"|(?:bleiben|bleibe) (?:doch |lieber )?bei|umgezogen|pass(?:é|és|ée)s? de \S+(?: \S+)? à"
    r"|on reste sur|gemigreerd|overgezet|przenieśli(?:śmy)?|zmieni(?:liśmy|łem|łam)"
    r"|taşıdık|geçirdik|переехали|сменили|мигрировали"
    # a move of home or job and "lately"/"from now on" words: "me mudé a", "j'ai déménagé",
    # "ich bin … umgezogen", "mi sono trasferit[oa]", "verhuisd", "przeprowadzi(łem|łam)
    # się", "taşındım", "переехал(а)", "ora uso", "voortaan", "neuerdings", "numera"
    r"|me mud(?:é|e)|nos mudamos|se mudó|déménag(?:é|ée|és|er)|mi sono trasferit[oa]"
    r"|ci siamo trasferiti|verhuisd|przeprowadzi(?:łem|łam|liśmy) się|taşındı[mk]"
    r"|переех(?:ал|ала|али)|поменял[аи]?|ora uso|ora usiamo|voortaan|sinds kort"
    r"|neuerdings|seit kurzem|depuis peu|desde hace poco|da poco|od niedawna|numera"
    r"|inte längre|ikke længere|flyttade|flyttede|ho cambiato|abbiamo cambiato"
    r"|he cambiado|hemos cambiado|j'ai changé de|passei a|passamos a|değiştirdi[mk]"
    # Swedish, Danish/Norwegian, Romanian, Czech: "nu kör vi …", "i stedet for", "nu mai"
    r"|nu|nå|istället|i stället|i stedet(?: for)?|bytt(?:e|et)? till?|byttet til|byttede til"
    r"|gått över till|gick över till|gået over til|skiftet til|skiftede til|fremover"
    r"|från och med nu|ikke lenger|acum|nu mai|în loc de|în locul|am trecut (?:la|pe)"
    r"|ne-am mutat|m-am mutat|de acum(?: înainte)?|am schimbat|am înlocuit|teď|už ne\w*"
    r"|místo|přešli jsme|přešel jsem|přešla jsem|od teď|nyní|quitté|abandonné"
    # Greek: "τώρα", "πλέον", "δεν … πια", "αντί για", "αλλάξαμε", "μετακόμισα"
    r"|τώρα|πλέον|πια|αντί για|αλλάξαμε|άλλαξα|περάσαμε σε|πέρασα σε|μετακόμισα"
    r"|μετακομίσαμε|μεταφέραμε|από εδώ και πέρα)(?!\w)"
    r"|今は|最近は|乗り換え|切り替え|に変更|代わりに|これからは|もう使って|现在|不再|改用|换成|换到"
    r"|转到|改成|以后都|引っ越し|搬到|搬家|移行し|に移行|不用|に変えました|に変えた|に乗り換え"
    r"|요즘|대신|바꿨|바꾸었|옮겼|갈아탔|전환했|이제"
)
UPDATE_CUE = re.compile(rf"{_UPDATE_EN}|{_UPDATE_OTHER}", re.I)
# Rules whose type is structural (a todo reported done closes the todo; a
# procedure is numbered steps): the reader never retypes them.
# Standing instructions, diets and named slots ("my timezone is …") are typed by
# their rule too: the slot says more than the wording.
_KEEP_RULE_TYPE = frozenset(
    {
        "todo_done",
        "procedure",
        "preferred_name",
        "introduction",
        "introduction_cjk",
        "introduction_lead",
        # "we use pnpm for package management": the stack's fact (a decision says "decided")
        "use_for",
        "reply_in",
        "instruction",
        "want_you",
        "by_default",
        "constraint",
        "unavailable",
        "diet",
        "favourite",
        "prefer",
        "prefer_over",
        "goal",
        "todo",
        "decision",
        "remember",
        "likes",
    }
)

_NEED = re.compile(
    r"^(?:i\s+)?(?:still\s+)?(?:need to|needs to|gotta|got to|have to|has to|'ve got to"
    r"|must|should|ought to)\s+(?P<x>.+)$"
    r"|^(?:to do|todo|to-do|on my list|action item(?: for me)?)\s*[:-]\s*(?P<y>.+)$",
    re.I,
)
_REMIND = re.compile(
    r"^(?:(?:please\s+)?(?:remind|nudge|ping)\s+me\s+(?P<when>.*?)\s*(?P<to>to|about)\s+(?P<x>.+)"
    r"|reminder\s*[:-]\s*(?P<y>.+)|set a reminder (?:to|for)\s+(?P<z>.+)"
    r"|make sure i\s+(?P<w>.+))$",
    re.I,
)


_ABOUT_THIS = re.compile(
    r"\b(?:love|like|hate|enjoy|prefer|dig|adore)s?\s+(?:it|this|that|them)(?:\s+\w+)?\W*$"
    # "I'm sending this to my whole team", "gonna share that with my boss": this chat
    r"|\b(?:send|sending|share|sharing|forward|forwarding|show|showing|print|printing"
    r"|screenshot|screenshotting|bookmark|bookmarking)\s+(?:this|that|it)\b",
    re.I,
)


_LEAD_ONLY = re.compile(
    r"^(?:before i forget|remind me|quick question|one more thing|last thing|just so you know"
    r"|for context|some context|small correction|not sure if i told you|as i said)\W*$",
    re.I,
)


#: A stated clause is silenced by a silent reading only at or above this probability.
STATED_SILENT_MIN = 0.5
#: … and this share of the summed probabilities.
STATED_SILENT_SHARE = 0.5


_FALLBACK = frozenset({"fact", "preference", "event", "goal"})


def durable_fallback(reading: Reading, *, plain: bool = False) -> Reading:
    """The reading's best *durable* label (a stated clause the reader was unsure of).

    ``plain``: one of the plain kinds (fact, preference, event, goal) even when the
    reading is a todo, reminder or decision — the clause lacks their words.

    >>> r = Reading("oneoff", 0.3, (("fact", 0.1), ("event", 0.2), ("oneoff", 0.3)))
    >>> durable_fallback(r).label
    'event'
    """
    if reading.label in (_FALLBACK if plain else TYPES) and reading.label != "procedure":
        return reading
    # a todo, reminder or decision is said with its own words ("need to", "remind me",
    # "decided"): an unsure statement is one of the plain kinds
    options = [(p, label) for label, p in reading.scores if label in _FALLBACK]
    if not options:
        return Reading("fact", 0.0, reading.scores, 0.0, False)
    p, label = max(options)
    return Reading(label, p, reading.scores, reading.share, False)


_REVERSAL = re.compile(
    r"\b(?:after all|change of plan|scratch that|on second thought|actually no"
    r"|chang(?:ed|ing) (?:my|our) minds?|decided against)\b",
    re.I,
)
_DECIDED = re.compile(
    r"\b(?:decid\w*|agreed?|chose|chosen|settled|going with|go with|picked|voted|approved)\b",
    re.I,
)


def as_current_state(cand: Candidate, text: str) -> Candidate:
    """A change stated as done ("we moved the builds to Nx", "upgraded to Vault 1.17")
    is the new state of things — a Fact — unless the clause says it was decided.

    The type of an update follows what it replaces (a fact about the stack), so
    the memory it supersedes and the new one are of one kind.
    """
    if cand.cue is not ChangeCue.UPDATE or cand.type not in (MemoryType.DECISION, MemoryType.EVENT):
        return cand
    if _DECIDED.search(text) or _REVERSAL.search(text) or cand.rule in _KEEP_RULE_TYPE:
        return cand  # decided, or a plan reversed ("Vite for the frontend after all")
    return replace(
        cand,
        type=MemoryType.FACT,
        category="KNOWLEDGE",
        importance=max(cand.importance, IMPORTANCE.get("KNOWLEDGE", 50)),
        ttl_class=TTL_BY_CATEGORY.get("KNOWLEDGE", cand.ttl_class),
    )


#: A question without its mark: "no idea why", "not sure how to …", "any idea what …".
_ASKS_WHY = re.compile(
    r"\b(?:no idea|not sure|any idea|wonder(?:ing)?|can't figure out) (?:why|how|what|whether)\b",
    re.I,
)


#: A wish or a goodbye ("have a lovely evening", "schönes Wochenende", "bon week-end"):
#: chit-chat in any language, however the reader reads its nouns.
_FAREWELL = re.compile(
    r"^(?:(?:have|enjoy) (?:a |an |your )?(?:\w+ )?(?:day|evening|night|weekend|week|trip"
    r"|holiday|holidays|vacation|break|time|one)|take care|talk (?:soon|later|tomorrow)"
    r"|see (?:you|ya)\b|catch you later|good ?night|bye\b|all the best|happy (?:friday|holidays"
    r"|weekend|new year)|(?:schönes|schöne|schönen) (?:wochenende|abend|tag|feierabend|urlaub)"
    r"|bis (?:morgen|bald|später|dann)|tschüss|(?:buen|feliz) (?:finde|fin de semana|día|viaje)"
    r"|buenas noches|hasta (?:luego|mañana|pronto)|bon(?:ne)? (?:week-end|weekend|soirée|journée"
    r"|nuit|vacances)|à (?:demain|bientôt|plus)|bom (?:fim de semana|dia)|boa (?:noite|semana)"
    r"|até (?:amanhã|logo|já)|buon(?:a)? (?:weekend|fine settimana|serata|notte|giornata)"
    r"|a domani|ci vediamo|fijn weekend|fijne (?:avond|dag)|tot (?:morgen|straks|later)"
    r"|miłego (?:weekendu|dnia|wieczoru)|do (?:jutra|zobaczenia)|iyi (?:hafta sonları|akşamlar"
    r"|geceler|günler)|görüşürüz|хороших выходных|до (?:завтра|встречи)|спокойной ночи"
    r"|よい週末|良い週末|おやすみ|またね|お疲れ様|周末愉快|晚安|明天见|回头见)(?!\w)",
    re.I,
)


#: A guess with its subject dropped: "Must be the cold making everyone forgetful", "must
#: have been the update" — a comment on the moment, not a task ("I must renew the domain").
_GUESS = re.compile(
    r"^(?:(?:it|that|this)\s+)?must(?:'ve| have)?\s+(?:be|been)\s+(?:the|a|an|all|that|this"
    r"|because|why|my|our|something|some|nice|fun|great|hard|tough|rough)\b",
    re.I,
)


def silent(clause: Reading, sentence: Reading | None, *, explicit: bool, text: str) -> str:
    """Why nothing is kept of this clause ("" = keep it).

    A guess with its subject dropped is chit-chat, an obligation is not:

    >>> r = Reading("todo", 0.9, (("todo", 0.9),))
    >>> [silent(r, None, explicit=False, text=t) for t in ("Must be the heat making the glue"
    ...  " slip.", "I must renew the domain before Friday.")]
    ['chitchat', '']
    """
    if explicit:
        return ""
    if text.rstrip().endswith("?") or _ASKS_WHY.search(text):
        return "question mark"
    if _FAREWELL.match(text.strip(" ¡¿\"'")) or _GUESS.match(text.strip()):
        return "chitchat"
    if (
        sentence is not None
        and sentence.label == "oneoff"
        and sentence.score >= SENTENCE_SILENT_MIN
    ):
        return "one-off sentence"
    if clause.label in SILENT:
        return clause.label  # the only reason a rule's reading can outweigh
    return ""


def reading_label(reading: Reading | None) -> str:
    """The reader's label ("" without a reading)."""
    return "" if reading is None else reading.label


#: Rules that only saw a date ("… today", "… this afternoon"): a sure one-off
#: reading outweighs them — a dated clause is as often today's plan as an event.
_DATED_RULES = frozenset({"event"})


#: Rules that read the user introducing themselves ("I'm Maya", "call me Ana"): the
#: reader takes a two-word greeting for chat, the rule knows it is a name.
INTRODUCTIONS = frozenset(
    {"introduction", "introduction_cjk", "introduction_lead", "preferred_name"}
)

#: A clause that states a change ("my timezone is now JST") is silenced only above this.
SILENT_OVER_CHANGE = 0.9


def overrules_rules(reading: Reading | None, rule: str = "", *, change: bool = False) -> bool:
    """A silent reading confident enough to drop a clause a rule would have kept.

    ``change``: the clause states a change ("now", "switched to"): the new state
    of things, which "right now" one-offs resemble in their words only.
    """
    if reading is None or reading.label not in SILENT or rule in INTRODUCTIONS:
        return False
    if change:
        return reading.score >= SILENT_OVER_CHANGE
    return reading.score >= SILENT_OVER_RULE or (rule in _DATED_RULES and reading.sure)


def retype(cand: Candidate, reading: Reading) -> Candidate:
    """The rule's candidate with the reader's type when it is confident and it differs."""
    if cand.rule in _KEEP_RULE_TYPE or reading.label not in TYPES:
        return cand
    if cand.rule == "my_x_is" and cand.type is MemoryType.PREFERENCE:
        return cand  # "my timezone is …": the slot noun made it a preference
    type_, category = TYPES[reading.label]
    if cand.type is type_ and (reading.label != "reminder" or cand.category == "REMINDER"):
        return cand
    if reading.score < RETYPE_MIN:
        return cand
    if cand.type is type_:  # same type, more specific category (a reminder)
        return replace(cand, category=category)
    return replace(
        cand,
        type=type_,
        category=category,
        importance=max(cand.importance, IMPORTANCE.get(category, 50)),
        ttl_class=TTL_BY_CATEGORY.get(category, cand.ttl_class),
        exclusive=cand.exclusive and type_ in (MemoryType.FACT, MemoryType.PREFERENCE),
    )


def says_task(text: str) -> bool:
    """Whether a clause says a todo or a reminder in its words ("need to", "remind me").

    >>> says_task("gotta renew the cert"), says_task("I've got calls until 4")
    (True, False)
    """
    return bool(_NEED.match(text) or _REMIND.match(text))


def statement_candidate(clause: Clause, reading: Reading) -> Candidate | None:
    """A candidate in the user's own words, typed by the reader (no rule knew the phrasing)."""
    if reading.label not in TYPES or reading.label == "procedure":
        # Steps are kept only as a whole (numbered, or on "remember these steps"):
        # describing what one usually does is not a procedure to store (spec §12).
        return None
    type_, category = TYPES[reading.label]
    text = clause.text.strip()
    if _ABOUT_THIS.search(text) or _LEAD_ONLY.match(text) or not english_like(text):
        return None  # "this is so cool, I love it": a reaction to the chat, not a taste
    key_text = text
    if reading.label in {"todo", "reminder"}:
        remind = _REMIND.match(text)
        need = _NEED.match(text)
        if remind:
            action = remind["x"] or remind["y"] or remind["z"] or remind["w"] or ""
            when = (remind["when"] or "").strip()
            phrase = f"{action} {when}".strip() if when else action
            link = "about" if remind["to"] == "about" else "to"
            content = clause.statement(f"{clause.subject} wants a reminder {link} {phrase}")
            key_text = action
            category = "REMINDER"
        elif need:
            action = need["x"] or need["y"] or ""
            content = clause.statement(f"{clause.subject} needs to {action}")
            key_text = action
        else:
            content = clause.statement()
        key = "todo." + object_slug(key_text)
    else:
        content = clause.statement()
        key = f"{reading.label}.{slug(text)}"
    if not re.search(r"[A-Za-z]", content) or len(text.split()) < 3:
        return None  # "remind me", "before I forget": a lead-in, not a statement
    return candidate(
        clause,
        f"reader.{reading.label}",
        content,
        type_,
        category,
        key,
        clause.value(key_text),
        cue=ChangeCue.UPDATE
        if UPDATE_CUE.search(text) or UPDATE_CUE.search(clause.said)
        else ChangeCue.ASSERT,
        confidence=round(min(0.9, 0.5 + reading.score / 2), 3),
    )


#: The rule name of a clause kept word for word (not English: nothing is rewritten).
VERBATIM_RULE = "reader.verbatim"


def verbatim_candidate(clause: Clause, reading: Reading) -> Candidate | None:
    """A clause in another language, kept word for word and typed by the reader.

    Neither the rules nor the pronoun rewriter read the language, so nothing is
    rewritten: the statement is the user's clause (normalised spacing, capital,
    full stop), its speaker the candidate's subject. The same gate, consent and
    sensitive-word checks apply as to every candidate.

    >>> from datetime import date
    >>> r = Reading("preference", 0.9, (("preference", 0.9),))
    >>> c = verbatim_candidate(Clause("me encanta la cerámica", "Ana", date(2026, 1, 5)), r)
    >>> c.type.value, c.content, c.rule
    ('Preference', 'Me encanta la cerámica.', 'reader.verbatim.preference')
    """
    if reading.label not in TYPES or reading.label == "procedure":
        return None
    text = " ".join(clause.text.split()).strip(" ,;:-")
    if len(text) < 6:
        return None
    type_, category = TYPES[reading.label]
    key = slug(text)
    if key == "item" or not key.isascii():
        key = f"{zlib.crc32(text.lower().encode('utf-8')):08x}"
    return candidate(
        clause,
        f"{VERBATIM_RULE}.{reading.label}",
        text if text.endswith(("。", "！", "？", "…")) else normalise_statement(text),
        type_,
        category,
        f"{reading.label}.{key}",
        text,
        cue=ChangeCue.UPDATE if UPDATE_CUE.search(text) else ChangeCue.ASSERT,
        confidence=round(min(0.9, 0.5 + reading.score / 2), 3),
    )
