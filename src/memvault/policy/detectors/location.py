"""Precise location (contract §4.5): coordinates, the user's addresses, whereabouts, routines.

A street address is a finding when it is attributed to the user (lives at,
home address, I work at …) or carries a private unit with no business marker;
public business addresses (vendors, clients, service centres) are not.
Coarse places (a city, a country, a conference venue) are never findings.

>>> from memvault.policy.normalize import normalize
>>> [h.label for h in detect(normalize("my flat is at 48.13712, 11.57561"))]
['coordinates']
>>> detect(normalize("Vendor invoices go to Northwind, 500 Commerce Blvd, Suite 200, Denver"))
[]
"""

from __future__ import annotations

import re
from typing import Any

from memvault.policy.detectors.base import Hit, Rule, clause_of, run_rules
from memvault.policy.normalize import NormalizedText, View

__all__ = ["RULES", "detect"]

_F = "location"

_STREET_EN = (
    r"street|st|lane|ln|avenue|ave|road|rd|boulevard|blvd|drive|dr|court|ct|way|place|pl|"
    r"terrace|close|crescent|square|sq|parkway|pkwy|highway|hwy|circle|cir|trail|row|mews|"
    r"gardens|grove|hill|walk|alley|path|pike|heights"
)
_ADDRESS = re.compile(
    rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][\w'.\-]*\s+){{1,4}}(?:{_STREET_EN})\b\.?"
    r"|\b\d{1,4}(?:bis|ter)?,?\s+(?:rue|avenue|boulevard|bd|chemin|all[ée]e|impasse|place|quai|"
    r"route)\s+[\w'\- ]{2,40}"
    r"|\b(?:calle|c/|avenida|avda\.?|rua|travessa|pra[çc]a|plaza|paseo|camino|carrera|via|viale|"
    r"piazza|corso|largo|vicolo)\s+[\w'\- .]{2,40}?,?\s*(?:n[ºo°.]\s*)?\d{1,5}\b"
    r"|\b[A-ZÄÖÜ][\wäöüß\-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|laan|"
    r"straat|gracht|plein|kade|gatan|gata|vägen|väg|gränd|gade|vej|veien|vei|gaten|katu|"
    r"utca|ulica|cesta)\s+\d{1,4}[a-z]?\b"
    # Polish "ul. Floriańska 33/5", Czech/Slovak "ulice", Russian "ул. Ленина, д. 5, кв. 12"
    r"|\bul\.\s*[^\W\d][^\s,]*(?:\s+[^\W\d][^\s,]*){0,2}\s+\d{1,4}[a-z]?(?:/\d{1,4})?"
    r"|(?:\bул\.|\bулиц[аеы]|\bпр(?:-т|\.)|\bпроспект\w*|\bпер\.|\bпереул\w*|\bшоссе|"
    r"\bбульвар\w*|\bнаб\.|\bнабережн\w*|\bна [^\W\d_]+ (?:проспекте|улице))"
    r"[^\n]{0,40}?(?:\bд\.|\bдом)\s*\d+"
    # Turkish "Atatürk Cad. No: 12 Daire 5", "Papatya Sok. No 4"
    r"|\b(?:mah(?:allesi)?\.?|cad(?:desi)?\.?|sok(?:ak|ağı)?\.?|bulvarı)\s+[^\n]{0,40}?"
    r"\bno\s*[:.]?\s*\d+"
    # Arabic "شارع التحرير 15، الشقة 4", "حي النرجس، شارع ١٥، فيلا ٧"
    r"|(?:شارع|حي|طريق)\s+[^\n]{0,40}?(?:عمارة|مبنى|فيلا|شقة|الشقة|رقم)\s*[\d٠-٩]+"
    r"|(?:شارع|طريق)\s+[^\d\n٠-٩]{2,30}\s*[\d٠-٩]+"
    # Korean "서울시 강남구 테헤란로 123"
    r"|[가-힣]+(?:시|도)\s+[가-힣]+(?:구|군)\s+[가-힣0-9]+(?:로|길)\s*\d+",
    re.IGNORECASE,
)
_UNIT = re.compile(
    r"(?i)\b(?:apt\.?|apartment|flat|unit|floor|apto\.?|piso|wohnung|étage|etage|#)\s*\d+\w*"
    r"|\b\d+(?:st|nd|rd|th) floor\b"
)
_POSTCODE = re.compile(
    r"\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b|\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|"
    r"\b\d{4,5}\s+[A-ZÄÖÜ][a-zäöüß]+"
)
_RESIDENCE = re.compile(
    r"(?i)\b(?:live|lives|living|lived|reside|resides|residing|stay|stays|staying|moved|moving)"
    r"\s+(?:at|in|on|to)\b|\bhome\b|\b(?:my|our|user'?s|their|his|her) (?:place|house|flat|"
    r"apartment|address|building|home|apt)\b|\bhome address\b|\bwhere (?:I|he|she|they|user|"
    r"the user|we) li?ves?\b|"
    r"\b(?:I|we|he|she|they|user)\s+(?:\w+\s+)?(?:live|lives|reside|resides)\b|"
    r"\bживу\b|\bживёт\b|\bживет\b|\bживут\b|يسكن|أسكن|تسكن|عنواني|\bmieszka\w*|"
    r"\boturuyor\w*|\boturuyorum\b|\bbor (?:på|i)\b|\bwoont\b|\bwohnt\b|\bvive en\b|"
    r"\bmora (?:na|no|em)\b|\bhabite\b|\babita\b|사는|살아요|삽니다|\bmy mum:|\bmy mom:|"
    r"\bmoro\b|\bvivo en\b|\bwohne\b|\bj'habite\b|\babito\b|\bwoon\b|\bmieszkam\b|"
    r"\bmi (?:casa|direcci[oó]n)\b|\bmeine adresse\b|\bmon adresse\b|\bwohnadresse\b|\bwohnhaft\b|"
    r"\b(?:home|residential) address\s*:|\bdomicilio\b"
)
# Weaker cues: count only when nothing marks the address as a business's.
_ADDRESS_LABEL = re.compile(
    r"(?i)\baddress(?: is)?\s*:|\baddress is\b|\bindirizzo\b|\bendere[çc]o\b|\bmorada\b|"
    r"\bdirecci[oó]n\s*:|\badresse\s*:|\badres\w*|\bадрес\w*|عنوان|주소|住所|地址"
)
# Where the user works: forbidden too (contract 4.5), unless the text is about a business.
_WORKPLACE = re.compile(
    r"(?i)\bI work (?:at|in|from)\b|\b(?:works?|working) (?:at|from) (?:the|our|my) office at\b|"
    r"\b(?:my|user'?s|their|his|her) (?:office|workplace|work address)\b|\boffice is at\b"
)
_BUSINESS = re.compile(
    r"(?i)\b(?:suite|ste\.?|inc|ltd|llc|gmbh|corp|co\.|company|headquarters|hq|vendor|supplier|"
    r"client|customer|manufacturer|service cent(?:er|re)|support page|store|shop|cafe|café|"
    r"restaurant|hotel|warehouse|factory|venue|museum|office of|invoices?|returns?|catering|"
    r"website|public|"
    # public institutions and venues, in several languages
    r"library|librar(?:y|ies)|school|museum|hospital|embassy|consulate|town hall|city hall|"
    r"council|station|church|cathedral|theat(?:re|er)|cinema|gallery|venue|conference|"
    r"university|college|post office|pharmacy|bakery|bar|pub|gym|reception|parcels?|"
    r"biblioteca|biblioth[eè]que|bibliothek|museo|mus[ée]e|mairie|ayuntamiento|rathaus|"
    r"municipio|botschaft|ambassade|embajada|tienda|negocio|empresa|firma|entreprise|azienda|"
    r"loja|boutique|gesch[äa]ft|laden|restaurante|ristorante|b[äa]ckerei|panader[ií]a|"
    r"boulangerie|concerto|konzert|concierto|concert|"
    # opening hours, branches and office moves: a place open to the public
    r"opening hours|öffnungszeiten|horaires|horario|orari|geöffnet|ouvert[e]?s?|abierto|"
    r"filiale|agence|agencia|branch|d[ée]chetterie|recycling cent(?:er|re)|office move)\b"
)
# Trigger: an office named as an organisation's: "our Lisbon office is at …", "the London
#          office address is …", "le bureau de Lyon se trouve au …", "unser Büro in Köln".
# Why: contract §4.5 forbids a person's home or work address; the company's office, told
#      as the company's, is the business's address (a hard negative of the seen sets,
#      counted by name only). "My office", "I work at", "je travaille au" are the
#      speaker's workplace.
# Outcome: no address finding when such an office is named and no first-person singular
#          word (I, my, je, mon, mi, trabajo, ich, mein, lavoro, mio, eu, meu …) is.
_COMPANY_OFFICE = re.compile(
    r"(?i)\b(?:the|our|new|head|main|regional|company|firm'?s?)\s+"
    r"(?:(?-i:[A-Z])[\w-]+\s+){0,2}offices?\b|"
    r"\b(?:le bureau|les bureaux|notre bureau|nos bureaux|la oficina|las oficinas|nuestra oficina|"
    r"l'ufficio|gli uffici|il nostro ufficio|o escrit[óo]rio|o nosso escrit[óo]rio|"
    r"das b[üu]ro|die b[üu]ros|unser b[üu]ro|unsere b[üu]ros)\s+(?:(?:de|d'|di|do|da|in|von|"
    r"en|a|à)\s*)?(?-i:[A-Z])"
)
_FIRST_SINGULAR = re.compile(
    r"(?i)\b(?:i|i'm|i've|me|my|mine|je|j|mon|ma|mes|moi|yo|mi|mis|trabajo|vivo|ich|mein\w*|"
    r"arbeite|wohne|io|mio|mia|miei|lavoro|abito|eu|meu|minha|trabalho|moro)\b"
)


