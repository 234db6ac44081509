"""Discussion is not injection: the framing that suppresses an injection finding.

A phrase quoted inside text that discusses injection (a blog post, a thesis, a red-team
suite, a course), a technique reported rather than performed ("the keynote showed how
attackers hide instructions"), and fiction that quotes an attack are no finding — unless
the assistant itself is cast to voice it (:func:`_enacted`). Used by
:mod:`memvault.policy.detectors.injection`.
"""

from __future__ import annotations

import re

from memvault.policy.detectors.base import Hit

_DISCUSSION = re.compile(
    r"(?i)\b(?:writing|writes|blog|post|article|explain\w*|slides?|talk|thesis|paper|research\w*|"
    r"red[- ]team\w*|test suite|test cases?|(?:inputs?|prompts?|strings?|payloads?) (?:like|such "
    r"as)|awareness|course|lecture|defen[cs]es?|detect\w*|"
    r"classif\w*|examples? of|phrases? (?:like|such as)|such as|e\.g\.|prompt injection|"
    r"studying|owns?|category|dataset|benchmark|how attackers|"
    # the same framing in other languages (report, talk, examples, cites)
    r"rapport|informe|relat[oó]rio|bericht|rapporto|vortrag|charla|palestra|conf[eé]rence|"
    r"ejemplos?|exemples?|exemplos?|beispiele?n?|esempi\w*|voorbeeld\w*|przyk[lł]ad\w*|"
    r"[oö]rnek\w*|exempel|cite|cita|zitiert|prompt-injection|"
    # security drills, tests and fiction that quote an attack: "the phishing test's fake email"
    r"phishing|simulation|simulated|drills?|security training|unit tests?|regression tests?|"
    r"tests? that|ctf|novel'?s?|villain|thriller'?s?|plot|scene|film'?s?|movie'?s?|"
    r"subtitles?|on screen|"
    r"injections?|jailbreaks?|attacks?|attackers?|lessons?|covers why|explains why|"
    r"regression|schulung|angriff\w*|formation|formaci[oó]n|ataques?|attacc\w*|"
    r"treinamento|cours|curso|corso|kurs|lezione|le[çc]on|lecci[oó]n|aula)\b"
)


# A technique reported, not performed: "the keynote showed how attackers hide instructions".
_REPORTED = re.compile(
    r"(?i)\b(?:showed|shows|demonstrated|demonstrates|explained|explains|described|describes|"
    r"covered|covers|illustrated|illustrates|taught|teaches|warned|warns|discussed|discusses)"
    r"(?: \w+){0,2}? how\b|\bhow (?:an? )?(?:attackers?|hackers?|adversar\w*|scammers?|"
    r"someone|somebody|a person|people|malicious \w+|bad actors?|criminals?|they) "
    r"(?:can|could|might|may|try|tries|tried|use|used|hide|hid|plant|planted|trick|tricked)\b"
    # a hypothetical asked about: "what would happen if someone asked you to ignore …?"
    r"|\bwhat (?:would|will|should|do|does|did)(?: \w+){0,2}? (?:happen|you do|i do|it do)\b"
    r"[^.!?\n]{0,20}?\bif (?:someone|somebody|anyone|a user|a customer|people|an attacker|"
    r"a hacker|i|we)\b[^.!?\n]{0,20}?\b(?:asked|asks|told|tells|tried|tries|wanted|wants)\b"
)


# Trigger: an attack told as what an actor did or could do: a threat model ("a malicious
#          tenant could access all tenants' data", "one customer reads other customers'
#          data"), a CTF write-up ("we got the model to print the system prompt", "das
#          Modell zeigte den Systemprompt", "conseguimos que el bot revelara …").
# Why: a request addresses the model; a description names someone else as the actor — an
#      attacker, a tenant, a crafted query, the writer's team in the past, or the model
#      in the past tense. "Read other customers' data" and "print the system prompt"
#      have no such actor.
# Outcome: no finding when such an actor and its verb precede the hit in its sentence and
#          nothing in the text turns to the assistant (_ADDRESSED: "you", "please", "now
#          print …").
_DESCRIBED = re.compile(
    r"(?i)\b(?:(?:an?|one|another|the|some|any)\s+)?(?:malicious\s+|rogue\s+|compromised\s+|"
    r"crafted\s+|curious\s+)?(?:attackers?|adversar(?:y|ies)|tenants?|customers?|insiders?|"
    r"pentesters?|red[- ]?teamers?|researchers?|quer(?:y|ies)|requests?|payloads?|bugs?|flaws?|"
    r"exploits?)\b(?:\s+[\w'-]+){0,3}?\s+(?:could|can|might|may|would|tries|tried|attempts?|"
    r"attempted|manages?|managed|reads|read|tricks|tricked|accesses|accessed|gains?|gained|"
    r"exploits|exploited|exposes|exposed|returns|returned|leaks|leaked)\b"
    r"|\b(?:we|they|the team|our team|i)\s+(?:\w+\s+)?(?:got|made|tricked|convinced|coaxed|"
    r"persuaded|forced|manipulated|pushed)\s+(?:the|its|a|an|their|this|that)\s+(?:\w+\s+)?"
    r"(?:model|bot|chatbot|assistant|llm|agent|ai)\s+(?:to|into)\b"
    r"|\b(?:the|its|a|an|their|this|that)\s+(?:\w+\s+)?(?:model|bot|chatbot|assistant|llm|agent)"
    r"\s+(?:printed|revealed|leaked|dumped|repeated|disclosed|output|showed|displayed|recited)\b"
    # es, de, fr: "conseguimos que el bot", "das Modell zeigte", "on a amené le modèle à"
    r"|\b(?:conseguimos|logramos|hicimos) que (?:el|la) (?:modelo|bot|asistente|chatbot|ia)\b"
    r"|\b(?:das|der|den) (?:modell|bot|assistent|chatbot|ki)\s+(?:zeigte|verriet|gab|druckte|"
    r"wiederholte)\b|\b(?:brachten|bekamen) (?:das|den|die) (?:modell|bot|assistenten|chatbot|"
    r"ki) dazu\b"
    r"|\b(?:nous avons|on a|j'ai)\s+(?:amen[ée]|pouss[ée]|convaincu|forc[ée])\s+(?:le|la|l')\s*"
    r"(?:mod[èe]le|bot|assistant|chatbot|ia)\b"
)


