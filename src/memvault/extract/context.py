"""What a turn's other sentences are to the memory it already keeps.

Real turns are two or three sentences: one says something worth keeping, the
others comment on it ("We pin gradle to 8.5 in every repo. Newer versions
broke our plugin last time."), react ("works better for me"), give the reason
("Nobody wanted to maintain the groovy anymore") or praise the assistant. Read
alone, each of those reads like a fact or a preference — and stored alone it
means nothing ("It took the team a year to get there").

- :func:`context_of_kept` — a later sentence no rule read, in a turn that already
  keeps a memory, is that memory's context unless it stands alone: it names
  something of its own (a proper name, an identifier, a number);
- :func:`praises_listener` — a clause about the assistant ("you always explain
  things so clearly", "I appreciate how patient you are") is chit-chat, not a
  fact or a taste of the user's;
- :func:`lasting_state` — a life event that starts a lasting state ("we adopted
  a greyhound", "my daughter started school") is a fact about the user, not a
  dated happening.

>>> context_of_kept("Newer versions broke our plugin last time.")
True
>>> context_of_kept("Monitoring için Grafana kullanıyoruz.")
False
>>> praises_listener("You always explain things so clearly")
True
>>> praises_listener("please explain less")
False
"""

from __future__ import annotations

import re

from memvault.extract import when
from memvault.extract.gloss import glosses
from memvault.extract.reader import english_like
from memvault.extract.reading import UPDATE_CUE
from memvault.extract.verbatim import protect

__all__ = [
    "about_replies",
    "biographic",
    "context_of_kept",
    "decision_said",
    "favourite_said",
    "lasting_state",
    "leaves_chat",
    "of_the_moment",
    "praises_listener",
    "standing_fact",
    "stands_alone",
    "taste_said",
    "team_size",
    "wants_replies",
]

# A word in capitals after the clause's first word ("cached on Vercel", "Monitoring
# için Grafana"), any digit ("postgres 16", "k8s"), or a word of two capitals ("GCP").
_NAMED = re.compile(r"(?<=\S\s)(?:[^\W\d_a-z]\w*)|\d|\b[^\W\d_a-z]{2,}\b")
# Scripts written without spaces between words carry no capitals to tell a name by.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_UNSPACED_NAME = re.compile(r"[A-Za-z0-9]|[\u30a1-\u30fa\u30fc]{2,}")
# The clause's first word when it is an "I": not a name.
_PRONOUN_I = re.compile(r"(?<![\w'’])I(?![\w])")


_PLAIN_HYPHENATED = re.compile(r"[^\W\d_A-Z]+(?:-[^\W\d_A-Z]+)+")


def stands_alone(text: str, *, any_letter: bool = False) -> bool:
    """Whether a clause names something of its own (a name, an identifier, a number).

    ``any_letter``: a word after the first one starting with any letter outside
    a–z counts too ("adesso la ceramica è il venerdì": a change that names its
    new day, in a language whose day names are lower case).

    >>> [stands_alone(t) for t in ("Builds are cached on Vercel", "インフラは GCP です。")]
    [True, True]
    >>> plain = "Keep it plain please.", "Most of my students are sixteen.", "Sem acesso ao e-mail."
    >>> [stands_alone(t) for t in (*plain, "Rien ne change là-dessus.")]
    [False, False, False, False]
    >>> stands_alone("L'aria condizionata è rotta"), stands_alone("Il server è su Hetzner")
    (False, True)
    """
    masked, spans = protect(text)
    if any(not _PLAIN_HYPHENATED.fullmatch(span) for span in spans):
        return True  # a hyphenated word ("e-mail", "là-dessus") is prose, not a name
    if _UNSPACED.search(text):
        # no capitals to tell a name by: Latin letters, digits or a katakana word
        # ("インフラは GCP です", "エンジニアをしています") name something; "家でのんびり
        # しています" names nothing
        return _UNSPACED_NAME.search(text) is not None
    # a capital is an upper-case letter: "è rotta", "ça marche" name nothing
    return any(
        any_letter or m.group(0)[0].isupper() or m.group(0)[0].isdigit()
        for m in _NAMED.finditer(_PRONOUN_I.sub("i", masked))
    )


#: A sentence that opens by pointing back at what was just said.
_POINTS_BACK = re.compile(
    r"(?:it|it's|it is|its|this|this is|that|that's|that is|these|those|which)\b", re.I
)


