"""Slots that are forbidden whatever their value (memory contract §4).

"My religion is Buddhism", "my blood type is O+", "my PIN is 4412": the
extractor knows which *slot* a statement fills, and some slots name a
forbidden category outright — the value does not matter. The policy gate
judges the words; this judges the structure the extractor found, so a
statement whose wording the gate's detectors do not recognise is still never
turned into an innocent-looking candidate. The capture pipeline refuses a
candidate marked here with FORBIDDEN_CATEGORY (detector
``extract.sensitive_slot``), like a gate refusal.

Only the slot noun phrase is read (the ``X`` of "my X is …"), never free text,
so "my favourite editor" or "my email address" stay ordinary slots.

>>> sensitive_slot("religion"), sensitive_slot("password for the VPN")
('identity_trait', 'credentials')
>>> sensitive_slot("favourite editor") is None, sensitive_slot("email address") is None
(True, True)
"""

from __future__ import annotations

import re

__all__ = ["SENSITIVE_SLOTS", "sensitive_slot", "sensitive_words"]

#: Forbidden family → slot nouns (whole words, case-insensitive), from contract §4.
SENSITIVE_SLOTS: dict[str, str] = {
    "identity_trait": (
        r"religion|religious \w+|faith|denomination|church|mosque|synagogue|caste|ethnicity"
        r"|ethnic \w+|racial \w+|national origin|sexual orientation|sexuality|gender identity"
        r"|gender|political \w+|politics|party affiliation|voting \w+"
        r"|union membership|trade union"
    ),
    "health": (
        r"diagnosis|diagnoses|illness|disease|disorder|medical \w+|health \w+|medications?|meds"
        r"|prescriptions?|dosage|dose|treatment|therapy|therapist|psychiatrist|blood type"
        r"|blood group|blood pressure|blood sugar|allerg(?:y|ies)|disability|disabilities"
        r"|symptoms?|pregnancy|insulin|cholesterol|bmi|mental health"
    ),
    "criminal": r"criminal \w+|conviction|convictions|arrest record|parole|probation",
    "credentials": (
        r"password|passphrase|passcode|pin|pin code|security question|security answer"
        r"|api key|secret key|secret|access token|token|private key|login|credentials"
        # a code that opens something ("my locker code is 5530"): review S13-R10
        r"|(?:locker|door|gate|alarm|safe|access|entry|security|lock|garage|keypad|building"
        r"|padlock|bike lock|wifi|wi-fi|unlock) (?:code|combination)|combination"
    ),
    "gov_id": (
        r"ssn|social security(?: number)?|passport(?: number)?|driver'?s? licen[cs]e(?: number)?"
        r"|national id(?: number)?|id number|tax id|tax number|national insurance(?: number)?"
    ),
    "financial": (
        r"(?:credit|debit|bank) card(?: number)?|card number|account number|bank account"
        r"|iban|routing number|sort code|cvv|cvc"
    ),
    "biometric": r"fingerprints?|face id|voiceprint|retina scan|iris scan",
    "location": r"(?<!email )(?<!e-mail )(?<!ip )(?<!web )address|home address|gps \w+",
}

_PATTERNS = tuple(
    (family, re.compile(rf"\b(?:{words})\b", re.IGNORECASE))
    for family, words in SENSITIVE_SLOTS.items()
)


def sensitive_slot(slot: str) -> str | None:
    """The forbidden family a slot noun phrase names, or None for an ordinary slot."""
    phrase = " ".join(slot.replace("_", " ").replace(".", " ").split())
    for family, pattern in _PATTERNS:
        if pattern.search(phrase):
            return family
    return None


