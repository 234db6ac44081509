"""Category inference for candidates that declare none (CLI ``policy check``, extractors).

Rule-based and deterministic: the memory type decides when given; otherwise
cue words score each category and the best one allowed by the contract wins.
Inference only chooses a *home* for the text — forbidden content is caught by
the detectors whatever the category.

>>> infer_category("Remind me to renew the domain before May.")
'REMINDER'
>>> infer_category("We decided to go with Kafka for the event bus.")
'DECISION'
>>> infer_category("Our office dog is a beagle named Toast.")
'KNOWLEDGE'
"""

from __future__ import annotations

import re

from memvault.model.enums import MemoryType
from memvault.policy.contract import Contract, load_contract

__all__ = ["TYPE_TO_CATEGORY", "infer_category"]

#: A typed-graph node's natural contract category.
TYPE_TO_CATEGORY: dict[str, str] = {
    MemoryType.PREFERENCE: "PREFERENCE",
    MemoryType.DECISION: "DECISION",
    MemoryType.EVENT: "EVENT",
    MemoryType.GOAL: "GOAL",
    MemoryType.TODO: "TODO",
    MemoryType.PROCEDURE: "PROCEDURE",
    MemoryType.FACT: "KNOWLEDGE",
    MemoryType.IDENTITY: "KNOWLEDGE",
    MemoryType.OBSERVATION: "KNOWLEDGE",
}

_CUES: tuple[tuple[str, float, re.Pattern[str]], ...] = tuple(
    (cat, w, re.compile(p, re.IGNORECASE))
    for cat, w, p in (
        ("REMINDER", 3.0, r"^\s*(?:remind(?:er)?|recu[ée]rdame|rappelle-moi|erinnere mich|"
                          r"don't forget|do not forget)\b|\bremind me\b|\breminder\b"),
        ("REMINDER", 1.0, r"\b(?:is due|due (?:on|by)|before the end of|by (?:monday|tuesday|"
                          r"wednesday|thursday|friday|end of)|check .* each)\b"),
        ("TODO", 3.0, r"^\s*(?:todo|to-do|to do|action item|task)\b\s*:?|\bneed(?:s)? to\b"),
        ("TODO", 1.5, r"^\s*(?:add|fix|write|update|draft|migrate|implement|upgrade|clean up|"
                      r"refactor|remove|make|research task|follow up|book|purchase order|"
                      r"investigate|review|set up)\b"),
        ("DECISION", 3.0, r"\b(?:decided|decision|chose|chosen|agreed|going with|opted|selected|"
                          r"settled on|will move from|we'll use)\b"),
        ("GOAL", 3.0, r"\b(?:goal|aim(?:ing)? to|objective|hopes? to|wants? to (?:learn|get|"
                      r"reach|become|publish|run)|plans? to|target(?:ing)?|training for|"
                      r"studying for|aspire)\b"),
        ("CONSTRAINT", 2.5, r"\b(?:never|must not|mustn't|cannot|can't|do not|don't|no "
                            r"\w+ (?:during|without|before)|at most|under \d|limit|budget|"
                            r"must (?:stay|be|not)|requirement|only (?:use|allowed)|has to be)\b"),
        ("PREFERENCE", 2.5, r"\b(?:prefer|prefers|preferred|like|likes|love|loves|enjoy|enjoys|"
                            r"favou?rite|rather than|instead of plain|would rather|tone|style|"
                            r"format(?:ted)?|answer in|reply in|units|spelling|prefiere)\b"),
        ("WORKFLOW_DEFAULT", 2.5, r"\b(?:default|by default|usually|whenever I|workflow|commit|"
                                  r"branch|pull requests?|deploy|release|before suggesting|"
                                  r"template|going forward|from now on|always run|run \w+ and "
                                  r"\w+ before)\b"),
        ("PROJECT_CONFIG", 2.0, r"\b(?:config|configured|port|repo|runs on|listens on|stack|"
                                r"environment variable|database for|CI|builds? with|\.env|flags|"
                                r"targets|logging level|uses python|poetry|yaml file|"
                                r"deploys to)\b"),
        ("EVENT", 2.0, r"\b(?:happened|attended|gave a talk|launch(?:es|ed)?|scheduled|"
                       r"getting married|visiting|moved to|last (?:week|month|year)|next "
                       r"(?:week|month)|in (?:january|february|march|april|may|june|july|"
                       r"august|september|october|november|december)|started|adopted|"
                       r"outage|hackathon|offsite|meetup|conference|all-hands)\b"),
        ("PROCEDURE", 3.0, r"(?:^|\s)(?:step \d|1[.)]\s.*\s2[.)]\s)|\bhow to\b|\bprocedure\b|"
                           r"\brunbook\b|\bfirst,? .* then\b"),
    )
)  # fmt: skip


def infer_category(text: str, *, type: str | None = None, contract: Contract | None = None) -> str:
    """The best contract category for ``text`` (KNOWLEDGE when nothing else fits).

    With a ``contract`` that lacks the best guess (19.0.0 has no KNOWLEDGE), the
    best-scoring category the contract lists is returned; if none scores, the
    unlisted guess is returned and the gate refuses it (INV-1).
    """
    allowed = set((contract or load_contract()).categories)
    if type is not None and TYPE_TO_CATEGORY.get(type) in allowed:
        return TYPE_TO_CATEGORY[type]
    scores: dict[str, float] = {}
    for cat, weight, pattern in _CUES:
        if pattern.search(text):
            scores[cat] = scores.get(cat, 0.0) + weight
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    for cat, _ in ranked:
        if cat in allowed:
            return cat
    if type is not None and type in TYPE_TO_CATEGORY:
        return TYPE_TO_CATEGORY[type]
    return "KNOWLEDGE"