def context_of_kept(text: str) -> bool:
    """Whether a later sentence of a turn that keeps a memory is only that memory's context.

    Used for sentences no rule read: a rule's slot ("my team is spread across three
    time zones") is its own statement. In English what is left is the first
    memory's detail ("The migration took two sprints") unless it holds an
    identifier, says a change ("we switched to Zed") or names a thing by its
    proper name ("Builds are cached on Vercel", "Sim is in Gazebo": the stack's
    second tool, said as where things happen). In other languages no rule reads
    the second memory, so a sentence that names something of its own stands alone.

    >>> [context_of_kept(t) for t in ("Builds are cached on Vercel.", "Todo en Hetzner ahora.",
    ...     "The migration took two sprints.", "I loved it.", "Mostly 15th-century stuff.",
    ...     "The boards are nRF52s.", "It's ticket PLM-4471.")]
    [False, False, True, True, True, False, True]
    """
    if english_like(text):
        if _POINTS_BACK.match(text.strip()) and UPDATE_CUE.search(text) is None:
            # "It lives in ops/cron/bill.sh.", "That's ticket PLM-4471.": about the kept
            # memory's thing, whatever it names (its identifier is attached to that
            # memory: :func:`memvault.extract.attach.attach_identifiers`)
            return True
        # an identifier (a region, a pin, a path) or a change said is its own memory —
        # an ordinal ("mostly 15th-century stuff", "the 3rd floor") names nothing
        named = [span for span in protect(text)[1] if not _ORDINAL.fullmatch(span)]
        return not named and UPDATE_CUE.search(text) is None and not _PROPER.search(text)
    return not stands_alone(text)


#: A taste or a wish said in its words ("I'd rather", "keep it short", "never use …").
_TASTE_SAID = re.compile(
    r"\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|rather|adore|hate|hates"
    r"|can't stand|favou?rite|fan of|into|want|wants|wish|please|pls|keep|always|never"
    r"|don't|do not|avoid|skip|stick to|give me|no more|instead|better than)\b",
    re.I,
)
_TASTE_GLOSSES = frozenset({"i like", "i prefer", "i hate", "please reply in"})


def taste_said(text: str) -> bool:
    """Whether a clause says a taste or a wish in its words, in any language the reader reads.

    A later sentence read as a preference without such words is a comment on what the
    turn keeps ("The bank connector was better.", "It's me and one part-timer.").

    >>> taste_said("I'd rather have tables"), taste_said("It's me and one part-timer.")
    (True, False)
    >>> taste_said("Prefiero tablas a párrafos"), taste_said("Die Schnittstelle war besser.")
    (True, False)
    """
    if english_like(text):
        return _TASTE_SAID.search(text) is not None
    return bool(_TASTE_GLOSSES.intersection(glosses(text)))


_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)(?:-[a-z]+)?", re.I)
# A proper name after the clause's first word ("cached on Vercel", "deploys go through
# ArgoCD"), or a word of two capitals ("GCP"): the sentence names a thing of its own.
_PROPER = re.compile(r"(?<=\S\s)(?!I\b)[A-Z][\w.+#-]*|\b[A-Z]{2,}\b")


_LISTENER = r"(?:you|your|you're|you've|yours|u|ur)"
_PRAISE = re.compile(
    rf"\b{_LISTENER}\b.*\b(?:so|really|very|always|super|such)?\s*(?:clear(?:ly)?|patient|helpful"
    r"|great|amazing|awesome|brilliant|the best|a star|a lifesaver|genius|smart|clever|kind"
    r"|useful|fast|good at)\b"
    rf"|\bappreciates?\s+(?:how|that|the way|it when)\b[^.!?]{{0,40}}\b{_LISTENER}\b"
    rf"|\b(?:love|like|adore)s?\s+how\s+\w+\s+{_LISTENER}\s+(?:are|were)\b"
    rf"|\b(?:fan|fans) of {_LISTENER}\b|\b(?:thanks|thank you|grateful) (?:to|for)\b"
    rf"|\b{_LISTENER} (?:made|make|saved|save) my\b"
    rf"|\b{_LISTENER}\b.*\b(?:loved|love|loves|liked|likes) (?:it|them)\b",
    re.I,
)
# A request about the assistant's answers stays a preference ("I'd rather you show …").
_REQUEST = re.compile(
    r"\b(?:please|pls|want|would|'d|rather|prefer|should|could|can|don't|do not|never|stop"
    r"|from now on|going forward|next time)\b",
    re.I,
)


