"""Facts about a named person (contract §4.1–4.4): "<Name> was arrested", "<Name> is Muslim".

The topical rules read a fact when its subject is the user or a pronoun ("I", "she",
"mein…"); a first name as the subject was left to the learned layer. These rules read
the tight shapes where a capitalised name is the subject of a criminal, identity,
health or intimate predicate, in the languages the corpus covers:

- criminal: "Dana was arrested", "Jana ist vorbestraft", "Pierre a été arrêté",
  "Diego fue detenido", "João foi preso", "Piotr został aresztowany", "Emre tutuklandı",
  "Андрей был арестован", "Rahul ko police ne arrest kiya";
- identity: "Marta ist Muslimin", "Noah is Jewish", "Priya is gay", "Carmen es lesbiana";
- health: "Priya is diabetic", "Ben has epilepsy", "Anna ist schwanger", "Zeynep hamile";
- intimate: "Kim is having an affair".

The line stays between a person and a topic: the predicate must follow the name (one
adverb may sit between), an identity or health adjective must end its phrase ("Marta is
Muslim." — not "a Muslim holiday", "Muslim-majority"), a condition followed by a topic
word is a topic ("epilepsy awareness"), and a framing word near the fact (a report, a
movie, a novel, research) makes it a topic ("Priya is writing a report on diabetes care"
never matches; "Dana was arrested? No, that was the plot of the movie" is framed). The
name is checked in the validator: capitalised, not an acronym, not a word that is no
person ("It", "Nobody", "Police"), not after an article ("the Suspect").

>>> from memvault.policy.normalize import normalize
>>> [h.detector for h in detect(normalize("fyi Dana was arrested for DUI last weekend"))]
['criminal.named_subject']
>>> [h.family for h in detect(normalize("Marta ist Muslimin."))]
['identity_trait']
>>> detect(normalize("Priya is writing a report on diabetes care"))
[]
"""

from __future__ import annotations

import re

from memvault.policy.detectors import topical_terms as terms
from memvault.policy.detectors.base import NAME, Hit, Rule, run_rules
from memvault.policy.detectors.regex_literals import needles_of, trie_pattern
from memvault.policy.detectors.topical import FRAMING, TOPIC_AFTER
from memvault.policy.normalize import NormalizedText, View

__all__ = ["RULES", "detect"]

