"""Who a clause speaks for and to: the speaker's own statement, or a question asking for help.

The extractor keeps a first-person statement no rule read unless the reader is sure
it is silent (:func:`stated`, :func:`stated_other` for the other languages the reader
reads), and a turn whose question asks for help with the speaker's own task keeps
only its todos, reminders and explicit requests (:func:`help_question`); a question
back to the listener ("any fun plans for the summer?") silences nothing else.

>>> stated("we've been painting a lot lately"), help_question("how do I rotate the keys?")
(True, True)
"""

from __future__ import annotations

import re

from memvault.extract.reader import english_like

__all__ = ["ORDER_VERB", "help_question", "standing_order", "stated", "stated_other"]


# First person as the subject, maybe after a time phrase or a filler: "I …",
# "last weekend we …", "my kids …" — not "send all my notes to …" (an imperative).
_LEAD_IN = (
    r"(?:(?:(?:last|this|next|past|every|over the|in|on|at|during|after|before|since|for"
    r"|a few|a couple of|two|three|some|early|late|back in)\s+[\w'’-]+(?:\s+[\w'’-]+)?"
    r"|yesterday|recently|lately|finally|actually|honestly|also|and|but|so|then|now|well|oh"
    r"|anyway|just|today|tonight|a while (?:back|ago)|these days|nowadays|guess what"
    r"|(?:big|good|great|some|exciting|happy) news|news|fyi|update|heads up"
    r"|[\w'’-]+ (?:days?|weeks?|months?|years?) ago)[,:\s-]+)"
)
_FIRST_PERSON_LEAD = re.compile(
    rf"^{_LEAD_IN}{{0,2}}(?:(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll)\b"
    r"|(?:my|our)\s)",
    re.I,
)
_LISTENER = re.compile(r"\b(?:you|your|you're|you've|yours|ya|u)\b", re.I)
_INTERROGATIVE = re.compile(
    r"^(?:what|why|how|where|when|who|whom|which|whose|is|are|was|were|do|does|did|can"
    r"|could|would|will|should|shall|have|has|guess)\b"
    # "anyone tried Bun?" asks; "Anyone can come." / "Anything goes." says
    r"|(?:any|anything|anyone|anybody)\b(?!\s+(?:can|is|are|will|may|goes|who|with)\b)",
    re.I,
)
#: An auxiliary, then a verb, no subject between: a statement with its subject dropped.
_NO_SUBJECT = re.compile(
    r"^(?:should|could|would|will|can|might|must)\s+(?!(?:i|we|you|he|she|it|they|this|that"
    r"|there|the|a|an|my|our|your|someone|anyone|anybody|somebody)\b)[a-z]+\b",
    re.I,
)
_CONTENT_WORD = re.compile(r"[^\W\d_]{3,}")
_LIGHT = frozenset(
    """the and but was were are has have had been being this that these those with from
    for just really very so too its it's i'm i've we're we've our my what when then than
    also still even much many some any all about into some there their they them""".split()
)


def stated(text: str) -> bool:
    """Whether ``text`` states something about the speaker in the first person.

    A declarative clause ("last weekend I joined a climbing club", "my sister
    lives in Lyon", "we've been painting a lot lately") with a few content
    words, not a question and not addressed to the listener. Such a clause is
    kept unless the reader is confident it is chit-chat, a question or a
    one-off: in friendly chat most of what users say about their lives is
    worded in ways no corpus covers.

    >>> stated("last weekend I joined a climbing club"), stated("I'm so proud of you")
    (True, False)
    >>> stated("What got you into running?"), stated("thanks so much")
    (False, False)
    """
    clause = text.strip()
    if not clause or clause.endswith("?") or _INTERROGATIVE.match(clause):
        return False
    if _LISTENER.search(clause) or not _FIRST_PERSON_LEAD.match(clause):
        return False
    content = [w for w in _CONTENT_WORD.findall(clause.lower()) if w not in _LIGHT]
    return len(clause.split()) >= 4 and len(content) >= 2