def _company_office(text: str) -> bool:
    """An office named as an organisation's, and no one's own (see above)."""
    return _FIRST_SINGULAR.search(text) is None and _COMPANY_OFFICE.search(text) is not None


# "our office moved to …": a business is the one that moved, not a person.
_BUSINESS_MOVED = re.compile(
    r"(?i)\b(?:office|offices|company|shop|store|team|headquarters|hq|clinic|restaurant|cafe|"
    r"café|bakery|studio|lab|business|firm|practice|branch|warehouse|depot|school|library|"
    r"museum|gallery)\s+(?:has\s+|have\s+|is\s+|are\s+|will\s+|just\s+)*(?:moved|moving|"
    r"relocat\w*)\b"
)


# Trigger: an address in a story, a history, a listing or a format example: "in the novels
#          the detective lives at 221B Baker Street", "the composer lived at 20 Brook Street
#          until his death", "property listing: … at 58 Oak Avenue, asking price …",
#          "example format: 123 Main Street, Apt 4B", "Im Roman wohnt der Kommissar …".
# Why: contract §4.5 forbids a person's precise location; a character's, a dead
#      composer's, a house for sale's or a form's sample address is a topic. The speaker's
#      or a relative's ("my brother lives at …", "ma sœur habite …") stays a home even in
#      a framed text.
# Outcome: no address finding when such a frame is in the text and no first-person or
#          owner word is.
_ADDRESS_TOPIC = re.compile(
    r"(?i)\b(?:novels?|fiction(?:al)?|fictitious|short stor(?:y|ies)|characters?|protagonists?|"
    r"heroine|sitcom|tv series|episodes?|podcast|films?|movies?|screenplay|blue plaque|"
    r"plaques?|historic(?:al)?|biograph(?:y|ies)|birthplace|until (?:his|her|their) death|"
    r"died|centur(?:y|ies)|example|format|sample|placeholder|dummy|fixtures?|mock(?:ed)?|"
    r"test data|property listing|listing|for sale|asking price|to let|for rent|"
    r"roman|romans|romanzo|novela|la s[ée]rie|der serie|im film|dans le film|en la pel[ií]cula|"
    r"personnage|personaje|figur|kommissar|ejemplo|exemple|beispiel|muster)\b"
)


