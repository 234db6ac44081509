"""Whether a clause kept in the user's words is about someone else, or a record's field.

A clause no rule parsed is kept in the user's own words (the reader's
statements; word for word in another language). Nothing about it was
understood but its label, so the gate's judgement of the words is all that
stands between a sensitive statement and the store — and the forbidden
statements the gate misses are, most of them, about *other people*: a
colleague's diagnosis, a neighbour's religion, a relative's arrest, in any
language ("mein Kollege Jens hat Morbus Bechterew", "la mia vicina è rom").
Said about the speaker, the same raw-words keep is what capture is for
("Sou agrônomo numa cooperativa", "we run Airflow").

:func:`names_someone_else` reads the cues that a clause is about another
person — a relation or role noun (colleague, neighbour, sister, patient …), a
title (Herr, Mme, Sra., さん, 先生 …) or an unambiguous third-person pronoun
(elle, él, hij, он, 他, 彼女 …) — among a clause's first words, in the
languages the reader reads (``bench capture-leaks`` measures what it saves).
:func:`record_field` reads the shape of a key=value line or a row of fields
("partei=CDU", "Name;Abteilung;Herkunft"): a field of a record, never a
statement of its own.

>>> names_someone_else("Kurz zur Info: mein Kollege Jens hat Morbus Bechterew")
True
>>> names_someone_else("Ich bin Tischler und habe eine Werkstatt in Freiburg")
False
>>> record_field("partei=CDU"), record_field("Les specs partent dans Notion")
(True, False)
"""

from __future__ import annotations

import re

from memvault.extract.base import Candidate
from memvault.extract.reading import VERBATIM_RULE, english_like
from memvault.extract.speech import stated
from memvault.model.enums import MemoryType

__all__ = ["names_someone_else", "own_aside", "raw_words_keep", "record_field"]

