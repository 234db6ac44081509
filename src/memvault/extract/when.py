"""When a clause is true: the time words the extractor reads.

Today's words make a statement a one-off ("tonight", "right now", "heute"); the
next hours' logistics ("at 3pm", "back online later") make it a one-off too; a
schedule or a routine ("every Monday", "usually", "weekly") makes it a standing
fact; a change made ("switched to …") outlasts the day it was made; a request
for the next hours ("meanwhile", "until I'm back") is no standing preference; a
calendar date names the day of an event. :mod:`memvault.extract.rules` decides
with them.

>>> bool(TODAY.search("ordering sushi tonight")), bool(SCHEDULE.search("previews on every PR"))
(True, False)
>>> bool(SCHEDULE.search("we open at 7 every day")), bool(TEMPORARY.search("hold merges for now"))
(True, True)
>>> bool(CRON.search("fires at 3, cron `15 3 * * 1-5`")), bool(CRON.search("rooms 1 2 3 4 5"))
(True, False)
"""

from __future__ import annotations

import re

__all__ = [
    "CALENDAR_DATE",
    "CRON",
    "DONE_CHANGE",
    "HABITUAL",
    "LOGISTICS",
    "NOW_STATE",
    "RECURRING",
    "RECURRING_OTHER",
    "SCHEDULE",
    "TASTE",
    "TEMPORARY",
    "TEMPORARY_WORDS",
    "THE_DAY",
    "TODAY",
    "TODAY_OTHER",
]

#: Words that put a statement in today (a one-off unless it is a todo or reminder).
TODAY = re.compile(
    r"\b(?:today(?:'s)?|tonight|this (?:morning|afternoon|evening)|right now|at the moment"
    r"|in (?:\d+|a few|five|ten|twenty) (?:min(?:ute)?s?|hours?)|in an hour|later today"
    r"|(?:the )?whole (?:morning|afternoon|day)|all (?:morning|afternoon|evening))\b",
    re.I,
)
#: Logistics of the next hours or days ("a 1:1 at 3pm", "on call this weekend", "in late
#: tomorrow"): one-offs when no rule read the clause and it is not a todo or reminder.
LOGISTICS = re.compile(
    r"\b(?:at \d{1,2}(?::\d{2})?\s*(?:am|pm)?|at noon|at midnight|(?:this|all|the whole) weekend"
    r"|tomorrow (?:morning|afternoon|evening|night|at)|until \d{1,2}|after lunch|before lunch"
    r"|in (?:an|a couple of|two|a few) hours?|back (?:online|in an hour|later)"
    r"|(?:be|running|'ll be) (?:late|offline|out|away|afk)|bear with me|on call|ooo"
    r"|out of (?:the )?office)\b",
    re.I,
)
#: A standing schedule, not a one-off ("standup is at 9:30 every day").
RECURRING = re.compile(
    r"\b(?:every|each|daily|weekly|monthly|nightly|hourly|yearly|quarterly"
    r"|on (?:mon|tues|wednes|thurs|fri|satur|sun)days"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days? (?:mornings|afternoons|evenings|nights))\b",
    re.I,
)
#: Weekday names (or their stems) in the other languages the reader reads.
_WEEKDAYS_OTHER = (
    r"lunes|martes|miércoles|jueves|viernes|sábados?|domingos?|lundis?|mardis?|mercredis?"
    r"|jeudis?|vendredis?|samedis?|dimanches?|montag|dienstag|mittwoch|donnerstag|freitag"
    r"|samstag|sonntag|segundas?|terças?|quartas?|quintas?|sextas?|lunedì|martedì|mercoledì"
    r"|giovedì|venerdì|sabato|domenica|maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag"
    r"|zondag|poniedział\w*|wtor\w*|środ\w*|czwart\w*|piąt\w*|sobot\w*|niedziel\w*"
    r"|pondělí|úterý|střed\w*|čtvrt\w*|pátek|neděl\w*|luni|marți|miercuri|joi|vineri"
    r"|sâmbăt\w*|duminic\w*|pazartesi|salı|çarşamba|perşembe|cuma|cumartesi|pazar"
    r"|måndag|tisdag|onsdag|torsdag|fredag|lördag|söndag|mandag|tirsdag|lørdag|søndag"
    r"|понедельник\w*|вторник\w*|сред\w*|четверг\w*|пятниц\w*|суббот\w*|воскресень\w*"
)
#: A weekly routine in another language: "every" before a weekday ("cada jueves", "jeden
#: zweiten Dienstag", "w każdą sobotę", "în fiecare joi", "her perşembe"), a weekday said
#: as a habit ("los jueves", "le jeudi matin", "dienstags", "aos sábados", "по средам"),
#: or a weekly day in the unspaced scripts ("毎週月曜", "每周三", "매주 화요일").
RECURRING_OTHER = re.compile(
    r"(?<!\w)(?:(?:cada|todos los|todas las|toda|todo|tous les|chaque|jeden|jede|ogni|tutti i"
    r"|elke|iedere|co|każd\w*|každ\w*|în fiecare|fiecare|her|varje|hver|каждый"
    r"|каждую|каждое)\s+(?:\w+\s+)?(?:" + _WEEKDAYS_OTHER + r")"
    r"|(?:los|las|le|il|aos|às|nas|по)\s+(?:" + _WEEKDAYS_OTHER + r")(?!\s*\d)"
    # Swedish and Danish say a habit in the plural or the definite ("på måndagar", "om
    # mandagen"); "på onsdag" is this Wednesday
    r"|på\s+(?:måndag|tisdag|onsdag|torsdag|fredag|lördag|söndag)ar"
    r"|om\s+(?:mandag|tirsdag|onsdag|torsdag|fredag|lørdag|søndag)en"
    r"|(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)s"
    r"|(?:pazartesi|salı|çarşamba|perşembe|cuma|cumartesi|pazar)(?:leri|ları| günleri))(?!\w)"
    r"|毎週|每周|每星期|每个星期|每週|매주",
    re.I,
)
#: A cron line ("`0 2 * * *`", "15 3 * * 1-5"): five fields of digits, ranges, steps
#: and stars, at least one a star — a schedule, however its clause names the hour.
CRON = re.compile(
    r"(?<![\w*/,-])(?=(?:[\d/,-]+\s+){0,4}[\d/,-]*\*)(?:[\d*][\d*/,-]*\s+){4}[\d*][\d*/,-]*(?![\w*/,-])"
)
#: A time that recurs ("every day", "each Monday", "weekly", "on Fridays"), not "every PR".
SCHEDULE = re.compile(
    r"\b(?:(?:every|each)\s+(?:other\s+)?(?:day|morning|afternoon|evening|night|week|weekend"
    r"|month|year|quarter|sprint|(?:mon|tues|wednes|thurs|fri|satur|sun)day)s?"
    r"|daily|weekly|monthly|nightly|on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    re.I,
)
#: A routine ("every morning", "twice a week", "most weekends", "usually"): a habit
#: is a standing fact about the person, never a one-off.
HABITUAL = re.compile(
    r"\b(?:every(?! (?:time|single time|now and))|each(?! time)|daily|weekly|monthly|nightly"
    r"|usually|normally|always|twice a|once a"
    r"|(?:three|four|five|a few|several) times a|most (?:days|mornings|evenings|nights|weekends"
    r"|weeks)|on (?:mon|tues|wednes|thurs|fri|satur|sun)days|weekends|weeknights"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days? (?:mornings|afternoons|evenings|nights))\b",
    re.I,
)
TASTE = re.compile(
    r"\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|adore|hate|hates|can't stand"
    r"|favou?rite|fan of|into)\b",
    re.I,
)
#: The same, in the other languages the reader reads (for clauses kept word for word).
TODAY_OTHER = re.compile(
    # not a bare "now" ("ahora", "jetzt", "现在"): in these languages it is the commonest
    # way to say a change ("ahora uso Neovim"), not a one-off
    r"(?<!\w)(?:hoy|esta (?:noche|tarde|mañana)|ahora mismo|aujourd'hui|ce soir|ce matin"
    r"|cet après-midi|en ce moment|heute(?: abend| morgen| nachmittag)?|gerade"
    r"|hoje(?: à noite)?|esta noite|oggi|stasera|stamattina|in questo momento"
    r"|vandaag|vanavond|vanochtend|op dit moment|dziś|dzisiaj|dziś wieczorem|bugün"
    r"|bu akşam|bu sabah|şu an|сегодня|вечером"
    # "right now" said as such (session 18): Catalan, Portuguese, Italian, Polish,
    # Romanian, Czech, Dutch, Swedish/Danish, Russian
    r"|ara mateix|en aquest moment|agora mesmo|proprio ora|proprio adesso|właśnie teraz"
    r"|chiar acum|právě teď|juist nu|precis nu|прямо сейчас)(?!\w)"
    r"|今日|今夜|今朝|今天|今晚|今早|此刻|今ちょうど|ちょうど今|지금 막",
    re.I,
)
#: A change made ("we bumped dagster to 1.10.1 today", "upgraded the cluster this morning"):
#: the new state of things outlasts the day it was made.
DONE_CHANGE = re.compile(
    r"\b(?:switched|moved|migrated|upgraded|downgraded|bumped|replaced|pinned|rolled back"
    r"|went back|changed)\b(?:\s+[\w.+#/=@-]+){0,5}?\s+(?:to|from|with|onto|over)\b",
    re.I,
)

