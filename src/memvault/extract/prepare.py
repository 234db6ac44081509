"""What the rules and the reader read of a clause: fillers, intros and requests read off.

A user's clause comes with words that are not its statement: fillers ("btw",
"for the record", "like I said"), an intro ("Just to be clear, I prefer tabs"),
a date put first ("yesterday I …"), a dropped subject ("switched to Zed last
week"), a request around it ("can you remind me to …?", "note to self: …",
"remember that …"). :func:`prepare` reads them off, in the user's own words
otherwise (quotes, code and identifiers are never touched), and says whether
the clause was an explicit request to keep something.

>>> prepare("Just to be clear, I prefer tabs.")
('I prefer tabs', False)
>>> prepare("Note to self: renew the passport")
('I need to renew the passport', True)
>>> prepare("switched to Zed last week")
('I switched to Zed last week', False)
>>> is_chitchat("thanks a lot!"), is_chitchat("I love hiking")
(True, False)
"""

from __future__ import annotations

import re

from memvault.extract.clause import rx as _r
from memvault.extract.dates import has_date_expression
from memvault.extract.speech import ORDER_VERB
from memvault.extract.verbatim import protected

__all__ = ["is_chitchat", "prepare", "says_repeat"]

_CHITCHAT = re.compile(
    r"^(?:hi|hey|hello|yo|hiya|howdy|good (?:morning|afternoon|evening|night)|thanks?|thank you"
    r"|thx|ty|cheers|ok(?:ay)?|k|cool|nice|great|awesome|lol|haha+|hmm+|yes|yeah|yep|no|nope"
    r"|sure|got it|sounds good|bye|see you|cya|np|no problem|you're welcome|wow|oh|ah|right"
    r"|perfect|exactly|indeed|alright|fine|good|brb|ttyl)\b[\s!.,:)(]*(?:\w+[\s!.,]*){0,3}$",
    re.I,
)
_REPEAT_WORDS = (
    r"like i said(?: before)?|as i (?:said|mentioned|told you)(?: before| earlier)?"
    r"|as (?:already )?mentioned(?: before| earlier)?|just (?:reminding you|a reminder)"
    r"|comme je (?:te |vous )?l'ai (?:déjà )?dit|como (?:ya )?te (?:dije|he dicho)"
    r"|como (?:já )?(?:te )?disse|wie (?:schon |bereits )?gesagt|wie ich (?:schon )?sagte"
    r"|come (?:ti )?ho (?:già )?detto|zoals (?:ik )?(?:al )?(?:zei|gezegd)"
    r"|jak (?:już )?mówiłe[mś]|как я (?:уже )?говорил[аи]?|dediğim gibi"
    r"|som jag sa|som jeg sagde|cum (?:ți )?am (?:mai )?spus|όπως σου είπα|όπως είπα"
)
_FILLER = re.compile(
    r"^(?:so|well|also|btw|by the way|oh|and|but|actually|fyi|anyway|ok(?:ay)?|just so you know"
    r"|for the record|heads up|honestly|plus|hey|hi|hello|please|quick note|side note|ps"
    r"|before i forget|quick question|one more thing|last thing|for context|some context"
    r"|small correction|quick update|update(?=\s*[:!-])|good news|to be clear"
    r"|in case it matters|fwiw|tbh"
    # a repeat says it is one ("like I said", "comme je te l'ai déjà dit"): the words
    # are not the statement's, and without them the repeat merges with what it repeats
    rf"|{_REPEAT_WORDS})"
    r"[\s,:!-]+",
    re.I,
)
#: A clause that opens by saying it repeats something said before.
_REPEAT = re.compile(rf"^(?:[\w'’]+[\s,:!-]+){{0,2}}?(?:{_REPEAT_WORDS})\b", re.I)


def says_repeat(text: str) -> bool:
    """Whether a clause says it repeats something ("as I mentioned, …").

    >>> says_repeat("As I mentioned, our cluster runs 15.4"), says_repeat("I mentioned it")
    (True, False)
    """
    return _REPEAT.match(text.strip()) is not None