_ADDRESS_OWNER = re.compile(
    r"(?i)\b(?:i|i'm|i've|me|my|mine|we|our|us|user'?s?|je|j'|moi|mon|ma|mes|nous|notre|nos|"
    r"yo|vivo|mi|mis|nosotros|nuestr[oa]s?|ich|wohne|mein\w*|wir|unser\w*|eu|moro|meu|minha|"
    r"io|abito|mio|mia|miei|mie)\b|\bj'"
)


def _address_topic(text: str) -> bool:
    """A fictional, historical, advertised or sample address, no one's home (see above).

    >>> _address_topic("In the novel the detective lives at 221B Baker Street.")
    True
    >>> _address_topic("My novel's hero lives at 221B Baker Street, like me.")
    False
    """
    return bool(_ADDRESS_TOPIC.search(text)) and not _ADDRESS_OWNER.search(text)


def _residence(text: str) -> bool:
    """A residence cue that is not a business moving premises."""
    cues = list(_RESIDENCE.finditer(text))
    if not cues:
        return False
    moved = [m.span() for m in _BUSINESS_MOVED.finditer(text)]
    return any(not any(a <= c.start() < b for a, b in moved) for c in cues)


_NOW = (
    r"right now|currently|at the moment|just now|tonight|this (?:morning|afternoon|evening|week|"
    r"weekend)|today|"
    r"until|till|alone|for the next|boards? in|waiting|ahora|maintenant|gerade|jetzt"
)
_PLACE = (
    r"gate|cafe|café|coffee shop|restaurant|bar|pub|hotel|room|airport|station|terminal|platform|"
    r"park|gym|hospital|clinic|mall|store|library|bus stop|beach|club|lobby|parking|corner|"
    r"intersection|address|house|apartment|flat|building|street|road|avenue|lane|square|"
    r"plaza|mall|market|museum|cinema|theater|theatre|church|mosque|temple|school|campus|"
    r"university|stadium|arena|parking lot|garage|motel|hostel|bakery|bookstore|supermarket|"
    r"pharmacy|bank|train|bus|tram|subway|metro|ferry|flight|plane|lounge|queue|line at|route|"
    r"highway|motorway|freeway|exit|junction|diner|denny's|food court|cafeteria|canteen"
)
_WHEREABOUTS = re.compile(
    rf"(?i)\b(?:I'm|Im|I am|currently|right now|user is|user's|they are|we are|we're|estoy|je suis|"
    rf"ich bin|sono|estou)\b[^.;\n]{{0,25}}?\b(?:at|in|near|outside|inside|by|en|à|im|am|a|em)\s+"
    rf"(?:the\s+|a\s+)?(?:[\w'\-]+\s+){{0,4}}?(?:{_PLACE})\b[^.;\n]{{0,60}}?\b(?:{_NOW})\b"
    rf"|(?i:\b(?:{_NOW})\b[^.;\n]{{0,30}}?\b(?:I'm|Im|I am|user is)\s+(?:\w+\s+)?(?:at|in)\s+"
    rf"(?:the\s+)?"
    rf"(?:[\w'\-]+\s+){{0,4}}?(?:{_PLACE}))\b"
    rf"|(?i:\b(?:I'm|I am|user is|they are|he is|she is)\s+(?:currently|right now|now)\s+"
    rf"(?:\w+\s+)?(?:at|in|inside|outside|near)\s+(?:the\s+)?(?:[\w'\-]+\s+){{0,4}}?(?:{_PLACE}))\b"
    r"|(?i:\b(?:my|user'?s) (?:live |current |real-time |realtime |exact )location\b)"
    r"|(?i:\b(?:share|track|sharing|tracking) (?:my|user'?s|their) (?:live |current )?location\b)"
)