# "j'adore cette réponse", "me encanta tu respuesta", "tolle Antwort": the answer praised.
_ANSWER = (
    r"(?:answer|reply|explanation|réponse|explication|respuesta|explicación|antwort|erklärung"
    r"|resposta|explicação|risposta|spiegazione|antwoord|uitleg|odpowied\w*|wyjaśnieni\w*)"
)
_GLAD = (
    r"(?:love|great|perfect|brilliant|awesome|nice|adore|génial|super|parfait|top|encanta"
    r"|genial|perfect[oa]|toll|perfekt|klasse|ótim[oa]|perfeit[oa]|adorei|ottim[oa]"
    r"|perfett[oa]|bellissim[oa]|geweldig|prima|świetn\w*|idealn\w*)"
)
_ANSWER_PRAISE = re.compile(
    rf"\b{_GLAD}\b[^.!?]{{0,25}}\b{_ANSWER}\b|\b{_ANSWER}\b[^.!?]{{0,25}}\b{_GLAD}\b", re.I
)
_NOT_ENOUGH = re.compile(
    r"\b(?:too|not|don't|less|more|shorter|longer|trop|demasiado|zu|muito|troppo|te)\b", re.I
)


#: A reaction to the assistant's suggestion: "Perfect, the second regex is the one I'll use",
#: "Nice, option three it is", "Good shout, that reads better" — an interjection, then the
#: answer pointed at, and nothing said about the speaker's own world.
_REACTION = re.compile(
    r"^(?:nice|lovely|perfect|great|awesome|cool|brilliant|excellent|sweet|neat|ah+|oh+|ooh"
    r"|aha|ok|okay|lol|haha\w*|wow|good shout|fair enough|yes|yep|yeah|right|amazing"
    r"|splendid|spot on)(?:\s+(?:one|stuff|ok|okay|thanks|then))?\s*[,!.—–-]+\s*"
    r"(?:that|this|it|option \w+|both|the one|(?:the (?:first|second|third|fourth|last|other"
    r"|new|shorter|longer|updated|final|simpler|cleaner|latter|former)|your) (?:option|one"
    r"|version|snippet|regex|query|example|draft|approach|fix|suggestion|idea|layout|wording"
    r"|command|script|answer|formula|trick|solution|table|diagram|heading|title|line|loop"
    r"|function|explanation|link|recipe|list|plan|outline))\b"
    r"(?![^.!?]*\b(?:we|we're|we've|our|my|i'm|i've|i am|us)\b)",
    re.I,
)


#: Approval of an idea: "Lovely, a humidifier in the case is a great idea", "that sounds
#: like a smart plan" — the suggestion judged, nothing said of the speaker's own world.
_GOOD_IDEA = re.compile(
    r"^(?![^.!?]*\b(?:i|i'm|i've|i'd|me|my|we|we're|we've|our|us)\b)[^.!?]*?"
    r"\b(?:is|sounds|seems)(?: like)? (?:a |an )?(?:really |very |such a )?(?:great|good|nice"
    r"|brilliant|clever|smart|lovely|excellent|neat|cool|solid) (?:idea|call|plan|shout"
    r"|suggestion|tip|approach)\b",
    re.I,
)


def praises_listener(text: str) -> bool:
    """Whether a clause praises or thanks the assistant instead of saying something
    about the user (chit-chat, whatever the reader calls it).

    >>> praises_listener("j'adore cette réponse"), praises_listener("your answers are too long")
    (True, False)

    Approval of an idea is a reaction; the speaker's own opinion is not:

    >>> [praises_listener(t) for t in ("ooh, a cold frame is a clever idea",
    ...                                "I think moving to Rust is a good idea")]
    [True, False]
    """
    if _REQUEST.search(text):
        return False
    if _REACTION.search(text) or _GOOD_IDEA.search(text.strip()):
        return True
    if _ANSWER_PRAISE.search(text):
        return _NOT_ENOUGH.search(text) is None
    return _PRAISE.search(text) is not None


def _any_of(cues: tuple[str, ...]) -> re.Pattern[str]:
    """One case-blind pattern matching any of ``cues`` as whole words."""
    # (not \b: a cue may end in a mark, "at 12%", where \b needs a word after it)
    return re.compile(rf"(?<!\w)(?:{'|'.join(cues)})(?!\w)", re.I)


