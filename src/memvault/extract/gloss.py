"""English glosses of the cue words of other languages, for the clause reader.

The reader's corpus is mostly English: its heads know that "need to" makes a
todo, "remind me" a reminder, "tonight" a one-off and "we use" a fact of the
stack, from thousands of English clauses — and from a hundred or so per other
language. :func:`glosses` names, in English, the cues a clause in another
language holds ("tengo que" → "need to", "heute abend" → "tonight",
"提醒我" → "remind me"); :func:`memvault.extract.reader.reader_view` appends
them to what the heads read, in training and in reading alike, so the word
features the English clauses trained carry over to the other languages.

A gloss is a hint, never the statement: what is stored stays the user's clause,
word for word (:func:`memvault.extract.reading.verbatim_candidate`).

>>> glosses("tengo que renovar el pasaporte")
('need to',)
>>> glosses("heute Abend gehe ich ins Kino")
('today', 'tonight')
>>> glosses("提醒我明天给妈妈打电话")
('remind me', 'tomorrow')
>>> glosses("we use go")
()
"""

from __future__ import annotations

import re
from functools import cache

__all__ = [
    "GLOSSES",
    "GREEK",
    "HABIT_GLOSS",
    "NEED_GLOSS",
    "REPLY_GLOSS",
    "TASK_GLOSS",
    "TASTE_GLOSSES",
    "glosses",
]

#: The gloss of a routine ("cada mañana", "jeden Tag", "毎朝"): a habit, as in English.
HABIT_GLOSS = "every day usually always"
#: The gloss of an obligation ("tengo que", "ich muss", "要"): a todo, as in English.
NEED_GLOSS = "need to"
#: The gloss of a request to put a task on the user's list ("añade una tarea", "加一个任务").
TASK_GLOSS = "add a task"
#: The gloss of a request for a reply language or register ("contéstame en español").
REPLY_GLOSS = "please reply in"
#: The glosses of a taste ("me gusta", "je déteste", "更喜欢").
TASTE_GLOSSES = frozenset({"i like", "i prefer", "i hate"})

