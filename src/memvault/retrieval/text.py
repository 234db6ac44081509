"""Query processing for the full-text leg (pure functions).

Measured on LoCoMo by the issue's spike: removing stopwords and OR-ing the
remaining terms each mattered a few points; stemming comes from the FTS5
``porter`` tokenizer on both sides.
"""

from __future__ import annotations

from memvault.store.filtering import tokenize

__all__ = ["STOPWORDS", "query_terms"]

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves s t don ll re ve d m o y ever also did does
    """.split()
)


def query_terms(query: str, *, keep_stopwords: bool = False) -> list[str]:
    """Distinct lower-cased terms of ``query`` in order, stopwords removed.

    Falls back to the stopwords themselves when nothing else is left, so a
    query like "who am I" still searches.

    >>> query_terms("What does Caroline like to paint?")
    ['caroline', 'like', 'paint']
    """
    tokens = tokenize(query)
    seen: dict[str, None] = {}
    for t in tokens:
        if keep_stopwords or t not in STOPWORDS:
            seen.setdefault(t, None)
    if not seen:
        for t in tokens:
            seen.setdefault(t, None)
    return list(seen)
