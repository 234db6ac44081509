"""When a sensitive term is no fact about a person: the topical detector's exemptions.

Read by :mod:`memvault.policy.detectors.topical` around each term it finds: the subject
words that make a term the user's (:data:`_SUBJ`), the framing that makes it a topic
(:data:`FRAMING`: writing, research, a course …; :data:`TOPIC_AFTER`: "cancer research"),
a profiling instrument described rather than applied, a form's field ("we don't collect
ethnicity"), a definition asked, someone or something else as the head ("user's dog"), a
place the speaker belongs to, and a legal or clinical job ("my cousin is a court clerk").
"""

from __future__ import annotations

import re

from memvault.policy.detectors import topical_terms as terms
from memvault.policy.detectors.base import NAME, NAME_POSSESSIVE, POSSESSIVES, words

_SUBJ = re.compile(
    r"(?i)(?:\bI\b|\bI'm\b|\bI've\b|\bI'd\b|\bim\b|\bme\b|\bmyself\b|\bwe\b|\bour\b|"
    r"\b(?:the\s+)?user(?:'s)?\b|\bhe\b|\bshe\b|\bthey\b|\bthem\b|"
    r"\bich\b|\bder nutzer\b|\bdie nutzerin\b|\bder benutzer\b|\byo\b|"
    r"\bel usuario\b|\bla usuaria\b|\btengo\b|\bestoy\b|\bsoy\b|\bsufro\b|\bpadezco\b|\btomo\b|"
    r"\bje\b|\bj'|\bl'utilisat(?:eur|rice)\b|\bsuis\b|\beu\b|"
    r"\bo usu[aá]rio\b|\ba usu[aá]ria\b|\btenho\b|\btenemos\b|\bestamos\b|\bhemos\b|\buso\b|"
    r"\bmi pareja\b|"
    r"\bnosotros\b|\bnous\b|\bwir\b|\bestou\b|\bsou\b|\bio\b|"
    r"\bl'utente\b|\bsono\b|\bho\b|\bprendo\b|\bikzelf\b|\bik\b|\bmijn\b|"
    + words(POSSESSIVES)
    + ")"
    # the owner words (base.POSSESSIVES): "my", "his", "mein…", "mon", "minha" …
)


FRAMING = re.compile(
    r"(?i)\b(?:writ(?:e|es|ing)|wrote|reports? (?:on|about)|research\w*|stud(?:y|ies|ying)|"
    r"article|blog|"
    r"podcast|book|novel|chapter|textbook|lecture|course|class|classes|teach\w*|glossary|"
    r"dataset|datasets|statistics|survey|museum|exhibitions?|exhibits?|galler(?:y|ies)|guide|"
    r"overview|docs|documentation|thesis|paper|papers|translat\w*|project|assignment|homework|"
    # translating a medical leaflet: "je traduis une notice médicale sur le diabète"
    r"tradu\w*|übersetz\w*|notices? m[ée]dicales?|prospectos?|bulas?|foglietti? illustrativ[oi]|"
    r"beipackzettel|packungsbeilagen?|(?:patient |package )(?:leaflets?|inserts?)|"
    r"quiz|exam|fiction\w*|story|stories|script|screenplay|game|journalis\w*|covering|civics|"
    r"history of|explain\w*|summar\w*|compar\w*|table|build(?:s|ing)?|design\w*|develop\w*|"
    r"works? on|working on|edit(?:s|ing)?|startup|company|clients?|patients|customers|"
    r"awareness|campaign|training (?:materials?|module)|slides?|presentation|webinar|"
    r"documentary|film|movie|character|role-?play|interview\w*|analy[sz]\w*|data on|"
    # screen and stage fiction: "a courtroom drama where the defendant is acquitted"
    r"(?:courtroom|crime|legal|police|detective|period|medical|hospital|tv|k-?)[ -]?dramas?|"
    r"(?:tv |netflix |crime |mini-?)?series|sitcoms?|episodes?|thrillers?|whodunn?its?|"
    r"true[- ]crime|tv shows?|(?:stage )?plays? about|musicals?|anime|"
    r"prevalence|trends?|news|policy|policies|regulations?|law school|paralegal|drafts?|"
    r"works? (?:in|at|for|as)|volunteers?|researchers?|website|site|forum|charity|nonprofit|"
    r"non-profit|organi[sz]\w*|fundrais\w*|for people with|support group|sells?|selling|"
    # talks, shows, books and courses in other languages, stage plots, revision and features
    r"keynote|conference|congress|summit|symposium|meetups?|seminars?|workshops?|"
    r"(?:gave|give|gives|giving|held|hold|holds|holding) (?:a |an |the )?(?:talks?|lectures?)|"
    # presenting a topic, jury service, first-aid courses, essays, modules, a PhD
    r"present(?:s|ed|ing)? (?:on|about)|(?:served|serving|sat|sitting|serve|sit) on (?:a |the )?"
    r"jury|jury (?:duty|service)|first[- ]aid|refreshers?|kursus|essays?|modules?|ph\.?d|"
    r"dissertation|"
    r"talks? (?:at|on)|audio ?books?|podcasts?|opera|ballet|plot|(?:the|a|this|that) plays?|"
    r"moot|guidelines|pharmacolog\w*|revis(?:ing|ion)|flash ?cards?|fixtures?|"
    r"features?|users|faq|how (?:we|to|they|you) (?:handle|deal with|approach)|"
    r"charla|ponencia|conferencia|congreso|curso|taller|pel[ií]cula|novela|libro|serie|"
    r"vortrag|kongress|konferenz|kurs|seminar|buch|roman|hörbuch|serien?|dokumentarfilm|"
    r"expos[ée]|conf[ée]rence|cours|livre|s[ée]rie|documentaire|pi[èe]ce|"
    r"convegno|corso|romanzo|libro|palestra|relat[óo]rio|livro|s[ée]rie|"
    r"lezing|cursus|boek|bericht|artikel|schulung|ausstellung\w*|\w+museums?|"
    # German compounds: Krimiserie, Fernsehfilm, Gerichtsdrama, Kriminalroman
    r"krimi\w*|\w+serien?|\w+filme?|\w+romane?|\w+dramen?|\w+drama|"
    r"business|products?|donat\w*|hr|employees|staff|colleagues?|coworkers?|helps? (?:people|users|"
    r"patients|customers|clients)|for (?:people|users))\b"
)


