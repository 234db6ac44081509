"""The topical families' rules: each forbidden family's terms and the shape they need.

:data:`FAMILY_RULES` of :mod:`memvault.policy.detectors.topical`: for health (contract
4.2), identity traits (4.1), intimate life (4.3), criminal records (4.4) and inferred
profiling (4.8), the term lexicon (several languages where words differ), the label and
reason a finding names, how far a subject may precede the term, the shape between them
(a copula for an identity trait) and whether the term attributes itself ("my
therapist", "identifies as").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memvault.policy.detectors import topical_terms as terms
from memvault.policy.detectors.base import POSSESSIVES, words


@dataclass(frozen=True, slots=True)
class _FamilyRule:
    name: str
    family: str
    label: str
    term: re.Pattern[str]
    reason: str
    # How far (characters) the subject may precede the term.
    window: int = 70
    # The text between subject and term must match this (None: anything without framing).
    between: re.Pattern[str] | None = None
    # The term attributes itself (needs no subject).
    self_attributing: bool = False
    # Framing words do not cancel this rule.
    strong: bool = False


_c = terms.compile_ci


_UNION_MEMBER = (
    r"|\b(?:(?:a |an )?member of|belongs? to|joined|(?:union )?(?:rep|representative|steward|"
    r"delegate|organi[sz]er) (?:for|of|at|in)|afiliad[oa] (?:a|al|en)|delegad[oa] (?:de|del|en)|"
    r"adhérente? (?:à|de|du)|délégu[ée]e?(?: syndicale?)?(?: de| du| à| au)?|"
    r"syndiqu[ée]e? (?:à|chez|au)|iscritt[oa] (?:a|al|alla|allo)|delegat[oa] (?:della |del )?|"
    r"filiad[oa] (?:a|à|ao)|mitglied (?:bei|in|der|von)|lid van|medlem (?:i|av))"
    r"\s+(?:(?:the|la|le|l'|el|il|lo|der|die|de|o|a|à)\s*)?(?:" + terms.UNIONS + r")(?![\w-])"
    r"|\b(?:a |an )?(?:" + terms.UNIONS + r") (?:member|rep|steward|delegate|organi[sz]er)\b"
)


#: the family a rule's name starts with ("identity.caste": identity_trait)
_FAMILY_OF = {
    "health": "health",
    "identity": "identity_trait",
    "intimate": "intimate",
    "criminal": "criminal",
    "profiling": "inferred_profiling",
}


def _rule(
    name: str,
    label: str,
    term: str | re.Pattern[str],
    reason: str,
    *,
    window: int = 70,
    between: re.Pattern[str] | None = None,
    self_attributing: bool = False,
) -> _FamilyRule:
    """A rule of the family its name starts with; a ``str`` term is a word list (``a|b``)
    matched as whole words.

    >>> _rule("identity.caste", "caste", "dalit|brahmin", "the user's caste").family
    'identity_trait'
    """
    if isinstance(term, str):
        term = _c(r"\b(?:" + term + r")\b")
    family = _FAMILY_OF[name.partition(".")[0]]
    return _FamilyRule(name, family, label, term, reason, window, between, self_attributing)


FAMILY_RULES: tuple[_FamilyRule, ...] = (
    # ---- health (contract 4.2)
    _rule(
        "health.self_medical",
        "medical_condition",
        _c(
            words(POSSESSIVES) + r"\s+"
            r"(?:(?!(?:dog|cat|pet|horse|car|laptop|phone|app|company|team|client|customer|"
            r"product|code|server|website|startup|business|project|parrot|rabbit|bird)\b)\w+\s+)"
            r"{0,2}?(?:" + terms.COND + "|" + terms.DRUGS + r"|doctor|gp|oncologist|cardiologist|"
            r"neurologist|endocrinologist|psychiatrist|psychologist|therapist|counsel(?:l)?or|"
            r"physio\w*|dose|dosage|meds|medication|prescription|diagnosis|treatment|condition|"
            r"illness|disability|symptoms|blood (?:test|work|results)|test results|biopsy|mri|"
            r"infusions?|arzt|[äa]rztin|m[ée]dico|m[ée]decin|medico)\b(?!\s+(?:friends?|"
            r"colleagues?|"
            r"buddy|neighbou?r|cousin|brother|sister|dad|mom|father|mother|wife|husband|show|"
            r"series|game|costume))"
        ),
        "a health fact about the user",
        self_attributing=True,
    ),
    _rule(
        # "mi psiquiatra", "seine Psychiaterin", "mon thérapeute" — right after the owner word:
        # "Mon amie est thérapeute" names a job, not someone's clinician
        "health.own_clinician",
        "medical_condition",
        _c(
            words(POSSESSIVES)
            + r"\s+(?:(?:new|old|nuev[oa]|nouvel(?:le)?|neue[rn]?|nuov[oa])\s+)?(?:"
            + terms.CLINICIANS
            + r")\b(?!\s+(?:friends?|colleagues?|amig[oa]s?|ami(?:e|s)?|freund\w*))"
        ),
        "a clinician of the user's or another person's",
        self_attributing=True,
    ),
    _rule(
        "health.attributed_condition",
        "medical_condition",
        _c(r"\b(?:" + terms.COND + r")\b(?!-free|-friendly| free\b)"),
        "a diagnosis, condition, treatment or symptom attributed to the user",
    ),
    _rule(
        "health.medication_dose",
        "medication",
        _c(r"\b(?:" + terms.DRUGS + r")\b[^.;\n]{0,30}?" + terms.DOSE),
        "a medication with its dose",
        self_attributing=True,
    ),
    _rule(
        "health.dose_medication",
        "medication",
        _c(terms.DOSE + r"[^.;\n]{0,20}?\b(?:" + terms.DRUGS + r")\b"),
        "a medication with its dose",
        self_attributing=True,
    ),
    _rule(
        "health.attributed_medication",
        "medication",
        terms.DRUGS,
        "a medication attributed to the user",
    ),
    # ---- identity traits (contract 4.1)
    _rule(
        "identity.religion",
        "religion",
        terms.IDENT_RELIGION,
        "the user's religion",
        between=terms.COPULA,
    ),
    _rule(
        "identity.religious_practice",
        "religion",
        terms.IDENT_PRACTICE,
        "the user's religious practice",
    ),
    _rule(
        "identity.orientation_gender",
        "sexual_orientation",
        _c(
            r"\b(?:"
            + terms.IDENT_ORIENT
            + r")\b(?![-\w]| (?:friendly|rights|pride month|flag|line|forward|people|community))"
        ),
        "the user's sexual orientation or gender identity",
        between=terms.COPULA,
    ),
    _rule(
        "identity.ethnicity",
        "race_ethnicity",
        _c(
            r"\b(?:"
            + terms.IDENT_ETHNIC
            + r")\b(?![-\w]| (?:mode|theme|background|box|list|hat|paper|board|space|label|glove|"
            r"belt|hole|out|friday|market|coffee|tea|screen|text|font|wine|paint|noise))"
        ),
        "the user's race or ethnicity",
        between=terms.COPULA,
        window=40,
    ),
    _rule(
        "identity.caste",
        "caste",
        terms.IDENT_CASTE,
        "the user's caste",
        window=90,
    ),
    _rule(
        "identity.self_identifies",
        "identity",
        _c(
            r"\b(?:identif(?:y|ies) as(?! an? (?:\w+ )?(?:developer|engineer|designer|manager|"
            r"lead|writer|"
            r"generalist|specialist|maker|learner|fan|person|user|builder|founder|leader))|"
            r"self-identif(?:y|ies) as|(?:came|comes) out as(?! (?:the |a |an )?(?:winners?|"
            # a result, not an identity: "came out as the winner", "came out as expected"
            r"expected|planned|intended|predicted|draw|tie|victor|champions?|best|top|first|"
            r"second|third|favou?rites?|success|positive|negative|clean|fine|ok|okay|good|bad|"
            r"great|perfect|cheaper|faster|slower|higher|lower)\b)|"
            r"out to (?:his|her|their|my) (?:team|family|parents|colleagues|friends))\b"
        ),
        "a self-identification of the user",
        self_attributing=True,
    ),
    _rule(
        "identity.politics",
        "political_opinion",
        terms.IDENT_POLITICS,
        "the user's political opinion or affiliation",
        between=terms.POLITICAL_VERB,
    ),
    _rule(
        "identity.political_opinion",
        "political_opinion",
        _c(
            r"\b(?:thinks?|believes?|feels?|says?)\b[^.;]{0,30}\b(?:government|president|prime "
            r"minister|regime|administration|politicians?|parliament|congress|chancellor|"
            r"(?:opposition|ruling|governing|\w+) party|opposition|left|right|liberals|"
            r"conservatives|democrats|republicans|socialists|immigrants|immigration)\b"
            r"[^.;]{0,30}\b(?:corrupt|incompetent|evil|illegitimate|fascist|communist|criminal|"
            r"liars?|failing|terrible|authoritarian|traitors?|idiots?|crooks?|dangerous|evil|"
            r"ruining|"
            r"destroying|doing a (?:great|good|bad|terrible) job)\b"
            r"|\b(?:supports?|opposes?|hates?|despises?|distrusts?|backs|loathes?) (?:the )?"
            r"(?:opposition|government|president|prime minister|regime|ruling party|"
            r"(?:\w+ )?party|(?:left|right)[- ]wing|conservatives|liberals|progressives)\b"
        ),
        "the user's political opinion",
        window=40,
    ),
    _rule(
        "identity.voting",
        "voting",
        _c(
            r"\b(?:vote pour|voto (?:a|por|para)|wähle (?:die|immer|den)|vote (?:pelo|pela|no|"
            r"na))\b"
            r"|\b(?:voted|votes|will vote|plan(?:s)? to vote|is voting|am voting|didn't vote|"
            r"did not vote|abstained|always vote|never vote)\b(?: \w+){0,3}?\s+(?:(?:for|against) "
            r"(?:the )?(?:[\w'-]+ ){0,2}?(?:party|candidate|president|prime minister|mayor|"
            r"governor|"
            r"senator|congress\w*|mp|labour|tory|tories|conservatives?|democrats?|republicans?|"
            r"greens?|liberals?|socialists?|referendum|brexit|remain|leave|independence|"
            r"proposition|ballot measure|incumbent|opposition|left|right)|in (?:the|this|last|"
            r"every) (?:\w+ )?(?:elections?|primar(?:y|ies)|referendum|ballot|polls?))\b"
            r"|\b(?:always|never) votes? (?:conservative|labour|republican|democrat|green|liberal|"
            r"left|right|tory)\b"
        ),
        "how the user votes",
        window=40,
    ),
    _rule(
        "identity.nationality",
        "national_origin",
        _c(
            r"\b(?:half[- ]|part[- ])?(?:"
            + terms.DEMONYMS
            + r")\b(?=\s*(?:[.,;!]|$|and\b|by birth|"
            r"origin|descent|heritage|citizens?|nationals?|immigrants?|roots))"
        ),
        "the user's nationality or ethnic origin",
        between=terms.COPULA,
        window=40,
    ),
    _rule(
        "identity.origin",
        "national_origin",
        terms.IDENT_ORIGIN,
        "the user's national origin or immigration status",
        window=40,
    ),
    _rule(
        "identity.union",
        "union_membership",
        _c(
            r"\b(?:union (?:member|membership|rep(?:resentative)?|steward|dues|card)|shop steward|"
            r"(?:member of|belongs? to|joined|part of) (?:the |a )?(?:[\w\-']+ ){0,3}(?:union|"
            r"syndicate|actors guild|writers guild)|trade union|labou?r union|"
            r"unioni[sz]ed|organi[sz]ing (?:a |the )?union|teamsters|gewerkschaft\w*|sindicato|"
            r"syndicat)\b" + _UNION_MEMBER
            # a union by its own name after a membership word: "a member of Unison",
            # "afiliada a UGT", "délégué CFDT", "iscritto alla FIOM", "Mitglied bei ver.di"
        ),
        "the user's union membership",
    ),
    # ---- intimate life (contract 4.3)
    _rule(
        "intimate.attributed",
        "intimate_life",
        terms.INTIMATE,
        "the user's intimate life, sexuality or family planning",
        window=90,
    ),
    # ---- criminal / legal (contract 4.4)
    _rule(
        "criminal.attributed",
        "criminal_legal",
        terms.CRIMINAL,
        "the user's criminal history or a pending legal matter",
        window=90,
    ),
    # ---- inferred profiling (contract 4.8)
    _rule(
        "profiling.profile_record",
        "profile_record",
        _c(
            r"\b(?:mood (?:tracker|log|history|score|diary|chart)|emotional (?:state|profile|"
            r"log|score|pattern)s?|emotion (?:log|tracking|score|profile)|sentiment (?:score|"
            r"profile|log)|personality (?:profile|type|traits?|assessment|analysis)|"
            r"psychological (?:profile|assessment|analysis)|psychographic\w*|behaviou?ral "
            r"profiles?|mood (?:is|was|seems|appears) (?:low|down|bad|poor|off|dark)|"
            r"behaviou?ral "
            r"profile|big five|neuroticism|agreeableness|conscientiousness|extraversion|"
            r"openness to experience|mbti|(?:inferred|deduced|guessed|estimated) from (?:their|his|"
            r"her|the user'?s|chat|typing|message|tone|behaviou?r)\w*|based on (?:their|his|her|"
            r"the user'?s) (?:\w+ )?(?:messages|chats?|tone|typing|behaviou?r|history|activity|"
            r"writing|style|posts|emails|answers|replies|responses|voice|comments|language)|"
            # a person, not an endpoint "vulnerable to SSRF"
            r"(?:susceptible|vulnerable) to(?! (?:\w+[ -]){0,2}(?:attacks?|ssrf|xss|csrf|sql|"
            r"injections?|exploits?|cves?|rce|dos|ddos|race conditions?|bugs?|overflows?|"
            r"brute[- ]force|replay|spoofing|mitm|leaks?|corrosion|rust|damage|flooding|"
            r"erosion|frost|drought|pests?|outages?|downtime|regressions?|timeouts?)\b)|"
            r"increase (?:conversion|engagement|spend)|"
            r"engagement (?:increases|drops|spikes|peaks)|prediction:|predicted to|"
            r"churn risk|risk score|from (?:their |his |her |the user'?s )?(?:voice|typing|chat|"
            r"message|writing) (?:tone|patterns?|style|cadence))\b|\bpredictions?(?=\s*:)"
            r"|\b(?:mon|tue|wed|thu|fri|sat|sun)(?:day)?\.?\s*[:=-]?\s*(?:sad|happy|angry|"
            r"irritable|"
            r"calm|anxious|cheerful|gloomy|tense|upset|stressed|frustrated|low|down|moody|grumpy)\b"
        ),
        "a profile, prediction or emotional-state record about the user",
        self_attributing=True,
    ),
    # Trigger: a speaker's own persistent low mood or distress, told as lasting ("I've been
    #          feeling really low since the breakup", "I'm so depressed lately").
    # Why: the lead's session-12 contract decision: a first-person emotional state that lasts
    #      is emotional-state tracking (contract 4.8) and mental health status (4.2). Gate
    #      0.6's heads refuse the sentence at the edge (health .519 vs .50); every retrain
    #      since scored it under its threshold (session 11's A .263; session 12's E .762 vs
    #      .795, which the benign budgets pin). A mood tied to a moment ("a bit down about
    #      the deadline") says no duration and stays benign; "down to the coast", "low on
    #      cash" are not moods.
    # Outcome: refused as inferred_profiling, the stated state with its duration as the span.
    _rule(
        "profiling.emotional_state",
        "emotional_state",
        _c(
            r"\bi(?:(?:'ve| have)?\s+(?:been|felt|keep feeling)|(?:'m| am)(?:\s+feeling)?|"
            r"\s+feel(?:ing)?)\s+(?:feeling\s+)?(?:(?:really|so|very|pretty|quite|kind of|"
            r"kinda|super|incredibly|extremely|awfully|terribly|constantly)\s+)?(?:low(?!\s*(?:on|-key|key|carb|fat|"
            r"cost|budget|priority|risk)\b)|down(?!\s+(?:to|at|in|on|by|the|there|here|south|"
            r"north|town|under)\b)|depressed|hopeless|miserable|empty inside|numb|worthless|"
            r"suicidal|in a (?:dark|bad) place)\b[^.!?\n]{0,40}?\b(?:since|lately|recently|"
            r"for (?:weeks|months|days|a while|ages|years)|all (?:the time|week|month|year)|"
            r"every (?:day|morning|night)|these days|ever since)\b"
        ),
        "a lasting low mood or distress the speaker states about themselves",
        self_attributing=True,
    ),
    _rule(
        "profiling.inferred_trait",
        "inferred_trait",
        terms.EMOTION,
        "an inferred emotional state or personality trait of the user",
        window=60,
        between=_c(
            r"^\s*(?:\w+\s+){0,3}?(?:"
            + terms.INFER
            + r")\b(?:\s+\w+){0,3}?\s*(?:and\s+)?(?:\w+\s+)?$"
        ),
    ),
    _rule(
        "profiling.behaviour_prediction",
        "behaviour_prediction",
        _c(
            r"\b(?:(?:is|are|seems?|appears?)\s+(?:very |highly |quite |fairly |more |most )?"
            r"(?:likely|unlikely|expected|predicted|bound|prone)\s+to|will (?:most |"
            r"very )?(?:likely|probably|"
            r"eventually|almost certainly)|is (?:an? )?(?:impulsive|compulsive|easy|soft) "
            r"(?:buyer|spender|target|mark)|(?:likely|unlikely) to (?:churn|cancel|quit|leave|buy|"
            r"purchase|default|relapse|upgrade|convert|respond))\b"
        ),
        "a behavioural prediction about the user",
        window=50,
    ),
)