#: English gloss → the cues that say it in es, fr, de, pt, it, nl, pl, tr, ru (word
#: boundaries apply) and, after ``|``, in Japanese and Chinese (no word boundaries).
GLOSSES: tuple[tuple[str, str, str], ...] = (
    (
        "need to",
        r"tengo que|tenemos que|hay que|debo|debemos|necesito|necesitamos|tendré que"
        r"|je dois|nous devons|on doit|il faut|faut que|il me faut|j'ai besoin de"
        r"|ich muss|wir müssen|muss noch|müssen noch|ich sollte|wir sollten|ich brauche"
        r"|muss ich|müssen wir|sollte ich|sollten wir|moet ik|moeten we|moeten wij"
        r"|tenho que|tenho de|temos que|temos de|preciso|precisamos|devo|devemos"
        r"|dobbiamo|bisogna|ho bisogno di|devo ancora"
        r"|ik moet|we moeten|wij moeten|moet nog|moeten nog"
        r"|muszę|musimy|trzeba|powinienem|powinnam"
        r"|lazım|gerekiyor|gerek|zorundayım"
        r"|нужно|надо|должен|должна|должны|måste|behöver|jeg skal|jag ska|vi skal|vi måste"
        r"|skal huske|jeg må|vi må|musím|musíme|trebuie să|va trebui să",
        r"しなければ|しないと|なきゃ|なければ|ないといけ|なくちゃ|なくては|ねばならな|必要があ|要做"
        r"|得去|需要|必须|要把|我得(?!到)|我们得(?!到)|得把|之前要|之前得|前要完成|해야|야 해요"
        r"|해야 해",
    ),
    (
        "remind me",
        r"recuérdame|recordarme|avísame|recuerdame|rappelle-moi|rappelle moi|fais-moi penser"
        r"|erinnere mich|erinner mich|erinnere|lembra-me|me lembra|lembre-me|lembrar-me"
        r"|ricordami|ricordarmi|herinner me|herinner mij|przypomnij mi|przypomnij"
        r"|hatırlat|hatırlatır mısın|напомни|напомнить|påminn mig|mind mig|husk mig"
        r"|påminn meg|minn meg på|husk meg på|recorda'm|recordeu-me|připomeň mi|nagadaj mi",
        r"リマインド|思い出させて|知らせて|提醒我|提醒一下|알려줘|리마인드",
    ),
    (
        TASK_GLOSS,
        r"añade una tarea|añadir una tarea|agrega una tarea|crea una tarea|añade a mi lista"
        r"|apunta en mi lista|pon en mi lista|ajoute une tâche|ajouter une tâche|crée une tâche"
        r"|ajoute à ma liste|mets sur ma liste|füge eine aufgabe|leg eine aufgabe an"
        r"|neue aufgabe|setz auf meine liste|schreib auf meine liste|trag mir ein"
        r"|adiciona uma tarefa|adicione uma tarefa|adicionar uma tarefa|cria uma tarefa"
        r"|põe na minha lista|coloca na minha lista|aggiungi un'attività|aggiungi un compito"
        r"|aggiungi alla mia lista|crea un'attività|voeg een taak toe|maak een taak"
        r"|zet op mijn lijst|zet het op mijn lijst|dodaj zadanie|dodaj do listy"
        r"|dodaj do mojej listy|görev ekle|listeme ekle|yapılacaklara ekle|добавь задачу"
        r"|добавить задачу|добавь в список|lägg till en uppgift|lägg till på min lista"
        r"|tilføj en opgave|tilføj til min liste|legg til en oppgave|legg inn en oppgave"
        r"|legg inn at|afegeix una tasca|přidej úkol",
        r"タスクを追加|タスクに追加|タスクに入れ|やることリストに|ToDoに追加|TODOに追加"
        r"|加一个任务|加个任务|添加任务|添加一个任务|加到待办|加入待办|记到待办|放进待办"
        r"|建一个任务|할 일에 넣어|할 일에 추가|할일에 추가|할 일 추가|작업 추가",
    ),
    (
        "i like",
        r"me gusta|me gustan|me encanta|me encantan|j'aime|j'adore|ich mag|ich liebe"
        r"|gefällt mir|gosto de|adoro|amo|mi piace|mi piacciono|ik hou van|ik houd van"
        r"|ik vind .{1,20} leuk|ik vind .{1,20} lekker|lubię|uwielbiam|seviyorum|severim"
        r"|bayılırım|люблю|нравится|нравятся|обожаю|jag gillar|jeg kan godt lide|jeg elsker"
        r"|jag älskar",
        r"好き|大好き|喜欢|爱吃|爱喝|좋아해|좋아요",
    ),
    (
        "i prefer",
        r"prefiero|preferimos|je préfère|nous préférons|ich bevorzuge|lieber|prefiro"
        r"|preferimos|preferisco|preferiamo|liever|ik verkies|wolę|wolimy|tercih ederim"
        r"|tercihim|предпочитаю|лучше|jag föredrar|jeg foretrækker|hellre|hellere",
        r"の方が|ほうが|がいい|更喜欢|比较喜欢|宁愿|偏好|이 좋아요|가 좋아요|더 좋아",
    ),
    (
        "i hate",
        r"odio|no soporto|no me gusta|je déteste|je n'aime pas|j'ai horreur|ich hasse"
        r"|ich mag kein|ich kann .{1,30} nicht ausstehen|mag ich nicht|detesto|não gosto"
        r"|non mi piace|non sopporto|ik haat|ik hou niet van|nienawidzę|nie lubię|nie znoszę"
        r"|nefret|sevmem|sevmiyorum|ненавижу|не люблю|терпеть не могу|jag hatar|jeg hader"
        r"|tycker inte om|bryder mig ikke om",
        r"嫌い|苦手|讨厌|不喜欢|受不了|싫어",
    ),
    (
        "we decided",
        r"decidimos|decidí|hemos decidido|he decidido|vamos a usar|vamos con"
        r"|on a décidé|nous avons décidé|j'ai décidé|on part sur|on va utiliser"
        r"|wir haben (?:uns )?entschieden|entschieden|beschlossen|wir nehmen"
        r"|decidimos|decidi|resolvemos|vamos usar|abbiamo deciso|ho deciso|useremo"
        r"|we hebben besloten|besloten|we gaan voor|zdecydowaliśmy|zdecydowałem|zdecydowałam"
        r"|postanowiliśmy|karar verdik|karar verdim|karar aldık|решили|решил|решила"
        r"|vi har bestämt|bestämt mig|vi har besluttet|besluttet|vi har bestemt"
        r"|he decidit|hem decidit|am hotărât|am hotarat|am decis|am hotărît"
        r"|вирішила|вирішив|вирішили|rozhodla jsem|rozhodl jsem|rozhodli jsme",
        r"決めた|決めました|決めます|決定|ことにした|ことにしました|ことになった|ことになりました"
        r"|决定|定了|选了|就用|하기로 했|하기로 결정|로 결정",
    ),
    (
        "my goal is to",
        r"mi objetivo|mi meta|nuestro objetivo|quiero aprender|algún día|este año quiero"
        r"|mon objectif|notre objectif|je veux apprendre|un jour|cette année je veux"
        r"|mein ziel|unser ziel|ich will lernen|ich möchte lernen|irgendwann|dieses jahr will"
        r"|meu objetivo|nosso objetivo|quero aprender|um dia|il mio obiettivo|il nostro obiettivo"
        r"|voglio imparare|un giorno|mijn doel|ons doel|ik wil leren|ooit|mój cel|nasz cel"
        r"|chcę się nauczyć|chcę nauczyć|kiedyś|hedefim|hedefimiz|öğrenmek istiyorum|bir gün"
        r"|моя цель|наша цель|хочу научиться|хочу выучить|когда-нибудь|mitt mål|mit mål"
        r"|vårt mål|vores mål|en dag",
        r"目標|目指|いつか|習いたい|学びたい|目标|想学|打算|希望能|争取|목표|배우고 싶",
    ),
    (
        "today",
        r"hoy|aujourd'hui|heute|hoje|oggi|vandaag|dziś|dzisiaj|bugün|сегодня|idag|i dag",
        r"今日|今天|오늘",
    ),
    (
        "tonight",
        r"esta noche|ce soir|heute abend|heute nacht|hoje à noite|esta noite|stasera"
        r"|stanotte|vanavond|dziś wieczorem|dzisiaj wieczorem|bu akşam|bu gece|сегодня вечером"
        r"|вечером",
        r"今夜|今晩|今晚|今天晚上",
    ),
    (
        "right now",
        r"ahora mismo|en este momento|en ce moment|là maintenant|gerade|im moment|agora mesmo"
        r"|neste momento|in questo momento|adesso|op dit moment|nu even|właśnie|w tej chwili"
        r"|şu an|şimdi|прямо сейчас|сейчас|just nu|lige nu",
        r"今から|只今|现在正|正在|此刻|지금",
    ),
    (
        "tomorrow",
        r"mañana por|pasado mañana|demain|morgen früh|übermorgen|amanhã|domani|dopodomani"
        r"|jutro|pojutrze|yarın|завтра|послезавтра|i morgon|imorgon|i morgen",
        r"明日|あした|明天|后天|내일",
    ),
    (
        "this week",
        r"esta semana|este finde|este fin de semana|cette semaine|ce week-end|diese woche"
        r"|dieses wochenende|esta semana|este fim de semana|questa settimana|questo weekend"
        r"|deze week|dit weekend|w tym tygodniu|w ten weekend|bu hafta|bu hafta sonu"
        r"|на этой неделе|в эти выходные",
        r"今週|今週末|这周|这个周末|本周",
    ),
    (
        "tired and stressed",
        r"cansad[oa]|agotad[oa]|estresad[oa]|fatigué|fatiguée|crevé|crevée|épuisé|épuisée"
        r"|stressé|stressée|müde|erschöpft|gestresst|kaputt|exaust[oa]|estressad[oa]"
        r"|stanc[oa]|stressat[oa]|distrutt[oa]|moe|uitgeput|gestrest|zmęczon[ya]|zestresowan[ya]"
        r"|yorgun|yorgunum|stresliyim|устал|устала|в стрессе|trött|træt|slut idag|smadret",
        r"疲れ|眠い|ストレス|累|困了|压力|피곤",
    ),
    (
        "yesterday",
        r"ayer|anoche|hier|gestern|ontem|ieri|gisteren|wczoraj|dün|вчера|igår|i går",
        r"昨日|昨夜|昨天|昨晚|어제",
    ),
    (
        "last week",
        r"la semana pasada|el mes pasado|el año pasado|el finde pasado|la semaine dernière"
        r"|le mois dernier|l'an dernier|l'année dernière|letzte woche|letzten monat"
        r"|letztes jahr|vorige woche|semana passada|mês passado|ano passado"
        r"|la settimana scorsa|il mese scorso|l'anno scorso|vorige week|vorige maand"
        r"|vorig jaar|afgelopen|w zeszłym tygodniu|w zeszłym miesiącu|w zeszłym roku"
        r"|w ubiegłym|geçen hafta|geçen ay|geçen yıl|на прошлой неделе|в прошлом месяце"
        r"|в прошлом году|förra veckan|i sidste uge|sidste år|i fjol",
        r"先週|先月|去年|上周|上个月|上个周末|上礼拜|지난주|작년|지난달",
    ),
    (
        HABIT_GLOSS,
        r"cada|todos los|todas las|siempre|normalmente|suelo|solemos|chaque|tous les"
        r"|toutes les|toujours|d'habitude|en général|jeden tag|jede woche|immer|normalerweise"
        r"|meistens|todo dia|todos os dias|sempre|costumo|ogni|tutti i giorni|di solito"
        r"|elke|iedere|altijd|meestal|każdego|codziennie|zawsze|zwykle|her gün|her sabah"
        r"|her hafta|hep|genellikle|her zaman|каждый|каждое|каждую|всегда|обычно|varje|hver"
        r"|alltid|altid|brukar|plejer",
        r"毎日|毎朝|毎週|毎晩|いつも|普段|每天|每周|每个|总是|通常|平时|매일|매주|항상",
    ),
    (
        "we use",
        r"usamos|utilizamos|trabajamos con|on utilise|nous utilisons|on bosse avec"
        r"|wir nutzen|wir verwenden|wir benutzen|wir setzen .{1,30} ein|usamos|utilizamos"
        r"|usiamo|utilizziamo|we gebruiken|wij gebruiken|używamy|korzystamy z|kullanıyoruz"
        r"|используем|мы на|vi använder|vi bruger|vi kör",
        r"使っています|使ってる|を使う|で動いて|我们用|我们使用|用的是|跑在|를 써요|을 써요"
        r"|사용해요",
    ),
    (
        "i work at",
        r"trabajo en|trabajo como|soy (?:ingenier|desarrollador|diseñador|profesor|médic)\w*"
        r"|je travaille|je bosse|je suis (?:ingénieur|développeu|designer|prof)\w*"
        r"|ich arbeite|ich bin (?:ingenieur|entwickler|lehrer|designer)\w*|trabalho"
        r"|lavoro|ik werk|pracuję|çalışıyorum|работаю|jag jobbar|jeg arbejder|jeg jobber",
        r"で働いて|に勤めて|の仕事|在.{1,12}工作|上班|我是.{1,8}(?:工程师|设计师|老师)"
        r"|에서 일해|로 일해",
    ),
    (
        "i live in",
        r"vivo en|vivimos en|j'habite|nous habitons|je vis à|ich wohne|wir wohnen|ich lebe in"
        r"|moro em|moramos em|vivo em|abito a|vivo a|abitiamo|ik woon|wij wonen|we wonen"
        r"|mieszkam|mieszkamy|yaşıyorum|oturuyorum|живу|живём|живем|jag bor|jeg bor|vi bor",
        r"に住んで|住在|我家在|에 살아요|에 살고",
    ),
    (
        "my name is",
        r"me llamo|mi nombre es|je m'appelle|mon nom est|ich heiße|mein name ist|chamo-me"
        r"|me chamo|mi chiamo|ik heet|mam na imię|nazywam się|adım|меня зовут|jag heter"
        r"|jeg hedder|jeg heter|mă numesc|numele meu este|jmenuji se|jmenuju se",
        r"と申します|私の名前は|と呼んで|我叫|我的名字|叫我",
    ),
    (
        "thanks",
        r"gracias|muchas gracias|merci|danke|vielen dank|obrigad[oa]|valeu|grazie"
        r"|bedankt|dank je|dankjewel|dzięki|dziękuję|teşekkürler|teşekkür ederim|sağ ol"
        r"|спасибо|благодарю|tack|tusind tak|mange tak",
        r"ありがとう|どうも|谢谢|多谢|感谢|고마워|감사",
    ),
    (
        "haha cool ok",
        r"jaja+|jeje|genial|guay|qué bien|mdr|ptdr|génial|d'accord|parfait|cool"
        r"|haha+|klasse|alles klar|kkk+|beleza|ahah+|fico|perfetto"
        r"|leuk|świetnie|spoko|harika|tamam|süper|круто|класс|отлично|ладно",
        r"笑|いいね|なるほど|了解|哈哈|好的|不错|太好了",
    ),
    (
        "what how where why",
        r"qué|cómo|dónde|cuándo|por qué|cuál|quoi|pourquoi|est-ce que|qu'est-ce"
        r"|warum|wieso|weshalb|o que|onde|por que|waarom|hoe kan|hoe moet"
        r"|dlaczego|gdzie|nasıl|nerede|neden|почему|где|зачем",
        r"ですか|ますか|なぜ|どうして|どこ|什么|怎么|为什么|哪里|吗",
    ),
    (
        REPLY_GLOSS,
        r"contést(?:ame|enme)|respónde(?:me|nos)|responde(?:me)?|escríbe(?:me|nos)|háblame"
        r"|réponds(?:-moi)?|répondez(?:-moi)?|écris-moi|écrivez-moi|parle-moi"
        r"|antworte(?: mir)?|antworten sie|schreib(?:e)? mir|sprich mit mir"
        r"|responda|responde sempre|escreve(?:-me)?|fala comigo|rispondi(?:mi)?|rispondetemi"
        r"|scrivimi|parlami|antwoord(?: mij)?|schrijf me|odpowiadaj|odpowiedz|pisz do mnie"
        r"|cevap ver|yanıtla|yaz bana|отвечай|ответь|пиши мне|говори со мной|baat karo|jawab do",
        r"で答えて|で返事|で返して|で書いて|回答请用|请用|用中文|用英文|답변|대답해|로 써",
    ),
    (
        "remember that",
        r"recuerda que|ten en cuenta|apunta que|n'oublie pas|retiens que|note que|merk dir"
        r"|denk daran|vergiss nicht|lembra que|não esquece|ricorda che|tieni presente|onthoud"
        r"|vergeet niet|zapamiętaj|pamiętaj|unutma|aklında tut|запомни|не забудь",
        r"覚えておいて|忘れないで|记住|记得|别忘了",
    ),
    (
        "since we switched to",
        r"ahora uso|ahora usamos|ya no|cambiamos a|me pasé a|nos pasamos a|maintenant|désormais"
        r"|ne .{1,20} plus|nous sommes passés|on est passé|jetzt|inzwischen|mittlerweile"
        r"|nicht mehr|gewechselt|umgestiegen|agora|já não|mudamos para|mudei para|adesso uso"
        r"|non .{1,20} più|siamo passati|sono passato|tegenwoordig|niet meer|overgestapt"
        r"|teraz|już nie|przeszliśmy na|przeszedłem na|artık|geçtik|geçtim|теперь|больше не"
        r"|перешли на|перешёл на",
        r"今は|最近は|乗り換え|切り替え|に変更|もう使って|现在|不再|改用|换成|换到|改成",
    ),
)