#: Relation and role nouns and titles of the spaced languages (es, ca, fr, de, pt, it,
#: nl, pl, tr, ru/uk, sv/da/nb, ro, cs, el, id/ms, fi, hu), whole words, any case. A
#: word that is something else in another of these languages is left out ("on" is
#: "we" in French and "he" in Polish, "el" an article in Spanish and "he" in Romanian,
#: "son" is "are" in Spanish, "om" "about" in Dutch), and so are pronouns.
_PERSON_WORDS = (
    # es / ca
    r"compañer[oa]s?|coleg[ae]s?|jef[ae]s?|vecin[oa]s?|amig[oa]s?|herman[oa]s?|madre|padre"
    r"|mam[aá]|pap[aá]|hij[oa]s?|marido|espos[oa]|novi[oa]|suegr[oa]s?|cuñad[oa]s?|t[ií][oa]"
    r"|prim[oa]|sobrin[oa]|abuel[oa]s?|emplead[oa]s?|inquilin[oa]s?|alumn[oa]s?|doña|señor"
    r"|señora|sra|veí|veïna|germà|germana|àvia|padres|eltern|pais|genitori|ouders"
    r"|rodzice|родители|föräldrar|forældre|foreldre|părinții|rodiče"
    # fr
    r"|collègues?|patron|patronne|voisin|voisine|voisins|copain|copine|frère|sœur|soeur|mère"
    r"|père|maman|fils|fille|épou(?:x|se)|conjointe?|oncle|tante|cousin|cousine|neveu|nièce"
    r"|grand-mère|grand-père|mamie|papi|beau-frère|belle-sœur|belle-mère|beau-père|salariée?"
    r"|locataire|colocataire|stagiaire|monsieur|madame|mme"
    # de
    r"|kollege|kollegin|kollegen|chefin|vorgesetzter?|nachbar|nachbarin|nachbarn|freundin"
    r"|bruder|schwester|mutter|vater|sohn|tochter|ehemann|ehefrau|onkel|neffe|nichte|oma|opa"
    r"|großmutter|großvater|schwager|schwägerin|schwiegermutter|schwiegervater|mitarbeiterin"
    r"|azubi|geselle|kundin|patientin|mieterin|vermieter|vermieterin|mitbewohner"
    r"|mitbewohnerin|enkelin|herr|herrn"
    # pt
    r"|vizinh[oa]s?|irmão|irmã|mãe|namorad[oa]|avô|avó|sogr[oa]|funcionári[oa]|cunhad[oa]"
    r"|sobrinh[oa]"
    # it
    r"|vicin[oa]|vicini|amic[oa]|fratello|sorella|mamma|papà|moglie|fidanzat[oa]|cugin[oa]"
    r"|nonn[oa]|cognat[oa]|suocer[oa]|signora|collega|colleghi"
    # nl
    r"|buurman|buurvrouw|buren|vriendin|broer|zus|moeder|vader|zoon|dochter|schoonmoeder"
    r"|schoonvader|zwager|schoonzus|medewerker|medewerkster|patiënt|dhr|mevr|meneer|mevrouw"
    # pl
    r"|kolega|koleżanka|szef|szefowa|sąsiad|sąsiadka|przyjaciel|przyjaciółka|siostra|ojciec"
    r"|matka|córka|mąż|żona|wujek|ciocia|kuzyn|kuzynka|dziadek|babcia|teść|teściowa|szwagier"
    r"|szwagierka|pracownik|pracownica|pacjentka"
    # tr
    r"|meslektaşım|iş arkadaşım|patronum|müdürüm|komşum|komşumuz|arkadaşım|abim|ablam"
    r"|kardeşim|annem|babam|oğlum|kızım|eşim|kocam|karım|sevgilim|amcam|dayım|teyzem|halam"
    r"|kuzenim|dedem|babaannem|anneannem|kayınvalidem|hanım"
    # ru / uk
    r"|коллега|коллеги|начальник|начальница|сосед|соседка|соседи|друг|подруга|брат|сестра"
    r"|мама|папа|мать|отец|сын|дочь|муж|жена|дядя|тётя|тетя|дедушка|бабушка|тёща|свекровь"
    r"|сотрудник|сотрудница|колега|сусід|сусідка|батько|мати|дружина|чоловік|донька"
    # sv / da / nb
    r"|kollega|kollegan|chefen|granne|grannen|väninna|syster|farmor|mormor|farfar|morfar"
    r"|svärmor|svärfar|naboen|veninde|søster|datter|kæreste|svigermor|venninne|sønn|kjæreste"
    # ro
    r"|colegul|colega|colegii|șeful|șefa|vecinul|vecina|vecinii|prietenul|prietena|fratele"
    r"|sora|soțul|soția|unchiul|mătușa|vărul|verișoara|bunicul|bunica|soacra|socrul|domnul"
    r"|doamna"
    # cs
    r"|kolegyně|šéf|šéfová|soused|sousedka|kamarád|kamarádka|přítelkyně|bratr|manžel"
    r"|manželka|strýc|bratranec|sestřenice|babička|tchyně|tchán|zaměstnanec|zaměstnankyně|paní"
    # el
    r"|συνάδελφος|συνάδελφό|συνάδελφο|συναδέλφισσα|αφεντικό|προϊστάμενος|προϊσταμένη|γείτονας"
    r"|γειτόνισσα|φίλος|φίλη|αδελφός|αδερφός|αδελφή|αδερφή|μητέρα|μαμά|πατέρας|μπαμπάς|γιος"
    r"|κόρη|σύζυγος|θείος|θεία|ξάδερφος|ξαδέρφη|παππούς|γιαγιά|πεθερά|πεθερός|κύριος|κυρία"
    # id / ms, fi, hu
    r"|tetangga|kakak|adik|bapak|suami|istri|pacar|paman|bibi|sepupu|kakek|nenek|mertua"
    r"|naapuri|ystävä|sisko|äiti|isä|tytär|vaimo|setä|täti|serkku|mummo|anoppi"
    r"|kollégám|főnököm|szomszédom|barátom|barátnőm|testvérem|bátyám|nővérem|öcsém|húgom"
    r"|anyám|apám|férjem|feleségem|nagymamám|nagypapám"
    # ar, fa, ur, hi (and romanised Hindi), he
    r"|أمي|أبي|والدي|والدتي|أخي|أختي|زوجي|زوجتي|ابني|ابنتي|جاري|جارتي|زميلي|زميلتي|مديري|مديرتي"
    r"|صديقي|صديقتي|عمي|خالي|جدي|جدتي|أمه|أبوه|زوجته|زوجها|برادرم|خواهرم|مادرم|پدرم|همسرم|دوستم"
    r"|همکارم|بھائی|بہن|امی|ابو|شوہر|بیوی|پڑوسی|भाई|बहन|माँ|मां|पिताजी|पति|पत्नी|पड़ोसी|bhai"
    r"|bhaiya|behen|didi|bhabhi|chacha|chachi|sasur|dadi|mummy|अम्मी"
    r"|אחי|אחותי|אמא|אבא|בעלי|אשתי|השכן|השכנה|העמית|העמיתה"
)
#: Third-person subject pronouns that are nothing else in the other languages read.
_PRONOUN_WORDS = r"él|ella|elle|ele|ela|hij|он|она|він|вона|αυτός|αυτή|hän"
_PERSON = re.compile(rf"(?<!\w)(?:{_PERSON_WORDS})\.?(?!\w)", re.IGNORECASE)
_PRONOUN = re.compile(rf"(?<!\w)(?:{_PRONOUN_WORDS})(?!\w)", re.IGNORECASE)
#: Written without spaces: relation nouns and titles of ja / zh / ko.
_PERSON_CJK = re.compile(
    "|".join(
        """
        同僚 上司 部長 課長 社長 先輩 後輩 隣人 近所の 友達 友人 兄 姉 弟 妹 母 父 息子 娘 夫 妻
        旦那 嫁 彼氏 彼女 彼は 彼が 叔父 叔母 伯父 伯母 いとこ 祖父 祖母 おじいちゃん
        おばあちゃん 義母 義父 部下 店員 患者 さん くん ちゃん 先生 同事 老板 领导 经理 邻居
        朋友 哥哥 姐姐 弟弟 妹妹 妈妈 母亲 爸爸 父亲 儿子 女儿 丈夫 老公 妻子 老婆 男朋友 女朋友
        男友 女友 前男友 前女友 前夫 前妻
        叔叔 阿姨 舅舅 姑姑 表哥 表姐 堂哥 爷爷 奶奶 外公 外婆 婆婆 岳母 病人 房客 女士 小姐 他
        她 동료 상사 팀장 부장 사장 이웃 친구 형이 형은 누나 오빠 언니 동생 엄마 어머니 아빠
        아버지 아들 남편 아내 와이프 남자친구 여자친구 삼촌 이모 고모 사촌 할아버지 할머니
        시어머니 장모 환자 씨가 씨는 씨의 님이 님은 그는 그녀
        """.split()
    )
)
#: The English relation and role nouns and pronouns (a statement the reader kept in
#: the user's words, rewritten to the third person only after this is read).
_PERSON_EN = re.compile(
    r"\b(?:he|she|he's|she's|colleague|coworker|co-worker|boss|manager|neighbou?rs?"
    r"|friend|brother|sister|mother|father|mom|mum|dad|son|daughter|husband|wife|partner"
    r"|boyfriend|girlfriend|uncle|aunt|cousin|nephew|niece|grandma|grandpa|grandmother"
    r"|grandfather|in-laws?|mother-in-law|father-in-law|brother-in-law|sister-in-law"
    r"|employee|client|patient|tenant|landlord|landlady|roommate|flatmate|mrs|mr|ms)\b",
    re.IGNORECASE,
)
#: A lead-in before the statement proper: a label ("Kurz zur Info fürs Team:",
#: "Verbale riunione 4/12:", "[WhatsApp] Kakak:"), a bracketed tag, a greeting.
_LEAD_IN = re.compile(r"^\s*(?:\[[^\]]{0,40}\]\s*)*(?:[^:.!?\n]{0,40}:\s+)?")
#: The words a statement's subject sits in (spaced languages) / the characters (CJK).
_SUBJECT_WORDS = 4
_SUBJECT_CHARS = 10


