"""Numbers read out as words, turned back into digits for the ID and account rules.

People dictate IDs: "my social is four five six, seven eight, nine oh one two", "DNI
cuatro, siete, uno …", "PESEL osiem pięć, zero trzy …", "一一零一零五", "구공공삼일이".
:func:`spoken_view` finds *runs* of number words (digits and, where a language reads
numbers in pairs or triples, its cardinals: "quatre-vingt-cinq", "сорок пять", "doze")
and writes each run as digits, mapped token by token to the original text, so a rule
that matches on this view reports the exact span that was said.

Only runs that read like a dictated number become digits: at least three number words
giving at least four digits. "three or four people", "twenty minutes", "two, maybe
three" stay as they are; a date or a price in words may become digits, but no ID rule
fires without an ID word or a valid check digit. Inside a run, pauses (commas, dashes,
"dash", "tiret", "streck") split groups of two or more digits with a space
("123 45 6789") and vanish around single digits ("cuatro, siete, uno" → "471");
"double five" is "55"; "oh" is 0 inside a run; a capital letter said on its own
("capital X", "Q, R") stays in the number.

>>> spoken_view_text("ssn is five five five dash one two dash nine eight seven six")
'ssn is 555 12 9876'
>>> spoken_view_text("PESEL: osiem pięć, zero trzy, jeden dwa")
'PESEL: 85 03 12'
>>> spoken_view_text("we were three or four people, twenty minutes late")
'we were three or four people, twenty minutes late'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memvault.policy.detectors.base import Hit, Rule, run_rules
from memvault.policy.normalize import NormalizedText, View, derive_view

__all__ = ["on_spoken_view", "spoken_view", "spoken_view_text"]

# Digits 0-9 per language: ten comma-separated slots, synonyms joined by "/".
_DIGIT_TABLE = {
    "en": "zero/oh, one, two, three, four, five, six, seven, eight, nine",
    "es": "cero, uno/una, dos, tres, cuatro, cinco, seis, siete, ocho, nueve",
    "fr": "zéro, un/une, deux, trois, quatre, cinq, six, sept, huit, neuf",
    "de": "null, eins, zwei/zwo, drei, vier, fünf/funf, sechs, sieben, acht, neun",
    "it": "zero, uno, due, tre, quattro, cinque, sei, sette, otto, nove",
    "pt": "zero, um/uma, dois/duas, três/tres, quatro, cinco, seis, sete, oito, nove",
    "nl": "nul, een/één, twee, drie, vier, vijf, zes, zeven, acht, negen",
    "pl": "zero, jeden, dwa, trzy, cztery, pięć/piec, sześć/szesc, siedem, osiem, "
    "dziewięć/dziewiec",
    "ru": "ноль/нуль, один/одна, два/две, три, четыре, пять, шесть, семь, восемь, девять",
    "uk": "нуль, один/одна, два/дві, три, чотири, п'ять, шість, сім, вісім, дев'ять",
    "tr": "sıfır/sifir, bir, iki, üç/uc, dört/dort, beş/bes, altı/alti, yedi, sekiz, dokuz",
    "sv": "noll, ett/en, två/tva, tre, fyra, fem, sex, sju, åtta/atta, nio",
    "id": "nol/kosong, satu, dua, tiga, empat, lima, enam, tujuh, delapan, sembilan",
    "tl": "sero, isa, dalawa, tatlo, apat, lima, anim, pito, walo, siyam",
    "hi": "shunya/shoonya/शून्य, ek/एक, do/दो, teen/tin/तीन, char/chaar/चार, "
    "paanch/panch/पाँच/पांच, chhe/che/छह/छः, saat/सात, aath/आठ, nau/नौ",
    "ar": "صفر, واحد, اثنان/اثنين, ثلاثة, أربعة/اربعة, خمسة, ستة, سبعة, ثمانية, تسعة",
    "he": "אפס, אחת/אחד, שתיים/שניים/שתים, שלוש/שלושה, ארבע/ארבעה, חמש/חמישה, שש/שישה, "
    "שבע/שבעה, שמונה, תשע/תשעה",
    "el": "μηδέν, ένα, δύο, τρία, τέσσερα, πέντε, έξι, επτά/εφτά, οκτώ/οχτώ, εννέα/εννιά",
    "ro": "zero, unu, doi/două, trei, patru, cinci, șase/sase, șapte/sapte, opt, nouă/noua",
    "cs": "nula, jedna, dva, tři, čtyři, pět, šest, sedm, osm, devět",
    "vi": "không, một, hai, ba, bốn, năm, sáu, bảy, tám, chín",
    "th": "ศูนย์, หนึ่ง, สอง, สาม, สี่, ห้า, หก, เจ็ด, แปด, เก้า",
    "ja": "ぜろ/れい/まる, いち, に, さん, よん/し, ご, ろく, なな/しち, はち, きゅう/く",
}
# Cardinals IDs are read with (pairs, triples): teens 10-19, tens 20-90, hundreds 100-900.
_TEENS = {
    "en": "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen",
    "es": "diez once doce trece catorce quince dieciséis diecisiete dieciocho diecinueve",
    "fr": "dix onze douze treize quatorze quinze seize",
    "it": "dieci undici dodici tredici quattordici quindici sedici diciassette diciotto diciannove",
    "pt": "dez onze doze treze catorze/quatorze quinze dezesseis dezessete dezoito dezenove",
    "ru": "десять одиннадцать двенадцать тринадцать четырнадцать пятнадцать шестнадцать "
    "семнадцать восемнадцать девятнадцать",
    "ro": "zece unsprezece doisprezece treisprezece paisprezece cincisprezece "
    "șaisprezece șaptesprezece optsprezece nouăsprezece",
    "sv": "tio elva tolv tretton fjorton femton sexton sjutton arton nitton",
    "de": "zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn",
}
_TENS = {
    "en": "twenty thirty forty/fourty fifty sixty seventy eighty ninety",
    "es": "veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa",
    "fr": "vingt/vingts trente quarante cinquante soixante septante huitante nonante",
    "it": "venti trenta quaranta cinquanta sessanta settanta ottanta novanta",
    "pt": "vinte trinta quarenta cinquenta sessenta setenta oitenta noventa",
    "ru": "двадцать тридцать сорок пятьдесят шестьдесят семьдесят восемьдесят девяносто",
    "ro": "douăzeci treizeci patruzeci cincizeci șaizeci șaptezeci optzeci nouăzeci",
    "sv": "tjugo trettio fyrtio femtio sextio sjuttio åttio nittio",
    "de": "zwanzig dreißig/dreissig vierzig fünfzig sechzig siebzig achtzig neunzig",
}
# Tens and a digit written as one word: "veintiocho", "quarantuno", "åttiofem",
# "einundzwanzig" (language: how the two parts join).
_COMPOUND_LANGS = ("es", "it", "sv", "de")
_HUNDREDS = {
    "es": "ciento/cien doscientos trescientos cuatrocientos quinientos seiscientos "
    "setecientos ochocientos novecientos",
    "pt": "cento/cem duzentos trezentos quatrocentos quinhentos seiscentos setecentos "
    "oitocentos novecentos",
    "ru": "сто двести триста четыреста пятьсот шестьсот семьсот восемьсот девятьсот",
}
# "four hundred", "quatre cents", "trois cent douze": multiplies the digit before it.
_TIMES_100 = frozenset("hundred hundert cent cents cento hundra".split())
# Between the parts of one cardinal: "forty and two", "treinta y cuatro", "trezentos e …".
_JOINERS = frozenset("and y e et und и і".split())
# Said between groups: a pause, as a comma is.
_PAUSE_WORDS = frozenset(
    "dash hyphen tiret trait guion guión raya strich bindestrich trattino traço traco streck "
    "bindestreck myślnik тире çizgi kreska".split()
)
_REPEAT = {"double": 2, "triple": 3, "doble": 2, "doppio": 2, "doppelt": 2}
_LETTER_CUE = frozenset("capital letter lettre letra lettera buchstabe".split())
# Sino-Korean digits, one syllable each ("구공공삼" = 9003), and Han digits.
_HANGUL = dict(zip("공영일이삼사오육칠팔구", "00123456789", strict=True))
_HAN = dict(zip("〇零一二三四五六七八九幺两", "0012345678912", strict=True))
_KO_COPULA = ("이에요", "예요", "이야", "입니다", "이고", "이요")

# Letter names said in a number ("equis, siete …", "letra jota"), Spanish and Italian.
_LETTER_NAMES = {
    "jota": "J", "equis": "X", "eme": "M", "emme": "M", "enne": "N", "erre": "R", "esse": "S",
    "zeta": "Z", "ka": "K",
}  # fmt: skip
# Hesitations and cues said inside a dictated number: skipped, the number goes on.
_FILLERS = frozenset("uh um erm eh äh ähm euh ehm ok okay".split()) | _LETTER_CUE

_UNIT, _TEEN, _TEN, _HUNDRED, _TEN_UNIT = "unit", "teen", "ten", "hundred", "ten+unit"
# Words that are a number in one language and a common word in another ("hai" is "two" in
# Vietnamese and "is" in Hindi): they never start a run, they may continue one.
_WEAK_START = frozenset("hai ba en che tin e".split())


def _compounds(words: dict[str, tuple[str, int]]) -> None:
    for lang in _COMPOUND_LANGS:
        units = [
            (w, d)
            for d, slot in enumerate(_DIGIT_TABLE[lang].split(","))
            for w in slot.strip().split("/")
            if d
        ]
        if lang == "it":
            units.append(("tré", 3))
        for i, slot in enumerate(_TENS[lang].split()):
            for tens in slot.split("/"):
                value = 20 + 10 * i
                for unit, d in units:
                    if lang == "de":
                        forms = [f"{unit.removesuffix('s')}und{tens}"]
                    elif lang == "es":
                        forms = [f"{tens[:-1]}i{unit}"]
                    else:
                        forms = [tens + unit, tens[:-1] + unit]
                    for form in forms:
                        words.setdefault(form, (_TEN_UNIT, value + d))


def _tables() -> dict[str, tuple[str, int]]:
    words: dict[str, tuple[str, int]] = {}
    for line in _DIGIT_TABLE.values():
        for digit, slot in enumerate(line.split(",")):
            for w in slot.split("/"):
                words.setdefault(w.strip(), (_UNIT, digit))
    for kind, table, base, step in (
        (_TEEN, _TEENS, 10, 1),
        (_TEN, _TENS, 20, 10),
        (_HUNDRED, _HUNDREDS, 100, 100),
    ):
        for line in table.values():
            for i, slot in enumerate(line.split()):
                for w in slot.split("/"):
                    words.setdefault(w, (kind, 100 if w in ("cien", "cem") else base + i * step))
    for w in _TIMES_100:
        words.setdefault(w, (_HUNDRED, 100))
    _compounds(words)
    return words


_WORDS = _tables()
_HAN_CLASS = "".join(_HAN)
# A token: one Han digit, a word (letters, marks, an inner apostrophe), or a run of digits.
_TOKEN = re.compile(
    rf"[{_HAN_CLASS}]|[^\W\d_](?:(?![{_HAN_CLASS}])[\w\u0900-\u0963\u0966-\u0e7f]|'(?=\w))*|\d+"
)
_PAUSE = re.compile(r"[,;/–—・、，·.،]|\s-|-\s")


@dataclass
class _Group:
    """One cardinal being read: its value and which parts it already has."""

    value: int
    parts: set[str]

    def takes(self, kind: str, value: int) -> bool:
        p = self.parts
        if kind == _UNIT:
            if _TEEN in p:  # "dix-sept", "soixante-dix-huit"
                return self.value % 10 == 0 and value >= 7 and _UNIT not in p
            # "twenty six", "cent deux"; a digit after a digit starts a new group
            return value > 0 and _UNIT not in p and bool(p & {_TEN, _HUNDRED})
        if kind == _TEEN:  # "soixante-quinze", "ciento doce"
            return not p & {_UNIT, _TEEN} and (self.value % 100 in (60, 80) or p == {_HUNDRED})
        return kind in (_TEN, _TEN_UNIT) and p == {_HUNDRED}


def _korean_digits(word: str) -> str | None:
    if word.isascii():  # no Hangul digit in it, whatever suffix it ends with
        return None
    for suffix in ("", *_KO_COPULA):
        if not word.endswith(suffix):
            continue
        stem = word[: len(word) - len(suffix)]
        if stem and all(c in _HANGUL for c in stem):
            return "".join(_HANGUL[c] for c in stem)
    return None


@dataclass
class _Run:
    """A run of number tokens: (replacement, start, end) pieces and what they hold."""

    pieces: list[tuple[str, int, int]] = field(default_factory=list)
    words: int = 0
    digits: int = 0
    singles: int = 0  # digits and letters said one by one, the mark of a dictated number
    chunk: int = 0  # digits since the last pause
    group: _Group | None = None
    pause_said: bool = False  # "dash", "tiret" was said since the last piece
    at: int = -1  # the piece that holds the group being read

    def add(self, rep: str, start: int, end: int, *, paused: bool) -> None:
        if paused:
            if self.chunk > 1 or len(rep) > 1:
                rep = " " + rep if self.digits else rep
            self.chunk = 0
        self.at = len(self.pieces)
        self.pieces.append((rep, start, end))
        self.words += 1
        self.singles += len(rep.strip()) == 1 or len(set(rep.strip())) == 1
        n = sum(c.isdigit() for c in rep)
        self.digits += n
        self.chunk += n

    def extend_group(self, value: int, end: int) -> None:
        """The last piece's cardinal grows ("quatre" → "quatre-vingt" → "…-cinq")."""
        assert self.group is not None
        rep, start, _ = self.pieces[self.at]
        old = str(self.group.value - value)
        new = str(self.group.value)
        self.pieces[self.at] = (rep[: len(rep) - len(old)] + new, start, end)
        # the pieces said after it (a joiner, a hyphen) now belong to the number
        del self.pieces[self.at + 1 :]
        self.words += 1
        self.digits += len(new) - len(old)
        self.chunk += len(new) - len(old)