#: First-person words of the other languages the reader reads ("yo", "je", "ich", "私"…).
_FIRST_PERSON_OTHER = re.compile(
    r"(?<!\w)(?:yo|mi|mis|nosotros|nosotras|nuestr[oa]s?|tengo|soy|estoy|vivo|trabajo|uso"
    r"|usamos|prefiero|necesito|quiero|me gusta|me encanta|je|j'\w+|mon|ma|mes|nous|notre|nos"
    r"|ich|mein\w*|wir|unser\w*|eu|meu|minha|meus|minhas|nós|noss[oa]s?|tenho|sou|moro"
    r"|prefiro|preciso|io|mio|mia|miei|mie|noi|nostr[oaie]|ho|sono|lavoro|abito|preferisco"
    r"|devo|ik|mijn|wij|ons|onze|ja|mój|moja|moje|my|nasz\w*|mam|jestem|pracuję|mieszkam"
    r"|muszę|ben|benim|biz|bizim|я|мой|моя|мои|мы|наш\w*|εγώ|μου|μας|εμείς|είμαι|δουλεύω"
    r"|μένω|έχω|χρησιμοποιούμε|jag|mig|mitt|mina|vi|vår|våra|jeg|meg|vores|mit|mine|noi|meu"
    r"|mea|nostru|noastră|lucrez|sunt|jsem|jsme|můj|moje|naše|pracuji)(?!\w)"
    r"|私|僕|俺|うちの|我々|わたし|我",
    re.I,
)


#: A Japanese sentence ending as a statement, or any Chinese sentence (checked for
#: question words and particles below).
_CJK_STATEMENT = re.compile(
    r"(?:ます|ました|です|でした|ている|ています|でいる|でいます|たい|たいです|ない|なきゃ|ないと"
    r"|ません|だ|た)[。.!！]?$|[\u4e00-\u9fff][。.!！]?$"
)
_CJK_QUESTION = re.compile(
    r"[か吗呢吧][。.!！]?$|什么|怎么|为什么|哪|谁|多少|ですか|ますか|どう|なぜ|何"
)


def stated_other(text: str) -> bool:
    """:func:`stated` for a clause in another language: the speaker's own statement
    (a first-person word), no question, some length.

    >>> stated_other("tengo que renovar el pasaporte"), stated_other("¿qué tal el finde?")
    (True, False)
    >>> stated_other("来週までに私は報告書を書かなければ"), stated_other("qué bien")
    (True, False)
    >>> stated_other("東京に住んでいます。"), stated_other("どこに住んでいますか？")
    (True, False)
    """
    clause = text.strip()
    if not clause or clause.endswith(("?", "？")) or clause.startswith("¿"):
        return False
    if _LISTENER_OTHER.search(clause):
        return False
    if _CJK_STATEMENT.search(clause) and not _CJK_QUESTION.search(clause):
        # Japanese and Chinese drop the "I": a declarative sentence of some length
        # ("東京に住んでいます", "周五之前要续费域名") is the speaker's statement.
        return sum(ch.isalpha() for ch in clause) >= 6
    if not _FIRST_PERSON_OTHER.search(clause):
        return False
    spaced = len(clause.split()) >= 4
    return spaced or sum(ch.isalpha() for ch in clause) >= 10


