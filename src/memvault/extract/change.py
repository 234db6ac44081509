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
    r"(?<!\w)(?:statt|anstatt|en vez de|en lugar de|au lieu de|em vez de|invece di"
    r"|in plaats van|zamiast|вместо)\s+(?-i:(?P<old>[A-Z][\w.+#/-]*(?: [A-Z][\w.+#/-]*)?))",
    r"(?-i:(?P<old>[A-Z][\w.+#/-]*))\s+yerine\b",
    r"(?<!\w)(?:en vez de|en lugar de|au lieu de|statt|anstatt|em vez de|invece di"
    rf"|in plaats van|zamiast)\s+{_OLD}(?=\s*(?:$|[,.;:!?]))",
    r"(?<!\w)(?:ya no usamos|ya no uso|nicht mehr|não usamos mais|non usiamo più)\s+"
    rf"{_OLD}(?=\s*(?:$|[,.;:!?]))",
    rf"(?<!\w)(?:de|von|from|da|van|z)\s+{_OLD}\s+(?:a|auf|zu|to|para|à|naar|na)\s+\S",
)
_FROM = tuple(re.compile(shape, re.I) for shape in _SHAPES)


def changed_from(text: str) -> str:
    """The old value a change names ("" when it names none)."""
    for shape in _FROM:
        found = shape.search(text)
        if found:
            return found["old"].strip(" .,")
    return ""