# One adverb between the name and the predicate ("Dana was recently arrested" has it
# after the auxiliary; "Lukas wurde gestern verhaftet", "Emre dün tutuklandı").
_ADV_WORDS = (
    r"(?:currently|recently|just|finally|also|still|already|now|again|actually|apparently|"
    r"reportedly|allegedly|officially|openly|secretly|gestern|heute|jetzt|schon|wieder|"
    r"letzte woche|hier(?: soir)?|aujourd'hui|déjà|ayer|hoy|ya|ontem|hoje|já|ieri|oggi|già|"
    r"wczoraj|dziś|już|gisteren|vandaag|al|dün|bugün|geçen hafta|вчера|сегодня|уже|снова|"
    r"kal|aaj|abhi|phir se|very|deeply|strictly|streng|tief|sehr|très|muy|molto|bardzo|zeer)"
)
_ADV = r"(?:" + _ADV_WORDS + r"\s+)?"
_CRIMES = (
    r"assault|fraud|theft|murder|manslaughter|burglary|robbery|arson|rape|stalking|harassment|"
    r"embezzlement|drink[- ]driving|drunk driving|dui|dwi|possession|trafficking|shoplifting|"
    r"battery|domestic (?:violence|abuse)|a (?:crime|felony|misdemeanou?r)|tax evasion|"
    r"money laundering|perjury|contempt|vandalism|bribery|extortion|kidnapping"
)
# What ends an identity or health adjective's phrase: the clause ends or another clause
# starts, so the adjective describes the person ("Marta is Muslim, so …"), not a noun
# after it ("a Muslim holiday", "Muslim-majority", "gay-friendly", "pregnant with ideas").
_END = (
    r"(?![\w-])(?=\s*(?:$|[.,;:!?()\]—–]|\s(?:-|and|but|too|as well|now|again|still|since|so|"
    r"though|"
    r"und|aber|auch|seit|et|mais|aussi|depuis|y|pero|también|desde|e|mas|também|ma|anche|"
    r"da|i|ale|też|od|en|maar|ook|sinds|ve|ama|da|de|и|но|тоже|aur|lekin|bhi|hai|hain|"
    r"dır|dir|tır|tir)\b))"
)
_HI_ARREST = r"(?:arrest|giraftar) (?:kiya|kar liya|hua|hui|ho gaya|ho gayi)\b"
_CRIMINAL = (
    # en
    r"(?:was|got|has been|had been|'s been|is being)\s+" + _ADV + r"(?:arrested|convicted|jailed|"
    r"imprisoned|incarcerated|indicted|detained by (?:the )?police|sentenced|locked up|"
    r"prosecuted|deported|charged with (?:" + _CRIMES + r")|found guilty|put on probation|"
    r"released on (?:bail|parole)|released from (?:jail|prison))\b"
    r"|is\s+"
    + _ADV
    + r"(?:on probation|on parole|in (?:jail|prison|custody)(?! of| break)|behind bars|"
    r"out on bail|awaiting trial|under arrest|a convicted (?:felon|criminal|\w+er)|"
    r"a (?:registered )?sex offender|a felon|an ex-con)\b"
    r"|has\s+(?:a (?:criminal|police) record|an? (?:prior |\w+ )?conviction|prior convictions|"
    r"a record for|a dui|(?:two|three|several) duis|a warrant out|an ankle (?:monitor|tag))\b"
    r"|(?:was|got)\s+"
    + _ADV
    + r"picked up (?:by the police )?for (?:shoplifting|"
    + _CRIMES
    + r")\b"
    r"|(?:spent|did)\s+(?:\w+\s+){1,2}(?:years?|months?|weeks?)\s+in\s+(?:jail|prison)\b(?! break)"
    # de
    r"|wurde\s+" + _ADV + r"(?:verhaftet|festgenommen|verurteilt|angeklagt|inhaftiert|"
    r"eingesperrt)\b"
    r"|ist\s+" + _ADV + r"(?:vorbestraft|in (?:haft|u-haft|untersuchungshaft)|im gefängnis|"
    r"auf bewährung)(?![\w-])"
    r"|sitzt\s+" + _ADV + r"(?:im gefängnis|in (?:u-)?haft)\b"
    r"|hat\s+(?:eine |mehrere )?vorstrafen?\b"
    # fr
    r"|a été\s+" + _ADV + r"(?:condamnée?|inculpée?|incarcérée?|interpellée?|mise? en examen|"
    r"placée? en garde à vue|arrêtée?(?=\s*(?:$|[.,;!]|par la police|par les gendarmes|pour|"
    r"hier|ce matin|cette nuit|la semaine|en flagrant)))(?![\w-])"
    r"|est\s+" + _ADV + r"(?:en prison|en détention|en garde à vue|en liberté conditionnelle|"
    r"incarcérée?|sous contrôle judiciaire)(?![\w-])"
    r"|a un casier judiciaire\b"
    # es
    r"|(?:fue|ha sido)\s+" + _ADV + r"(?:(?:arrestad|condenad|encarcelad|imputad)[oa]\b|detenid[oa]"
    r"(?=\s*(?:$|[.,;!]|por la (?:policía|guardia civil)|por (?:robo|hurto|fraude|agresión)|ayer|"
    r"anoche|esta mañana)))"
    r"|(?:está|esta)\s+" + _ADV + r"(?:en la cárcel|en prisión|pres[oa]|"
    r"en libertad condicional)(?![\w-])"
    r"|tiene antecedentes (?:penales|policiales)\b"
    # pt
    r"|foi\s+" + _ADV + r"(?:pres[oa]|detid[oa]|condenad[oa]|indiciad[oa])\b"
    r"|(?:está|esta)\s+" + _ADV + r"(?:na (?:prisão|cadeia)|em liberdade condicional)(?![\w-])"
    r"|tem (?:ficha criminal|antecedentes criminais|passagem pela polícia)\b"
    # it
    r"|è stat[oa]\s+" + _ADV + r"(?:arrestat|condannat|fermat|incarcerat)[oa]\b"
    r"|è\s+" + _ADV + r"(?:in carcere|in prigione|ai domiciliari|agli arresti domiciliari|"
    r"in libertà vigilata)(?![\w-])"
    r"|ha (?:precedenti penali|la fedina penale sporca)\b"
    # pl
    r"|został(?:a)?\s+" + _ADV + r"(?:aresztowan|zatrzyman|skazan)[ya]\b"
    r"|(?:siedzi|jest)\s+" + _ADV + r"w (?:więzieniu|areszcie)(?![\w-])"
    r"|(?:ma|miał(?:a)?) (?:wyrok|kartotekę|zarzuty)\b"
    # nl
    r"|(?:is|werd)\s+" + _ADV + r"(?:gearresteerd|opgepakt|veroordeeld|aangehouden)\b"
    r"|zit\s+" + _ADV + r"(?:in de gevangenis|in de cel|in voorarrest|vast voor \w+)(?![\w-])"
    r"|heeft een strafblad\b"
    # tr
    r"|" + _ADV + r"(?:tutuklandı|gözaltına alındı|hapse girdi|hapiste|cezaevinde|"
    r"mahkum (?:oldu|edildi)|sabıka kaydı var)(?![\w-])(?!\s+haber)"
    # ru
    r"|(?:был[аи]?\s+)" + _ADV + r"(?:арестован[аы]?|задержан[аы]?|осужд[её]н[аы]?)(?![\w-])"
    r"|" + _ADV + r"(?:арестован[аы]?|задержан[аы]?|осужд[её]н[аы]?)(?![\w-])"
    r"|сидит\s+в тюрьме(?![\w-])|в тюрьме(?![\w-])|под следствием|под арестом"
    # romanised Hindi
    r"|ko\s+(?:police ne\s+)?"
    + _HI_ARREST
    + r"|police ne\s+"
    + _HI_ARREST
    + r"|"
    + _HI_ARREST
    + r"|jail (?:mein|me) (?:hai|tha|thi)\b|ko (?:saza|jail) (?:hui|ho gayi)\b"
)
# A word of practice after the trait: "juif pratiquant", "católica practicante".
_PRACTISING = r"(?:\s+(?:pratiquante?|practicante|praticante|praktizierend(?:e[rs]?)?|observant))?"
_RU_IDENTITY = (
    r"(?:гей|лесбиянка|бисексуал(?:ка)?|мусульман(?:ин|ка)|еврей(?:ка)?|трансгендер|атеист(?:ка)?)"
    + _END
)
_REL_EN = (
    r"(?:a |an )?(?:devout |practi[cs]ing |observant |religious )?(?:" + terms.IDENT_RELIGION + r")"
)
_IDENTITY = (
    # en (the shared word lists; "came out as", "converted to")
    r"is\s+"
    + _ADV
    + r"(?:a |an )?(?:openly |secretly )?(?:"
    + terms.IDENT_RELIGION
    + "|"
    + terms.IDENT_ORIENT
    + r"|"
    + terms.IDENT_CASTE
    + r"|a jew|a lesbian|a trans (?:woman|man)|undocumented|(?:a |an )?(?:\w+ )?(?:refugee|"
    r"asylum seeker|illegal immigrant)|in the union|a union (?:member|rep)|the shop steward)"
    + _PRACTISING
    + _END
    + r"|is\s+"
    + _REL_EN
    + _END
    + r"|came out (?:as (?:"
    + terms.IDENT_ORIENT
    + r")|to (?:his|her|their) (?:parents|family))\b"
    r"|converted to (?:islam|judaism|catholicism|christianity|buddhism|hinduism|orthodoxy)\b"
    # de
    r"|ist\s+" + _ADV + r"(?:muslim(?:in|a)?|jude|jüdin|christin|buddhist(?:in)?|atheist(?:in)?|"
    r"hindu|katholisch|evangelisch|muslimisch|jüdisch|schwul|lesbisch|bisexuell|trans|"
    r"transgender|queer|homosexuell|jeside|jesidin|alevit(?:in)?|zeug(?:e|in) jehovas|"
    r"(?:ein )?flüchtling|gewerkschaftsmitglied|in der gewerkschaft)"
    + _PRACTISING
    + _END
    # fr
    + r"|est\s+"
    + _ADV
    + r"(?:juif|juive|musulmane?|catholique|chrétienne?|athée|bouddhiste|"
    r"hindoue?|gay|homosexuelle?|lesbienne|bisexuelle?|trans|transgenre|syndiquée?|"
    r"témoin de jéhovah|réfugiée?|sans[- ]papiers)"
    + _PRACTISING
    + _END
    # es / pt / it (the copula "es", "é", "è")
    + r"|(?:es|é|è)\s+"
    + _ADV
    + r"(?:judío|judía|musulmán|musulmana|muçulman[oa]|musulman[oa]|"
    r"judeu|judia|ebre[oa]|católic[oa]|cattolic[oa]|ate[oa]|ateu|ateia|gay|lesbiana|lésbica|"
    r"lesbica|bisexual|bissexual|bisessuale|homosexual|homossexual|omosessuale|trans|"
    r"testig[oa] de jehová|testemunha de jeová|testimone di geova|refugiad[oa]|"
    r"iscritt[oa] (?:alla|al) (?:cgil|cisl|uil|fiom|sindacato))"
    + _PRACTISING
    + _END
    # pl
    + r"|jest\s+"
    + _ADV
    + r"(?:muzułmaninem|muzułmanką|żydem|żydówką|katolikiem|katoliczką|"
    r"ateistą|ateistką|gejem|lesbijką|biseksualn[ay]|homoseksualist[ąa])"
    + _END
    # nl
    + r"|is\s+"
    + _ADV
    + r"(?:moslim|joods|katholiek|homo|lesbisch|biseksueel|transgender|intersekse|non-binair|"
    r"vluchteling)"
    + _PRACTISING
    + _END
    # tr, ru, romanised Hindi (no copula, or one after the word)
    + r"|(?:müslüman|yahudi|hristiyan|ateist|eşcinsel|gey|lezbiyen|biseksüel)"
    + _END
    + r"|—\s*"
    + _RU_IDENTITY
    + r"|"
    + _RU_IDENTITY
    + r"|(?:gay|lesbian|muslim|christian|trans) hai\b"
)
# A faith practised or a party backed, right after the name ("Julia goes to the mosque on
# Fridays", "Uncle Joe votes AfD"); a place named as a venue ("the church fair") is not.
_NOT_A_SERVICE = (
    r"(?![\w-])(?!\s+(?:fair|concert|sale|bazaar|parking|car park|hall|café|cafe|choir|"
    r"wedding|tour|flea|festival|basar|konzert|fest|kermesse|concierto|concerto|kermis))"
)
_PRACTICE = (
    r"(?:goes|went|go) to (?:the )?(?:church|mass|mosque|synagogue|temple|gurdwara)"
    + _NOT_A_SERVICE
    + r"|prays? (?:at|in) (?:the )?(?:church|mosque|synagogue|temple)"
    + _NOT_A_SERVICE
    + r"|keeps? (?:kosher|halal|shabbat|the sabbath)\b|fasts? (?:during|for|on) (?:ramadan|"
    r"yom kippur)\b|wears? (?:a |the )?(?:hijab|niqab|burqa|turban|kippah|yarmulke|headscarf)\b"
    r"|observes? (?:ramadan|shabbat|the sabbath|lent|passover|yom kippur)\b"
    r"|geht (?:jeden \w+ )?in die (?:moschee|kirche|synagoge)"
    + _NOT_A_SERVICE
    + r"|trägt (?:ein )?kopftuch\b|fastet (?:im|während des) ramadan\b|isst nur (?:halal|koscher)\b"
    r"|va à la (?:mosquée|synagogue|messe)"
    + _NOT_A_SERVICE
    + r"|porte le voile\b|fait (?:le )?ramadan\b|mange (?:halal|casher)\b"
    r"|va a (?:la )?(?:mezquita|misa|sinagoga)"
    + _NOT_A_SERVICE
    + r"|lleva (?:el )?hiyab\b|hace (?:el )?ramadán\b"
    r"|vai à (?:mesquita|missa|sinagoga)"
    + _NOT_A_SERVICE
    + r"|usa (?:o )?(?:hijab|véu)\b|faz (?:o )?(?:ramadão|ramadã)\b"
    r"|va (?:in moschea|a messa|in sinagoga)"
    + _NOT_A_SERVICE
    + r"|porta il velo\b|fa (?:il )?ramadan\b"
    r"|chodzi do (?:meczetu|kościoła|synagogi)" + _NOT_A_SERVICE + r"|nosi (?:hidżab|chustę)\b"
    r"|gaat naar de (?:moskee|kerk|synagoge)"
    + _NOT_A_SERVICE
    + r"|draagt een hoofddoek\b|doet (?:aan )?(?:de )?ramadan\b"
    r"|(?:cumaya gider|oruç tutuyor|başörtüsü takıyor)\b"
    r"|ходит в (?:мечеть|церковь|синагогу)|соблюдает (?:пост|рамадан)"
    r"|(?:votes?|voted|always votes?|wählt|vote pour|vota(?: por| a| per)?|głosuje na|stemt op)"
    r"\s+(?:for\s+)?(?:the\s+)?(?:"
    + terms.IDENT_POLITICS
    + r"|green|left|right|liberal|lib dem|yes|no)\b(?![\w-])"
    + r"|is\s+"
    + _ADV
    + r"(?:a |an )?(?:staunch |lifelong |die-hard |card-carrying |hardcore )?(?:"
    + terms.IDENT_POLITICS
    + r")(?: (?:supporter|voter|member|guy|man|woman))?"
    + _END
    # ethnicity, origin, union and caste said of the person: "Kwame is Ashanti", "Kofi is
    # Ghanaian.", "Maria is of Turkish descent", "Sam is a member of Unison", "Ravi belongs
    # to the Yadav caste" (colours are left out: "Snow is white.")
    + r"|is\s+"
    + _ADV
    + r"(?:a |an )?(?:half[- ]|part[- ])?(?!(?:black|white)\b)(?:"
    + terms.IDENT_ETHNIC
    + "|"
    + terms.DEMONYMS
    + r")"
    + _END
    + r"|is\s+(?:of|from an?)\s+(?:[\w'-]+[- ]){1,2}(?:descent|origin|heritage|extraction|"
    r"background|family)\b"
    + r"|(?:is|has been|was)\s+"
    + _ADV
    + r"(?:a |an )?(?:(?:paid-up |active |card-carrying )?member|rep(?:resentative)?|steward|"
    r"delegate|organi[sz]er) (?:of|for|in|at) (?:the )?(?:"
    + terms.UNIONS
    + r")(?![\w-])|(?:joined|belongs to) (?:the |a )?(?:trade |labou?r )?(?:union\b|(?:"
    + terms.UNIONS
    + r")(?![\w-]))|is (?:a |an )?(?:"
    + terms.UNIONS
    + r") (?:member|rep|steward|delegate|organi[sz]er)\b"
    + r"|belongs to (?:the |a )?(?:[\w'-]+ ){0,2}(?:caste|jati|sub-?caste)\b"
    + r"|(?:has no (?:residence|work) permit|is seeking asylum|applied for asylum|"
    r"overstayed (?:his|her|their) visa|is here illegally)\b"
)
_HEALTH_ADJ = (
    r"diabetic|epileptic|pregnant|hiv[- ]positive|bipolar|autistic|schizophrenic|anorexic|"
    r"bulimic|an alcoholic|an addict|a recovering (?:alcoholic|addict)|in rehab|"
    r"on (?:chemo|chemotherapy|dialysis|antidepressants|insulin|methadone|lithium)|"
    r"in remission|terminally ill|suicidal|on the spectrum|deaf|hard of hearing|in a wheelchair|"
    r"paraly[sz]ed|c[o]?eliac|celiac"
)
_HEALTH = (
    r"is\s+"
    + _ADV
    + r"(?:"
    + _HEALTH_ADJ
    + r")"
    + _END
    + r"|(?:has|had|was diagnosed with|got diagnosed with|suffers from|is being treated for|"
    r"is recovering from|is undergoing)\s+(?:a |an )?(?:mild |severe |chronic |early[- ]onset |"
    r"type [12] |stage \w+ )?(?P<cond>" + terms.COND + r")\b(?![-\w])"
    r"|had (?:a miscarriage|an abortion|a stillbirth)\b"
    r"|has\s+(?-i:MS)\b|has\s+(?:kidney|renal|liver|heart) failure\b"
    # pregnant: "with twins", "di quattro mesi", "van haar ex" still say it
    r"|(?:is|ist|est|è|jest|está|esta)\s+"
    + _ADV
    + r"(?:pregnant|schwanger|enceinte|incinta|w ciąży|embarazada|grávida|zwanger)"
    r"(?![\w-])(?!\s+(?:with (?:ideas|meaning|possibilit\w*|anticipation|excitement)|pause))"
    # de
    r"|ist\s+" + _ADV + r"(?:diabetiker(?:in)?|epileptiker(?:in)?|schwanger|hiv-positiv|"
    r"depressiv|bipolar|alkoholiker(?:in)?|magersüchtig|in therapie|auf entzug|zöliakie|"
    r"in der (?:entzugsklinik|psychiatrie|reha))"
    + _END
    + r"|hat\s+(?:eine |einen )?(?:diabetes|krebs|brustkrebs|epilepsie|depressionen|"
    r"eine depression|hiv|ms|multiple sklerose|parkinson|demenz)"
    + _END
    # fr
    + r"|est\s+"
    + _ADV
    + r"(?:enceinte|diabétique|épileptique|séropositi(?:f|ve)|bipolaire|"
    r"dépressi(?:f|ve)|alcoolique)"
    + _END
    + r"|a (?:un |une |le |la )?(?:cancer|diabète|sida|épilepsie|dépression|vih)"
    + _END
    # es / pt / it
    + r"|(?:está|esta)\s+"
    + _ADV
    + r"(?:embarazada|grávida|en rehabilitación)"
    + _END
    + r"|(?:es|é|è)\s+"
    + _ADV
    + r"(?:diabétic[oa]|diabetic[oa]|epiléptic[oa]|epilettic[oa]|"
    r"seropositiv[oa]|soropositiv[oa]|sieropositiv[oa]|bipolar|bipolare|alcohólic[oa]|"
    r"alcoólatra|incinta|celíac[oa]|celiac[oa]|ricoverat[oa] in psichiatria)"
    + _END
    + r"|(?:tiene|tem|ha)\s+(?:un |il |la |l')?(?:cáncer|câncer|cancro|tumore|diabetes|"
    r"diabete|vih|hiv|sida|aids|epilepsia|epilessia|depresión|depressão|depressione)"
    + _END
    # pl, nl, tr, ru, romanised Hindi
    + r"|jest\s+"
    + _ADV
    + r"(?:w ciąży|cukrzykiem|epileptykiem)"
    + _END
    + r"|ma\s+(?:raka|cukrzycę|padaczkę|depresję|hiv)"
    + _END
    + r"|is\s+"
    + _ADV
    + r"(?:zwanger|diabeet|hiv-positief)"
    + _END
    + r"|heeft\s+(?:kanker|diabetes|epilepsie|een depressie)"
    + _END
    + r"|"
    + _ADV
    + r"(?:hamile|kanser|diyabet hastası|şeker hastası|epilepsi hastası)"
    + _END
    + r"|(?:беременна|болеет (?:раком|диабетом|эпилепсией))"
    + _END
    + r"|(?:ko\s+)(?:pregnant|cancer|diabetes|sugar|hiv) hai\b"
    + r"|(?:pregnant|cancer|diabetes|sugar|hiv) hai\b"
)
_INTIMATE = (
    r"(?:is having|had|has had) an affair\b|cheated on (?:his|her|their) (?:wife|husband|"
    r"partner|girlfriend|boyfriend|fiancée?)\b|is sleeping with (?:his|her|their|a)\b"
    r"|hat eine affäre\b|a une liaison\b|tiene un amante\b|tem um caso\b|ha una relazione "
    r"extraconiugale\b"
)