#: What is true for a moment: "just had the best burrito", "just got back from the
#: dentist", "I need a nap", "my laptop is at 12%", "I had such a nice time at …".
_MOMENT = _any_of(
    (
        r"just (?:had (?!a baby|twins)|got (?:back|home|off|out)|came back|woke up|landed"
        r"|arrived|spilled|ate|finished (?:lunch|dinner|breakfast|my coffee|a call|the call))",
        r"(?:need|needs|could use|want) (?:a|some) (?:nap|break|coffee|rest|sleep|drink|walk"
        r"|snack|holiday|vacation)",
        r"(?:is|are|at) (?:at |down to )?\d{1,3} ?%",
        # an outage or a state until later today, and a shift or session just over
        r"(?:is|are) (?:down|offline|unavailable) for maintenance|down until"
        r"|until (?:noon|midnight|tonight|lunch|the afternoon|the evening|end of day|eod)",
        r"just (?:finished|wrapped up|got out of) (?:a|an|my|the) (?:[\w-]+ )?(?:shift|workout"
        r"|run|meeting|class|session|lecture|nap|walk|call)",
        r"had (?:such )?an? (?:great|nice|good|lovely|wonderful|fun|amazing|fantastic|terrible"
        r"|awful|rough|long|busy|crazy|weird) (?:time|day|week|weekend|morning|evening|night"
        r"|trip)",
    )
)


#: Everyone present doing something right now: "everyone here is grinning", "we're all
#: huddled around one laptop" ("everyone here uses Linux" is how things are).
_ALL_OF_US_NOW = re.compile(
    r"^(?:(?:so|and|now|ha\w*|lol)[,!]?\s+)?(?:everyone|everybody|the whole (?:office|team|room"
    r"|house|family|crew|class)|we(?:'re| are) all|all of us are)(?:\s+here)?(?:\s+(?:is|are))?"
    r"(?:\s+(?:just|still|now))?\s+(?:standing|sitting|sat|waiting|staring|cheering|laughing"
    r"|grinning|watching|eating|drinking|dancing|singing|shouting|panicking|celebrating"
    r"|clapping|crying|huddled|stuck|gathered|crammed|glued|squeezed|asleep|freezing|sweating"
    r"|melting|soaked|hiding|queuing|queueing)\b",
    re.I,
)


#: A happening of the last minutes: "I just climbed eleven floors", "the kettle just died",
#: "just dropped a tray of pins", "I've just found a tenner" — "just" before a past tense.
_JUST_DONE = re.compile(
    r"(?<![\w'’])just\s+(?:[a-z]+ed|got|saw|found|had|ran|went|came|made|took|lost|broke|fell"
    r"|spent|heard|burnt|spilt|caught|hit|cut|left|sat|stood|told|threw|tore|won|blew|froze"
    r"|ate|drank|woke|forgot|missed|realised|realized|noticed)(?![\w'’])",
    re.I,
)
#: ... but not a change of state or a milestone: "we just switched to Postgres", "I just got
#: promoted", "we just shipped 2.0", "I just started a new job" (lasting_state).
_JUST_MILESTONE = _any_of(
    (
        r"(?:switched|moved|migrated|upgraded|downgraded|replaced|changed|adopted|joined"
        r"|shipped|released|launched|published|merged|deployed|signed|hired|graduated"
        r"|finished|completed|passed|decided|agreed|settled|chose|picked|bought|sold|opened"
        r"|founded|started|became|renewed|booked|enrolled|registered|subscribed|retired"
        r"|turned|reached|hit \d[\w,.]*|won)",
        r"got (?:promoted|engaged|married|divorced|hired|accepted|admitted|a new|my first"
        r"|our first|into|certified|funded|approved)",
    )
)


def of_the_moment(text: str) -> bool:
    """Whether a clause says how things are for a moment (a one-off, however phrased).

    >>> of_the_moment("I just got back from the gym"), of_the_moment("I just moved to Porto")
    (True, False)

    "Just" before a past tense is the last minutes, unless a change or a milestone;
    everyone present doing something is the moment, what everyone uses is not:

    >>> said = ["my cat just knocked the router off the shelf", "we just shipped v2.0",
    ...         "I just use vim", "everyone here is glued to the match", "Everyone here uses Linux"]
    >>> [of_the_moment(t) for t in said]
    [True, False, False, True, False]

    The moment's words with a schedule are how things are:

    >>> of_the_moment("the bar is open until midnight"), of_the_moment(
    ...     "the bar is open until midnight on Fridays")
    (True, False)
    """
    if _ALL_OF_US_NOW.match(text.strip()):
        return True
    if _MOMENT.search(text):
        # "the bar is open until midnight on Fridays", "we're down for maintenance every
        # Sunday": a schedule said with the moment's words is how things are
        return when.SCHEDULE.search(text) is None
    done = _JUST_DONE.search(text)
    return done is not None and not _JUST_MILESTONE.search(text[done.start() :])


