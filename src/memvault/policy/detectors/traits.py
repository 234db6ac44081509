"""Identity traits written as fields (contract §4.1): ``religion: Muslim``, ``"caste": "Jat"``.

A record that gives a person's religion, ethnicity, caste, sexual orientation, gender
identity, union or party as a key and a value is that person's trait, whatever the
sentence around it says. The line stays between a record and a form or a schema:

- the value must be a value: a word, not a type (``string``, ``Optional[str]``), a
  placeholder (``null``, ``n/a``, ``<religion>``, ``prefer not to say``), an article
  starting a heading (``Religion: an overview``) or code (``row["religion"]``);
- a key that is also a plain word (``race``, ``party``, ``union``, ``faith``,
  ``orientation``, ``vote``) counts only with a value that is a trait
  (``race: Hispanic``, ``party: Labour``) — not ``race: 10k``, ``party: Saturday 8pm``;
- a field shown as an example, an option or a schema (``e.g.``, ``example``,
  ``options``, ``enum``, ``schema``, ``placeholder``) on its line is no one's record.

A key with no value ("the census asks for ethnicity", "fields: religion, ethnicity") never
matches.

>>> from memvault.policy.normalize import normalize
>>> [h.detector for h in detect(normalize('{"name": "Jon", "religion": "Buddhist"}'))]
['identity.field']
>>> len(detect(normalize('"ethnicity": {"type": "string", "nullable": true}')))
0
"""

from __future__ import annotations

import re

from memvault.policy.detectors import topical_terms as terms
from memvault.policy.detectors.base import Hit, Rule, Validator, run_rules
from memvault.policy.normalize import NormalizedText, View

__all__ = ["RULES", "detect"]

_SEP = r"[ _-]?"
# Keys whose every real value is a trait.
_OPEN_KEYS = (
    rf"religion|religious{_SEP}(?:affiliation|denomination|beliefs?|identity|background)|"
    r"denomination|konfession|religionszugeh[öo]rigkeit|religi[óo]n|religi[ãa]o|religione|"
    r"religie|religia|"
    rf"ethnicity|ethnic{_SEP}(?:group|origin|background|identity)|race{_SEP}(?:/|and)?{_SEP}"
    r"ethnicity|ethnie|etnia|etnicidad|etnicidade|ethnizit[äa]t|etniciteit|"
    rf"ethnische{_SEP}herkunft|origine{_SEP}ethnique|origen{_SEP}[ée]tnico|"
    rf"caste|sub{_SEP}caste|jati|jaati|casta|kaste|gotra|"
    rf"sexual{_SEP}orientation|sexuality|orientation{_SEP}sexuelle|orientaci[óo]n{_SEP}sexual|"
    rf"orienta[çc][ãa]o{_SEP}sexual|orientamento{_SEP}sessuale|sexuelle{_SEP}orientierung|"
    rf"seksuele{_SEP}geaardheid|"
    rf"gender{_SEP}identity|identit[ée]{_SEP}de{_SEP}genre|identidad{_SEP}de{_SEP}g[ée]nero|"
    rf"identidade{_SEP}de{_SEP}g[êe]nero|identit[àa]{_SEP}di{_SEP}genere|"
    r"geschlechtsidentit[äa]t|"
    rf"trade{_SEP}union|(?:trade{_SEP})?union{_SEP}(?:membership|affiliation|name|local|branch)|"
    r"gewerkschaft|sindicato|syndicat|sindacato|vakbond|fackf[öo]rbund|"
    rf"political{_SEP}(?:party|affiliation|views|leaning|opinions?|orientation)|"
    rf"party{_SEP}(?:affiliation|membership|preference)|partei(?:zugeh[öo]rigkeit)?|"
    rf"partido(?:{_SEP}pol[íi]tico)?|parti{_SEP}politique|partito|"
    rf"voted(?:{_SEP}for)?|vote{_SEP}(?:\d{{4}}|intention|choice)|voting{_SEP}(?:intention|"
    r"preference|history)|wahlentscheidung"
)
# Keys whose value must itself be a trait ("race: 10k", "party: Saturday" are not).
_CHECKED_KEYS = r"race|faith|orientation|party|union|vote|politics|gender"
# A member key takes yes/true as its value: "union_member: yes".
_MEMBER_KEYS = rf"(?:trade{_SEP})?union{_SEP}member|party{_SEP}member|gewerkschaftsmitglied"
_TRAIT_VALUE = (
    r"(?:"
    + terms.IDENT_ETHNIC
    + "|"
    + terms.IDENT_RELIGION
    + "|"
    + terms.IDENT_ORIENT
    + "|"
    + terms.IDENT_POLITICS
    + "|"
    + terms.UNIONS
    + r"|green|liberal|[\w-]+ party|partido [\w-]+|parti [\w-]+|non-?binary|"
    r"trans(?:gender)? (?:woman|man))(?![\w-])"
)
_KEY_START = r"(?:^|(?<=[\s{,;|(\[\"'*•-]))[\"']?"
_KEY_END = r"[\"']?\s*[:=]\s*[\"']?"
_VALUE = r"(?P<value>[^\W\d_][^\"'\n;,|{}\[\]()]{0,40})"