#: "My main project right now is …": the state is current, not today's.
NOW_STATE = re.compile(r"\b(?:right now|at the moment)\b", re.I)
#: How the day went, said of the day ("what a day", "all week", "all night"): beside
#: :data:`TODAY`, the words of a turn about the moment.
THE_DAY = re.compile(r"\b(?:what an? (?:day|morning|week|night)|all (?:day|week|night))\b", re.I)

#: A request for the next hours ("don't merge anything meanwhile", "hold the deploys
#: until I'm back"): a standing rule's words, true for an afternoon.
TEMPORARY_WORDS = (
    "meanwhile",
    "in the meantime",
    "for now",
    "for the time being",
    "until i'm back",
    "until i get back",
    "while i'm (?:away|out|off|gone|offline)",
)
TEMPORARY = re.compile(rf"\b(?:{'|'.join(TEMPORARY_WORDS)})\b", re.I)


#: A calendar date: a month named (in the languages the reader reads) or written in digits.
CALENDAR_DATE = re.compile(
    r"(?<!\w)(?:jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|enero|febrero|marzo|abril"
    r"|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janvier|février|mars"
    r"|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|januar|februar|märz"
    r"|juni|juli|oktober|dezember|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro"
    r"|novembro|dezembro|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre"
    r"|dicembre)(?!\w)|\d{4}-\d{2}-\d{2}|(?<![\d:])\d{1,2}[./]\d{1,2}(?![\d:])|\d+月",
    re.I,
)