# Words right after a sensitive term that make it a topic, not a fact about the user.
TOPIC_AFTER = re.compile(
    r"(?i)^[\s-]*(?:\w+[\s-]+)?(?:research|awareness|prevention|programs?|statistics|rates?|"
    r"prevalence|studies|study|charity|charities|fundraiser|fundraising|clinics?|wards?|units?|"
    r"departments?|patients|society|foundation|association|screening|campaigns?|support "
    r"groups?|market|industry|datasets?|data|software|apps?|trials?|drugs? market|"
    r"policy|policies|laws?|reform|history|epidemic|pandemic|outbreaks?|vaccines?|"
    r"specialists?|nurses?|doctors|researchers?|advocacy|rights|users|people|customers|students|"
    r"community|communities|children|kids|employees|audiences?|readers|viewers|accessibility|"
    r"pric(?:e|es|ing)|costs?|coverage|shortages?|supply|debate|guidelines|tables?|columns?|"
    r"schemas?|fixtures?|endpoints?|benefits)\b"
    # an event or a course right after the term: "blood pressure checks", "sex-ed
    # curriculum" (not "OCD and checks the door locks")
    r"|^(?:-\w+)?\s+(?:checks?|check-?ups?|camps?|courses?|classes|workshops?|refreshers?|"
    r"curricul(?:um|a)|drives?|fairs?|webinars?|lectures?|seminars?)\b"
    # how common a condition is in a population: "depression affects one in five adults",
    # "l'asthme touche 8 % des enfants", "jeden fünften Erwachsenen" (not "it affects my sleep")
    r"|^\s*(?:affects?|touche|afecta(?: a)?|colpisce|atinge|betrifft)\s+(?:about |around |nearly |"
    r"roughly |over |up to |some |environ |près d'|cerca de |circa |etwa |rund )?(?:one|two|three|"
    r"un|une|uno|una|um|uma|ein(?:e[nr]?)?|\d[\d.,]*\s*(?:%|percent|per ?cent)?|millions?|"
    r"millones|milioni|milhões|millionen|many|most|muchos|beaucoup)\b"
    r"|^\s*(?:jede[nrs]?|jeder) \w+ (?:erwachsene\w*|mensch\w*|kind\w*|person\w*|frau\w*|"
    r"mann\w*|patient\w*)"
)