# Not a value: a type, a placeholder, a refusal to say, a heading's article, a word of code.
_NOT_A_VALUE = re.compile(
    r"(?i)^(?:str|string|text|varchar\w*|char\w*|enum\w*|int\w*|bool\w*|null|none|nil|nan|"
    r"n/?a|na|unknown|undisclosed|unspecified|not (?:stated|disclosed|given|provided|specified|"
    r"recorded|collected|asked|applicable)|prefer(?:s|red)? not\w*|declined?|withheld|optional|"
    r"required|mandatory|true|false|yes|no|tbd|todo|redacted|list|array|object|type|dict|any|"
    r"see|the|a|an|free|field|column|select|dropdown|choose|pick|one|e\.?g|example|sample|"
    r"placeholder|self|this|that|value|values|row|rows|data|record|item|obj|user|person|"
    r"request|req|form|input|args?|kwargs|params?|props?|models?|optional\w*|undefined|"
    r"same|various|multiple|other|others|mixed|private|hidden|protected|sensitive|"
    r"category|categories|attribute|special|ask|asked)\b"
)
# The value is code: "row.religion", "get_religion(", "record['religion']".
_CODE_AFTER = re.compile(r"^[\w.-]*[.(\[]")
# The field shown, not filled: an example, options, a schema or a template on its line.
_SHOWN = re.compile(
    r"(?i)\b(?:e\.g\.?|eg|example|examples|sample|placeholder|dummy|mock|fake|fixture|"
    r"enum|options?|choices|allowed values|one of|schema|template|validat\w*|format|"
    r"such as|like)\b"
)
_YES = re.compile(r"(?i)^(?:yes|true|1|y|member|oui|s[íi]|ja|sì)\b")


def _line(view: View, m: re.Match[str]) -> str:
    text = view.text
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    return text[start : end if end >= 0 else len(text)]


def _real_value(m: re.Match[str], view: View) -> bool:
    value = m.group("value").strip()
    if _NOT_A_VALUE.match(value) or _CODE_AFTER.match(view.text[m.start("value") :]):
        return False
    return _SHOWN.search(_line(view, m)) is None


def _member_ok(m: re.Match[str], view: View) -> bool:
    return _YES.match(m.group("value")) is not None and _SHOWN.search(_line(view, m)) is None


_REASON = (
    "a person's religion, ethnicity, caste, orientation, gender identity, union or party as a field"
)


def _field_rule(keys: str, value: str, validate: Validator) -> Rule:
    """``<key>: <value>`` for one group of keys, judged by ``validate``."""
    pattern = r"(?i)" + _KEY_START + r"(?:" + keys + r")" + _KEY_END + value
    return Rule(
        "identity.field",
        "identity_trait",
        "identity_field",
        re.compile(pattern),
        _REASON,
        validate=validate,
        views=("clean",),
    )


RULES: tuple[Rule, ...] = (
    _field_rule(_OPEN_KEYS, _VALUE, _real_value),
    _field_rule(_CHECKED_KEYS, r"(?P<value>" + _TRAIT_VALUE + r")", _real_value),
    _field_rule(_MEMBER_KEYS, _VALUE, _member_ok),
)


# A table's header cell that names a trait, alone in its cell: "religion", "Ethnicity".
_HEADER_CELL = re.compile(r"(?i)^\s*[\"'*_`]*(?:" + _OPEN_KEYS + r")[\"'*_`]*\s*$")
_CELL_SPLIT = re.compile(r"\s*(?:\||,|;|\t)\s*")
_RULE_LINE = re.compile(r"^[\s|:+=-]*$")  # a markdown rule line: "|---|:---|"


def _cells(line: str) -> list[str]:
    return _CELL_SPLIT.split(line.strip().strip("|"))


def _table_hit(doc: NormalizedText) -> Hit | None:
    """A table (CSV, markdown, tab- or semicolon-separated) whose header names a trait and
    whose next row fills that column: ``name,religion`` then ``Omar,Muslim``.

    A header alone (a schema, an empty form) is no one's record; nor is a table shown as an
    example or a template.
    """
    view = doc.clean
    text = view.text
    if "\n" not in text or _SHOWN.search(text):
        return None
    lines = text.split("\n")
    offset = 0
    for i, line in enumerate(lines[:-1]):
        cells = _cells(line)
        cols = [c for c, cell in enumerate(cells) if len(cells) >= 2 and _HEADER_CELL.match(cell)]
        if cols:
            for row in lines[i + 1 : i + 4]:
                if _RULE_LINE.match(row):
                    continue
                values = _cells(row)
                if len(values) != len(cells):
                    break
                value = values[cols[0]].strip("\"'*_` ")
                if value[:1].isalpha() and not _NOT_A_VALUE.match(value):
                    start = text.find(value, text.find(row, offset))
                    return Hit(
                        "identity.field",
                        "identity_trait",
                        "identity_field",
                        view,
                        start,
                        start + len(value),
                        _REASON,
                    )
                break
        offset += len(line) + 1
    return None


def detect(doc: NormalizedText) -> list[Hit]:
    """Identity-field findings: the key and its value (or a table's cell) as the span."""
    hits = run_rules(doc, RULES)
    if not hits:
        table = _table_hit(doc)
        if table is not None:
            hits.append(table)
    return hits