_LEADING_DATE = re.compile(
    r"^(?P<d>yesterday|today|tonight|tomorrow|this (?:morning|afternoon|evening|week)"
    r"|(?:next|last) (?:week|month|year|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|\w+ (?:days?|weeks?) ago),?\s+(?P<rest>.+)$",
    re.I,
)


_TO_SELF = _r(r"^(?:note|reminder|memo)\s+to\s+(?:self|myself)\s*[:,-]?\s+(?P<rest>.+)$")
_ASK = _r(
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+)"
    # only requests to keep something: "can you save the output as csv?" is a task
    # for the assistant, "can you remember what we decided?" a question
    r"(?=(?:remind me|remember (?:that|to)\b|remember\s*:|note (?:that|down)\b|note\s*:"
    r"|keep in mind|make a note|(?:save|store) (?:that\b|this\s*:)|add (?:this |that )?to my"
    r" (?:notes|list|memory)))"
)
#: A request to put something on the user's task list ("add a task to …", "put down that
#: …", "add to my todo list: …", "new task: …", "don't let me forget to …").
_TASK = _r(
    r"^(?:(?:add|create|make|log|open|set up|put in)\s+(?:a\s+|an\s+|one\s+|new\s+)*"
    r"(?:task|todo|to-do|to do|action item)(?:\s+for me)?(?:\s+to(?=\s)|\s*[:,-])"
    r"|(?:add|put)\s+(?:this\s+|that\s+|it\s+)?(?:to|on|onto|in)\s+my\s+"
    r"(?:todo\s+|to-do\s+|to do\s+|task\s+)?(?:list|tasks|todos|to-dos)(?:\s+to(?=\s)|\s*[:,-])?"
    r"|(?:put|write|jot)\s+(?:it\s+|this\s+)?down(?:\s+that)?(?=\s)\s*[:,-]?"
    r"|new\s+(?:task|todo|to-do)\s*[:,-]"
    r"|(?P<remind>(?:don'?t|do not)\s+let\s+me\s+forget(?:\s+to(?=\s)|\s+that(?=\s)"
    r"|(?P<about>\s+about(?=\s)))?))"
    r"\s*(?P<rest>\S.*)$"
)
_NOT_A_VERB = _r(r"^(?:the|a|an|my|our|this|that|these|those|it|i|we|\w+'s)\b")
_REMEMBER = _r(
    r"^(?:please\s+)?(?:remember(?!\s+(?:what|which|how|why|when|where|who|if|whether)\b)"
    r"|keep in mind|don't forget|do not forget|make a note(?:\s+of)?"
    # "note the edge cases in the docstring", "save the output as csv": tasks, not notes
    r"|(?:note|save|store)(?=\s+that\b|\s*[:,]|\s+down\b)(?:\s+down)?)"
    r"(?:\s+that)?\s*[:,]?\s+(?P<rest>.+)$"
)

_INTRO = re.compile(
    r"^(?P<intro>[\w\s']{2,30}),\s+(?=(?:i|i'm|i've|i'd|my|we|we're|our|please|always|never)\b)",
    re.I,
)


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|we|we're|my|our)\b", re.I)
#: An intro that is itself a request ("always give me metric units, I …"): never dropped.
_PERSONAL_INTRO = re.compile(
    r"\b(?:me|you|your|us|myself)\b|^(?:please|always|never|don't|do not|stop)\b", re.I
)


def _clean(clause: str) -> str:
    """The clause without fillers and intros; quotes, code and identifiers untouched."""
    return protected(_clean_masked, clause)