_TOPIC_AFTER_FAMILIES = frozenset({"health", "intimate", "criminal"})


# An identity term as a field of study or of policy: "caste politics", "caste bias in
# hiring", "caste aur gender par PhD" — no person between the term and the topic word.
_IDENTITY_TOPIC_AFTER = terms.compile_ci(
    r"^[\s-]*(?:(?!(?:i|me|my|we|our|he|she|they|his|her|their|main|mai|hum|mera|meri|"
    r"uska|uski)\b)[\w'-]+[\s-]+){0,3}?(?:bias|biases|politics|political|discrimination|"
    r"census|studies|research|ph\.?d|dissertation|thesis|hierarch\w*|"
    r"equity|audits?|sensitivity|awareness|history|reforms?|debates?)\b"
)


# Profiling instruments as a subject of their own: "the MBTI workshop", "a Big Five quiz".
_PROFILE_TOPIC_AFTER = re.compile(
    r"(?i)^[\s-]*(?:\w+[\s-]+)?(?:workshops?|training|sessions?|courses?|classes|seminars?|"
    r"quiz(?:zes)?|exercises?|frameworks?|theory|model|certification|coach\w*|books?|"
    r"posters?|games?|icebreakers?|webinars?|lectures?|articles?|research|literature)\b"
)


# Trigger: a profiling term in a clause that names an instrument or a practice, no owner
#          and no recorded value ("the five-factor model lists neuroticism", "a regulator
#          fined a bank for inferring emotional states", "a printable mood chart template").
# Why: those describe a model, a product or the news; "User's Big Five: neuroticism high"
#      and "Dana's mood chart: Mon low" are records about a person (an owner, a value).
# Outcome: a topic unless the clause has an owner or a value follows the term.
_PROFILE_FRAMING = re.compile(
    "(?i)"
    + words(
        r"""models? modell\w* modelos? mod[èe]les? modell[oi] theor(?:y|ies) frameworks?
        factors? dimensions? inventor(?:y|ies) questionnaires? scales? tests? regulat\w*
        watchdogs? fined? fines bann?(?:ed|s)? laws? gdpr apps? app's templates? printable
        features? tools? classif\w* clasific\w* describes? beschreib\w* teilt typen types tipos"""
    )
)


# An owner, or a person as the subject: "her", "Tom's", "she scored", "Tom has", "user".
_PROFILE_OWNER = re.compile(
    "(?i)"
    + words(
        POSSESSIVES + " user i i'm me mine sein\\w* ihr\\w* she he they er sie ella él elle lei lui"
    )
    + "|"
    + NAME_POSSESSIVE
    + "|"
    + NAME
    + r"\s+"
    + words("has had is was scored scores shows showed tested got gets seems seemed ranks ranked")
)


_PROFILE_VALUE = re.compile(r"^[^.;!?\n]{0,40}?[:=]|^\s*\(?\d")


# Trigger: a profile term kept of a population or named as the artefact that holds it:
#          "I score every subscriber's churn risk", "a risk score for each loan applicant",
#          "the churn risk of all mobile subscribers", "our churn risk dashboard".
# Why: contract §4.8 forbids a profile or prediction about a person; a job that scores
#      customers in general, or its report, is a topic. "Tom's churn risk", "her risk
#      score", "the user's churn risk report" and a recorded value are someone's record.
# Outcome: a topic when a population owns the term (before it, or "of / for <group>"
#          after it) or an artefact noun follows it, with no person's owner word right
#          before it and no value after it.
_POPULATION = (
    r"customers? clients? subscribers? users? members? accounts? applicants? borrowers? "
    r"policyholders? cardholders? account-?holders? shoppers? buyers? players? households? "
    r"leads? prospects? passengers? guests? visitors? readers? viewers? listeners? donors? "
    r"tenants? residents? drivers? riders? employees? students? learners? contacts? "
    r"consumers? patrons? renters? merchants? sellers? investors?"
)


#: "every subscriber", "each loan applicant", "mobile subscribers" (a plural: ends in s)
_GROUP = (
    r"(?:(?:every|each|all|any)\s+(?:[\w-]+\s+){0,2}?"
    + words(_POPULATION)
    + r"|(?:[\w-]+\s+){0,2}?"
    + words(_POPULATION)
    + r"(?<=s))"
)


