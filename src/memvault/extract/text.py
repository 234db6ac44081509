"""Small text helpers shared by the extractors and the resolver (pure functions)."""

from __future__ import annotations

import re

from memvault.extract.verbatim import protect, restore

__all__ = [
    "NEGATION",
    "content_tokens",
    "has_negation",
    "head_phrase",
    "object_slug",
    "plain_apostrophes",
    "slug",
    "split_clauses",
    "split_sentences",
]

#: An English contraction or possessive typed with a typographic apostrophe ("I’m",
#: "don’t", "Dana’s"): phone keyboards write them so.
_CURLY = re.compile(
    r"(?i)\b(?:(i|you|we|they|he|she|it|that|there|here|what|who|where|let|do|does|did|is|are"
    r"|was|were|can|could|wo|would|should|must|have|has|had|ai|need|might|dare)’"
    r"(m|re|ve|ll|d|s|t)\b|(?<=n)’(t)\b|(?<=\w)’(s)\b)"
)
_STOP = frozenset(
    """a an the of to for in on at by with from and or but so my our your his her their its
    this that these those some any all very really just also is are was were be been being
    am do does did have has had it me i we you they he she them us about as into than then
    there here up out over too more most much many please""".split()
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+#.-]*[a-z0-9+#]|[a-z0-9]", re.I)
NEGATION = re.compile(
    r"\b(?:not|never|no longer|no more|don't|doesn't|didn't|isn't|aren't|wasn't|won't|"
    r"cannot|can't|hates?|dislikes?|avoids?)\b|n't\b",
    re.I,
)
_VERB_LEMMA = {
    "sent": "send",
    "finished": "finish",
    "completed": "complete",
    "paid": "pay",
    "wrote": "write",
    "written": "write",
    "bought": "buy",
    "done": "do",
    "did": "do",
    "made": "make",
    "built": "build",
    "gave": "give",
    "took": "take",
    "met": "meet",
}
_CUT = re.compile(
    r"\s*[,(].*$|\s+(?:every|each|daily|weekly|at|in|on|with|when|before|after|because|since|while|"
    r"during|whenever|most|almost|first thing|as|anymore|any more|these days|nowadays|lately|"
    r"from now on|too|though|a lot|so much|very much|now)\b.*$",
    re.I,
)
# Ideographic full stops ("。", "！", "？") end a sentence with no space after them.
#: Months after an ordinal day with a full stop ("bis zum 5. Dezember", "den 15. januar",
#: "3. května"): the stop is the ordinal's, not the sentence's end.
_MONTH_AFTER_ORDINAL = (
    r"jan(?:uar|uari|uary)?|jänner|feb(?:ruar|ruari)?|märz|marts|mars|apr(?:il)?|mai|maj"
    r"|juni|juli|aug(?:ust|usti)?|sep(?:t|tember)?|okt(?:ober)?|nov(?:ember)?|dez(?:ember)?"
    r"|dec(?:ember)?|desember|ledna|února|března|dubna|května|června|července|srpna|září"
    r"|října|listopadu|prosince|tammikuuta|helmikuuta|maaliskuuta|huhtikuuta|toukokuuta"
    r"|kesäkuuta|heinäkuuta|elokuuta|syyskuuta|lokakuuta|marraskuuta|joulukuuta"
)
_CLAUSE_SPLIT = re.compile(
    # not after a title ("my dog is called Mr. Biscuits") or "e.g." / "i.e." / "vs."
    # nor after an initial ("Kunde: Wolff, E. Müller", "zaměstnanec P. Novák")
    r"(?<=[.!?])(?<![0-9]\.)(?<!\b(?-i:[A-ZÀ-ÖØ-ÞА-ЯЁ])\.)(?<!\b[MmDdSs]r\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bSt\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)"
    # nor after "for example" in the reader's other languages ("np. BS-27-118", "z.B.",
    # "p.ej."), nor after "approx."/"ca."/"cf."/"incl."/"bzw."/"vgl."
    r"(?<!\bnp\.)(?<!\bp\.ej\.)(?<!\bp\.ex\.)(?<!\bbzw\.)(?<!\bvgl\.)(?<!\bca\.)"
    r"(?<!\bcf\.)(?<!\bincl\.)(?<!\bapprox\.)(?<!\bp\.e\.)\s+"
    rf"|(?<=[0-9]\.)\s+(?!(?:{_MONTH_AFTER_ORDINAL})\b)"
    r"|(?<=[。！？])\s*(?=\S)|\n+|;\s*|\s+-\s+",
    re.I,
)
_CONJ_SPLIT = re.compile(
    # "… and that I prefer window seats" (after "note that …"): its own clause too
    r",?\s+(?:and|but|so|also|plus|although|though|while)\s+(?:that\s+)?(?:also\s+|now\s+)?"
    r"(?=(?:i|i'm|i've|i'll|i'd|my|we|we're|our)\b)"
    # "…, what am I missing" / "…, any idea why": the question is a clause of its own
    r"|,\s+(?=(?:what|why|how|where|which|who|any (?:idea|ideas|tips|thoughts)|is there"
    r"|are there|can you|could you|would you|should i|do you|does anyone)\b)"
    # "I'm Maya, please always give me metric units": the request is a clause of its own
    r"|,\s+(?=please\b)",
    re.I,
)
#: A request to the assistant ("always give me metric units, I can't picture miles"):
#: the first-person clause after its comma is a clause of its own.
_REQUEST_THEN_I = re.compile(
    r"^(?P<ask>(?:please\s+)?(?:always|never|don't|do not|stop|keep|use|give|reply|respond"
    r"|answer|call|write|show|send|remind)\b[^,]*?),\s+(?P<rest>(?:i|i'm|i've|i'd|my|we|we're"
    r"|our)\b.+)$",
    re.I,
)


def slug(text: str, *, max_words: int = 6) -> str:
    """Content words of ``text`` joined by ``_`` (for keys).

    >>> slug("the Quarterly report for ACME!")
    'quarterly_report_acme'
    """
    words = [w.lower() for w in _TOKEN.findall(text) if w.lower() not in _STOP]
    return "_".join(words[:max_words]) or "item"


def content_tokens(text: str) -> frozenset[str]:
    """Lower-cased content words (stopwords and negations removed) for lexical similarity."""
    words = (w.lower() for w in _TOKEN.findall(NEGATION.sub(" ", text)))
    return frozenset(w for w in words if w not in _STOP and len(w) > 1)


def has_negation(text: str) -> bool:
    """True when ``text`` is a negative statement.

    >>> has_negation("Dana does not drink coffee"), has_negation("Dana loves coffee")
    (True, False)
    """
    return NEGATION.search(text) is not None


def head_phrase(text: str) -> str:
    """The object phrase without trailing qualifiers ("coffee every morning" → "coffee").

    >>> head_phrase("coffee every morning"), head_phrase("hiking in the Alps")
    ('coffee', 'hiking')
    """
    cut = _CUT.sub("", text.strip()).strip(" ,.!")
    return cut or text.strip(" ,.!")


_DATE_TAIL = re.compile(
    r"\s+(?:by|before|until|on|at|in|this|next|tomorrow|today|tonight|asap|soon|later)\b.*$"
    r"|\s+\d{4}-\d{2}-\d{2}.*$",
    re.I,
)


def object_slug(action: str) -> str:
    """A key for a todo: its object, independent of the verb's tense.

    "send the invoice to Acme" and "sent the invoice to Acme" give one key.

    >>> object_slug("send the invoice to Acme"), object_slug("sent the invoice to Acme")
    ('invoice_acme', 'invoice_acme')
    """
    words = _DATE_TAIL.sub("", action.strip()).split(maxsplit=1)
    if len(words) == 2:
        return slug(words[1])
    return slug(_VERB_LEMMA.get(action.strip().lower(), action))


#: A part that is only a lead-in ("From now on, please …", "Going forward, please …"):
#: it says how the next clause holds, and is read with it, never alone.
_LEAD_IN_ONLY = re.compile(
    r"^(?:from now on|going forward|from today on|starting (?:today|now|tomorrow)"
    r"|for the record|for future reference|by the way|btw|also|actually|ok(?:ay)?|so"
    r"|oh and|one more thing|just so you know|for future chats|in future|in the future)$",
    re.I,
)


#: A condition alone ("when you describe scents", "if I ask for lesson material"): the
#: request after its comma ("please avoid marketing words") is what it conditions.
_CONDITION_ONLY = re.compile(
    r"^(?:when(?:ever)?|if|each time|every time)\s+(?:i|you|we)\b[^,]*$", re.I
)


def _join_lead_ins(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if out and (
            _LEAD_IN_ONLY.match(out[-1])
            or (_CONDITION_ONLY.match(out[-1]) and re.match(r"please\b", part, re.I))
        ):
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def split_sentences(text: str) -> list[tuple[str, list[str]]]:
    """Sentences with their first-person clauses (the reader reads both).

    >>> split_sentences("dentist tomorrow, so I can't join. Thanks!")[0]
    ("dentist tomorrow, so I can't join.", ['dentist tomorrow', "I can't join."])
    >>> [s for s, _ in split_sentences("東京に住んでいます。コーヒーが好きです。")]
    ['東京に住んでいます。', 'コーヒーが好きです。']
    >>> split_sentences("From now on, please reply in German.")[0][1]
    ['From now on, please reply in German.']
    >>> split_sentences("When you cite papers, please add the DOI.")[0][1]
    ['When you cite papers, please add the DOI.']
    >>> [s for s, _ in split_sentences("My dog is called Mr. Biscuits. He is nine.")]
    ['My dog is called Mr. Biscuits.', 'He is nine.']
    >>> [s for s, _ in split_sentences("Bis zum 5. Dezember muss ich korrigieren. Es sind 27.")]
    ['Bis zum 5. Dezember muss ich korrigieren.', 'Es sind 27.']
    >>> [s for s, _ in split_sentences("Tagi piszę jako kod, np. KR-12-7. Zawsze tak.")]
    ['Tagi piszę jako kod, np. KR-12-7.', 'Zawsze tak.']
    """
    masked, spans = protect(text)  # never split inside a quote, a path or code
    out: list[tuple[str, list[str]]] = []
    for sentence in _CLAUSE_SPLIT.split(masked):
        parts = []
        for part in _CONJ_SPLIT.split(sentence):
            request = _REQUEST_THEN_I.match(part.strip())
            parts += [request["ask"], request["rest"]] if request else [part]
        parts = _join_lead_ins([p.strip(" ,") for p in parts])
        clauses = [restore(p, spans) for p in parts if p]
        if clauses:
            out.append((restore(sentence.strip(), spans), clauses))
    return out


def split_clauses(text: str) -> list[str]:
    """Sentences, then first-person clauses joined by "and"/"but" (never mid-phrase).

    >>> split_clauses("I love tea and I moved to Porto. Thanks!")
    ['I love tea', 'I moved to Porto.', 'Thanks!']
    """
    return [clause for _, clauses in split_sentences(text) for clause in clauses]


def plain_apostrophes(text: str) -> str:
    """``text`` with the typographic apostrophes of English contractions made plain.

    The rules, the pronoun rewriter and the reader's corpus write "I'm", "don't"; a
    phone writes "I’m", "don’t" — read as they are, "I’m a nurse" became "Lee’m a
    nurse". Only contractions and possessives change ("l’équipe" stays); quotes,
    code and identifiers are never touched.

    >>> plain_apostrophes("I’m sure we don’t ship on Dana’s laptop, l’équipe")
    "I'm sure we don't ship on Dana's laptop, l’équipe"
    """
    if "’" not in text:
        return text

    def plain(masked: str) -> str:
        return _CURLY.sub(lambda m: m.group(0).replace("’", "'"), masked)

    masked, spans = protect(text)
    return restore(plain(masked), spans)