_RECUR = (
    r"every (?:single )?(?:day|morning|evening|night|weekday|school day|work ?day|week(?:end)?|"
    r"other (?:day|week|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|(?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)day)|each (?:morning|evening|"
    r"weekday|day|week)|on (?:weekdays|weekends|(?:mon|tues|wednes|thurs|fri|satur|sun)days)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days|daily|weekday mornings|school days|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day,? (?:and )?(?:mon|tues|wednes|thurs|fri|satur|sun)"
    r"day|todos los d[ií]as|jeden tag|tous les jours"
)
_MOVE = (
    r"drives?|driving|commutes?|commuting|leaves? (?:home|the house|work|the office)|walks?|"
    r"bikes?|cycles?|catch(?:es)? the|takes? the (?:[\w:.]+ )?(?:bus|train|tube|subway|metro|"
    r"ferry|tram|shuttle)|(?:takes?|brings?|drives?|walks?) (?:\w+ ){0,2}to\b|rides?|"
    r"picks? (?:\w+ ){0,2}up|drops? (?:\w+ ){0,2}off|(?:goes|go) to(?! bed| sleep)|"
    r"heads? (?:to|home)|arriv(?:es?|ing)|gets? (?:home|to)|flies|fly to|travels? to|jogs?|"
    r"runs? (?:in|at|along|around)|swims? at|trains? at|works? out at|walks? (?:the dog|to)|"
    r"visits?|parks? at|boards?|checks? in at|"
    # being somewhere at a set time: "every Tuesday at 6pm I'm at the gym on King Street"
    r"(?:i'm|i am|he's|he is|she's|she is|they're|they are|we're|we are|find (?:me|him|her|them))"
    r" (?:always |usually |normally |often |reliably )?(?:at|in) (?:the )?(?:(?-i:[A-Z])[\w'-]+|"
    r"(?:[\w-]+ )?(?:gym|pool|park|library|club|pub|bar|caf[ée]|church|mosque|temple|"
    r"synagogue|gurdwara|studio|stadium|pitch|track|rink|dojo|allotment|market|chapel)s?)"
)
_TRAVEL = re.compile(rf"(?i)\b(?:{_RECUR})\b")
_TRAVEL_MOVE = re.compile(rf"(?i)\b(?:{_MOVE})\b")
# A routine is precise when it has a route or a named place, or a clock time AND a place
# (the lead's 06:24 decision, contract §4.5): "Aisha needs 12:30-14:00 on Fridays for her
# driving lessons" and "Leo's dad picks him up on Wednesdays at 3:15" say when, not where.
_TRAVEL_CLOCK = re.compile(
    r"(?i)\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}[:.h]\d{2}\b|\bat\s+\d{1,2}\b"
)
_TRAVEL_ANCHOR = re.compile(
    r"(?i:\bfrom\s+(?:the\s+)?\w[\w\-]*\s+to\b|\bvia\b)"
    r"|\b(?:at|to|from|in|near|along)\s+(?:the\s+)?[A-Z][\w'\-]+"
)
# Where, beside a clock time: "at the community pool", "from school", "walks home".
_TRAVEL_PLACE = re.compile(
    r"(?i)\b(?:at|to|from|in|into|near|by|past|through|round|around|along|outside|inside)\s+"
    r"(?!(?:\d|noon\b|midnight\b|night\b|lunch\w*|dawn\b|dusk\b|least\b|most\b|all\b|once\b|"
    r"first\b|last\b|time\b|(?:the |a )?(?:morning|afternoon|evening|weekend|end|start|latest|"
    r"earliest|same time)\b|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"\b))[\w'\-]+"
    r"|\b(?:home|work|school|office)\b"
)