def _clean_masked(clause: str) -> str:
    out = clause.strip()
    for _ in range(3):
        stripped = _FILLER.sub("", out)
        intro = _INTRO.match(stripped)
        if (
            intro
            and not has_date_expression(intro["intro"])
            and not _FIRST_PERSON.search(intro["intro"])
            and not _PERSONAL_INTRO.search(intro["intro"])
            # "Show code in Swift, never Objective-C": an order is no intro
            and not ORDER_VERB.match(intro["intro"])
        ):
            # "Just to be clear, I prefer tabs" → "I prefer tabs"
            stripped = stripped[intro.end() :]
        if stripped == out:
            break
        out = stripped
    date_first = _LEADING_DATE.match(out)
    if date_first:
        out = f"{date_first['rest'].rstrip(' .!')} {date_first['d']}"
    return out.strip().rstrip(".!")


def is_chitchat(clause: str) -> bool:
    words = clause.split()
    first_person = re.match(r"^(?:i|i'm|we're|my|our)\b", clause, re.I) is not None
    return (
        len(words) < 2
        or (len(words) < 3 and not first_person)
        or clause.rstrip().endswith("?")
        or _CHITCHAT.match(clause) is not None
        or not re.search(
            r"\b(?:i|i'm|i've|i'd|my|we|our|me|remember|todo|to-do|decision|call)\b"
            r"|^(?:always|never|don't|do not|stop|please|reply|respond|answer|by "
            r"default|from now on|going forward)",
            clause,
            re.I,
        )
    )


#: A clause that drops its subject ("switched to Zed last week", "finally moved to Leeds"):
#: chat's way of saying "I …". Not a mood ("tired of it") nor an order ("started?").
_DROPPED_SUBJECT = re.compile(
    r"^(?:(?:just|finally|recently|also|now|still|actually|mostly|usually)\s+)?"
    r"(?!(?:tired|bored|excited|confused|stressed|annoyed|worried|pleased|interested|surprised"
    r"|impressed|scared|obsessed|exhausted|relieved|amazed|thrilled|need|needed|based)\b)"
    r"(?:[a-z]{3,}ed|went|got|took|made|left|began|bought|sold|met|ran|won|lost|quit|gave up"
    r"|set up|built|wrote|became|spent|found|chose|grew up)\s+(?!(?:you|it|that|this)\b)\w",
    re.I,
)


def prepare(raw: str) -> tuple[str, bool]:
    """The clause the rules and the reader read, and whether it was an explicit request."""
    text = _clean(raw)
    if _DROPPED_SUBJECT.match(text) and not text.rstrip().endswith("?"):
        # Trigger: "switched to Zed last week", "moved to Leeds in May" (no subject).
        # Why: chat drops the "I"; read without it, the clause is nobody's event and
        #      its statement has no subject.
        # Outcome: read and written as the speaker's own ("Maya switched to Zed …").
        text = "I " + text[:1].lower() + text[1:]
    explicit = False
    asked = _ASK.match(text)
    if asked:
        # "Can you remind me to …?" is a request, not a question.
        text = text[asked.end() :].rstrip(" ?")
    to_self = _TO_SELF.match(text)
    if to_self:
        # "Note to self: renew the passport" → a todo; "…: the VPN is flaky" → a note.
        explicit = True
        text = _clean(to_self["rest"])
        if _NOT_A_VERB.match(text) is None and not is_chitchat("I " + text):
            text = "I need to " + text
    task = None if to_self else _TASK.match(text)
    if task:
        # "Add a task to renew the boat licence", "put down that I need the chimney
        # swept", "don't let me forget to call Jo": a task asked for, in lead-in words
        # that are not the task's.
        explicit = True
        text = _clean(task["rest"])
        if task["about"]:
            text = "remind me about " + text
        elif task["remind"] and _NOT_A_VERB.match(text) is None:
            text = "remind me to " + text
        elif task["remind"]:
            text = "remind me about " + text
        elif _NOT_A_VERB.match(text) is None:
            text = "I need to " + text
        elif not re.match(r"i\b", text, re.I):
            text = "todo: " + text
    remembered = None if to_self or task else _REMEMBER.match(text)
    if remembered:
        explicit = True
        text = _clean(remembered["rest"])
        if text.lower().startswith("to "):
            text = "I need " + text
    return text, explicit
