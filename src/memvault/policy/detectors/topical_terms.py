"""The word lists of the topical families: conditions, medicines, identity traits, intimate
life, criminal/legal terms and inference words, in the languages the rules read.

:mod:`topical` builds its family rules from these; they hold vocabulary only (no rule
logic), so a word added here is a word every rule of that family reads.

>>> import re
>>> bool(re.fullmatch(DRUGS, "sertraline"))
True
"""

from __future__ import annotations

import re

__all__ = [
    "CLINICIANS",
    "COND",
    "COPULA",
    "COUNTRIES",
    "CRIMINAL",
    "DEMONYMS",
    "DOSE",
    "DRUGS",
    "EMOTION",
    "IDENT_CASTE",
    "IDENT_ETHNIC",
    "IDENT_ORIENT",
    "IDENT_ORIGIN",
    "IDENT_POLITICS",
    "IDENT_PRACTICE",
    "IDENT_RELIGION",
    "INFER",
    "INTIMATE",
    "PERSON_NOUNS",
    "PLACE_KIND",
    "POLITICAL_VERB",
    "UNIONS",
    "compile_ci",
]


def compile_ci(p: str) -> re.Pattern[str]:
    """``p`` compiled case-insensitively."""
    return re.compile(p, re.IGNORECASE)