_GROUP_BEFORE = re.compile(
    r"(?i)(?:\b(?:every|each|all|any)\s+(?:[\w-]+\s+){0,2}?"
    + words(_POPULATION)
    + r"['’]s|"
    + words(_POPULATION)
    + r"(?<=s)['’])\s*$"
)


_GROUP_AFTER = re.compile(
    r"(?i)^\s*(?:(?:score|scores|profiles?|ratings?)\s+)?(?:for|of|across|on)\s+(?:(?:the|our|"
    r"their|its|all|\d[\d,.]*[km]?)\s+)?" + _GROUP
)


_ARTEFACT_AFTER = re.compile(
    r"(?i)^[\s-]*(?:(?:score|scores)[\s-]+)?(?:reports?|dashboards?|pipelines?|models?|metrics?|"
    r"features?|algorithms?|tools?|systems?|engines?|api|services?|jobs?|queries|query|"
    r"analytics|analys[ie]s|spreadsheets?|notebooks?|thresholds?|methodology|calculations?)\b"
)


_PERSON_OWNER_BEFORE = re.compile(
    r"(?i)(?:" + words(POSSESSIVES) + r"|" + NAME_POSSESSIVE + r"|\b(?:the\s+)?user\b)"
    r"\s*(?:[\w-]+\s+){0,1}$"
)


def _of_population(before: str, after: str) -> bool:
    """A profile term kept of a population or of an artefact, no person's (see above).

    >>> _of_population("I score every subscriber's ", " before renewal.")
    True
    >>> _of_population("I score Tom's ", " report before renewal.")
    False
    """
    if _PROFILE_VALUE.match(after) or _PERSON_OWNER_BEFORE.search(before):
        return False
    return bool(
        _GROUP_BEFORE.search(before) or _GROUP_AFTER.match(after) or _ARTEFACT_AFTER.match(after)
    )


# A copula that is also a subject word ("sono", "soy") inside a question asking what a thing
# is ("Cosa sono gli arresti domiciliari?"): a definition, no one's record.
_DEFINITION_SUBJECT = re.compile(r"(?i)(?:\bcosa|\bcos'|\bqué|¿qu[ée]|\bo que)\s*\w+$")


# Data-handling verbs between a subject and a field name: "we don't collect ethnicity",
# "the form never asks for nationality": a form or a policy, not the user's origin.
_FIELD_HANDLING = re.compile(
    r"(?i)\bask(?:s|ed|ing)?(?: \w+){0,2} (?:for|about)\b|"
    + words(
        r"""collect\w* gather\w* record\w* track\w* captur\w* stor(?:e|es|ed|ing) request\w*
        require\w* publish\w* recog\w* registr\w* erfass\w* erheb\w* sammel\w*
        recueill\w* coleta\w* raccogli\w*"""
    )
)


_FIELD_NOUN = re.compile(
    "(?i)^" + words("ethnicity nationality citizenship (?:immigration|visa)\\sstatus") + "$"
)


# The user as an object after the term: "a restraining order against me".
_OBJECT_USER = re.compile(
    r"(?i)\b(?:against|for|on|about|of|with|to|from)\s+(?:me|myself|the user|user|him|her|them)\b"
)


_NON_USER_HEAD = re.compile(
    r"(?i)^\s*(?:\w+\s+)?(?:dog|cat|pet|horse|car|laptop|phone|app|company|team|client|customer|"
    r"product|code|server|website|startup|business|project|parrot|rabbit|bird|plant|house|"
    r"employer|students?|patients?|customers|clients|users|sourdough|dough|bread|"
    r"cake|yoghurt|yogurt|kombucha|compost)\b"
)


# A place the speaker belongs to, not the speaker: "our town's old jail is a hotel now";
# someone "from our town" is still a person.
_PLACE_HEAD = re.compile(
    r"(?i)^\s*(?:\w+\s+)?(?:town|city|village|neighbou?rhood|region|country|school|library)\b"
)


# Trigger: "my colleague Tom has epilepsy": the owner's person noun is a framing word
#          ("a course for colleagues", "helps staff") after any other subject.
# Why: after an owner word it names the person the fact is about.
# Outcome: the person noun (and a name after it) is not read as framing.
_OWNER = re.compile("(?i)" + words(POSSESSIVES))


