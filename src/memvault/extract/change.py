"""What a change says it replaces: "we replaced Kong with Envoy" names Kong.

A change that names the old value ("switched from Jenkins", "no longer use
Jira", "gave up on Spanish", "en vez de MySQL", "statt AWS") is the surest link
to the memory it changes — surer than how close the two statements read: "we
replaced Kong with Envoy" and "our API gateway is Kong, running on two nodes"
share one word and little meaning. Capture records the named value as the
candidate's ``previous_value``; resolve supersedes the recalled memory of the
same person that holds it (``write/resolve.py``).

>>> changed_from("We replaced Kong with Envoy last month")
'Kong'
>>> changed_from("we no longer use jira, everything is in linear")
'jira'
>>> changed_from("Ahora usamos Postgres en vez de MySQL"), changed_from("I love Kong")
('MySQL', '')
>>> changed_from("Od teraz zamiast Airflow używamy Dagstera"), changed_from("Go yerine Rust")
('Airflow', 'Go')
>>> changed_from("Agora usamos o Penpot em vez do Figma"), changed_from("ya no vivo en Madrid")
('Figma', 'Madrid')
>>> changed_from("VueからReactに移行しました。"), changed_from("我们组现在不用C了。")
('Vue', 'C')
"""

from __future__ import annotations

import re

__all__ = ["changed_from"]

# The old value: one to three words, a name or an identifier ("VS Code", "GitHub
# Actions", "postgres 14"), never a pronoun or an article alone.
_OLD = (
    r"(?:(?:the|our|my|a)\s+)?"
    r"(?P<old>(?!(?:it|that|this|them|the|a|an|my|our)\b)[\w.+#/-]+(?: [\w.+#/-]+){0,2}?)"
)
_END = (
    r"(?=\s*(?:$|[,.;:!?)]|\s(?:with|to|for|and|but|because|anymore|any more|now|last|in|on"
    r"|a|since|after|\w+ ago)\b))"
)
#: A capitalised name of one or two words ("Figma", "Spring Boot", "W&B").
_NAME = r"(?P<old>[A-Z][\w.+#/&-]*(?: [A-Z][\w.+#/&-]*)?)"
#: A Latin-script name inside Japanese or Chinese text, where every character is ``\w``.
_LATIN = r"(?P<old>[A-Za-z][A-Za-z0-9.+#/&-]*(?: [A-Za-z][A-Za-z0-9.+#/&-]*){0,2})"
_SHAPES = (
    rf"\b(?:replaced|swapped(?: out)?|ditched|dropped|dumped|retired|got rid of)\s+"
    rf"{_OLD}\s+(?:with|for)\b",
    r"\b(?:switched|moved|migrated|went|changed|upgraded|came over)\s+(?:over\s+)?(?:away\s+)?"
    rf"(?:from|off(?: of)?)\s+{_OLD}{_END}",
    r"\b(?:no longer|don't|do not|never)\s+(?:use|uses|using|drink|eat|run|play"
    rf"|work (?:at|for|with))\s+{_OLD}{_END}",
    rf"\b(?:not using|stopped using|quit|gave up(?: on)?|left)\s+{_OLD}{_END}",
    rf"\binstead of\s+{_OLD}{_END}",
    # "zamiast Airflow używamy Dagstera", "вместо ClickHouse у нас Druid", "Go yerine Rust":
    # a name right after (or, in Turkish, before) the word for "instead of"
    r"(?<!\w)(?:statt|anstatt|en vez del?|en lugar del?|au lieu d[eu]|em vez d[eoa]"
    r"|invece d(?:i|el|ella)|in plaats van|zamiast|вместо|istället för|i stället för"
    r"|i stedet for|în loc de|místo)\s+(?:(?:the|o|a|el|la|le|il|de|het)\s+)?"
    rf"(?-i:{_NAME})",
    # "ya no vivo en Madrid", "je n'habite plus à Lyon", "ich wohne nicht mehr in Bonn": a
    # place or employer no longer true, named
    r"(?<!\w)(?:ya no (?:vivo|trabajo|estoy|vivimos|trabajamos)|já não (?:moro|trabalho|vivo)"
    r"|não (?:moro|trabalho) mais|n'habite plus|ne travaille plus|nicht mehr)\s+"
    rf"(?:en|em|à|a|au|in|bei|at|para|für|con|com)\s+(?-i:{_NAME})",
    # "a quitté Polars", "dropped W&B", "abandonamos Jenkins": the old value dropped
    r"(?<!\w)(?:quitté|abandonné|abandonamos|abandonei|abbandonato|dropped|ditched)\s+"
    rf"(?-i:{_NAME})",
    # "VueからReactに移行しました", "我们现在不用C了", "从Jenkins换到…": the old value in CJK text
    # one start per Latin token (a start inside "AAAA…から" would rescan it: quadratic, S10-R8)
    rf"(?<![A-Za-z0-9.+#/&-]){_LATIN}から",
    rf"(?:不再用|不用|不再使用|从){_LATIN}",
    r"(?<![\w.+#/-])(?-i:(?P<old>[A-Z][\w.+#/-]*))\s+yerine\b",
    # "αντί για το Jira", "αντί για την Αθήνα"
    r"(?<!\w)αντί για\s+(?:(?:το|τη|την|τον|τα|τις|τους)\s+)?"
    r"(?-i:(?P<old>[A-ZΑ-ΩΆ-Ώ][\w.+#/&-]*(?: [A-ZΑ-ΩΆ-Ώ][\w.+#/&-]*)?))",
    r"(?<!\w)(?:en vez de|en lugar de|au lieu de|statt|anstatt|em vez de|invece di"
    rf"|in plaats van|zamiast)\s+{_OLD}(?=\s*(?:$|[,.;:!?]))",
    r"(?<!\w)(?:ya no usamos|ya no uso|nicht mehr|não usamos mais|non usiamo più)\s+"
    rf"{_OLD}(?=\s*(?:$|[,.;:!?]))",
    rf"(?<!\w)(?:de la|de|von|from|da|van|z|från|fra|od)\s+{_OLD}\s+(?:a|auf|zu|to|para|à|naar|na"
    r"|till|til|la|do)\s+\S",
)
_FROM = tuple(re.compile(shape, re.I) for shape in _SHAPES)


def changed_from(text: str) -> str:
    """The old value a change names ("" when it names none)."""
    for shape in _FROM:
        found = shape.search(text)
        if found:
            return found["old"].strip(" .,")
    return ""