def names_someone_else(text: str, *, english: bool = False) -> bool:
    """Whether ``text`` (a clause as said) is about a person other than the speaker: a
    relation or role noun, a title or a third-person pronoun among its first words (its
    subject), after any label. ``english``: read the English words instead.

    >>> said = ("il collega Gianni ha la sclerosi multipla", "Verbale: mia sorella è …",
    ...         "同僚の田中さんが休んでいます", "Tengo que mandar las maquetas al cliente",
    ...         "On a trois clusters", "東京に住んでいます")
    >>> [names_someone_else(t) for t in said]
    [True, True, True, False, False, False]
    >>> names_someone_else("my sister lives in Lyon", english=True)
    True
    """
    lead = _LEAD_IN.match(text)
    body = text[lead.end() :] if lead else text
    head = " ".join(body.split()[:_SUBJECT_WORDS])
    if english:
        return _PERSON_EN.search(head) is not None
    if _PERSON.search(head) or _PRONOUN.match(body.strip()):
        return True
    return _PERSON_CJK.search(body.strip()[:_SUBJECT_CHARS]) is not None


#: A field of a record: "key=value" with a one-word key and a short value (not a pin,
#: "ruff==0.6.9", nor a setting said in a sentence, "set max_conn=200 on the primary"),
#: or a header or row of fields ("Name;Abteilung;Herkunft", "a | b | c", tab-separated).
#: ("Stack: Go 1.22" is how people write a fact, so a colon alone is no field.)
_FIELD = re.compile(
    r"^\s*[^\W\d][\w'’/.-]{0,30}\s*(?<![=!<>])=(?!=)\s*\S.{0,60}$"
    r"|^[^;|\t]{1,60}(?:[;|\t][^;|\t]{1,60}){2,}$"
)