_PERSON_HEAD = re.compile(
    r"(?i)^\s*(?:colleague|co-?worker|teammate|employee|staff member|manager|boss)s?\b"
    r"(?-i:\s+[A-Z][a-z]+)?"
)


# Trigger: the term belongs to the job a person is said to have: "my cousin is a court
#          clerk at the tribunal", "our neighbour is a dialysis technician", "ma mère est
#          greffière au tribunal", "mio padre ha fatto il farmacista", "es auxiliar de farmacia".
# Why: a legal or clinical JOB is neither a criminal record nor a diagnosis; the owner's
#      clinician ("my brother's addiction counsellor") has no "is a" before it, and a fact
#      joined to the job ("a nurse with MS", "a teacher who was convicted") has a break word.
# Outcome: a term inside "<is/works as> [a] … <job noun>" or "<is> [a] <job noun> <at/of …>
#          term" (a few words, no break word) is the job, not a fact about the person.
_JOB_PRED = (
    r"\b(?:is|was|am|are|were|works? as|worked as|working as|trained as|qualified as|became|"
    r"becomes|retired as|es|era|fue|trabaja como|est|était|travaille comme|ist|war|arbeitet als|"
    r"è|fa (?:il|la|l')|ha fatto (?:il|la|l')|faceva (?:il|la|l')|lavora come|é|trabalha como|"
    r"foi|soy|trabajo como|suis|bin|arbeite als|sono|lavoro come|sou|trabalho como)\b|"
    r"'s(?=\s+(?:a|an)\b)|\b(?:i|you|we|they)'re\b|\bi'm\b"
)


_JOB_NOUN = (
    # English
    r"clerks?|interpreters?|translators?|lawyers?|attorneys?|solicitors?|barristers?|judges?|"
    r"magistrates?|prosecutors?|paralegals?|bailiffs?|(?:probation|parole|police|prison|"
    r"court|correctional) officers?|(?:parole|review|licensing) board members?|wardens?|"
    r"guards?|reporters?|stenographers?|counsel+ors?|therapists?|technicians?|techs?|nurses?|"
    r"surgeons?|doctors?|physicians?|pharmacists?|dispensers?|nutritionists?|dietitians?|"
    r"dentists?|midwives|midwife|paramedics?|psychologists?|social workers?|caseworkers?|"
    r"researchers?|professors?|lecturers?|experts?|specialists?|consultants?|coordinators?|"
    r"managers?|assistants?|aides?|receptionists?|volunteers?|instructors?|trainers?|chaplains?|"
    # jobs in intimate life's field: "a divorce mediator", "an IVF embryologist"
    r"mediators?|embryologists?|sexologists?|educators?|teachers?|providers?|coaches?|doulas?|"
    r"gyn(?:a)?ecologists?|obstetricians?|urologists?|"
    # French
    r"greffi(?:er|ère)s?|avocat(?:e|s|es)?|juges?|conseill(?:er|ère)s?|agent(?:e|s)?|"
    r"infirmi(?:er|ère)s?|médecins?|pharmacien(?:ne)?s?|chirurgien(?:ne)?s?|technicien(?:ne)?s?|"
    r"interprètes?|éducat(?:eur|rice)s?|magistrat(?:e|s)?|surveillant(?:e|s)?|psychologues?|"
    r"diététicien(?:ne)?s?|aide-soignant(?:e|s)?|secrétaires?|médiat(?:eur|rice)s?|"
    r"enseignant(?:e|s|es)?|professeure?s?|sage-femmes?|gyn[ée]cologues?|sexologues?|"
    # Spanish, Portuguese, Italian
    r"abogad[oa]s?|juez(?:a|as|es)?|secretari[oa]s?|auxiliar(?:es)?|enfermer[oa]s?|"
    r"médic[oa]s?|farmacéutic[oa]s?|técnic[oa]s?|intérpretes?|nutricionistas?|cirujan[oa]s?|"
    r"psicólog[oa]s?|funcionari[oa]s?|terapeutas?|dentistas?|fiscal(?:es)?|"
    r"advogad[oa]s?|juíz(?:a)?|escriv(?:ão|ã)|enfermeir[oa]s?|farmacêutic[oa]s?|"
    r"cirurgi(?:ão|ã)|farmacist[ai]|avvocat[oaie]|giudic[ei]|cancellier[ea]|infermier[ea]|"
    r"medic[oi]|tecnic[oa]|interpret[ei]|consulent[ei]|terapist[ai]|chirurg[oi]|psicolog[oa]|"
    r"dietist[ai]|mediador(?:a|es|as)?|mediat(?:ore|rice|ori|rici)|educador(?:a|es|as)?|"
    r"profesor(?:a|es|as)?|professor(?:a|es|as)?|insegnant[ei]|ginec[óo]log[oa]s?|"
    r"matronas?|parteras?|ostetric(?:a|he)|parteiras?|"
    # German
    r"anw(?:a|ä)lt(?:in)?|richter(?:in)?|pfleger(?:in)?|krankenschwester|apotheker(?:in)?|"
    r"techniker(?:in)?|dolmetscher(?:in)?|berater(?:in)?|therapeut(?:in)?|(?:a|ä)rzt(?:in)?|"
    r"sozialarbeiter(?:in)?|justizangestellte[r]?|schöff(?:e|in)|staatsanw(?:a|ä)lt(?:in)?|"
    r"polizist(?:in)?|beamt(?:er|in)|\w*mediator(?:in)?|\w*pädagog(?:e|in)|lehrer(?:in)?|"
    r"hebammen?|gynäkolog(?:e|in)"
)