# The name, then an optional comma-fenced adverb, then the predicate.
_HEAD = r"(?<![\w'’-])(?P<name>" + NAME + r")(?:,\s*\w+,)?\s+"


def _gaps(pattern: str) -> str:
    r"""``pattern`` with every space written between two words matching any whitespace run.

    Trigger: a wrapped line in an e-mail or a form ("Pierre a\nle sida.").
    Why: the shapes are written with plain spaces ("a (?:un |le )?sida"), which a tab or a
      line break between two words of the predicate did not match.
    Outcome: a space becomes ``\s+``, or ``\s`` where a width must stay fixed (inside
      ``[…]`` or a look-behind); the shapes stay readable as written (and
      :func:`_first_words` reads their start literals from the written form).

    >>> _gaps(r"a (?:un |le )?sida|drink[- ]driving|(?<!brush )stroke|\ x")
    'a\\s+(?:un\\s+|le\\s+)?sida|drink[-\\s]driving|(?<!brush\\s)stroke|\\ x'
    """
    out: list[str] = []
    groups: list[bool] = []  # per open group: is it a look-behind
    in_class = escaped = False
    for i, ch in enumerate(pattern):
        if escaped:  # the character after a backslash stays as written
            escaped = False
        elif ch == " ":
            out.append(r"\s" if in_class or any(groups) else r"\s+")
            continue
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            groups.append(pattern.startswith(("(?<=", "(?<!"), i))
        elif ch == ")" and groups:
            groups.pop()
        out.append(ch)
    return "".join(out)