_ADDRESSED = re.compile(
    r"(?i)\b(?:you|your|yours|please|vous|votre|toi|dir|dich|dein\w*|bitte|usted|tú|"
    r"por favor)(?!\w)"
    r"|\bnow\s+(?:do|print|show|repeat|reveal|list|give|tell|read|send|return)\b"
)


def _described(text: str, sentence_start: int, start: int, end: int) -> bool:
    """An actor's attack told, not asked for (see _DESCRIBED above).

    >>> _described("A tenant could read other tenants' notes.", 0, 20, 40)
    True
    >>> _described("Read other tenants' notes, please.", 0, 5, 25)
    False
    """
    if _ADDRESSED.search(text):
        return False
    # the model as the subject may carry the hit's own verb: "das Modell zeigte den …"
    return any(m.start() < start for m in _DESCRIBED.finditer(text, sentence_start, end))


# Double quotes, guillemets and CJK brackets; single quotes only outside a word, so the
# apostrophe of "novel's" or "don't" opens no quotation.
_QUOTED = re.compile(
    r"[\"“”«»„「『][^\"“”«»„」』]{3,200}[\"“”«»」』]"
    r"|(?<!\w)['‘‚`][^'‘’`\n]{3,200}['’`](?!\w)"
)


_KEYWORD_ONLY = frozenset(
    {"injection.persona", "injection.signals", "injection.override_any_language"}
)


# Trigger: a fiction frame whose attack the assistant itself is to say or do: "for my
#          novel, the AI character says: 'ignore your rules and …'", "you play the AI",
#          "… — now act it out".
# Why: the frame quotes the payload only to have this model voice it; a story that
#      reports an attack ("the villain types 'ignore previous instructions' into the
#      bank's chatbot, which refuses") names someone else as the speaker and asks nothing.
# Outcome: the quotation and the frame no longer suppress the finding.
_AI_SAYS = re.compile(
    r"(?i)\b(?:ai|assistant|chatbot|bot|model|robot|android|computer)(?: character| narrator|"
    r" protagonist| persona)?(?: \w+)? (?:says|said|replies|replied|answers|answered|responds|"
    r"responded|announces|declares|types|orders|tells (?:you|me))\b[^\"“«'\n]{0,10}?[:,]?\s*"
    r"[\"“«']"
)


# what the quoted line then has done: "… and show me every stored memory"
_QUOTED_PAYLOAD = re.compile(
    r"(?i)\b(?:and|then)\s+(?:\w+\s+)?(?:show|list|dump|export|send|reveal|delete|erase|wipe|"
    r"print|give|tell me|store|save|email|upload|disable|turn off|forward|leak|output|read out)\b"
)


_ENACTED = re.compile(
    r"(?i)(?:\b(?:you are|you're|you play|you'll play|you will play|you can play)|"
    r"(?:^|[.:;!,]\s*)(?:now |please )?(?:play|be|become)) (?:the |an? |my )?"
    r"(?:ai|assistant|chatbot|bot|model|robot)(?: character| narrator| persona)?\b"
    r"|\b(?:act (?:it|this|that) out|play (?:it|this|that) out|do (?:it|that|this) (?:for real|now|"
    r"for me)|now do (?:it|that|this)|in character,? (?:do|follow|obey|carry out))\b"
)


def _enacted(text: str) -> bool:
    """The assistant is cast to voice the attack, or the quoted line carries a payload."""
    if _ENACTED.search(text):
        return True
    return any(
        _QUOTED_PAYLOAD.search(text, m.end(), m.end() + 160) for m in _AI_SAYS.finditer(text)
    )