#: Where work goes, said with a thing as the subject: "Refund requests are logged in a
#: Notion board", "Supplier invoices come through Tradeshift", "The floor plans are drawn
#: in Vectorworks" — present tense, a routing verb, then a named tool (a capital or an
#: identifier after the verb).
_ROUTED = re.compile(
    r"^(?!(?:i|we|you|it|this|that)\b)[\w'’ -]{2,60}?\s(?:"
    r"(?:go|goes|come|comes|run|runs|flow|flows|live|lives|sit|sits|land|lands)"
    r"(?: in)?\s+(?:in|into|through|to|via|from|out of|on)"
    r"|(?:is|are|get|gets)\s+(?:all\s+)?(?:done|logged|tracked|kept|booked|made|processed"
    r"|managed|handled|stored|filed|recorded|synced|entered|monitored|scheduled|approved"
    r"|drawn|drafted|built|run|sent|issued|invoiced|planned|printed|published|delivered)"
    r"\s+(?:in|into|through|on|with|via|from|out of|using))"
    r"\s+(?:(?:a|an|the|our|my)\s+)?(?:[A-Z][\w.+#-]*|[a-z]+[A-Z][\w.+#-]*|\S*\d\S*)",
)
_COUNT = (
    r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|a dozen|a handful)"
)
#: How big a team is: "the support desk is seven people", "we're a team of four", "there are
#: just three of us on nights", "our crew has twelve riggers".
_TEAM_SIZE = re.compile(
    r"\b(?:team|crew|staff|desk|department|squad|group|practice|studio|office|company"
    r"|business|band|choir|lab|unit|shift)\b[^.!?]{0,30}?\b(?:is|are|has|have|counts)\s+"
    rf"(?:currently\s+|now\s+)?(?:just\s+|only\s+|about\s+|around\s+|roughly\s+)?{_COUNT}\b"
    rf"|\bthere(?:'s| is| are)\s+(?:just\s+|only\s+)?{_COUNT}\s+of\s+us\b"
    rf"|\bwe(?:'re| are)\s+(?:just\s+|only\s+)?(?:a\s+(?:team|crew|group)\s+of\s+)?{_COUNT}"
    r"(?:\s+(?:people|of us|engineers|staff))?\s*(?:[,.!;]|$|\s+(?:on|in|at|across|now"
    r"|right now|currently|these days))",
    re.I,
)
#: ... unless said of a day or of the moment ("the scans go to Box tomorrow", "there are
#: four of us in the office today").
_NOT_NOW = _any_of(
    (
        r"today|tonight|tomorrow|yesterday|right now|this (?:morning|afternoon|evening|week)",
        r"until|till|for now|at the moment|again|still|anymore|soon",
    )
)


#: Where a headcount is the moment's ("four of us in the office", "on the call"), or its
#: day's: not the team's size.
_ROOM_OR_DAY = _any_of(
    (
        r"today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening|week)",
        r"in the (?:office|room|meeting|car|van|kitchen)|on (?:the|this) call|here|online",
        r"at the (?:table|desk|bar)|until|till|again|soon",
    )
)


def team_size(text: str) -> bool:
    """Whether an English clause says how big the speaker's team is, now included:
    "right now", "at the moment", "currently" say the size is current, not today's.

    >>> team_size("We're five people right now"), team_size("There are three of us")
    (True, True)
    >>> team_size("There are four of us in the office right now")
    False
    """
    clause = text.strip()
    return _TEAM_SIZE.search(clause) is not None and not _ROOM_OR_DAY.search(clause)


def standing_fact(text: str) -> bool:
    """Whether an English clause says where a kind of work goes or how big a team is —
    the stack's or the team's fact, however weakly the reader reads it.

    >>> standing_fact("Refund requests come through Tradeshift"), standing_fact("It is in Jira")
    (True, False)
    """
    clause = text.strip()
    if _NOT_NOW.search(clause):
        return False
    return _ROUTED.match(clause) is not None or _TEAM_SIZE.search(clause) is not None