# A question that asks for help ("we're on postgres 15 — how do I …?"): what
# precedes it is its context. A question back to the listener ("any fun plans for
# the summer?", "what got you into running?") is conversation, not a request.
_REQUEST = re.compile(
    r"\b(?:(?:can|could|would|will) you|do you know|how (?:do|can|should|would|could) (?:i|we)"
    r"|should (?:i|we)|what (?:should|do|can) (?:i|we)|where (?:do|should|can) (?:i|we)"
    r"|which \w+ should|what am i missing|any (?:idea|ideas|tips|advice) (?:why|how|on|for)"
    r"|(?:what|how) (?:do|would) you (?:think|recommend|suggest|do|handle|approach|structure)"
    r"|do you think|(?:your|any) (?:take|opinion"
    r"|thoughts|advice|recommendations?)|recommend|suggest|worth it|is it (?:safe|ok|okay"
    r"|possible|better|worth|bad|wise|normal|fine|smart|sensible|a (?:good|bad) idea"
    r"|too (?:late|early|much|soon))"
    # "how do you roll out a config change safely?": the generic "you" of a how-to
    # ("how do you like Lisbon?", "how do you feel about tabs?" ask the listener)
    r"|how (?:do|would|should|can|could) (?:you|one) (?!(?:like|feel|know|mean|find|cope"
    r"|stay|keep|spend|enjoy|remember|think)\b)[a-z]+\s+\w+)\b",
    re.I,
)
#: A request in another language with the listener inverted or as the subject ("quelle
#: projection conseilles-tu ?", "kannst du …?", "¿me recomiendas …?", "mi consigli …?").
_REQUEST_OTHER = re.compile(
    r"\b(?:conseill|recommand|suggér|suggèr|peux|pourrais|pourriez|pouvez|sais|savez"
    r"|saurais)\w*-(?:tu|vous)\b"
    r"|\b(?:kannst|könntest|empfiehlst|würdest) du\b|\b(?:können|könnten|würden) sie\b"
    r"|\b(?:me |nos )?(?:recomiendas|recomienda|aconsejas|puedes|podrías|podría)\b"
    r"|\b(?:(?:você|tu) (?:pode|podes|poderia|recomenda|recomendas)|me recomenda)\b"
    r"|\b(?:mi |ci )?(?:consigli|puoi|potresti|sapresti)\b",
    re.I,
)
# A follow-up on the listener's story: "what was it about?", "where is it?".
_FOLLOW_UP = re.compile(
    r"^(?:(?:so|and|oh|wow|really)[,!]?\s+)?(?:what|where|when|who|how|which|why)(?:'s)?"
    r"\s+(?:(?:was|were|did|made|is|are|does|do)\s+)?(?:it|they|that|this|he|she|them|those"
    r"|these|the kids|everyone)\b"
    r"|^(?:any|anything) (?:fun|new|big|exciting|special|interesting|good|cool)\b"
    r"|^(?:what's up|how's it going|how have things been|what about|how about|what's new"
    r"|what's been (?:going on|up|happening))\b"
    r"|^how(?:'s| is| are| was| were)\s+(?:the|things|life|work|everything|it|ya|ur)\b",
    re.I,
)
_LISTENER_OTHER = re.compile(
    r"(?<!\w)(?:tú|tu|tus|ti|toi|ton|ta|tes|vous|votre|du|dich|dir|dein\w*|você|vocês|teu|tua"
    r"|tuo|tuoi|jij|jou|jouw|jullie|ty|ciebie|tobie|twój|twoja|sen|sana|senin|siz|ты|вы|тебя"
    r"|тебе|твой|твоя|usted|voi|εσύ|εσείς)(?!\w)|あなた|你",
    re.I,
)
_RELATIVE = re.compile(
    r"^(?:which|that|who|whose)\s+(?:is|was|are|were|means|meant|made|makes|explains|caused|causes|broke|breaks)\b",
    re.I,
)
_RHETORICAL = re.compile(r"^(?:guess what|you know what|know what)\b", re.I)
_ABOUT_ME = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|we|we're|our|us)\b", re.I)


def help_question(text: str) -> bool:
    """Whether a question asks for help with the speaker's own task.

    A request ("can you …", "how do I …") or a question about the speaker's own
    things; a question back to the listener or about their story is conversation.

    >>> help_question("how do I rotate the keys?"), help_question("any fun plans for the summer?")
    (True, False)
    >>> help_question("can you help me with the migration?"), help_question("how was your weekend?")
    (True, False)
    >>> help_question("my build fails with exit code 137, why?")
    True
    >>> help_question("what was it about?"), help_question("which is why the migration failed")
    (False, False)
    >>> help_question("guess what I did this week?"), help_question("it made me think how we work")
    (False, False)
    >>> help_question("is there a faster way to diff two parquet files?")
    True
    >>> help_question("anyone tried bun for the build?"), help_question("Anyone can join in.")
    (True, False)
    >>> help_question("should we pin numpy"), help_question("Should make the rollout easier.")
    (True, False)
    >>> help_question("¿Cómo puedo exportar la base de datos a CSV?"), help_question("¿Y tú?")
    (True, False)
    >>> help_question("¿Qué tal tu fin de semana?"), help_question("how do I fix a ton of errors?")
    (False, True)

    A how-to with the generic "you", "is it bad to …?" and a request with the
    listener inverted ask for help; "how do you like it?" and "et toi ?" ask back:

    >>> asked = ["how do you shard a table this size?", "is it bad to skip the warm-up?",
    ...          "Quel éditeur conseilles-tu pour du Rust ?", "how do you like it?",
    ...          "is it raining there?", "Et toi, ça va ?"]
    >>> [help_question(t) for t in asked]
    [True, True, True, False, False, False]
    """
    clause = text.strip()
    if not clause.endswith(("?", "？")) and _RELATIVE.match(clause):
        return False  # "…, which is why the migration failed": a reason, not a question
    if clause.endswith(("?", "？")) and _REQUEST_OTHER.search(clause) and not english_like(clause):
        return True  # "quelle projection conseilles-tu ?": asks the listener for help
    if _LISTENER_OTHER.search(clause) and (len(clause.split()) < 4 or not english_like(clause)):
        return False  # "¿y tú?", "et toi ?", "und du?": a question back, in any language
    if clause.endswith(("?", "？")) and not english_like(clause):
        return True  # another language: a question is taken as a request (no cue to tell)
    if not (clause.endswith("?") or _INTERROGATIVE.match(clause)) or _RHETORICAL.match(clause):
        return False  # a statement the reader took for a question, or "guess what I did?"
    if not clause.endswith("?") and _NO_SUBJECT.match(clause):
        return False  # "Should save everyone some headaches.": a comment, its subject dropped
    if _REQUEST.search(clause) or _ABOUT_ME.search(clause):
        return True
    if len(_CONTENT_WORD.findall(clause)) <= 2:
        return False  # "Paris?", "been good?": a short question back
    return _LISTENER.search(clause) is None and _FOLLOW_UP.match(clause) is None