_JOB = terms.compile_ci(
    r"(?:" + _JOB_PRED + r")\s+(?:(?:a|an|the|un|une|una|uno|un'|ein|eine|o|um|uma|il|"
    r"la|le|el|l')\s+)?(?:[\w'’-]+\s+){0,3}?(?:" + _JOB_NOUN + r")(?![\w-])"
)


# A fact joined to the job: "a nurse with MS", "a teacher who was convicted", "and has …".
_JOB_BREAK = terms.compile_ci(
    r"[,;:(]|"
    + words(
        r"""with who whose which that but because since after when and has had have got gets
        was were been is suffer\w* diagnosed takes? took on off avec qui que mais et con pero y
        mit der die das aber und che ma e com mas"""
    )
)


# Not a job's place or field: "a therapist every wednesday for my depression".
_JOB_GAP_BREAK = terms.compile_ci(words("for pour para per für my his her their"))


# A visit, not a job: "I'm seeing a therapist", "she's been going to a counsellor".
_VISIT = terms.compile_ci(
    r"\b(?!(?:work|train|retir)ing\b)\w+ing\b|" + words("sees? saw visits? visited")
)


# connectors a job's place or field may take: "at the", "au", "de", "d'insertion et de"
_JOB_LINK = terms.compile_ci(r"\b(?:et|and|y|e|und) (?=de\b|of\b|des\b|di\b|do\b|da\b)")


_JOB_GAP = 5


_JOB_FAMILIES = frozenset({"health", "criminal", "intimate"})


def _is_job(before: str, term: str, after: str) -> bool:
    """The term is part of a job someone is said to have (see _JOB above).

    >>> _is_job("Ma cousine est greffière au ", "tribunal", " de Nantes.")
    True
    >>> _is_job("my brother's ", "addiction", " counsellor says he relapsed")
    False
    """
    text = before + term + after
    t0, t1 = len(before), len(before) + len(term)
    for o in _JOB.finditer(text, max(0, t0 - 160)):
        if o.start() >= t1:
            break
        pred = re.match(r"(?i)(?:" + _JOB_PRED + r")", o.group())
        if _VISIT.search(o.group()[pred.end() if pred else 0 :]):
            continue  # "I'm seeing an addiction counsellor": a visit, not a job
        if o.end() >= t1:  # the term sits in the job phrase ("a dialysis technician")
            inner = text[o.start() + (pred.end() if pred else 0) : t0] + " " + text[t1 : o.end()]
            if o.start() >= t0:
                inner = text[t1 : o.end()]
            if not _JOB_BREAK.search(_JOB_LINK.sub("", inner)):
                return True
            continue
        gap = _JOB_LINK.sub("", text[o.end() : t0])  # "greffière au tribunal"
        if (
            len(gap.split()) <= _JOB_GAP
            and not _JOB_BREAK.search(gap)
            and not _JOB_GAP_BREAK.search(gap)
        ):
            return True
    return False


_QUOTED = re.compile(r"[\"“”«»][^\"“”«»]{1,200}[\"“”«»]")


# A term that starts with its owner ("my lawyer", "his parole officer") needs no subject.
_OWN_TERM = re.compile(r"(?i)(?:my|his|her|their)\s")