#: Words that, anywhere in a clause no rule understood, name a forbidden family
#: (the slot nouns plus the commonest ways of saying it without a slot).
# Credentials, ids, money and places are named by benign clauses all the time
# ("rotate the api tokens", "renew my passport", "pay the card bill"); their values
# are the gate's detectors' business. Only families whose mere mention is personal
# are read in free text.
_MEDICAL = (
    r"(?:medical|health) (?:conditions?|issues?|problems?|history|records?|scare|status|leave"
    r"|reasons?|procedures?|appointments?|treatments?|emergency|emergencies|test results?)"
)
_POLITICAL = (
    r"political (?:views?|opinions?|beliefs?|leanings?|party|parties|affiliations?|stance"
    r"|persuasion|orientation|activis[mt]s?|asylum|refugees?|prisoners?|membership)"
)
_FREE_WORDS: dict[str, str] = {
    "biometric": SENSITIVE_SLOTS["biometric"],
    # "health insurance", "medical devices", "political cartoons" are what people work on:
    # in free text only the personal phrases ("a health condition", "my medical leave")
    "health": SENSITIVE_SLOTS["health"].replace(r"medical \w+|health \w+", _MEDICAL)
    + r"|diagnosed|prescribed|surgery|chemo\w*|antidepressants?|anxiety|depression|adhd|autis\w*"
    r"|bipolar|diabet\w*|cancer|hiv|pregnant|miscarriage|ivf|rehab|sober|relapse",
    "criminal": SENSITIVE_SLOTS["criminal"]
    + r"|arrested|convicted|jail|prison|court case|lawsuit|probation officer|dui"
    # how criminal matters are told as news ("my landlord is on trial for fraud"): the
    # proceedings and the person-level offences, not the tooling words ("fraud model")
    r"|prosecuted|prosecution|indicted|charged with|pleaded guilty|pled guilty|plea deal"
    r"|on trial|stood trial|sentenced|felony|misdemeanou?r|(?:out )?on bail|behind bars"
    r"|criminal record|police custody|tax evasion|embezzl\w*|shoplift\w*|money laundering",
    "identity_trait": SENSITIVE_SLOTS["identity_trait"].replace(r"political \w+", _POLITICAL)
    + r"|gay|lesbian|bisexual|transgender|queer|atheist|muslim|jewish|christian|catholic"
    r"|hindu|buddhist",
    # A partner named by gender says whom the speaker loves (contract §4.1, §4.3):
    # "my husband", "her girlfriend" are refused, "my partner" is not.
    # "sex" and its forms, never "sexta" (Portuguese Friday) or "sextet"
    "intimate": r"boyfriend|girlfriend|husband|wife|fianc[eé]e?|dating|divorc\w*|breakup"
    r"|broke up|affair|sex|sexes|sexual\w*|sexting|sexy|sex life|one night stand",
    # A dwelling *at* somewhere is an address, not a city (contract §4.5):
    # "I live in Porto" is a coarse place, "my flat is at 12 …" a precise one.
    "location": r"(?:(?:i|we)\s+live|living|(?:flat|apartment|apt|house|home|place)\s+is)"
    r"\s+(?:at|on)\s+(?:no\.?\s*)?\d[\w/-]*\b"
    r"|(?:(?:i|we)\s+live|(?:flat|apartment|apt|house|home|place)\s+is)\s+at",
}
#: The same families in the other languages the clause reader reads (es, fr, de,
#: pt, it, nl, pl, tr, ru): stems, matched at a word start. A clause in another
#: language is kept word for word, so its words are all there is to check.
_FREE_WORDS_OTHER: dict[str, str] = {
    "health": (
        r"diagnostiqu\w*|diagnosticad\w*|diagnosticat\w*|diagnóstic\w*|diagnosi\b|diagnoz\w*"
        r"|diagnostiziert|depresi\w*|depress\w*|ansiedad|ansiet\w*|anxi[eé]t\w*"
        r"|angststörung\w*|c[aá]ncer\w*|cancro|krebs\w*|tumou?r\w*|diabet\w*|cukrzyc\w*"
        r"|medicament\w*|médicament\w*|medikament\w*|antidepress\w*|terapi\w*|th[eé]rapi\w*"
        r"|psychiat\w*|psiquiatr\w*|psicólog[oa]|psicologo|psycholog(?:ue|in|e)\b|psikolog\w*"
        r"|embaraz\w*|enceinte"
        r"|schwanger\w*|gr[aá]vida|incinta|zwanger|w ciąży|hamile|беремен\w*|депресс\w*|рак\b"
        r"|диагноз\w*|лекарств\w*|таблетк\w*|психиатр\w*|терапи\w*|тревожн\w*|диабет\w*"
        r"|krankheit\w*|enfermedad\w*|maladie\w*|doen[cç]a\w*|malattia\w*|ziekte\w*|choroba\w*"
        r"|hastalı\w*|болезн\w*|hiv\b|vih\b|sida\b|tdah|adhs|autis\w*|autyz\w*|bipolar\w*"
        r"|ilaç\w*|tedavi\w*|teşhis\w*|kanser\w*|depresyon\w*|leczen\w*|lek[ió]w|leki\b"
        r"|chemio\w*|quimio\w*|chimio\w*|fehlgeburt|aborto\w*|avortement|poronien\w*|выкидыш"
        r"|rehabilit\w*|süchtig\w*|adicci\w*|uzależn\w*|зависимост\w*|bağımlı\w*"
        r"|erkrank\w*|enferm[oa]s?\b|malade\w*|doente\w*|malat[oa]\b|ziek\b|chor[ya]\b|hastay\w*|hastaland\w*"
        r"|болен|больна|gürtelrose|grippe|gripe|influenza|covid|corona\b|migr[äa]ne\w*|migra\w*ña"
        r"|ångest\w*|medicin(?:er|en)?\b|mediciner\w*|läkemedel\w*"
        r"|lægemiddel\w*|legemiddel\w*|sjukdom\w*|sygdom\w*|sykdom\w*|gravid\w*|missfall"
        r"|cancer\w*|kræft|kreft|diabetes|terapeut\w*|psykiater\w*|psykolog\w*|sjukskriv\w*"
        r"|sygemeld\w*|sykemeld\w*|insulin\w*|bimari\w*|dawai|dawaai|davai"
    ),
    "criminal": (
        r"deteni\w*|détenu\w*|arrest\w*|verhaft\w*|festgenommen|prisi[oó]n|c[aá]rcel|prison\w*"
        r"|gef[aä]ngnis\w*|carcere|cadeia|gevangenis|więzie\w*|hapis\w*|тюрьм\w*|арест\w*"
        r"|condenad\w*|condamn\w*|verurteil\w*|vorstraf\w*|antecedentes penales"
        r"|casier judiciaire|skazan\w*|mahkum\w*|судим\w*|tutuklan\w*|aresztowan\w*"
        r"|tribunal\w*|procès|juicio penal|vol à l[' ]étalage|ladendiebstahl|diebstahl\w*|robo\b"
        r"|hurto\b|furto\b|kradzież\w*|hırsızlık\w*|краж\w*|angeklagt\w*|acusad[oa]s?|accusé\w*"
        r"|processo penale|rechtszaak|polic[eí]a me|gericht\w*|mahkeme\w*|суд\b|судом|sąd\w*"
        r"|fängelse\w*|fængsel\w*|fengsel\w*|gripen|anholdt|arrester\w*|dömd|dømt|straffeattest"
        r"|belastningsregister\w*|rättegång\w*|retssag\w*|jail mein|giraftar\w*|arrest hua|pulis ne"
    ),
    "identity_trait": (
        r"religi\w*|gay\b|lesbi\w*|bisex\w*|transg[eé]n\w*|transsex\w*|trans\b(?!\.\w)|queer|homosex\w*"
        r"|ateo|atea|athée|atheist\w*|ateist\w*|musulm\w*|muslim\w*|moslim\w*|müslüman\w*"
        r"|мусульман\w*|jud[ií]o\w*|jud[ií]a\w*|juif|juive|jüdisch\w*|ebre[oa]\b|joods|żyd\w*"
        r"|yahudi\w*|еврей\w*|cat[oó]lic\w*|katholi\w*|cattolic\w*|katoli\w*|католи\w*"
        r"|chr[eé]tien\w*|christ(?:in|lich)\w*|hind[uú]\w*|budist\w*|bouddhist\w*|buddhist\w*"
        r"|буддист\w*|православ\w*|partido pol[ií]tico|parti politique|sindicat\w*|syndicat\w*"
        r"|gewerkschaft\w*|vakbond|związk\w* zawodow\w*|sendika\w*|профсоюз\w*|etni\w*|ethni\w*"
        r"|этни\w*|orientaci[oó]n sexual|orientation sexuelle|sexuelle orientierung"
        r"|orienta[cç][aã]o sexual|orientamento sessuale|гей\b|лесби\w*"
        r"|homosexuell\w*|homoseksuel\w*|bög|bøsse|lesbisk\w*|ateist\w*|muslim\w*|jødisk|judisk"
        r"|katolsk\w*|fackförbund\w*|fagforening\w*|politisk\w* parti|dharm\w*|jaati"
    ),
    "intimate": (
        r"(?:mi|su|tu|mis|sus) novi[oa]s?|marido|esposa|(?:mi|su|tu) espos[oa]|petit ami"
        r"|petite amie|(?:mon|ma|son|sa|ton|ta) (?:copain|copine|mari|femme)\b"
        r"|(?:mein|meine|meinem|meiner|sein|seine|seinem|seiner|ihr|ihre|ihrem|ihrer|dein|deine)"
        r" (?:freund|freundin)\b|ehemann|ehefrau|namorad[oa]|fidanzat[oa]"
        r"|(?:mio|mia|suo|sua|tuo|tua) (?:ragazz[oa])\b|moglie|marito"
        r"|(?:mijn|zijn|haar|je) (?:vriend|vriendin)\b|echtgeno\w*"
        r"|m(?:ój|ojego|oim) chłopa\w*|mo(?:ja|jej|ją) dziewczyn\w*|mąż|męża|mężem|żona|żony"
        r"|erkek arkadaş\w*|kız arkadaş\w*|kocam\w*|karım\w*|(?:мой|моего|моим|с) парн\w*"
        r"|мо(?:я|ей|ю) девушк\w*|муж\b|мужем|жена\b|женой|divorc\w*|divórcio|scheidung|geschieden"
        r"|rozw[oó]d\w*|boşan\w*|развод\w*|sexo|sexe|sesso|seks\w*|sexual\w*|sexuel\w*|секс\w*"
        r"|(?:min|mitt|mina|hans|hennes|din) (?:pojkvän|flickvän|fru|man|make)\b"
        r"|(?:min|mit|mine|hans|hendes|din) (?:kæreste|kone|mand|kjæreste)\b|skilsmässa|skilsmisse"
        r"|girlfriend ke saath|boyfriend ke saath|biwi|pati\b|patni"
    ),
    "biometric": (
        r"huella\w* dactilar\w*|empreinte\w* digitale\w*|fingerabdr[uü]ck\w*|impress[aã]o digital"
        r"|impronta digitale|vingerafdruk\w*|odcisk\w* palc\w*|parmak iz\w*|отпечат\w* пальц\w*"
        r"|reconocimiento facial|reconnaissance faciale|gesichtserkennung|biometr\w*|биометр\w*"
    ),
}
#: Written without spaces between words: matched anywhere in the clause.
_FREE_WORDS_CJK: dict[str, str] = {
    "health": r"抑郁|焦虑|癌|糖尿病|诊断|吃药|药物|精神科|心理医生|怀孕|流产|うつ病|鬱|不安障害"
    r"|診断|薬を飲|妊娠|流産|治療|疾患|病気",
    "criminal": r"逮捕|坐牢|监狱|前科|判刑|刑務所|有罪判決",
    "identity_trait": r"同性恋|双性恋|跨性别|宗教|信仰|穆斯林|基督徒|佛教徒|党员|同性愛"
    r"|バイセクシュアル|トランスジェンダー|ゲイ|レズビアン|イスラム教徒|キリスト教徒|仏教徒|支持政党|労働組合",
    "intimate": r"男朋友|女朋友|老公|老婆|妻子|离婚|分手|约会|性生活|彼氏|旦那|離婚|元カレ|元カノ",
    "biometric": r"指纹|人脸识别|虹膜|指紋|顔認証|虹彩|지문|안면 인식|홍채",
}
# Korean (spaced, but written with particles attached: matched anywhere, like CJK)
_FREE_WORDS_CJK["health"] += (
    r"|服药|服用|打针|注射|血压|血圧|血糖|降压药|降圧剤|抗抑郁|抗うつ|精神安定剤|睡眠薬|安眠药"
    r"|透析|化疗|化学療法|抗がん剤|心理咨询|カウンセリング|通院|复诊|住院|入院|手术|手術|避孕"
    r"|避妊|性病|艾滋|エイズ|肝炎|抑うつ|双极|双極性|自闭|自閉|多动症|发达障害|発達障害|精神疾患"
    r"|心療内科|吸入器|哮喘|喘息|癫痫|てんかん|过敏|アレルギー|孕|生理痛|月经|月経"
)
_FREE_WORDS_CJK["health"] += (
    r"|우울증|불안장애|공황장애|진단|약을 먹|항우울제|임신|유산|암 진단|당뇨|정신과|치료 중"
)
_FREE_WORDS_CJK["criminal"] += r"|체포|구속|감옥|교도소|전과|유죄|음주운전"
_FREE_WORDS_CJK["identity_trait"] += (
    r"|동성애|양성애|트랜스젠더|종교|무슬림|기독교인|불교 신자|지지 정당|노조"
)
_FREE_WORDS_CJK["intimate"] += r"|남자친구|여자친구|남편|아내|이혼|헤어졌|성관계"
_FREE = (
    tuple(
        (family, re.compile(rf"\b(?:{words})\b", re.IGNORECASE))
        for family, words in _FREE_WORDS.items()
    )
    + tuple(
        (family, re.compile(rf"(?<!\w)(?:{words})", re.IGNORECASE))
        for family, words in _FREE_WORDS_OTHER.items()
    )
    + tuple((family, re.compile(words)) for family, words in _FREE_WORDS_CJK.items())
)


def sensitive_words(text: str) -> str | None:
    """The forbidden family a free clause's words name, or None.

    Used only for clauses no rule understood (the clause reader kept them in
    the user's words): without a slot, the words are all the structure there is.

    >>> sensitive_words("started on antidepressants last month"), sensitive_words("we use vault")
    ('health', None)
    >>> sensitive_words("me diagnosticaron ansiedad"), sensitive_words("我男朋友下周来")
    ('health', 'intimate')
    >>> sensitive_words("me encanta la cerámica"), sensitive_words("je travaille comme graphiste")
    (None, None)
    """
    for family, pattern in _FREE:
        if pattern.search(text):
            return family
    return None