#: The same cues in Greek (word boundaries apply), by gloss.
GREEK: dict[str, str] = {
    "need to": r"πρέπει να|χρειάζεται να|έχω να",
    "remind me": r"θύμισέ μου|θύμισε μου|υπενθύμισέ μου",
    "i like": r"μου αρέσει|μου αρέσουν|λατρεύω|αγαπώ",
    "i prefer": r"προτιμώ|προτιμάμε",
    "i hate": r"σιχαίνομαι|μισώ|δεν μου αρέσει|δεν αντέχω",
    "we decided": r"αποφασίσαμε|αποφάσισα|καταλήξαμε",
    "my goal is to": r"στόχος μου είναι|ο στόχος μου|θέλω να καταφέρω",
    "today": r"σήμερα",
    "tonight": r"απόψε",
    "right now": r"αυτή τη στιγμή|τώρα αμέσως",
    "tomorrow": r"αύριο",
    "this week": r"αυτή την εβδομάδα",
    "tired and stressed": r"κουρασμένος|κουρασμένη|πτώμα|αγχωμένος|αγχωμένη",
    "yesterday": r"χθες|χτες",
    "last week": r"την περασμένη εβδομάδα|πέρσι|τον περασμένο μήνα",
    "every day usually always": r"κάθε μέρα|κάθε πρωί|κάθε βράδυ|συνήθως|πάντα|κάθε",
    "we use": r"χρησιμοποιούμε|δουλεύουμε με",
    "i work at": r"δουλεύω (?:ως|σαν|στην|στο|σε)|εργάζομαι",
    "i live in": r"μένω (?:στην|στο|σε)|ζω (?:στην|στο|σε)",
    "my name is": r"με λένε|λέγομαι|το όνομά μου είναι",
    "thanks": r"ευχαριστώ|σε ευχαριστώ",
    "haha cool ok": r"χαχα|τέλεια|εντάξει|ωραία",
    "what how where why": r"τι|πώς|πού|γιατί|πότε",
    "please reply in": r"απάντησέ μου|απάντα μου|στα ελληνικά",
    "remember that": r"να θυμάσαι|θυμήσου",
    "since we switched to": r"τώρα|πλέον|πια|αλλάξαμε|περάσαμε σε|αντί για",
}
#: Korean cues of a change (no word boundaries), beside the CJK ones.
_KOREAN_CHANGE = r"요즘|대신|바꿨|바꾸었|옮겼|갈아탔|전환했|이제"


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    out: list[tuple[str, re.Pattern[str]]] = []
    for gloss, spaced, cjk in GLOSSES:
        words = f"{spaced}|{GREEK[gloss]}" if gloss in GREEK else spaced
        unspaced = f"{cjk}|{_KOREAN_CHANGE}" if gloss == "since we switched to" else cjk
        out.append((gloss, re.compile(rf"(?<!\w)(?:{words})(?!\w)|{unspaced}", re.I)))
    return tuple(out)


def glosses(text: str) -> tuple[str, ...]:
    """The English glosses of the cues ``text`` holds, in :data:`GLOSSES` order.

    >>> glosses("Wir haben uns für Postgres entschieden")
    ('we decided',)
    >>> glosses("Πρέπει να ανανεώσω το διαβατήριο αύριο")
    ('need to', 'tomorrow')
    """
    return tuple(gloss for gloss, pattern in _patterns() if pattern.search(text))