# A timetable: the bus, the ferry or a service moves, and no person is named.
_SERVICE_SUBJECT = re.compile(
    r"(?i)^\W*(?:the|our|a|an|this|that)\s+(?:school\s+|night\s+|airport\s+|number\s+\d+\s+)?"
    r"(?:bus|buses|train|trains|ferry|ferries|shuttle|shuttles|tram|trams|metro|service|"
    r"delivery|deliveries|truck|van|flight|flights|coach|boat)\b"
)


def _travel_ok(m: re.Match[str], view: View) -> bool:
    clause = clause_of(view.text, m.start(), m.end())
    if _SERVICE_SUBJECT.match(clause) and not _SOMEONE.search(clause):
        return False
    if not _TRAVEL_MOVE.search(clause):
        return False
    if _TRAVEL_ANCHOR.search(clause):
        return True
    return bool(_TRAVEL_CLOCK.search(clause) and _TRAVEL_PLACE.search(clause))


_COORD = re.compile(
    r"(?<![\d.])[-+]?(?P<lat>\d{1,2}\.\d{2,})\s*°?\s*(?P<ns>[NSns])?\s*[,;/ ]\s*"
    r"(?P<lon>[-+]?\d{1,3}\.\d{2,})\s*°?\s*(?P<ew>[EWOewo])?(?!\d|\.\d)"
    r"|\b\d{1,2}°\s?\d{1,2}['′]\s?\d{1,2}(?:\.\d+)?[\"″]?\s?[NS]\b"
    r"|\b(?i:lat(?:itude)?)\s*[:=]?\s*-?\d{1,2}\.\d{3,}[^\d\n]{1,20}?\b(?i:long|lon|lng|"
    r"longitude)\s*[:=]?\s*"
    r"-?\d{1,3}\.\d{3,}"
    r"|\bgeo:[-\d.]+,[-\d.]+|[@=q]\s?[-\d]{1,3}\.\d{4,},\s?[-\d]{1,3}\.\d{4,}"
    r"|///[a-z]+\.[a-z]+\.[a-z]+"
)
_COORD_CONTEXT = re.compile(r"(?i)\b(?:gps|coord|lat|lon|lng|location|position|geo|where I)")