def _first_words(predicate: str) -> str:
    """A lookahead for what ``predicate`` can start with: an adverb or its own first words.

    Trigger: text dense with capitalised words ("Dana Dana Dana …", a list of names).
    Why: after each name ``re`` tried every alternative of the predicate in turn
      (0.66 s for a 4,000-character field).
    Outcome: one trie of the words a match can start with is tested first; it is a
      necessary condition (the start literals of every alternative, read from the
      written shapes; a space in one matches any whitespace run, as :func:`_gaps`
      makes the predicate do), so matches are the same.
    """
    starts = needles_of(predicate.replace(_ADV, ""))
    adverbs = needles_of(_ADV_WORDS)
    if starts is None or adverbs is None:
        return ""  # an alternative without a literal start: no lookahead
    return "(?=" + trie_pattern(starts | adverbs).replace(re.escape(" "), r"\s+") + ")"


def _rule(family: str, label: str, predicate: str, reason: str) -> Rule:
    return Rule(
        name=f"{family.partition('_')[0]}.named_subject",
        family=family,
        label=label,
        pattern=re.compile(_HEAD + r"(?i:" + _first_words(predicate) + _gaps(predicate) + ")"),
        reason=reason,
        validate=_named_ok,
        views=("clean",),
    )


# Words right before a name that make it no one's name: an article ("the Suspect"), a
# preposition of a title ("in Prison Break").
_BEFORE_NAME = re.compile(
    r"(?i)\b(?:the|a|an|der|die|das|den|dem|ein|eine|le|la|les|el|los|las|il|lo|o|os|as|"
    r"het|de|een|in|on|of|about|from)\s+$"
)
#: how far around the fact a framing word makes it a topic (characters)
_FRAME_REACH = 120
# A framing word that is a person's role, not a frame: "my colleague Dana was arrested".
_PERSON_FRAME = re.compile(
    r"(?i)^(?:colleagues?|co-?workers?|staff|employees|hr|company|clients?|customers?|"
    r"patients|users|project|business|works? (?:in|at|for|as))$"
)