#: The verbs an order about the assistant's answers opens with ("use", "keep", "explain").
ORDER_VERB = re.compile(
    # after its condition, if any: "when you describe scents, please avoid …"
    r"^(?:(?:when(?:ever)?|if) (?:i|you)\b[^,]{1,80},\s*)?"
    r"(?:(?:please|pls|plz|and|also)\s+)?(?:use|keep|put|give|write|show|add|include|skip"
    r"|stick (?:to|with)|avoid|format|cite|list|answer|reply|explain|leave out|spell|quote"
    r"|round|convert|translate|describe|suggest|talk|speak|assume|break|default to|mention)\b"
    r"(?P<rest>.*)$",
    re.I,
)
#: What an order is about when it is the answers' standing manner: the answers and what
#: they hold ("replies", "code", "times", "examples", "spelling", "tone") …
_ANSWER_PART = re.compile(
    "(?i)\\b(?:{})\\b".format(
        "|".join(
            (
                *("repl(?:y|ies)", "answers?", "responses?", "explanations?", "examples?"),
                *("code", "snippets?", "times", "dates?", "units", "prices", "spelling"),
                *("tone", "suggestions", "summar(?:y|ies)", "bullets?", "headings", "format"),
                *("words", "terms", "sentences", "paragraphs", "jargon", "emojis?", "tables"),
                *("drafts", "options", "links", "sources", "steps", "measurements", "metric"),
                *("imperial", "numbers", "things", "level", "line by line", "step by step"),
            )
        )
    )
)
#: … or when and for whom it holds ("when you …", "anything you draft for me", "never …"),
#: unlike a thing pointed at or a single one, the moment's request ("show me the logs",
#: "give me an example of a closure", "keep it for me", "give him time"), or where a task
#: goes ("put it on my list", "add the dentist to my calendar").
_STANDING_FOR, _ONE_THING, _TASK_PLACE = (
    re.compile(
        r"(?i)\b(?:when(?:ever)? you|if you|(?:any|every|what)(?:thing|ever) you"
        r"|(?:each|every) time you|(?:for|with|to) me|always|never)\b|,\s*(?:never|not|no)\b"
    ),
    re.compile(r"(?i)^\s*(?:me\s+|us\s+)?(?:it|that|this|these|those|them|him|her|one|a|an|the)\b"),
    re.compile(r"(?i)\b(?:to|on|in|onto|into) (?:my|the|our) (?:list|calendar|agenda|board)"),
)


def standing_order(text: str) -> bool:
    """Whether an English clause orders how the assistant should answer, for good: an
    order verb first, about the answers' parts or manner ("Please give times in UTC",
    "Show code in Swift, never Objective-C", "Explain things in simple words"), or said
    for every time ("Use UK spelling in anything you draft for me") — not the moment's
    request for one thing ("give me an example of a closure", "keep it for me") nor a
    task ("put the invoice on my list").

    >>> [standing_order(t) for t in ("Please give times in UTC.", "Keep suggestions cheap.",
    ...     "Explain layout problems with sketches if you can.")]
    [True, True, True]
    >>> [standing_order(t) for t in ("Please give me an example of a closure.",
    ...     "Keep it somewhere safe for me.", "Put the dentist on my list.", "Give him time.")]
    [False, False, False, False]
    """
    order = ORDER_VERB.match(text.strip())
    if order is None or text.rstrip().endswith("?") or _TASK_PLACE.search(text):
        return False
    rest = order["rest"]
    if _ONE_THING.match(rest) and _STANDING_FOR.search(rest) is None:
        return False
    if re.match(r"^\s*(?:it|that|this|them|him|her)\b", rest, re.I):
        return False  # "keep it for me", "give him time": one thing, whatever follows
    return _ANSWER_PART.search(rest) is not None or _STANDING_FOR.search(rest) is not None