def record_field(text: str) -> bool:
    """Whether ``text`` is a field of a record or form, not a statement.

    >>> fields = ["cuenta=banca online de mi padre", "Name;Abteilung;Herkunft"]
    >>> said = ["Stack: Go 1.22", "we pin ruff==0.6.9", "set max_conn=200 on the primary"]
    >>> [record_field(t) for t in fields + said]
    [True, True, False, False, False]
    """
    clause = text.strip()
    if "=" not in clause and not re.search(r"[;|\t]", clause):
        return False
    return _FIELD.match(clause) is not None and len(clause.split()) <= 12


def raw_words_keep(cand: Candidate, why: str, raw: str) -> tuple[Candidate | None, str]:
    """A clause the reader kept in the user's words, unless it is a record's field or,
    in another language, about someone else.

    Trigger: "partei=CDU", "Name;Abteilung;Herkunft" (a pasted record's field or
             header), or "il collega Gianni ha la sclerosi multipla", "Mein Geselle
             Timo …", "同僚の田中さんが…" (another person, in a language no rule reads).
    Why: no rule understood the clause, so the gate's judgement of its words is all
         that guards it — and the forbidden statements the gate misses are mostly
         about other people, most of them not in English (the leak audit, ``bench
         capture-leaks``). A field names nothing on its own.
    Outcome: nothing is kept of it; the speaker's own statements ("Sou agrônomo …",
             "Les specs partent dans Notion") are kept word for word as before.
    """
    if record_field(raw):
        return None, f"silent:a record's field ({why})"
    if names_someone_else(raw) or (
        not cand.rule.startswith(VERBATIM_RULE) and names_someone_else(raw, english=True)
    ):
        # (a clause read as English is checked for the other languages' words too:
        # "Kollege M., 52: KHK", "Bhai ko TB hai" pass for English with the reader)
        return None, f"silent:about someone else ({why})"
    return cand, why


def own_aside(cand: Candidate, sentence_of: dict[int, int], touched: set[int]) -> bool:
    """A reader-kept clause of a turn with a sensitive clause that is only the speaker's.

    Trigger: "I manage a team of five recruiters in Dublin. Also my manager's divorce
             is getting messy": the first sentence is the speaker's own statement.
    Why: an English first-person statement in a sentence of its own, naming nobody
         else, says nothing about the sensitive clause's person.
    Outcome: it stays beside the refused clause; a clause of the same sentence, in
             another language (kept in raw words) or about someone else does not —
             except the speaker's own task or reminder, in any language ("Erinnere
             mich, die Farbe zu bestellen. Mein Nachbar ist …"): a task is what the
             speaker has to do, and its sentence names no one else.
    """
    index = sentence_of.get(id(cand))
    if index is None or index in touched:
        return False
    if cand.type is MemoryType.TODO and not names_someone_else(cand.said or cand.content):
        return True
    return not cand.rule.startswith(VERBATIM_RULE) and english_like(cand.said) and stated(cand.said)
