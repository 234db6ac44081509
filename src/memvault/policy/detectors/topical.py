"""Topical families attributed to the user (contract §4.1–4.4, §4.8).

A sensitive *topic* is fine ("user is writing a report on vaccine history");
a sensitive *fact about the user* is not ("user takes 20 mg of sertraline").
Each family has a term lexicon (several languages where words differ); a term
is a finding when, in the same clause,

* a subject that is the user (``I``, ``my``, ``user``, ``he/she/they``, ``der
  Nutzer``, ``tengo`` …) precedes it within a short window, and
* no framing word sits between them or before it (writing, research, novel,
  course, app, dataset, about …) — framing turns a fact into a topic, and
* the family's predicate shape holds (identity traits need a copula such as
  ``is``/``identifies as``; profiling needs an inference or a third-person
  emotional/behavioural predicate).

Self-attributing constructions (``my therapist``, ``identifies as``, ``mood
tracker:``) need no separate subject.

>>> from memvault.policy.normalize import normalize
>>> [h.family for h in detect(normalize("I started on lamotrigine 100 mg last week."))]
['health']
>>> detect(normalize("Dana is preparing slides about the history of anaesthesia."))
[]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memvault.policy.detectors.base import NAME_POSSESSIVE, POSSESSIVES, Hit, clause_of, words
from memvault.policy.detectors.prefilter import PatternIndex, may_match
from memvault.policy.normalize import NormalizedText, View

__all__ = ["FAMILY_RULES", "detect"]

_SUBJ = re.compile(
    r"(?i)(?:\bI\b|\bI'm\b|\bI've\b|\bI'd\b|\bim\b|\bmy\b|\bme\b|\bmyself\b|\bwe\b|\bour\b|"
    r"\b(?:the\s+)?user(?:'s)?\b|\bhe\b|\bshe\b|\bthey\b|\bhis\b|\bher\b|\btheir\b|\bthem\b|"
    r"\bich\b|\bmein\w*\b|\bder nutzer\b|\bdie nutzerin\b|\bder benutzer\b|\byo\b|\bmi\b|\bmis\b|"
    r"\bel usuario\b|\bla usuaria\b|\btengo\b|\bestoy\b|\bsoy\b|\bsufro\b|\bpadezco\b|\btomo\b|"
    r"\bje\b|\bj'|\bmon\b|\bmes\b|\bl'utilisat(?:eur|rice)\b|\bsuis\b|\beu\b|\bmeu\b|\bminha\b|"
    r"\bo usu[aá]rio\b|\ba usu[aá]ria\b|\btenho\b|\btenemos\b|\bestamos\b|\bhemos\b|\buso\b|"
    r"\bmi pareja\b|"
    r"\bnosotros\b|\bnous\b|\bwir\b|\bestou\b|\bsou\b|\bio\b|\bmio\b|\bmia\b|"
    r"\bl'utente\b|\bsono\b|\bho\b|\bikzelf\b|\bik\b|\bmijn\b)"
)
_FRAMING = re.compile(
    r"(?i)\b(?:writ(?:e|es|ing)|wrote|reports? (?:on|about)|research\w*|stud(?:y|ies|ying)|"
    r"article|blog|"
    r"podcast|book|novel|chapter|textbook|lecture|course|class|classes|teach\w*|glossary|"
    r"dataset|datasets|statistics|survey|museum|exhibitions?|exhibits?|galler(?:y|ies)|guide|"
    r"overview|docs|documentation|thesis|paper|papers|translat\w*|project|assignment|homework|"
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
    r"(?:gave|give|gives|giving|held|hold|holds|holding) (?:a |an |the )?(?:talk|lecture)|"
    r"talks? (?:at|on)|audio ?books?|podcasts?|opera|ballet|plot|(?:the|a|this|that) plays?|"
    r"moot|guidelines|pharmacolog\w*|revis(?:ing|ion)|flash ?cards?|fixtures?|"
    r"features?|users|faq|how (?:we|to|they|you) (?:handle|deal with|approach)|"
    r"charla|ponencia|conferencia|congreso|curso|taller|pel[ií]cula|novela|libro|serie|"
    r"vortrag|kongress|konferenz|kurs|seminar|buch|roman|hörbuch|serien?|dokumentarfilm|"
    r"expos[ée]|conf[ée]rence|cours|livre|s[ée]rie|documentaire|pi[èe]ce|"
    r"convegno|corso|romanzo|libro|palestra|relat[óo]rio|livro|s[ée]rie|"
    r"lezing|cursus|boek|bericht|artikel|schulung|"
    # German compounds: Krimiserie, Fernsehfilm, Gerichtsdrama, Kriminalroman
    r"krimi\w*|\w+serien?|\w+filme?|\w+romane?|\w+dramen?|\w+drama|"
    r"business|products?|donat\w*|hr|employees|staff|colleagues?|coworkers?|helps? (?:people|users|"
    r"patients|customers|clients)|for (?:people|users))\b"
)
# Words right after a sensitive term that make it a topic, not a fact about the user.
_TOPIC_AFTER = re.compile(
    r"(?i)^[\s-]*(?:\w+[\s-]+)?(?:research|awareness|prevention|programs?|statistics|rates?|"
    r"prevalence|studies|study|charity|charities|fundraiser|fundraising|clinics?|wards?|units?|"
    r"departments?|patients|society|foundation|association|screening|campaigns?|support "
    r"groups?|market|industry|datasets?|data|software|apps?|trials?|drugs? market|"
    r"policy|policies|laws?|reform|history|epidemic|pandemic|outbreaks?|vaccines?|"
    r"specialists?|nurses?|doctors|researchers?|advocacy|rights|users|people|customers|students|"
    r"community|communities|children|kids|employees|audiences?|readers|viewers|accessibility|"
    r"pric(?:e|es|ing)|costs?|coverage|shortages?|supply|debate|guidelines|tables?|columns?|"
    r"schemas?|fixtures?|endpoints?|benefits)\b"
)
_TOPIC_AFTER_FAMILIES = frozenset({"health", "intimate", "criminal"})
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
    + r"|(?-i:\b(?!(?:The|This|That|These|Those|It|Its|There|Here|Each|Every|Such|Which|What|"
    + r"Who|One|Our|Your|Test|Model|App|Scale|Tool)\b)[A-Z][a-z]+\s+"
    + words("has had is was scored scores shows showed tested got gets seems seemed ranks ranked")
    + ")"
)
_PROFILE_VALUE = re.compile(r"^[^.;!?\n]{0,40}?[:=]|^\s*\(?\d")
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
    r"employer|students?|patients?|customers|clients|users)\b"
)
# A place the speaker belongs to, not the speaker: "our town's old jail is a hotel now";
# someone "from our town" is still a person.
_PLACE_HEAD = re.compile(
    r"(?i)^\s*(?:\w+\s+)?(?:town|city|village|neighbou?rhood|region|country|school|library)\b"
)
_QUOTED = re.compile(r"[\"“”«»][^\"“”«»]{1,200}[\"“”«»]")
# A term that starts with its owner ("my lawyer", "his parole officer") needs no subject.
_OWN_TERM = re.compile(r"(?i)(?:my|his|her|their)\s")


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


def _c(p: str) -> re.Pattern[str]:
    return re.compile(p, re.IGNORECASE)


_COND = (
    r"diabet\w*|cancer|cáncer|krebs|tumou?r|leuk(?:a)?emia|lymphoma|melanoma|hiv|aids|"
    r"hepatitis|epilep\w*|seizures?|asthma\w*|asma|asthme|diab[èe]te|cancro|tumore|depressione|"
    r"depress[ãa]o|ansiedad|ansiedade|vih|sida|aids|(?:kidney|liver|lung|heart|autoimmune|lyme|"
    r"rare|genetic|chronic|celiac|coeliac|thyroid|bowel|skin|blood|bone|neurological|"
    r"degenerative|mental|eating|personality|anxiety|panic|bipolar|mood|sleep) (?:disease|"
    r"disorder|syndrome|condition)|stage (?:\d|i{1,3}v?) (?:\w+ )?(?:cancer|disease)|copd|"
    r"arthritis|lupus|crohn'?s|colitis|celiac|"
    r"coeliac|multiple sclerosis|multipler? sklerose|scl[ée]rose en plaques|esclerosis m[uú]ltiple|"
    r"sclerosi multipla|parkinson'?s?|alzheimer'?s?|dementia|demenz|"
    # a stroke, not a brush stroke, a swimming stroke or a stroke of luck
    r"(?<!brush )(?<!pen )(?<!each )(?<!every )(?<!first )(?<!final )stroke(?! of )|"
    r"heart (?:disease|"
    r"condition|attack|failure|problems?)|hypertension|high blood pressure|thyroid\w*|"
    r"hypothyroid\w*|migraines?|endometriosis|pcos|fibromyalgia|chronic (?:pain|fatigue|illness|"
    r"disease)|long covid|tuberculosis|herpes|hpv|adhd|autis(?!t[ai]\b)\w*|"
    r"(?<!l')(?<!un )(?<!come )(?<!fa )autist[ai]\b(?! (?:di|per|del|della|"
    r"dell'|presso|del bus|dell'autobus))|asperger'?s?|dyslexi\w*|"
    r"dyspraxia|tourette'?s?|ocd|ptsd|depression|depressive|depresi[oó]n|dépression|"
    r"anxiety(?: disorder)?|panic (?:attacks?|disorder)|bipolar\w*|schizo\w*|eating disorder|"
    r"anorexi\w*|bulimi\w*|insomnia|sleep apnoea|sleep apnea|self-harm|suicid\w*|addiction|"
    r"an addict|addicted to (?:drugs|alcohol|opioids|heroin|cocaine|meth|painkillers|gambling|"
    r"pills|nicotine|opiates|crack)|(?:drug|alcohol|opioid|gambling|substance) (?:abuse|use "
    r"disorder|problem)|alcoholi\w*|"
    r"(?:is|am|been|'m|stay\w*|years?|months?|days?) sober|sobriety|rehab|deaf|deafness|"
    r"(?:is|am|'m|went|going|legally|partially|colou?r) blind(?! to)(?![-\w])|blindness|"
    r"cholesterol|"
    r"statins?|heroin|cocaine|methamphetamine|fentanyl|ketamine|mdma|ecstasy|crack cocaine|"
    r"clean (?:from|off) (?:drugs|heroin|cocaine|alcohol|opioids|meth|pills)|relapsed|"
    r"paraly[sz]ed|hospitali[sz]ed|admitted to (?:the )?hospital|emergency room|intensive care|icu|"
    r"cpap|psychotic|psychosis|manic episode|hallucinat\w*|crutches|mastectom\w*|"
    r"\w{3,}(?:ectomy|itis|aemia|emia|pathy|plegia|otomy)|"
    r"(?:cirrh|fibr|scoli|psych|neur|thromb|sten|tubercul|endometri|osteopor)osis|"
    r"hard of hearing|hearing aids?|wheelchair|paraplegic|quadriplegic|amputee|"
    r"disabilit\w*|(?:is|am|'m|registered) disabled|a disabled|impairment|brca\d?|"
    r"genetic (?:test\w*|"
    r"mutation|condition|disorder|marker|variant)|carrier of|carries the (?:\w+ )?gene|"
    r"sickle cell|cystic fibrosis|huntington'?s?|down syndrome|allerg(?:y|ies|ic to)|"
    r"anaphyla\w*|chemo\w*|radiation therapy|radiotherapy|dialysis|transplant|insulin|"
    r"inhaler|antidepressants?|ssris?|antipsychotics?|in therapy|therapy sessions?|sees? a "
    r"(?:therapist|psychiatrist|psychologist|counsel(?:l)?or)|"
    # counselling received, not counselling as a job, a course or a field of work
    r"(?<!work in )(?<!working in )(?<!career in )(?<!job in )(?<!degree in )(?<!studying )"
    r"(?<!study )counsel(?:l)?ing(?! (?:jobs?|careers?|degree|course|programm?e?s?|field|work\b|"
    r"services? (?:for|at|in)|as a (?:career|job)))|medication|meds|"
    r"prescri(?:bed|ptions?)|diagnosed(?! (?:the|a|an|why|what|how|it|this|that|bug|issue|"
    r"problem|leak|error|outage))|diagnosis|chest pains?|shortness of breath|fevers?|nausea|"
    r"dizz\w*|faint(?:ed|ing)|blood sugar|"
    r"blood pressure|a1c|viral load|concussion|fracture|injur(?:y|ies)|surgery|"
    r"hiv[- ]positive|immunocompromised|neurodivergent|coughing(?: up)? blood|feverish|"
    r"stutter\w*|stammer\w*|speech impediment|aa meetings?|alcoholics anonymous|"
    r"narcotics anonymous|na meetings?|"
    r"losing (?:his|her|their|my) (?:hearing|sight|vision|memory)|cochlear implants?|"
    r"prosthe\w*|pacemaker|stoma|colostomy|hearing loss|vision loss|"
    r"vomiting|throwing up|passing out|blacking out|short of breath|night sweats|blurred vision|"
    r"numbness|(?:having|experiencing|suffering|getting) "
    r"(?:\w+ ){0,2}(?:pains?|aches?|headaches|dizziness|seizures|panic attacks|migraines|"
    r"palpitations|bleeding|rash|lumps?)|"
    r"on the spectrum|in remission|relapse|overdose|opioids?|"
    r"erkrankt|krankheit|diagnose|enfermedad|maladie|malattia|doen[çc]a|medikament\w*|"
    r"médicament\w*|medicamento\w*|farmac\w*|behandlung|tratamiento|traitement"
)
_DRUGS = (
    r"sertraline|zoloft|fluoxetine|prozac|escitalopram|lexapro|citalopram|paroxetine|"
    r"venlafaxine|effexor|duloxetine|cymbalta|bupropion|wellbutrin|mirtazapine|lithium|"
    r"lamotrigine|lamictal|quetiapine|seroquel|olanzapine|risperidone|aripiprazole|abilify|"
    r"adderall|ritalin|methylphenidate|vyvanse|concerta|xanax|alprazolam|valium|diazepam|"
    r"lorazepam|ativan|klonopin|clonazepam|ambien|zolpidem|metformin|ozempic|semaglutide|"
    r"wegovy|mounjaro|tirzepatide|insulin|levothyroxine|synthroid|lisinopril|amlodipine|"
    r"atorvastatin|lipitor|simvastatin|metoprolol|propranolol|warfarin|eliquis|apixaban|"
    r"prednisone|methotrexate|humira|truvada|descovy|naltrexone|suboxone|buprenorphine|"
    # PrEP the medicine, not "prep" the verb ("I need to prep the notes", "meal prep")
    r"(?<!to )(?<!meal )(?<!meal-)(?<!food )(?<!'ll )(?<!will )(?<!gonna )"
    r"prep(?!\s+(?:the|a|an|for|my|"
    r"our|your|some|it|this|that|these|those|his|her|their|work|notes|slides|dinner|lunch|"
    r"lunches|meals?|food|time|school|breakfast|talk|deck|demo|everything)\b)(?![-\w])|"
    r"methadone|oxycodone|hydrocodone|tramadol|gabapentin|pregabalin|epipen|testosterone|"
    r"estradiol|estrogen|hrt|finasteride|accutane|isotretinoin|antiretrovirals?|tamoxifen|"
    r"letrozole|levetiracetam|keppra|topiramate|sumatriptan|albuterol|salbutamol|ventolin|"
    r"omeprazole|antibiotics?|amoxicillin|melatonin|cannabis oil|cbd"
)
_DOSE = r"\d+(?:[.,]\d+)?\s?(?:mg|mcg|µg|ug|ml|g|units?|iu|tablets?|pills?|puffs?|drops?)\b"

_IDENT_RELIGION = (
    r"jewish|jew|muslim|moslem|christian|catholic|protestant|evangelical|mormon|lds|hindu|"
    r"buddhist|sikh|jain|bah[aá]'?[ií]|zoroastrian|shinto|taoist|pagan|wiccan|atheist|agnostic|"
    r"orthodox (?:jew|christian)|quaker|amish|jehovah'?s witness|scientologist|baptist|methodist|"
    r"lutheran|"
    r"anglican|pentecostal|adventist|coptic|shia|shiite|sunni|druze|rastafarian|"
    r"jud[ií]o|jud[ií]a|musulm[aá]n\w*|cat[oó]lic[oa]|chr[ée]tien\w*|juif|juive|katholisch|"
    r"evangelisch|muslimisch|jüdisch|judisch"
)
_IDENT_PRACTICE = (
    r"keeps? (?:kosher|halal)|eats? (?:only )?(?:kosher|halal)|prays?(?: \w+){0,3} (?:times a day|"
    r"daily|every day)|pray(?:s|ing)? (?:at|in) (?:church|mosque|synagogue|temple)|goes to "
    r"(?:church|mass|mosque|synagogue|temple|gurdwara)|attends? (?:church|mass|mosque|synagogue|"
    r"temple|gurdwara|services)|observes? (?:ramadan|shabbat|the sabbath|lent|passover|yom kippur)|"
    r"fasts? (?:during|for) ramadan|wears? (?:a )?(?:hijab|niqab|burqa|turban|kippah|yarmulke|"
    r"headscarf)|converted to|was bapti[sz]ed|bar mitzvah|bat mitzvah|religious"
)
_IDENT_ORIENT = (
    r"gay|lesbian|bisexual|bi|queer|pansexual|asexual|homosexual|heterosexual|"
    r"straight(?! (?:to|forward|away|answers?|talk|line|up|ahead|after|into|from|out))|lgbtq?\+?|"
    r"trans|transgender|trans(?:gender)? (?:woman|man|person)|non-?binary|genderqueer|genderfluid|"
    r"agender|cisgender|intersex|two-spirit|closeted|homosexuell|schwul|lesbisch|bisexuell|"
    r"homosexuel(?:le)?|bisexuel(?:le)?|lesbienne|lesbiana|omosessuale|transg[eé]nero|"
    r"transsexuel(?:le)?"
)
_IDENT_ETHNIC = (
    r"black|african[- ]american|afro-\w+|latino|latina|latinx|latine|hispanic|"
    r"asian(?:[- ]american)?|"
    r"arab|roma|romani|indigenous|native american|first nations|aboriginal|pacific islander|"
    r"white|caucasian|biracial|mixed[- ]race|puerto rican|mexican[- ]american|kurdish|kurd|"
    r"uyghur|tamil|berber|amazigh|maori|māori|inuit|sami|igbo|yoruba|hausa|pashtun|hazara|"
    r"rohingya|tibetan|(?:arab|african|asian|mexican|chinese|korean|indian|italian|irish|"
    r"japanese|filipino|vietnamese|cuban|haitian|jewish|muslim|native|pakistani|iranian|"
    r"nigerian|somali|turkish|greek|polish|russian)-(?:american|canadian|british|australian)"
)
_IDENT_CASTE = (
    r"caste(?!s? (?:system|systems|hierarch(?:y|ies)))|brahmin|kshatriya|vaishya|shudra|dalit|obc|"
    r"scheduled caste|untouchable|jati|varna"
)
_IDENT_POLITICS = (
    r"republican|democrat|democratic party|labour|labor party|tory|tories|conservative(?: party)?|"
    r"liberal democrat|lib dem|green party|greens|socialist|communist|libertarian|marxist|"
    r"anarchist|far[- ]right|far[- ]left|left[- ]wing|right[- ]wing|maga|trump supporter|"
    r"afd|cdu|spd|fdp|die linke|reform uk|snp|ukip|ndp|bjp|congress party|pt|psoe|pp|vox|"
    r"rassemblement national|la france insoumise|fidesz|likud"
)
# "grew up in a small town by the sea" names a kind of place, not a country; the same
# place with a country after it ("a small town in Morocco") still counts.
_PLACE_KIND = (
    r" (?:a|an|the) (?:[\w'-]+ ){0,2}?(?:town|village|city|suburbs?|house|home|farm|family|"
    r"neighbou?rhood|household|flat|apartment|countryside|place)\b"
    r"(?![^.;,!?]*\b(?:in|of|near|outside) (?!the\b|a\b|an\b|my\b|our\b)\w)"
)
_IDENT_ORIGIN = (
    rf"originally from|born in(?! \d|{_PLACE_KIND})|grew up in(?!{_PLACE_KIND})|immigrated|"
    r"emigrated|immigrant|refugee|asylum|"
    r"undocumented|illegal immigrant|immigration status|visa status|green card holder|"
    r"citizenship|stateless|naturali[sz]ed|first-generation immigrant|nationality|"
    r"ethnic(?:ity|ally)|of \w+ descent"
)
_DEMONYMS = (
    r"american|canadian|mexican|brazilian|argentinian|argentine|chilean|colombian|peruvian|"
    r"venezuelan|cuban|haitian|jamaican|dominican|puerto rican|british|english|scottish|welsh|"
    r"irish|french|german|italian|spanish|portuguese|dutch|belgian|swiss|austrian|swedish|"
    r"norwegian|danish|finnish|icelandic|polish|czech|slovak|hungarian|romanian|bulgarian|"
    r"serbian|croatian|bosnian|albanian|greek|turkish|kurdish|armenian|georgian|ukrainian|"
    r"russian|belarusian|lithuanian|latvian|estonian|israeli|palestinian|lebanese|syrian|"
    r"iraqi|iranian|persian|afghan|pakistani|indian|bangladeshi|sri lankan|nepali|chinese|"
    r"taiwanese|japanese|korean|vietnamese|thai|filipino|filipina|indonesian|malaysian|"
    r"singaporean|australian|egyptian|moroccan|algerian|tunisian|libyan|nigerian|ghanaian|"
    r"kenyan|ethiopian|eritrean|somali|sudanese|south african|congolese|senegalese|"
    r"cameroonian|ugandan|tanzanian|zimbabwean|saudi|emirati|yemeni|jordanian|qatari"
)
_COPULA = _c(
    r"^\s*(?:(?:is|am|'m|are|was|were|'s|identif(?:y|ies) as|self-identif(?:y|ies) as|"
    r"belongs? to|came out as|comes out as|considers? (?:myself|himself|herself|themselves)|"
    r"a|an|the|proud|openly|practicing|practising|devout|observant|registered|lifelong|"
    r"card-carrying|"
    r"strict|born-again|born again|born|raised|member of|half|part|mixed|also|now|really|actually|"
    r"very|quite|"
    r"fully|out as|"
    r"community|family|of|from|and|ist|bin|soy|es|est|suis|sono|sou|é)\s*)*$"
)
_POLITICAL_VERB = _c(
    r"^[^.;]*?\b(?:votes?|voted|voting|supports?|supported|donates?|donated|campaign\w*|"
    r"canvass\w*|member|joined|belongs?|thinks?|believes?|hates?|despises?|opposes?|distrusts?|"
    r"backs?|registered|identifies|is|am|'m|are|was|a|an|lifelong|staunch|die-hard)\b"
)

_INTIMATE = (
    r"divorc\w*|cheated|leav(?:e|es|ing) (?:her|his|their|my) (?:husband|wife|partner|spouse)|"
    r"separat(?:ed|ing|ion) from (?:my|his|her|their) (?:wife|husband|partner|spouse)|"
    r"infidelity|unfaithful|cheat(?:ed|ing|s) on|affair|"
    r"open relationship|polyamor\w*|swing(?:er|ing)|marital (?:problems|issues|troubles)|marriage "
    r"(?:problems|issues|counsel\w*|troubles)|couples? (?:therapy|counsel\w*)|separate (?:rooms|"
    r"beds|bedrooms)|sex life|sexual\w*|sex\b|one[- ]night stands?|hook(?:ing|s)? ?up|hookups?|"
    r"stis?|stds?|sexually transmitted|bdsm|kink\w*|fetish\w*|grindr|tinder|bumble|hinge|"
    r"feeld|onlyfans|porn\w*|erectile|libido|impoten\w*|ivf|in vitro|trying to conceive|"
    r"\bttc\b|ovulat\w*|fertility|embryos?|iui|insemination|donor sperm|partners? in bed|"
    r"in bed with|"
    r"good in bed|in the bedroom with|submissive (?:partners?|role)|dominant partners?|"
    r"turn[- ]ons?|sexually (?:active|transmitted)|egg donor|escorts?|sex workers?|"
    r"prostitut\w*|"
    r"brothel|strip club|fiv|pma|relation libre|relaci[oó]n abierta|relazione aperta|"
    r"offene beziehung|relacionamento aberto|embarazo|aborto|infidelidad|infid[eé]lit[eé]|"
    r"egg freezing|frozen eggs|sperm (?:donor|count)|pregnan\w*|"
    r"expecting a baby|weeks along|miscarr\w*|abortion|contracepti\w*|birth control|the pill|"
    r"\biud\b|condoms?|vasectomy|tubal ligation|morning[- ]after pill|surrogate|surrogacy|"
    r"menstrua\w*|period tracking|mistress|girlfriend on the side|dating (?:two|several|"
    r"multiple)|sleeping with|slept with|schwanger|embarazad\w*|enceinte|incinta|gr[aá]vida"
)
_CRIMINAL = (
    # a conviction in court, not an argument made "with conviction"
    r"arrest\w*|convict(?!ions?\b)\w*|(?<!with )(?<!real )(?<!great )(?<!such )(?<!deep )"
    r"(?<!strong )(?<!firm )(?<!moral )(?<!political )(?<!religious )(?<!personal )"
    r"convictions?(?! (?:that|about))|charged with|"
    r"(?:assault|criminal|drug|dui|dwi|fraud|theft|murder|"
    r"felony|misdemeanou?r|possession|battery|harassment|stalking) charges?|charges (?:were|are|"
    r"against|dropped)|pressed charges|indict\w*|sentenced|served \d+ (?:months|years|"
    r"days) (?:in (?:jail|prison)|for|behind bars)|"
    r"in jail|to jail|in prison|to prison|(?:time|months|years) (?:in|behind) (?:jail|prison|"
    r"bars)|incarcerat\w*|"
    # probation as a sentence, not a trial period at work, nor a job ("probation officer")
    r"probation(?! (?:period|periods|officers?|service|services|department|office|team|staff|"
    r"review|year|term|clause|rules|ends|is over))(?! with (?:the|our|a|an|this|that|their|my) )|"
    r"parole(?! with (?:the|our|a|an|this|that|their|my) )|criminal record|juvenile record|"
    r"a record for|"
    r"(?:my|his|her|their) record for|police caution|cautioned by|dui|dwi|drunk driving|felony|"
    r"felon|"
    r"misdemeanou?r|restraining order|protective order|no-contact order|under investigation|"
    r"being investigated|investigated (?:for|by)|court date|court case|on trial|stand(?:s|ing)? "
    r"trial|trial date|lawsuit|being sued|sued (?:by|for)|suing|defendant|plaintiff|custody "
    r"(?:case|battle|hearing|dispute|fight)|pending case|case is pending|legal (?:case|battle|"
    r"dispute|proceedings)|tribunal|plea(?:ded)? (?:guilty|deal)|(?:on|out on|posted|made) bail|"
    r"arrest warrant|bench warrant|(?:criminal|driving|drug|sexual|motoring|traffic) offen[cs]e|"
    r"shoplift\w*|burglary|robbery|embezzle\w*|deport\w*|bankruptcy|evict\w*|"
    r"jailed|imprisoned|locked up|in custody|detained by (?:the )?(?:police|officers|immigration|"
    r"border|customs)|detained at the border|detained for questioning|held by police|questioned "
    r"by police|small[- ]claims|in litigation|litigation (?:with|against)|(?:lawsuit|suit|legal "
    r"case|court case|complaint|claim) against|case against (?:me|him|her|them|my|his|their|the "
    r"user)|police (?:warning|record)|for trespassing|(?:jail|police|prison|holding) cell|"
    r"in a cell|behind bars|"
    r"juvenile (?:detention|hall|court)|detention cent(?:er|re)|tax evasion|bar fight|brawl|"
    r"awaiting (?:sentencing|trial)|sentencing|"
    r"facing (?:criminal )?charges|charges for|"
    r"hit[- ]and[- ]run|(?:my|his|her|their) (?:lawyer|attorney|solicitor|probation officer|"
    r"parole officer|public defender)|"
    # a lawyer in other languages, but not as a job: "mi tío es abogado", "ist Anwalt"
    r"(?<!es )(?<!ist )(?<!est )(?<!é )(?<!è )(?<!als )(?<!como )(?<!comme )(?<!come )"
    r"(?<!es una )(?<!es un )(?<!ist eine )(?<!ist ein )(?<!est une )(?<!est un )(?<!é uma )"
    r"(?<!é um )(?<!è un )(?<!è una )(?<!fa l')(?<!faccio l')(?<!sono )(?<!soy )"
    r"(?<!sou )(?<!bin )(?<!suis )(?:abogad[oa]|avocat(?:e)?|anwalt|anwältin|avvocat[oa]|"
    r"advogad[oa])|"
    r"(?<!a mi )(?<!a su )(?<!a tu )(?<!a nuestro )juicio|"
    r"proc[èe]s|strafprozess|prozess gegen|processo penal|antecedentes penales|"
    r"casier judiciaire|vorstrafen|"
    r"precedenti penali|antecedentes criminais|"
    r"encarcelad\w*|cárcel|carcel|prisi[oó]n|gef[äa]ngnis|prigione|accused of|(?:pending|upcoming|"
    r"criminal|fraud|murder) trial|trial for (?:tax |wire |insurance )?(?:fraud|theft|murder|"
    r"assault|burglary|robbery)|filed (?:a |an )?"
    r"(?:\w+ )?(?:complaint|lawsuit|claim|suit) against|verhaftet|vorbestraft|detenido|"
    r"condenad\w*|arr[êe]t[ée]|condamn[ée]|(?:foi|fui|está|esta|estou|ficou|esteve|estava|"
    r"ser|foram|estão|estuvo|estaba|fue|quedó|sigue|salió) pres[oa]s?|arrestat\w*"
)
_EMOTION = (
    r"anxious|anxiety|stressed|burn(?:ed|t)[- ]out|burnout|sad|unhappy|depressed|lonely|"
    r"isolated|angry|irritable|irritated|frustrated|upset|defensive|insecure|introvert\w*|"
    r"extravert\w*|extrovert\w*|impulsive|emotional\w*|moody|paranoid|jealous|neurotic\w*|"
    r"manipul\w*|gullible|naive|vulnerable|desperate|fragile|unstable|overwhelmed|nervous|"
    r"fearful|hostile|aggressive|passive[- ]aggressive|narcissis\w*|lazy|unmotivated|"
    r"disorganized|financially struggling|struggling financially|in debt|broke|suicidal|"
    r"self-conscious|people[- ]pleaser|"
    r"easily (?:influenced|persuaded|manipulated)|susceptible|needy|clingy|agreeable|"
    r"conscientious\w*|closed-minded|open-minded|low self-esteem|self-esteem|confidence issues|"
    r"mood swings|emotionally \w+|mentally (?:unstable|ill|fragile|exhausted)|tired all the time|"
    r"disengaged|bitter|resentful|hopeless|furious|close to burnout|going through a (?:breakup|"
    r"divorce|hard time|rough patch|difficult time|crisis)|low mood|in a (?:bad|dark) place|"
    r"emotionally unstable|grieving|heartbroken|(?:midlife|identity|mental) crisis|"
    r"nervous breakdown|breakdown|meltdown"
)
_INFER = (
    r"seems?|seemed|appears?|appeared|sounds?|sounded|looks?|looked|comes across as|came "
    r"across as|might be|may be|could be|must be|is probably|was probably|is likely|probably|"
    r"likely|apparently|presumably|gets|got|becomes|became|tends? to (?:be|get)|is (?:often|"
    r"always|usually|easily)|was (?:often|always|visibly)|has been (?:feeling|seeming)|"
    r"felt|feels|is|was|were|are"
)


FAMILY_RULES: tuple[_FamilyRule, ...] = (
    # ---- health (contract 4.2)
    _FamilyRule(
        "health.self_medical",
        "health",
        "medical_condition",
        _c(
            words(POSSESSIVES) + r"\s+"
            r"(?:(?!(?:dog|cat|pet|horse|car|laptop|phone|app|company|team|client|customer|"
            r"product|code|server|website|startup|business|project|parrot|rabbit|bird)\b)\w+\s+)"
            r"{0,2}?(?:" + _COND + "|" + _DRUGS + r"|doctor|gp|oncologist|cardiologist|"
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
    _FamilyRule(
        "health.attributed_condition",
        "health",
        "medical_condition",
        _c(r"\b(?:" + _COND + r")\b(?!-free|-friendly| free\b)"),
        "a diagnosis, condition, treatment or symptom attributed to the user",
    ),
    _FamilyRule(
        "health.medication_dose",
        "health",
        "medication",
        _c(r"\b(?:" + _DRUGS + r")\b[^.;\n]{0,30}?" + _DOSE),
        "a medication with its dose",
        self_attributing=True,
    ),
    _FamilyRule(
        "health.dose_medication",
        "health",
        "medication",
        _c(_DOSE + r"[^.;\n]{0,20}?\b(?:" + _DRUGS + r")\b"),
        "a medication with its dose",
        self_attributing=True,
    ),
    _FamilyRule(
        "health.attributed_medication",
        "health",
        "medication",
        _c(r"\b(?:" + _DRUGS + r")\b"),
        "a medication attributed to the user",
    ),
    # ---- identity traits (contract 4.1)
    _FamilyRule(
        "identity.religion",
        "identity_trait",
        "religion",
        _c(r"\b(?:" + _IDENT_RELIGION + r")\b"),
        "the user's religion",
        between=_COPULA,
    ),
    _FamilyRule(
        "identity.religious_practice",
        "identity_trait",
        "religion",
        _c(r"\b(?:" + _IDENT_PRACTICE + r")\b"),
        "the user's religious practice",
    ),
    _FamilyRule(
        "identity.orientation_gender",
        "identity_trait",
        "sexual_orientation",
        _c(
            r"\b(?:"
            + _IDENT_ORIENT
            + r")\b(?![-\w]| (?:friendly|rights|pride month|flag|line|forward|people|community))"
        ),
        "the user's sexual orientation or gender identity",
        between=_COPULA,
    ),
    _FamilyRule(
        "identity.ethnicity",
        "identity_trait",
        "race_ethnicity",
        _c(
            r"\b(?:"
            + _IDENT_ETHNIC
            + r")\b(?![-\w]| (?:mode|theme|background|box|list|hat|paper|board|space|label|glove|"
            r"belt|hole|out|friday|market|coffee|tea|screen|text|font|wine|paint|noise))"
        ),
        "the user's race or ethnicity",
        between=_COPULA,
        window=40,
    ),
    _FamilyRule(
        "identity.caste",
        "identity_trait",
        "caste",
        _c(r"\b(?:" + _IDENT_CASTE + r")\b"),
        "the user's caste",
        window=90,
    ),
    _FamilyRule(
        "identity.self_identifies",
        "identity_trait",
        "identity",
        _c(
            r"\b(?:identif(?:y|ies) as(?! an? (?:\w+ )?(?:developer|engineer|designer|manager|"
            r"lead|writer|"
            r"generalist|specialist|maker|learner|fan|person|user|builder|founder|leader))|"
            r"self-identif(?:y|ies) as|came out as|comes out as|"
            r"out to (?:his|her|their|my) (?:team|family|parents|colleagues|friends))\b"
        ),
        "a self-identification of the user",
        self_attributing=True,
    ),
    _FamilyRule(
        "identity.politics",
        "identity_trait",
        "political_opinion",
        _c(r"\b(?:" + _IDENT_POLITICS + r")\b"),
        "the user's political opinion or affiliation",
        between=_POLITICAL_VERB,
    ),
    _FamilyRule(
        "identity.political_opinion",
        "identity_trait",
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
    _FamilyRule(
        "identity.voting",
        "identity_trait",
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
    _FamilyRule(
        "identity.nationality",
        "identity_trait",
        "national_origin",
        _c(
            r"\b(?:half[- ]|part[- ])?(?:" + _DEMONYMS + r")\b(?=\s*(?:[.,;!]|$|and\b|by birth|"
            r"origin|descent|heritage|citizens?|nationals?|immigrants?|roots))"
        ),
        "the user's nationality or ethnic origin",
        between=_COPULA,
        window=40,
    ),
    _FamilyRule(
        "identity.origin",
        "identity_trait",
        "national_origin",
        _c(r"\b(?:" + _IDENT_ORIGIN + r")\b"),
        "the user's national origin or immigration status",
        window=40,
    ),
    _FamilyRule(
        "identity.union",
        "identity_trait",
        "union_membership",
        _c(
            r"\b(?:union (?:member|membership|rep(?:resentative)?|steward|dues|card)|shop steward|"
            r"(?:member of|belongs? to|joined|part of) (?:the |a )?(?:[\w\-']+ ){0,3}(?:union|"
            r"syndicate|actors guild|writers guild)|trade union|labou?r union|"
            r"unioni[sz]ed|organi[sz]ing (?:a |the )?union|teamsters|gewerkschaft\w*|sindicato|"
            r"syndicat)\b"
        ),
        "the user's union membership",
    ),
    # ---- intimate life (contract 4.3)
    _FamilyRule(
        "intimate.attributed",
        "intimate",
        "intimate_life",
        _c(r"\b(?:" + _INTIMATE + r")\b"),
        "the user's intimate life, sexuality or family planning",
        window=90,
    ),
    # ---- criminal / legal (contract 4.4)
    _FamilyRule(
        "criminal.attributed",
        "criminal",
        "criminal_legal",
        _c(r"\b(?:" + _CRIMINAL + r")\b"),
        "the user's criminal history or a pending legal matter",
        window=90,
    ),
    # ---- inferred profiling (contract 4.8)
    _FamilyRule(
        "profiling.profile_record",
        "inferred_profiling",
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
    _FamilyRule(
        "profiling.inferred_trait",
        "inferred_profiling",
        "inferred_trait",
        _c(r"\b(?:" + _EMOTION + r")\b"),
        "an inferred emotional state or personality trait of the user",
        window=60,
        between=_c(
            r"^\s*(?:\w+\s+){0,3}?(?:" + _INFER + r")\b(?:\s+\w+){0,3}?\s*(?:and\s+)?(?:\w+\s+)?$"
        ),
    ),
    _FamilyRule(
        "profiling.behaviour_prediction",
        "inferred_profiling",
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

#: which rules' terms may occur in a view, for all rules at once (base.PatternIndex)
_TERMS = PatternIndex(r.term for r in FAMILY_RULES)

_THIRD_PERSON = _c(r"\b(?:the\s+)?user(?:'s)?\b|\bhe\b|\bshe\b|\bthey\b|\bthem\b|\bhis\b|\bher\b")
_FIRST_PERSON_ONLY = {"inferred_profiling"}


def _quoted(text: str, start: int, end: int) -> bool:
    return any(q.start() < start and end < q.end() for q in _QUOTED.finditer(text))


def _match_rule(rule: _FamilyRule, view: View, lower: str) -> Hit | None:
    if not may_match(rule.term, lower):
        return None
    text = view.text
    for m in rule.term.finditer(text):
        if _quoted(text, m.start(), m.end()):
            continue
        clause = clause_of(text, m.start(), m.end())
        c_start = text.find(clause, max(0, m.start() - len(clause)))
        left = text[c_start : m.start()] if c_start >= 0 else text[: m.start()]
        right = text[m.end() : m.end() + 40]
        if rule.family in _TOPIC_AFTER_FAMILIES and _TOPIC_AFTER.match(right):
            continue  # "cancer research", "diabetes prevention programs": a topic
        if rule.family == "inferred_profiling" and (
            _PROFILE_TOPIC_AFTER.match(right)
            or (
                rule.self_attributing
                and _PROFILE_FRAMING.search(clause)
                and not _PROFILE_OWNER.search(clause.replace(m.group(), " "))
                and not _PROFILE_VALUE.match(right)
            )
        ):
            continue  # "the MBTI workshop", "a Big Five quiz": the instrument, not a person
        if rule.self_attributing:
            if not rule.strong and _FRAMING.search(left[-80:] + m.group()):
                continue
            return _hit(rule, view, m)
        window = left[-rule.window :]
        subjects = list(_SUBJ.finditer(window))
        if not subjects and _OWN_TERM.match(m.group()) and not _FRAMING.search(left):
            return _hit(rule, view, m)  # the term names its owner: "my probation officer"
        if not subjects:
            tail = (
                clause[clause.find(m.group()) + len(m.group()) :][:50]
                if m.group() in clause
                else ""
            )
            if (
                rule.between is None
                and rule.family not in _FIRST_PERSON_ONLY
                and _OBJECT_USER.search(tail)
                and not _FRAMING.search(left)
            ):
                return _hit(rule, view, m)  # "a restraining order against me"
            continue
        subjects = [s for s in subjects if not _DEFINITION_SUBJECT.search(window[: s.end()])]
        if not subjects:
            continue
        subj = subjects[-1]
        if rule.family in _FIRST_PERSON_ONLY and not _THIRD_PERSON.match(subj.group()):
            # Inferences are made about someone else: "user seems anxious", not "I feel calm".
            continue
        between = window[subj.end() :]
        before_subject = left[: len(left) - len(window) + subj.start()]
        if rule.family in _FIRST_PERSON_ONLY:
            before_subject = ""  # "based on their writing, user is …" is still an inference
        if not rule.strong and (_FRAMING.search(between) or _FRAMING.search(before_subject)):
            continue
        if (
            _FIELD_NOUN.match(m.group())
            and _FIELD_HANDLING.search(between)
            and not _PROFILE_VALUE.match(right)
        ):
            continue  # "we don't collect ethnicity": a form field, not the user's origin
        if _PLACE_HEAD.match(between) and not window[: subj.start()].rstrip().endswith("from"):
            continue
        if _NON_USER_HEAD.match(between):
            continue  # "user's dog had surgery": about someone or something else
        # The shape may hold from an earlier subject too ("User and husband ... sleep").
        if rule.between is not None and not any(
            rule.between.match(window[s.end() :]) for s in subjects
        ):
            continue
        return _hit(rule, view, m)
    return None


def _hit(rule: _FamilyRule, view: View, m: re.Match[str]) -> Hit:
    return Hit(
        detector=rule.name,
        family=rule.family,
        label=rule.label,
        view=view,
        start=m.start(),
        end=m.end(),
        reason=rule.reason,
    )


def detect(doc: NormalizedText) -> list[Hit]:
    """Topical findings: at most one per family."""
    hits: list[Hit] = []
    done: set[str] = set()
    views = [(v, v.lower) for v in doc.views() if v.name in ("clean", "numeric", "collapsed")]
    maybe = [_TERMS.candidates(lower) for _view, lower in views]
    for i in sorted(frozenset().union(*maybe)):
        rule = FAMILY_RULES[i]
        if rule.family in done:
            continue
        for (view, lower), may in zip(views, maybe, strict=True):
            if i not in may:  # the rule's term cannot occur in this view
                continue
            hit = _match_rule(rule, view, lower)
            if hit is not None:
                hits.append(hit)
                done.add(rule.family)
                break
    return hits