def _letter(tokens: list[re.Match[str]], k: int, in_run: bool) -> str | None:
    """A Latin letter said on its own inside (or right before) a number."""
    word = tokens[k].group()
    prev = tokens[k - 1].group().lower() if k else ""
    nxt = tokens[k + 1].group().lower() if k + 1 < len(tokens) else ""
    name = _LETTER_NAMES.get(word.lower())
    if name is not None and (prev in _LETTER_CUE or in_run or nxt in _WORDS):
        return name
    if len(word) != 1 or not ("A" <= word.upper() <= "Z"):
        return None
    chain = len(nxt) == 1 and nxt.isupper()  # "Q, R, one, two …"
    if (prev in _LETTER_CUE or (word.isupper() and word != "I")) and (
        in_run or nxt in _WORDS or chain
    ):
        return word.upper()
    return None


def _read_runs(text: str) -> list[_Run]:
    tokens = list(_TOKEN.finditer(text))
    runs: list[_Run] = []
    run: _Run | None = None
    last_end = 0
    repeat = 1
    lead: int | None = None  # where "double" or "capital" began: the next piece's start
    for k, t in enumerate(tokens):
        word, lower = t.group(), t.group().lower()
        gap = text[last_end : t.start()]
        last_end = t.end()
        if run is not None and (len(gap) > 4 or "\n" in gap):
            _close(runs, run)
            run = None
        paused = run is not None and _PAUSE.search(gap) is not None
        nxt = tokens[k + 1].group().lower() if k + 1 < len(tokens) else ""
        if run is not None and paused:
            run.pause_said = True
        if lower in _REPEAT and nxt in _WORDS:
            repeat, lead = _REPEAT[lower], t.start() if lead is None else lead
            continue
        if lower in _LETTER_CUE and (run is not None or nxt in _WORDS or len(nxt) == 1):
            lead = t.start() if lead is None else lead
            continue
        if run is not None and (lower in _PAUSE_WORDS or lower in _FILLERS):
            run.pieces.append(("", t.start(), t.end()))
            if lower in _PAUSE_WORDS:
                run.group, run.pause_said = None, True
            continue
        entry = _WORDS.get(lower)
        if run is not None and entry is None and lower in _JOINERS and run.group is not None:
            after = _WORDS.get(nxt)
            if after is not None and run.group.takes(*after):
                run.pieces.append(("", t.start(), t.end()))
                continue
        letter = _letter(tokens, k, run is not None)
        digits = None if entry or letter else (_HAN.get(word) or _korean_digits(word))
        if entry is None and letter is None and digits is None:
            if run is not None and lower not in _FILLERS:
                _close(runs, run)
                run = None
            lead = None
            continue
        if run is None:
            if lower == "oh" or lower in _WEAK_START:
                lead = None
                continue  # "oh" is zero only inside a number; "hai" may be a verb
            run = _Run()
        if paused or run.pause_said:
            run.group, run.pause_said, paused = None, False, True
        if entry is None:
            run.group = None
            run.add(
                (letter or digits or "") * repeat,
                t.start() if lead is None else lead,
                t.end(),
                paused=paused,
            )
            lead = None
            run.words += len(digits or "x") - 1  # "구공공삼" is four number words
            repeat = 1
            continue
        kind, value = entry
        g = run.group
        if g is not None and lower in ("vingt", "vingts") and g.parts == {_UNIT}:
            g.value, g.parts = g.value * 20, {_TEN}  # "quatre-vingt(s)": four twenties
            run.extend_group(g.value - g.value // 20, t.end())
            continue
        if g is not None and lower in _TIMES_100 and g.parts == {_UNIT}:
            g.value, g.parts = g.value * 100, {_HUNDRED}  # "quatre cent", "four hundred"
            run.extend_group(g.value - g.value // 100, t.end())
            continue
        if g is not None and g.takes(kind, value):
            g.value += value
            g.parts.add(kind)
            run.extend_group(value, t.end())
            continue
        run.group = _Group(value, {_TEN, _UNIT} if kind == _TEN_UNIT else {kind}) if value else None
        run.add(str(value) * repeat, t.start() if lead is None else lead, t.end(), paused=paused)
        repeat, lead = 1, None
    if run is not None:
        _close(runs, run)
    return runs


def _close(runs: list[_Run], run: _Run) -> None:
    # "nine thirty, four days a week" is a time; an ID is read digit by digit or is long
    if run.words >= 3 and run.digits >= 4 and (run.singles >= 3 or run.digits >= 6):
        runs.append(run)


_LETTERS = re.compile(r"[^\W\d_]+")
_STRONG = frozenset(_WORDS) - _WEAK_START
_SCRIPT_DIGITS = re.compile(rf"[{_HAN_CLASS}{''.join(_HANGUL)}]")


def _may_hold_a_run(lower: str) -> bool:
    """Cheap test (C-speed set work) that a text has number words at all."""
    return bool(_STRONG.intersection(_LETTERS.findall(lower))) or bool(_SCRIPT_DIGITS.search(lower))


#: id(base) -> (base, its spoken view): the credentials and identifiers detectors both read
#: the spoken view of the same clean view; a few entries (the views in flight) serve both,
#: and no long-lived copy of judged text is kept (cleared when full)
_SPOKEN: dict[int, tuple[View, View | None]] = {}
_SPOKEN_MAX = 8


def spoken_view(base: View) -> View | None:
    """``base`` with each dictated number run written as digits (``None``: no such run).

    >>> text = "DNI: tres uno dos ocho"
    >>> v = spoken_view(View("clean", text, tuple(range(22)), tuple(range(1, 23))))
    >>> v.text if v else None
    'DNI: 3128'
    """
    entry = _SPOKEN.get(id(base))
    if entry is not None and entry[0] is base:
        return entry[1]  # the other detector's answer, "no run" included
    view = _spoken_view(base) if _may_hold_a_run(base.lower) else None
    if len(_SPOKEN) >= _SPOKEN_MAX:
        _SPOKEN.clear()
    _SPOKEN[id(base)] = (base, view)
    return view


def _spoken_view(base: View) -> View | None:
    replaced: list[tuple[str, int, int]] = []
    for run in _read_runs(base.text):
        pos = run.pieces[0][1]
        for rep, s, e in run.pieces:
            if s > pos:
                replaced.append(("", pos, s))  # the pauses inside a run
            replaced.append((rep, s, e))
            pos = e
    return derive_view(base, "spoken", replaced) if replaced else None


def spoken_view_text(text: str) -> str:
    """The spoken view of ``text`` as a string (``text`` itself when nothing was dictated).

    >>> spoken_view_text("mi DNI es cuatro, siete, uno, dos, ocho, tres, cinco, nueve")
    'mi DNI es 47128359'
    """
    view = spoken_view(View("t", text, tuple(range(len(text))), tuple(range(1, len(text) + 1))))
    return view.text if view is not None else text


def on_spoken_view(doc: NormalizedText, rules: tuple[Rule, ...], hits: list[Hit]) -> list[Hit]:
    """``hits`` plus what ``rules`` (made for the ``spoken`` view) find in numbers said as words.

    A rule already in ``hits`` is not reported twice, and a hit counts only where a
    number was said (more letters in the original span than in the digits it became).
    """
    spoken = spoken_view(doc.clean)
    if spoken is None:
        return hits
    found = {h.detector for h in hits}
    for h in run_rules(NormalizedText(doc.original, spoken), rules):
        start, end = h.original_span()
        said = h.view.text[h.start : h.end]
        letters = sum(c.isalpha() for c in doc.original[start:end])
        if h.detector not in found and letters > sum(c.isalpha() for c in said):
            hits.append(h)
            found.add(h.detector)
    return hits