#: Leaving the chat: "gotta run", "have to go, sorry", "got to dash, the plumber's here",
#: "the taxi's outside, need to head off" — the leave words alone, first or last in the
#: clause ("I have to go to the bank on Friday" is a todo).
_LEAVE = (
    r"(?:i\s+)?(?:(?:have|need|got|'ve got)\s+to|gotta|must|gonna have to)\s+"
    r"(?:go|run|dash|fly|head off|head out|jump off|jump|log off|sign off|bounce|scoot|leave)"
    r"|brb|gtg|g2g|off to the next (?:call|meeting)"
)
_LEAVE_TAIL = r"(?:\s+(?:now|for now|sorry|soon|in a sec|for a bit|real quick))*"
_LEAVING = re.compile(
    rf"^(?:(?:ok|okay|sorry|right|anyway|welp|alright|argh|ugh|oops)[,!.]?\s+)?(?:{_LEAVE})"
    rf"{_LEAVE_TAIL}\s*(?:[,;:.!—–-]|$)|[,;—–-]\s*(?:{_LEAVE}){_LEAVE_TAIL}[\s.!]*$",
    re.I,
)


def leaves_chat(text: str) -> bool:
    """Whether a clause says the speaker is leaving the conversation (a one-off).

    ("I have to go, sorry!" does; "I have to go to the bank on Friday" does not.)
    """
    return _LEAVING.search(text.strip()) is not None


#: Happenings that start a state which lasts (a new pet, school, job, home, marriage).
_LASTING_VERBS = (
    "adopted",
    "joined",
    "started (?:school|university|college|kindergarten|a new job|working|at)",
    "moved (?:to|into|in with)",
    "got (?:married|engaged|divorced)",
    "(?:was|were) born",
    "retired",
    "signed up for",
    "enrolled (?:in|at)",
)
_LASTING = _any_of(_LASTING_VERBS)


#: A happening told as part of a life story: long ago, a past year, since childhood.
_BIOGRAPHY = _any_of(
    (
        r"(?:\w+|a few|a couple of) years ago|last year|back in (?:19|20)\d\d|in (?:19|20)\d\d",
        r"since (?:19|20)\d\d|when i was (?:a kid|little|young|\d+|in)|as a kid|growing up",
        r"in (?:high school|college|university|grad school)|(?:\w+ )?decades? ago",
    )
)


def biographic(text: str) -> bool:
    """Whether a happening is told as part of a life story (then it is a fact about the
    user: "I ran a bakery for ten years back in 2010", not a dated event of this week).

    >>> biographic("I studied in Lyon a few years ago"), biographic("I sent the invoice")
    (True, False)
    """
    return bool(_BIOGRAPHY.search(text))


def lasting_state(text: str) -> bool:
    """Whether a happening starts a state that lasts (then it is a fact about the user).

    >>> lasting_state("we adopted a greyhound last spring"), lasting_state("I sent the invoice")
    (True, False)
    """
    return _LASTING.search(text) is not None


#: A choice said: "we decided", "we went with", and a reversal ("changed my mind, we're
#: keeping RabbitMQ").
_DECIDED = _any_of(
    (
        r"decid\w*|chose|chosen|choose|agreed|settled on|went with|go(?:ing)? with|opted|picked",
        r"decision (?:made|is|was)|made the call",
        r"we'll use|we will use|will be using|standardi[sz]ed on|voted|the plan is|ruled out",
        r"no longer going to|won't use|will not use|switching to",
        r"chang(?:ed|ing) (?:my|our) minds?|keeping|stick(?:ing)? with|scratch that",
        r"change of plans?|on second thought",
        r"final call|it's decided|made up (?:my|our) minds?",
    )
)
#: A choice not made yet: "we still haven't decided", "todavía no hemos decidido",
#: "まだ決めていません" — no Decision, however the reader reads it.
_UNDECIDED = re.compile(
    r"(?<!\w)(?:(?:haven't|have not|hasn't|has not|not yet|can't|cannot|couldn't|yet to)"
    r"(?:\s+(?!so\b|and\b|but\b)\w+){0,2}\s+(?:decid\w*|chos\w*|choose|picked|settled)"
    r"|still deciding|undecided|not sure (?:yet )?(?:whether|if)|todavía no|aún no|pas encore"
    r"|noch nicht|ainda não|non (?:\w+ )?ancora|nog niet"
    r"|jeszcze nie|ещё не|еще не|henüz)(?!\w)|まだ決め|まだ決まって|还没(?:有)?决定|아직 안 정했",
    re.I,
)