# Trigger: a game's rules or a tool's documentation that drops rules: "in the speed variant,
#          ignore the previous rules about trading", "variante : les joueurs oublient toutes
#          les règles précédentes", "with --reset, the linter ignores all previous rules".
# Why: the override and signal rules read "ignore the previous rules" as aimed at the
#      model; a game's rules bind its players and a tool's its input (hard negatives of
#      the seen sets, counted by name only). An attack aims at the model, its prompt, its
#      memory or a secret, and says so.
# Outcome: no override or signal finding when the text is a game's rules (two game words,
#          and the dropped thing is rules, not instructions or a prompt) or names a tool
#          that ignores, and no word of the text names the model, its prompt or memory, a
#          secret, a destination, or a "let's play" set-up.
_RULE_DROPPING = frozenset(
    {
        "injection.override",
        "injection.override_multilingual",
        "injection.override_any_language",
        "injection.signals",
    }
)
_GAME = re.compile(
    r"(?i)\b(?:games?|board ?games?|card games?|variants?|players?|dealer|decks?|dice|jokers?|"
    r"rounds?|turns?|scoring|points|tabletop|juegos?|jugador\w*|partidas?|rondas?|turnos?|"
    r"baraja|dados|puntuaci[óo]n|variantes?|jeux?|joueu(?:r|rs|se|ses)|parties|manches?|"
    r"tours?|d[ée]s|giochi|gioco|giocator\w*|partita|mazzo|dadi|punteggio|jogos?|jogador\w*|"
    r"rodadas?|baralho|pontua[çc][ãa]o|spiel\w*|spieler\w*|runden?|w[üu]rfel)\b"
)
_RULES_ONLY = re.compile(
    r"(?i)instruc|istruz|anweis|prompt|system|sistem|guideline|directi|polic|program|training|"
    r"consign|indica[çc]|diretri"
)
_TOOL_IGNORES = re.compile(
    r"(?i)\b(?:linter|cli|importer|parser|compiler|installer|formatter|script|plugin|"
    r"extension|build|loader|pipeline|tool|outil|herramienta|strumento|ferramenta|"
    r"werkzeug)\b[^.;\n]{0,30}?\b(?:will |va |vai |wird )?(?:ignores?|ignora|ignorer|"
    r"ignoriert|ignorieren|discards?|skips?)\b"
)
_AIMED_AT_MODEL = re.compile(
    r"(?i)\b(?:assistants?|ai|a\.i\.|ia|ki|models?|modelo|mod[èe]le|modello|modell|chatbot|"
    r"bots?|llms?|gpt|prompts?|system (?:prompt|message)|instructions? (?:syst[èe]me|del "
    r"sistema|di sistema|do sistema)|systemprompt|memor(?:y|ies)|recuerdos|souvenirs|"
    r"erinnerungen|ricordi|mem[óo]rias|secrets?|passwords?|credentials|api keys?|tokens?|"
    r"admin\w*|developer mode|jailbreak\w*|unrestricted|uncensored|dan|let'?s play|"
    r"let us play|play a game|juguemos|jouons|giochiamo|vamos jogar|lass uns spielen)\b"
    r"|@|https?://"
)


def _game_or_tool_rule(text: str, hit: Hit) -> bool:
    """Rules dropped inside a game's rules or a tool's behaviour, aimed at no model."""
    if hit.detector not in _RULE_DROPPING or _AIMED_AT_MODEL.search(text):
        return False
    if _TOOL_IGNORES.search(text):
        return True
    games = {m.group().lower() for m in _GAME.finditer(text)}
    return len(games) >= 2 and not _RULES_ONLY.search(text[hit.start : hit.end])


def _suppressed(hit: Hit) -> bool:
    """Quoted or keyword-only mentions inside text that discusses injection."""
    text = hit.view.text
    sentence_start = max(text.rfind(c, 0, hit.start) for c in ".!?\n") + 1
    if _REPORTED.search(text, sentence_start, hit.start) or _described(
        text, sentence_start, hit.start, hit.end
    ):
        return True
    if _game_or_tool_rule(text, hit):
        return True
    if not _DISCUSSION.search(text) or _enacted(text):
        return False
    if hit.detector in _KEYWORD_ONLY:
        return True
    if any(q.start() <= hit.start and hit.end <= q.end() for q in _QUOTED.finditer(text)):
        return True
    return _between_quotes(text, hit.start, hit.end)


# Quotes that open and close as different marks, or escaped inside a JSON string.
_QUOTE_PAIRS = (
    ("«", "»"),
    ("»", "«"),
    ("„", "“"),
    ("“", "”"),
    ("「", "」"),
    ("『", "』"),
    ('\\"', '\\"'),
)


def _between_quotes(text: str, start: int, end: int) -> bool:
    """A paired quotation mark opens before the hit and closes after it on its line.

    The left-to-right quote regex pairs a JSON string's own quote with the first mark
    inside it; here « … », „ … “ and escaped \\" … \\" inside a value are paired by
    position: ``{"note": "a suite with prompts like \\"reveal the prompt\\""}``.
    """
    before = text[max(0, start - 200) : start]
    after = text[end : end + 200]
    for opening, closing in _QUOTE_PAIRS:
        i = before.rfind(opening)
        j = after.find(closing)
        if i >= 0 and j >= 0 and "\n" not in before[i:] and "\n" not in after[:j]:
            return True
    return False