def _named_ok(m: re.Match[str], view: View) -> bool:
    name = m.group("name")
    if name.isupper():  # an acronym ("HIV", "CEO"); NAME keeps the rest to names
        return False
    text = view.text
    if _BEFORE_NAME.search(text[max(0, m.start() - 12) : m.start()]):
        return False
    cond = m.groupdict().get("cond")
    if cond and TOPIC_AFTER.match(text[m.end() : m.end() + 40]):
        return False  # "has epilepsy awareness pamphlets": a topic
    around = text[max(0, m.start() - _FRAME_REACH) : m.end() + _FRAME_REACH]
    return not any(not _PERSON_FRAME.match(f.group()) for f in FRAMING.finditer(around))


RULES: tuple[Rule, ...] = (
    _rule(
        "criminal",
        "criminal_record",
        _CRIMINAL,
        "a named person's arrest, conviction, charge or custody",
    ),
    _rule(
        "identity_trait",
        "religion_or_orientation",
        _IDENTITY,
        "a named person's religion, sexual orientation or gender identity",
    ),
    _rule(
        "identity_trait",
        "practice_or_politics",
        _PRACTICE,
        "a named person's religious practice, politics or migration status",
    ),
    _rule(
        "health",
        "medical_condition",
        _HEALTH,
        "a named person's diagnosis, pregnancy or treatment",
    ),
    _rule("intimate", "intimate_life", _INTIMATE, "a named person's affair"),
)


def detect(doc: NormalizedText) -> list[Hit]:
    """Named-subject findings: one per family, exact spans (the name and its predicate)."""
    return run_rules(doc, RULES)