COND = (
    r"diabet\w*|cancer|cáncer|krebs|tumou?r|leuk(?:a)?emia|lymphoma|melanoma|hiv|aids|"
    r"hepatitis|epilep\w*|seizures?|asthma\w*|asma|asthme|diab[èe]te|cancro|tumore|depressione|"
    r"depress[ãa]o|ansiedad|ansiedade|vih|sida|aids|(?:kidney|liver|lung|heart|autoimmune|lyme|"
    r"rare|genetic|chronic|celiac|coeliac|thyroid|bowel|skin|blood|bone|neurological|"
    r"degenerative|mental|eating|personality|anxiety|panic|bipolar|mood|sleep) (?:disease|"
    r"disorder|syndrome|condition)|stage (?:\d|i{1,3}v?) (?:\w+ )?(?:cancer|disease)|copd|"
    r"arthritis|lupus|crohn'?s|colitis|celiac|"
    r"coeliac|multiple sclerosis|multipler? sklerose|scl[ée]rose en plaques|esclerosis m[uú]ltiple|"
    r"sclerosi multipla|parkinson'?s?|alzheimer'?s?|dementia|demenz|"
    # a stroke, not a brush stroke, a swimming stroke or a stroke of luck; nor a sport's
    # ("my freestyle stroke", "my forehand stroke", "stroke rate": hard negatives, session 17)
    r"(?<!brush )(?<!pen )(?<!each )(?<!every )(?<!first )(?<!final )(?<!freestyle )"
    r"(?<!forehand )(?<!backhand )(?<!swim )(?<!swimming )(?<!golf )(?<!rowing )(?<!paddle )"
    r"(?<!tennis )(?<!putting )(?<!crawl )(?<!butterfly )stroke(?! of | rate| count| technique)|"
    r"heart (?:disease|"
    r"condition|attack|failure|problems?)|hypertension|high blood pressure|thyroid\w*|"
    r"hypothyroid\w*|migraines?|endometriosis|pcos|fibromyalgia|chronic (?:pain|fatigue|illness|"
    r"disease)|long covid|tuberculosis|herpes|hpv|adhd|autis(?!t[ai]\b)\w*|"
    r"(?<!l')(?<!un )(?<!come )(?<!fa )autist[ai]\b(?! (?:di|per|del|della|"
    r"dell'|presso|del bus|dell'autobus))|asperger'?s?|dyslexi\w*|"
    r"dyspraxia|tourette'?s?|ocd|ptsd|depression|depressive|depresi[oó]n|dépression|"
    r"anxiety(?: disorder)?|panic (?:attacks?|disorder)|bipolar\w*|schizo\w*|eating disorder|"
    r"anorexi\w*|bulimi\w*|insomnia|sleep apnoea|sleep apnea|self-harm|suicid\w*|addiction|"
    r"an addict|(?:recovering|former|ex-|drug|heroin|crack|meth|opioid|cocaine|pill|"
    r"alcohol) ?addict(?!s)|"
    r"addicted to (?:drugs|alcohol|opioids|heroin|cocaine|meth|painkillers|gambling|"
    r"pills|nicotine|opiates|crack)|(?:drug|alcohol|opioid|gambling|substance) (?:abuse|use "
    r"disorder|problem)|alcoholi\w*|"
    r"(?:is|am|been|'m|stay\w*|years?|months?|days?) sober|sobriety|rehab|deaf|deafness|"
    r"(?:is|am|'m|went|going|legally|partially|colou?r) blind(?! to)(?![-\w])|blindness|"
    r"cholesterol|"
    r"statins?|heroin|cocaine|methamphetamine|fentanyl|ketamine|mdma|ecstasy|crack cocaine|"
    r"clean (?:from|off) (?:drugs|heroin|cocaine|alcohol|opioids|meth|pills)|relapsed|"
    r"paraly[sz]ed|hospitali[sz]ed|admitted to (?:the )?hospital|emergency room|intensive care|icu|"
    r"cpap|psychotic|psychosis|manic episode|hallucinat\w*|crutches|mastectom\w*|"
    # a suffix of disease names; "academia", "bohemia" are no anaemia
    r"(?!(?:academ|bohem)ias?\b)\w{3,}(?:ectomy|itis|aemia|emia|pathy|plegia|otomy)|"
    r"(?:cirrh|fibr|scoli|psych|neur|thromb|sten|tubercul|endometri|osteopor)osis|"
    r"hard of hearing|hearing aids?|wheelchair|paraplegic|quadriplegic|amputee|"
    r"disabilit\w*|(?:is|am|'m|registered) disabled|a disabled|impairment|brca\d?|"
    r"genetic (?:test\w*|"
    r"mutation|condition|disorder|marker|variant)|carrier of|carries the (?:\w+ )?gene|"
    r"sickle cell|cystic fibrosis|huntington'?s?|down syndrome|"
    r"allerg(?:y|ies|ic to(?! (?:nothing|none|anything)\b))|"
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
    r"blood pressure|a1c|viral load|concussion|fracture|injur(?:y|ies)|"
    # a GP's or doctors' surgery is a practice (UK), not an operation
    r"(?<!gp )(?<!gp's )(?<!doctor's )(?<!doctors' )(?<!doctors )surgery|"
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
DRUGS = (
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
    r"omeprazole|antibiotics?|amoxicillin|melatonin|cannabis oil|cbd|"
    # the same medicines and classes as other languages spell them
    r"sertralin[ae]?|fluoxetin[ae]?|paroxetin[ae]?|venlafaxin[ae]?|duloxetin[ae]?|"
    r"bupropi[oó]n[ae]?|mirtazapin[ae]?|l[ií]tio|lamotrigin[ae]?|quetiapin[ae]?|"
    r"olanzapin[ae]?|risperidon[ae]?|aripiprazol[eo]?|metilfenidato|m[ée]thylph[ée]nidate?|"
    r"metformin[ae]|insulin[ae]|levotiroxina|l[ée]vothyroxine?|atorvastatin[ae]|"
    r"varfarina|warfarine|prednison[ae]|prednisolon[ae]?|metotrexato|m[ée]thotrexate?|"
    r"naltrexon[ae]|buprenorfina|bupr[ée]norphine?|metadon[ae]|m[ée]thadone|methadon|"
    r"gabapentin[ae]|pr[ée]gabalin[ae]?|testosteron[ae]?|testost[ée]rone|tamoxif[eè]n[eo]?|"
    r"topiramat[eo]?|antidepresivos?|antidepressivos?|antidepressivi|antid[ée]presseurs?|"
    r"antidepressiva|antidepressants?|ansiol[ií]tic[oi]s?|anxiolytiques?|antipsic[óo]tic[oi]s?|"
    r"antipsychotiques?|quimioterapia|chimioth[ée]rapie|chemioterapia|chemotherapie|"
    r"chemotherapy|hemodi[áa]lis[ei]s?|di[áa]lis[ei]s|dialyse|dialisi|dialysis"
)
#: Clinicians named in other languages ("mi psiquiatra", "seine Psychiaterin").
CLINICIANS = (
    r"psiquiatra|psic[óo]log[oa]|psychiatre|psychologue|psychiater(?:in)?|psycholog(?:e|in)|"
    r"therapeut(?:in)?|terapeuta|th[ée]rapeute|terapista|onc[óo]log[oa]|oncologue|"
    r"onkolog(?:e|in)|cardi[óo]log[oa]|cardiologue|kardiolog(?:e|in)|neur[óo]log[oa]|"
    r"neurologue|neurolog(?:e|in)|endocrin[óo]log[oa]|endocrinologue|ginec[óo]log[oa]|"
    r"gyn[ée]cologue|gyn[äa]kolog(?:e|in)"
)
DOSE = r"\d+(?:[.,]\d+)?\s?(?:mg|mcg|µg|ug|ml|g|units?|iu|tablets?|pills?|puffs?|drops?)\b"

IDENT_RELIGION = (
    r"jewish|jew|muslim|moslem|christian|catholic|protestant|evangelical|mormon|lds|hindu|"
    r"buddhist|sikh|jain|bah[aá]'?[ií]|zoroastrian|shinto|taoist|pagan|wiccan|atheist|agnostic|"
    r"orthodox (?:jew|christian)|quaker|amish|jehovah'?s witness|scientologist|baptist|methodist|"
    r"lutheran|"
    r"anglican|pentecostal|adventist|coptic|shia|shiite|sunni|druze|rastafarian|"
    r"jud[ií]o|jud[ií]a|musulm[aá]n\w*|cat[oó]lic[oa]|chr[ée]tien\w*|juif|juive|katholisch|"
    r"evangelisch|muslimisch|jüdisch|judisch|yazidi|ezidi|jeside|alevi|alevit|"
    r"jüdin|jude|muslimin|muslima|christin|buddhistin|atheistin|musulmane|musulmana|"
    r"ebre[oa]|cattolic[oa]|católic[oa]|judeu|judia|evangélic[oa]|protestante|moslim|"
    r"joods|katholiek|hindoe|boeddhist"
)
IDENT_PRACTICE = (
    r"keeps? (?:kosher|halal)|eats? (?:only )?(?:kosher|halal)|prays?(?: \w+){0,3} (?:times a day|"
    r"daily|every day)|pray(?:s|ing)? (?:at|in) (?:church|mosque|synagogue|temple)|goes to "
    r"(?:church|mass|mosque|synagogue|temple|gurdwara)|attends? (?:church|mass|mosque|synagogue|"
    r"temple|gurdwara|services)|observes? (?:ramadan|shabbat|the sabbath|lent|passover|yom kippur)|"
    r"fasts? (?:during|for) ramadan|wears? (?:a )?(?:hijab|niqab|burqa|turban|kippah|yarmulke|"
    r"headscarf)|converted to|was bapti[sz]ed|bar mitzvah|bat mitzvah|religious|"
    # a Sikh's practice (session 18): "took amrit", "amritdhari", "wears a patka"
    r"amritdhari|keshdhari|sahajdhari|(?:took|take|taken|taking) amrit|wears? (?:a )?(?:dastar|"
    r"patka|kara)|carr(?:y|ies) (?:a )?kirpan"
)
IDENT_ORIENT = (
    r"gay|lesbian|bisexual|bi|queer|pansexual|asexual|homosexual|heterosexual|"
    r"straight(?! (?:to|forward|away|answers?|talk|line|up|ahead|after|into|from|out))|lgbtq?\+?|"
    r"trans|transgender|trans(?:gender)? (?:woman|man|person)|non-?binary|genderqueer|genderfluid|"
    r"agender|cisgender|intersex|two-spirit|closeted|homosexuell|schwul|lesbisch|bisexuell|"
    r"homosexuel(?:le)?|bisexuel(?:le)?|lesbienne|lesbiana|omosessuale|transg[eé]nero|"
    r"transsexuel(?:le)?|"
    # the same traits in other languages: "è pansessuale", "soy no binario", "ist nicht-binär"
    r"asexuel(?:le)?|asexuell|aseksueel|pansessuale|pansexuel(?:le)?|pansexuell|"
    r"non[- ]binari[oa]|non[- ]binaire|no binari[oa]|não[- ]bin[áa]ri[oa]|nicht[- ]bin[äa]r|"
    r"non-binair|transgenre|transg[ée]nero|transessuale|bissexual|bisessuale|biseksueel|"
    r"lesbica|lésbica|omosessuale|homossexual|homoseksueel"
)
IDENT_ETHNIC = (
    r"black|african[- ]american|afro-\w+|latino|latina|latinx|latine|hispanic|"
    r"asian(?:[- ]american)?|"
    r"arab|roma|romani|indigenous|native american|first nations|aboriginal|pacific islander|"
    r"white|caucasian|biracial|mixed[- ]race|puerto rican|mexican[- ]american|kurdish|kurd|"
    r"uyghur|tamil|berber|amazigh|maori|māori|inuit|sami|igbo|yoruba|hausa|pashtun|hazara|"
    r"rohingya|tibetan|(?:arab|african|asian|mexican|chinese|korean|indian|italian|irish|"
    r"japanese|filipino|vietnamese|cuban|haitian|jewish|muslim|native|pakistani|iranian|"
    r"nigerian|somali|turkish|greek|polish|russian)-(?:american|canadian|british|australian)|"
    # peoples named as an ethnic group, not a country ("Kwame is Ashanti", "she's Zulu")
    r"akan|ashanti|asante|ewe|zulu|xhosa|kikuyu|luo|tutsi|hutu|fulani|wolof|amhara|oromo|"
    r"tigrayan|tigrinya|han chinese|hui|manchu|tatar|chechen|bashkir|basque|sinti|"
    r"romany|gypsy|bedouin|baloch|baluch|sindhi|punjabi|bengali|gujarati|"
    r"hmong|cherokee|navajo|lakota|ojibwe|cree|métis|metis|quechua|aymara|"
    r"mapuche|guaraní|guarani|afro-latin[oa]|mestiz[oa]|cajun|"
    r"kurde|kurdo|curdo|curda|romni|gitan[oa]?|gitane|zingar[oa]|"
    # the same said in other languages (session 18): "sou parda", "soy afrodescendiente",
    # "je suis métisse", "ich bin Schwarze", "ik ben zwart" (a colour word only with a
    # person's copula: the topical rule's subject and copula, the named rule's "is")
    r"negr[oa]|pard[oa]|ind[ií]gena|quilombola|mesti[çz][oa]|afrodescendiente|"
    r"afrodescendente|afro-?brasileir[oa]|afro-?latin[oa]|cigan[oa]|m[ée]tisse?|noire?|"
    r"kabyle|schwarze[rn]?|afrodeutsch\w*|sinto|sintiza|meticci[oa]|zwart|"
    r"marokkaans-nederlands\w*|turks-nederlands\w*"
)
#: Trade unions named by their own name ("a member of Unison", "afiliada a UGT"), read
#: only after a membership verb: several are also plain words.
UNIONS = (
    r"unite|unison|gmb|usdaw|rmt|aslef|pcs|ucu|neu|nasuwt|cwu|bma|rcn|fbu|prospect|"
    r"nea|aft|seiu|uaw|afl-cio|teamsters|ibew|afscme|sag-aftra|wga|ufcw|cwa|"
    r"ver\.?di|ig metall|ig bce|gew|dgb|ngg|cfdt|force ouvri[èe]re|fo|unsa|sud|"
    r"cfe-cgc|ugt|cnt|cgil|cisl|uil|fiom|fnv|cnv|acv|abvv|"
    r"kommunal|unionen|lo|tco|saco|unia|syna|cut|cosatu|numsa|ctu|"
    r"türk-iş|hak-iş|solidarno[śs][ćc]|opzz|zenroren|rengo|kctu|fkt?u"
)
IDENT_CASTE = (
    r"caste(?!s? (?:system|systems|hierarch(?:y|ies)))|brahmin|kshatriya|vaishya|shudra|dalit|obc|"
    r"scheduled caste|untouchable|jati|varna|"
    # castes and communities by name (session 18): "my in-laws are Kayastha", "he's a Jat"
    r"jat|jats|jatav|yadav|rajput|kayastha|nair|maratha|lingayat|vokkaliga|kamma|kapu|ezhava|"
    r"thevar|gounder|iyengar|chamar|mahar|valmiki|bania|baniya|khatri|bhumihar|kurmi|gurjar|"
    r"gujjar|ahir|nadar|namboodiri|chitpavan|deshastha|patidar|marwari|adivasi|"
    r"upper[- ]caste|lower[- ]caste|savarna|bahujan|scheduled tribe|other backward class(?:es)?"
)
IDENT_POLITICS = (
    r"republican|democrat|democratic party|labour|labor party|tory|tories|conservative(?: party)?|"
    r"liberal democrat|lib dem|green party|greens|socialist|communist|libertarian|marxist|"
    r"anarchist|far[- ]right|far[- ]left|left[- ]wing|right[- ]wing|maga|trump supporter|"
    r"afd|cdu|spd|fdp|die linke|reform uk|snp|ukip|ndp|bjp|congress party|pt|psoe|pp|vox|"
    r"rassemblement national|la france insoumise|fidesz|likud"
)
# "grew up in a small town by the sea" names a kind of place, not a country; the same
# place with a country after it ("a small town in Morocco") still counts.
PLACE_KIND = (
    r" (?:a|an|the) (?:[\w'-]+ ){0,2}?(?:town|village|city|suburbs?|house|home|farm|family|"
    r"neighbou?rhood|household|flat|apartment|countryside|place)\b"
    r"(?![^.;,!?]*\b(?:in|of|near|outside) (?!the\b|a\b|an\b|my\b|our\b)\w)"
)
#: Countries by their English names: where someone was born or raised is national origin
#: when it is a country ("born in Syria"), a hometown when it is a city ("born in Leeds").
COUNTRIES = (
    r"afghanistan|albania|algeria|angola|argentina|armenia|australia|austria|azerbaijan|"
    r"bangladesh|belarus|belgium|bolivia|bosnia|brazil|bulgaria|cambodia|cameroon|canada|chile|"
    r"china|colombia|congo|croatia|cuba|cyprus|czechia|czech republic|denmark|ecuador|egypt|"
    r"el salvador|eritrea|estonia|ethiopia|finland|france|georgia|germany|ghana|greece|"
    r"guatemala|haiti|honduras|hong kong|hungary|iceland|india|indonesia|iran|iraq|ireland|"
    r"israel|italy|ivory coast|jamaica|japan|jordan|kazakhstan|kenya|korea|kosovo|kurdistan|"
    r"kuwait|laos|latvia|lebanon|libya|lithuania|malaysia|mali|mexico|moldova|mongolia|"
    r"morocco|mozambique|myanmar|burma|nepal|netherlands|holland|new zealand|nicaragua|niger|"
    r"nigeria|north korea|north macedonia|norway|pakistan|palestine|panama|paraguay|peru|"
    r"philippines|poland|portugal|puerto rico|romania|russia|rwanda|saudi arabia|senegal|"
    r"serbia|sierra leone|singapore|slovakia|slovenia|somalia|south africa|south korea|"
    r"south sudan|spain|sri lanka|sudan|sweden|switzerland|syria|taiwan|tanzania|thailand|"
    r"tibet|tunisia|turkey|t[üu]rkiye|uganda|ukraine|united kingdom|the uk|uk|"
    r"united states|the us|the usa|usa|uruguay|uzbekistan|venezuela|vietnam|yemen|zambia|"
    r"zimbabwe|the (?:dominican republic|philippines|netherlands|gambia|congo)"
)
_PLACE = r"(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)"
IDENT_ORIGIN = (
    # a birthplace or a hometown is a basic fact ("I grew up in Manchester"); born or
    # raised in a country, or a move across a border after it, is national origin
    rf"(?:born|grew up|raised) in (?:(?:a|an|the) [\w' -]{{0,40}}?\b(?:in|of|near|outside) )?"
    rf"(?:{COUNTRIES})\b|"
    rf"(?:born|grew up|raised) in (?!\d){_PLACE}(?=[^.;!?\n]{{0,60}}\b(?:came|moved|fled|"
    r"emigrated|immigrated|arrived|relocated) (?:to|here|over)\b)|"
    r"originally from|immigrated|"
    r"emigrated|immigrant|refugee|asylum|"
    r"undocumented|illegal immigrant|immigration status|visa status|green card holder|"
    r"citizenship|stateless|naturali[sz]ed|first-generation immigrant|nationality|"
    r"ethnic(?:ity|ally)|of \w+ descent"
)
DEMONYMS = (
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
#: People a speaker names by their relation ("my landlord", "her flatmate", "our lodger"):
#: after an owner word the trait that follows is that person's, not a topic.
PERSON_NOUNS = (
    r"partner|wife|husband|spouse|boyfriend|girlfriend|fianc[ée]e?|ex|mum|mom|mother|dad|"
    r"father|parents?|sons?|daughters?|kids?|child|children|brothers?|sisters?|siblings?|"
    r"cousins?|aunt|auntie|uncle|niece|nephew|grand(?:ma|mother|pa|father|son|daughter)|"
    r"step(?:mother|father|mum|mom|dad|son|daughter|brother|sister)|[\w]+-in-law|"
    r"(?:best )?friends?|flatmates?|roommates?|housemates?|lodgers?|tenants?|landlord|landlady|"
    r"neighbou?rs?|colleagues?|co-?workers?|boss|manager|supervisor|teammates?|classmates?|"
    r"babysitter|nanny|cleaner|carer|caregiver|tutor|teacher|coach|mentor|intern|"
    r"new hire|assistant|students?|doctor|dentist|barber|hairdresser|accountant|mechanic|"
    r"plumber|builder|driver|pastor|godmother|godfather|godson|goddaughter|"
    # fr, es, it, pt, de, nl: "mon voisin est …", "mia sorella è …", "meine Kollegin ist …"
    r"voisine?|coll[èe]gue|amie?|fr[èe]re|s(?:œ|oe)ur|m[èe]re|p[èe]re|femme|mari|copine?|"
    r"cousine?|fils|fille|patronne?|colocataire|belle-\w+|beau-\w+|"
    r"vecin[oa]|compa[ñn]er[oa]|amig[oa]|herman[oa]|madre|padre|espos[oa]|marido|novi[oa]|"
    r"prim[oa]|hij[oa]|jef[ea]|suegr[oa]|cu[ñn]ad[oa]|"
    r"vicin[oa]|collega|amic[oa]|fratello|sorella|moglie|marito|cugin[oa]|figli[oa]|"
    r"vizinh[oa]|colega|irm[ãa]o?|m[ãa]e|pai|mulher|filh[oa]|chefe|sogr[oa]|cunhad[oa]|"
    r"nachbar(?:in)?|kolleg(?:e|in)|freund(?:in)?|bruder|schwester|mutter|vater|frau|mann|"
    r"sohn|tochter|chef(?:in)?|mitbewohner(?:in)?|schwager|schwägerin|"
    r"buurman|buurvrouw|vriend(?:in)?|broer|zus|moeder|vader|vrouw|man"
)
_NAME_WORD = r"(?-i:[A-Z][a-z]+(?:-[A-Z][a-z]+)?)"
COPULA = compile_ci(
    # a person the owner names first: "my landlord is a practising", "our lodger Sam is"
    r"^\s*(?:(?:new|old|late|elder|older|younger|little|big|oldest|youngest|eldest)\s+)?"
    r"(?:(?:" + PERSON_NOUNS + r")(?:'s)?\s+(?:" + _NAME_WORD + r"\s+){0,2})?"
    r"(?:(?:is|am|'m|are|was|were|'s|identif(?:y|ies) as|self-identif(?:y|ies) as|"
    r"belongs? to|came out as|comes out as|considers? (?:myself|himself|herself|themselves)|"
    r"a|an|the|proud|openly|practicing|practising|devout|observant|registered|lifelong|"
    r"card-carrying|"
    r"strict|born-again|born again|born|raised|member of|half|part|mixed|also|now|really|actually|"
    r"very|quite|"
    r"fully|out as|"
    r"community|family|of|from|and|ist|bin|soy|es|est|suis|sono|sou|é|è|era|était|war|foi|fue|"
    r"un|une|una|uno|ein|eine|een|um|uma|pratiquante?|practicante|praticante|praktizierende?)\s*)*$"
)
POLITICAL_VERB = compile_ci(
    r"^[^.;]*?\b(?:votes?|voted|voting|supports?|supported|donates?|donated|campaign\w*|"
    r"canvass\w*|member|joined|belongs?|thinks?|believes?|hates?|despises?|opposes?|distrusts?|"
    r"backs?|registered|identifies|is|am|'m|are|was|a|an|lifelong|staunch|die-hard)\b"
)

INTIMATE = (
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
    r"multiple)|sleeping with|slept with|schwanger|embarazad\w*|enceinte|incinta|gr[aá]vida|"
    # the same life told in other languages (session 18): erectile medication, contraception,
    # a pregnancy test or loss, fertility treatment, surrogacy, an affair, an open
    # relationship, a sex life, a separation — each read only with its person as subject
    r"viagra|sildenafil|tadalafil|cialis|levitra|vardenafil|"
    r"disfunci[oó]n er[eé]ctil|dysfonction [ée]rectile|erektile dysfunktion|"
    r"erektionsst[öo]rung\w*|potenzmittel|disfunzione erettile|disfun[çc][ãa]o er[ée]til|"
    r"erectiestoornis|erectieproblemen|zaburzeni\w* erekcji|"
    r"p[ií]ldora anticonceptiva|pastillas? anticonceptivas?|anticonceptiv\w*|la p[ií]ldora|"
    r"p[ií]ldora del d[ií]a despu[ée]s|pastilla del d[ií]a despu[ée]s|ligadura de trompas|"
    r"vasectom[ií]a|preservativos?|cond[oó]n|condones|"
    r"pilule(?: contraceptive| du lendemain)?|st[ée]rilet|ligature des trompes|vasectomie|"
    r"pr[ée]servatifs?|antibabypille|die pille|pille danach|(?:hormon|kupfer)spirale|"
    r"kondome?|vasektomie|"
    r"pillola(?: anticoncezionale| del giorno dopo)?|anticoncezional\w*|contraccett\w*|"
    r"p[ií]lula(?: anticoncepcional| do dia seguinte)?|anticoncepciona(?:l|is)|camisinha|"
    r"laqueadura|de pil|morning-afterpil|spiraaltje|anticonceptie|condooms?|"
    r"tabletk\w* antykoncepcyjn\w*|antykoncepcj\w*|prezerwatyw\w*|wazektomi\w*|"
    r"prueba de embarazo|test de embarazo|test de grossesse|schwangerschaftstest|"
    r"test di gravidanza|teste de gravidez|zwangerschapstest|test ci[ąa][żz]owy|"
    r"grossesse|gravidanza|gravidez|zwanger\w*|w ci[ąa][żz]y|schwangerschaft\w*|"
    r"fausse couche|aborto espont[áa]neo|fehlgeburt|aborto spontaneo|miskraam|poronieni\w*|"
    r"avortement|abtreibung|schwangerschaftsabbruch|ivg|interruzione di gravidanza|abortus|"
    r"f[ée]condation in vitro|fecundaci[óo]n in vitro|fecondazione (?:in vitro|assistita)|"
    r"procreazione assistita|k[üu]nstliche befruchtung|kinderwunsch\w*|"
    r"reproducci[óo]n asistida|reprodu[çc][ãa]o assistida|fertiliza[çc][ãa]o in vitro|"
    r"ivf-behandeling|vruchtbaarheidsbehandeling|in vitro|insemin\w*|"
    r"congelaci[óo]n de [óo]vulos|cong[ée]lation d'ovocytes|social freezing|"
    r"eizellen einfrieren|congelamento (?:degli )?ovociti|congelamento de [óo]vulos|"
    r"gestaci[óo]n subrogada|vientre de alquiler|maternit[ée] de substitution|"
    r"gestation pour autrui|m[èe]re porteuse|leihmutter\w*|maternit[àa] surrogata|"
    r"utero in affitto|gestazione per altri|barriga de aluguel|barriga solid[áa]ria|"
    r"gesta[çc][ãa]o de substitui[çc][ãa]o|draagmoeder\w*|surogatk\w*|"
    r"amante(?!\s+(?:de|del|della|dello|dei|delle|di|da|do|dos|das)\b)|infiel|"
    r"(?:puso|pone|pon[ií]a|puesto) los cuernos|me (?:engaña|engañó|enga[ñn]aba) con|"
    r"ma[îi]tresse|un amant|m'a tromp[ée]e?|me trompe avec|infid[èe]le|"
    r"fremdgeh\w*|fremdgegangen|seitensprung|aff[äa]re|"
    r"tradimento|mi tradisce|mi ha tradit[oa]|scappatella|trai[çc][ãa]o|me tra(?:i|iu)|"
    r"vreemdgaan|vreemdgegaan|(?:gaat|ging) vreemd|overspel|minnares|minnaar|een affaire|"
    r"zdradz\w*|zdradzi\w*|kochank[aęiąo]\w*|"
    r"open relatie|open huwelijk|couple (?:libre|ouvert)|relation ouverte|mariage ouvert|"
    r"matrimonio abierto|pareja abierta|coppia aperta|casamento aberto|rela[çc][ãa]o aberta|"
    r"otwart\w* zwi[ąa]zek|offene ehe|poliamor\w*|polyamour\w*|"
    r"vida sexual|vie sexuelle|sexleben|vita sessuale|seksleven|[żz]ycie seksualne|"
    r"rapports sexuels|relations sexuelles|geschlechtsverkehr|rapporti sessuali|"
    r"rela[çc][õo]es sexuais|wsp[óo][łl][żz]yci\w*|faire l'amour|hacer el amor|"
    r"fare l'amore|fazer amor|plan cul|libertin\w*|[ée]changis\w*|swingerclub|"
    r"partnerruil|intercambio de parejas|scambio di coppia|troca de casais|"
    r"f[ée]tich\w*|fetisch\w*|feticci\w*|fetiche\w*|fetisj\w*|"
    r"div[óo]rci\w*|echtscheiding|(?:ben|is) gescheiden|gaan scheiden|rozw[óo]d\w*|rozwiod\w*|"
    r"nos separamos|me separ[ée]|se separ[óo]|estoy separad[oa]|estamos separados|"
    r"nos s[ée]paramos|nous nous sommes s[ée]par[ée]s|on s'est s[ée]par[ée]s?|"
    r"je me suis s[ée]par[ée]e?|suis s[ée]par[ée]e?|sommes s[ée]par[ée]s|"
    r"haben uns getrennt|leben getrennt|getrennt lebend|"
    r"ci siamo separati|mi sono separat[oa]|sono separat[oa]|siamo separati|"
    r"nos separamos|me separei|se separou|estou separad[oa]|"
    r"zijn uit elkaar|rozstali[śs]my si[ęe]"
)
CRIMINAL = (
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
    # someone's lawyer is no legal matter by itself ("my lawyer said the contract is fine");
    # a defence lawyer, a probation officer or a public defender is
    r"hit[- ]and[- ]run|(?:my|his|her|their) (?:(?:criminal|defen[cs]e) (?:lawyer|attorney|"
    r"solicitor)|probation officer|parole officer|public defender)|"
    # a defence lawyer in other languages, but not as a job: "ist Strafverteidiger"
    r"(?<!es )(?<!ist )(?<!est )(?<!é )(?<!è )(?<!als )(?<!como )(?<!comme )(?<!come )"
    r"(?<!es una )(?<!es un )(?<!ist eine )(?<!ist ein )(?<!est une )(?<!est un )(?<!é uma )"
    r"(?<!é um )(?<!è un )(?<!è una )(?<!fa l')(?<!faccio l')(?<!sono )(?<!soy )"
    r"(?<!sou )(?<!bin )(?<!suis )(?:abogad[oa] penalista|avocat(?:e)? p[ée]naliste|"
    r"strafverteidiger(?:in)?|avvocat[oa] penalista|advogad[oa] criminal(?:ista)?)|"
    # a lawyer seen about a complaint to the police: "meinen Anwalt wegen der Anzeige"
    r"(?:abogad[oa]|avocat(?:e)?|anwalt|anw[äa]ltin|avvocat[oa]|advogad[oa])\b[^.;!?\n]{0,40}?"
    r"\b(?:denuncia|anzeige|plainte|querella|den[úu]ncia|queixa-crime)\b|"
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
EMOTION = (
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
INFER = (
    r"seems?|seemed|appears?|appeared|sounds?|sounded|looks?|looked|comes across as|came "
    r"across as|might be|may be|could be|must be|is probably|was probably|is likely|probably|"
    r"likely|apparently|presumably|gets|got|becomes|became|tends? to (?:be|get)|is (?:often|"
    r"always|usually|easily)|was (?:often|always|visibly)|has been (?:feeling|seeming)|"
    r"felt|feels|is|was|were|are"
)