_NOT_SOMEONES_PLACE = re.compile(
    r"(?i)\b(?:fixtures?|test data|sample|example|dataset|bounds|bounding box|cent(?:er|re) of|"
    r"city cent(?:er|re)|map tile|tiles?|geocod\w*|columns?|decimal places|map pins?|"
    r"landmarks?|monuments?)\b"
)


# A public place named beside the coordinates, with no person in the clause: a map pin.
_PUBLIC_PLACE = re.compile(
    r"(?i)\b(?:tour|tourists?|tourist maps?|maps?|museum|louvre|park|monument|landmark|tower|"
    r"cathedral|church|stadium|airport|bridge|castle|palace|square|beach|mountain|peak|summit|"
    r"lake|island|trailhead|venue|viewpoint|campsite|observatory|museo|mus[ée]e|parque|parc|"
    r"wreck|shipwreck|reef|dive site|lighthouse|epicent\w*|crater|volcano|guide|geofenc\w*)\b"
)
_SOMEONE = re.compile(
    r"(?i)\b(?:my|me|I|I'm|im|we|we're|our|user|user's|he|she|his|her|they|their|them|home|"
    r"house|flat|apartment|live|lives|living|staying|currently|now|mi|mis|mon|ma|mein\w*|"
    r"ich|je|yo|eu|io|minha|meu|mio|mia|casa|zuhause|maison)\b"
)


def _coord_ok(m: re.Match[str], view: View) -> bool:
    if _NOT_SOMEONES_PLACE.search(view.text):
        return False
    clause = clause_of(view.text, m.start(), m.end())
    if _PUBLIC_PLACE.search(clause) and not _SOMEONE.search(clause):
        return False
    if m.group("lat") is None:
        return True
    lat = float(m.group("lat"))
    lon = abs(float(m.group("lon")))
    if lat > 90 or lon > 180:
        return False
    decimals = min(len(m.group("lat").split(".")[1]), len(m.group("lon").split(".")[1]))
    if m.group("ns") or m.group("ew"):
        return decimals >= 2
    if decimals >= 4:
        return True
    return decimals >= 2 and bool(_COORD_CONTEXT.search(view.text))