def decision_said(text: str) -> bool:
    """Whether a clause says a choice was made ("we decided", "we went with", "wir haben
    uns entschieden") — what a Decision is. "we use Kafka" or "devo aggiornare Next.js"
    read alike to the reader, but one is the stack's fact and the other a todo.

    >>> decision_said("we went with Temporal for the workflows"), decision_said("we use Temporal")
    (True, False)
    >>> decision_said("we still haven't decided between Temporal and Airflow")
    False
    """
    if _UNDECIDED.search(text):
        return False
    return _DECIDED.search(text) is not None or "we decided" in glosses(text)


# How the user wants answers, in the languages the reader reads: the answers themselves
# or a language named ("antwoorden in het Nederlands", "説明は日本語でお願いします").
_REPLIES = re.compile(
    rf"(?<!\w){_ANSWER}s?(?!\w)|(?<!\w)(?:respuestas|réponses|antworten|respostas|risposte"
    r"|antwoorden|odpowiedzi|svar|cevap\w*|ответ\w*|español|inglés|français|anglais|deutsch"
    r"|englisch|português|inglês|italiano|inglese|nederlands|engels|polsku|angielsku|svenska"
    r"|engelska|dansk|engelsk|türkçe|ingilizce|русском|английском|hinglish|hindi)(?!\w)"
    r"|回答|返事|説明|日本語|英語|中文|英文|回复|한국어|영어|お願いします|请用",
    re.I,
)


#: A favourite named, in the languages the reader reads ("mi editor favorito", "mein
#: Lieblingsgetränk", "mon film préféré", "最喜欢的"): a taste, however the reader types it.
_FAVOURITE = re.compile(
    r"(?i)(?<!\w)(?:favorit[oa]s?|preferid[oa]s?|preferit[oa]|préféré(?:e|s|es)?|lieblings\w*"
    r"|favoriet\w*|ulubion\w*|en sevdiğim|favori\w*|любим\w*)(?!\w)|最喜欢|一番好き|大好きな"
)
#: The assistant's answers named ("respuestas", "Antworten", "cevapları", "ответы").
_ANSWERS = re.compile(
    rf"(?<!\w){_ANSWER}s?(?!\w)|(?<!\w)(?:respuestas|réponses|antworten|respostas|risposte"
    r"|antwoorden|odpowiedzi|svar|cevap\w*|yanıt\w*|ответ\w*)(?!\w)|回答|返事|回复",
    re.I,
)


def favourite_said(text: str) -> bool:
    """Whether a clause names a favourite in another language (then it is a preference):
    ``favourite_said("Mi editor favorito es VS Code")`` is true, "Uso VS Code" is not.

    >>> [favourite_said(t) for t in ("Mein Lieblingseditor ist Helix", "Ich nutze Helix")]
    [True, False]
    """
    return bool(_FAVOURITE.search(text))


def wants_replies(text: str) -> bool:
    """Whether a clause says how the assistant's answers should be: it names the answers
    and a language or a manner ("Meine Antworten bitte auf Deutsch", "Cevapları Türkçe
    yazarsan sevinirim") — a preference in any language, sure reading or not.

    >>> wants_replies("Cevapları Türkçe yazarsan sevinirim"), wants_replies("Ik woon in Gent")
    (True, False)
    """
    return _ANSWERS.search(text) is not None and (
        about_replies(_ANSWERS.sub(" ", text)) or _MANNER.search(text) is not None
    )


_MANNER = re.compile(
    r"(?<!\w)(?:kurz\w*|court\w*|corto|cortas?|curtas?|brevi|breves?|kort\w*|krótk\w*"
    r"|kısa|коротк\w*|bitte|por favor|s'il (?:te|vous) plaît|per favore|alsjeblieft|proszę"
    r"|lütfen|пожалуйста)(?!\w)|短く|简短|简洁|お願い|请",
    re.I,
)


def about_replies(text: str) -> bool:
    """Whether a clause is about the assistant's answers (then a preference, in any
    language, even without a word of taste).

    >>> about_replies("Ik wil graag antwoorden in het Nederlands"), about_replies("Ik woon in Gent")
    (True, False)
    """
    return _REPLIES.search(text) is not None