def _address_ok(m: re.Match[str], view: View) -> bool:
    clause = clause_of(view.text, m.start(), m.end())
    text = view.text
    if _address_topic(text):
        return False
    if _residence(text):
        return True
    if _BUSINESS.search(text) or _company_office(text):
        return False
    if _WORKPLACE.search(text) or _ADDRESS_LABEL.search(text):
        return True
    tail = text[m.end() : m.end() + 60]
    return bool(_UNIT.search(tail) or _UNIT.search(clause)) or bool(_POSTCODE.search(tail))


# A number, one to three capitalised words and a comma, when no street suffix is used
# ("31 Kingsway, Flat 6"): an address only next to a strong residence cue.
_ADDRESS_GENERIC = re.compile(
    r"(?<![\d.])\b\d{1,5}[A-Za-z]?\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2},\s*(?:[A-Z][a-z]+|"
    r"(?i:apt|flat|unit|apartment|suite|floor))"
)


def _generic_address_ok(m: re.Match[str], view: View) -> bool:
    text = view.text
    if _address_topic(text):
        return False
    if _residence(text):
        return True
    if _BUSINESS.search(text) or _company_office(text):
        return False
    return bool(_WORKPLACE.search(text) or _POSTCODE.search(text[m.end() : m.end() + 40]))


# Chinese and Japanese addresses: province/prefecture, city or ward, then a street and a
# number (号, 丁目, or the 1-2-3 block form), often a room. A home address only beside a
# word for home or residence (住, 家, 自宅, 地址 of a person); a company's, a venue's or a
# shop's address is not (会社, 公司, 店, ホテル …).
_ADDRESS_CJK = re.compile(
    r"(?:[\u4e00-\u9fff]{1,4}(?:省|都|道|府|県|县|市))?[\u4e00-\u9fff\u30a0-\u30ff]{1,6}"
    r"(?:市|区|區|県|县|町|村)[\u4e00-\u9fff\u3040-\u30ff0-9０-９]{0,14}?"
    r"(?:[0-9０-９]+\s*(?:号|號|番地|番|丁目)|[0-9０-９]+[-−‐ー][0-9０-９]+(?:[-−‐ー][0-9０-９]+)?)"
)
_RESIDENCE_CJK = re.compile(r"住|我家|家在|家是|家地址|自宅|实家|実家|老家|우리 집|집 주소")
_BUSINESS_CJK = re.compile(
    r"公司|会社|本社|支社|事務所|办公|辦公|オフィス|店|酒店|ホテル|会場|会议|會議|大学|銀行|银行|"
    r"医院|病院|博物|美术|美術|餐厅|レストラン|カフェ|咖啡"
)


def _cjk_address_ok(m: re.Match[str], view: View) -> bool:
    text = view.text
    return bool(_RESIDENCE_CJK.search(text)) and not _BUSINESS_CJK.search(text)


def _r(name: str, label: str, pattern: re.Pattern[str], reason: str, **kw: Any) -> Rule:
    return Rule.named(_F, name, label, pattern, reason, **kw)


RULES: tuple[Rule, ...] = (
    _r("coordinates", "coordinates", _COORD, "GPS coordinates", validate=_coord_ok),
    _r(
        "street_address",
        "home_address",
        _ADDRESS,
        "a street address attributed to the user",
        validate=_address_ok,
    ),
    _r(
        "street_address_generic",
        "home_address",
        _ADDRESS_GENERIC,
        "the user's home address",
        validate=_generic_address_ok,
    ),
    _r(
        "street_address_cjk",
        "home_address",
        _ADDRESS_CJK,
        "a Chinese or Japanese home address",
        validate=_cjk_address_ok,
    ),
    _r("whereabouts", "realtime_whereabouts", _WHEREABOUTS, "the user's real-time whereabouts"),
    _r(
        "travel_pattern",
        "travel_pattern",
        _TRAVEL,
        "a recurring travel or commute pattern",
        validate=_travel_ok,
    ),
)


def detect(doc: NormalizedText) -> list[Hit]:
    """Location findings (one per rule)."""
    return run_rules(doc, RULES)
