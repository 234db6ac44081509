"""The gate's checks of what a write's words say: the content detectors (exact
spans, validated identifiers), a caller's classifier hook and the learned layer.

Each check reads the prepared fields (text, key, value — normalised views) of one
:class:`~memvault.policy.findings.Prepared` candidate; :mod:`memvault.policy.gate`
runs them with the record's checks (:mod:`memvault.policy.checks_record`) and ranks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from memvault.model.decision import Span
from memvault.model.enums import StopReason
from memvault.policy.detectors import Detector, Hit
from memvault.policy.findings import CheckFn, Finding, Prepared, finding
from memvault.policy.learned import HeadScore, LearnedLayer
from memvault.policy.normalize import NormalizedText, normalize

__all__ = ["check_classifier", "check_learned", "content_check", "slug_of", "value_adds"]

#: the shape of a key the write path derives (:func:`memvault.write.spec.derive_key`)
_DERIVED_KEY = re.compile(r"[^\W_]+(?:_[^\W_]+)*")
_DERIVED_KEY_WORD = re.compile(r"[^\W_]+")


def slug_of(key: str, text: str) -> bool:
    """``key`` is a slug of ``text`` as the write path derives one: lower-case runs of
    letters and digits joined by "_", the first words of the text.

    Trigger: a key whose words begin the text but which says more than they do
      (review S14-R1: "home 40.7128,-74.0060" beside "home 40 7128 74 0060 is …").
    Why: comparing words alone dropped the punctuation that made the key coordinates,
      and the key was never judged.
    Outcome: only a key of the derived shape counts as a slug; any other is judged.

    >>> slug_of("forget_the_notes_i_gave", "Forget the notes I gave you about X")
    True
    >>> slug_of("notes_x", "Forget the notes I gave you about X")
    False
    >>> slug_of("home 40.7128,-74.0060", "home 40 7128 74 0060 is where we meet")
    False
    """
    if _DERIVED_KEY.fullmatch(key) is None or key != key.lower():
        return False
    words = key.split("_")
    return words == _DERIVED_KEY_WORD.findall(text.lower())[: len(words)]


def content_check(group: str, detect: Detector) -> CheckFn:
    def run(p: Prepared) -> Iterable[Finding]:
        for name, doc in p.fields:
            # Trigger: a key that is a slug of the text (the write path derives one,
            #   cut after a few words: "forget_the_instructions_i_gave_you_yesterday_about").
            # Why: the text is judged in full; the cut slug alone read as the bare
            #   instruction without its topic, and the user's own revision was refused.
            # Outcome: such a key adds nothing and is not judged again.
            if name == "key" and p.key_is_slug:
                continue
            for hit in detect(doc):
                yield _finding_from_hit(name, hit)

    run.__name__ = f"detector_{group}"
    return run


def _finding_from_hit(field_name: str, hit: Hit) -> Finding:
    s, e = hit.original_span()
    reason = (
        StopReason.INJECTION_DETECTED
        if hit.family == "injection"
        else StopReason.FORBIDDEN_CATEGORY
    )
    where = "" if hit.view.name == "clean" else f" (seen after normalisation: {hit.view.name})"
    return Finding(
        reason,
        f"detector.{hit.detector}",
        f"{hit.family}: {hit.reason}{where}",
        (Span(field_name, s, e, f"{hit.family}.{hit.label}"),),
        hit.family,
    )


def check_classifier(p: Prepared) -> Iterable[Finding]:
    hook = p.context.classifier
    if hook is None:
        return
    for _name, doc in p.fields:
        for family, why in hook(doc.clean.text):
            reason = (
                StopReason.INJECTION_DETECTED
                if family == "injection"
                else StopReason.FORBIDDEN_CATEGORY
            )
            yield Finding(reason, "classifier_hook", f"{family}: {why}", (), family)


#: a word of letters only: a value of ids ("mem_01a2…, mem_01a3…") has none
_PLAIN_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?!\w)")


def value_adds(value: str, text: str) -> str | None:
    """What a value says beside ``text``, for the heads, or None.

    A JSON value: its fields other than the text (:func:`_leaves`: a scalar field as
    "name: value", an object's fields named by its key), each of three plain words or
    more on a line of its own, and the shorter "name: value" fields together on one line
    led by the text ("Team notes: diagnosis: schizophrenia"). Any other value: what is
    left once the text is cut out; a value of one or two words is read after the text it
    qualifies ("Mia's status: schizophrenia"). None when nothing has three plain words.

    >>> wrapped = '{"content": "Team notes", "tag": "ops", "note": "Bring the spare cable."}'
    >>> value_adds(wrapped, "Team notes").splitlines()
    ['note: Bring the spare cable.', 'Team notes: tag: ops']
    >>> value_adds('{"content": "Team notes", "type": "Fact", "status": "done"}', "Team notes")
    'Team notes: type: Fact; status: done'
    >>> value_adds('{"content": "Team notes", "diagnosis": "a broken wrist"}', "Team notes")
    'diagnosis: a broken wrist'
    >>> listed = '{"content": "Team notes", "diagnosis": ["a broken wrist"], "mia_has_flu": true}'
    >>> value_adds(listed, "Team notes").splitlines()
    ['diagnosis: a broken wrist', 'mia has flu']
    >>> value_adds("schizophrenia", "Mia's status"), value_adds("42", "Mia's status")
    ("Mia's status: schizophrenia", None)
    """
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict | list):
        leaves = [(leaf.strip(), named) for leaf, named in _leaves(parsed, text.strip())]
        lines = [leaf for leaf, _ in leaves if plain_words(leaf) >= 3]
        # Trigger: a field of one or two words beside its name ({"diagnosis":
        #   "schizophrenia"}, {"status": "HIV positive"}).
        # Why: under the three-words floor no head read it, and the value is handed
        #   back to the agent with the memory (review S18-R2).
        # Outcome: the short named fields are read together, after the text (lists of
        #   labels are not: "namespace: user_123, memories" read so as an injection).
        short = [leaf for leaf, named in leaves if named and plain_words(leaf) < 3]
        if short:
            lines.append(f"{text.strip()}: {'; '.join(short)}")
        said = "\n".join(lines)
    else:
        said = value.replace(text, " ").strip()
        if said and plain_words(said) < 3 <= plain_words(value):
            # a short remainder is read with the text it qualifies ("Dana: HIV positive"
            # beside the text "Dana": review S16-R2)
            said = value
        elif said == value.strip() and 0 < plain_words(said) < 3:
            # a short value that does not repeat the text is its slot's value: read
            # after the text ("Mia's status" = "schizophrenia": review S18-R7)
            said = f"{text.strip()}: {said}"
    return said if plain_words(said) >= 3 else None


def plain_words(text: str) -> int:
    """The words of letters in ``text`` — the learned heads read a field of three or more.

    >>> plain_words("user_123, memories"), plain_words("Mia's status: HIV+")
    (1, 4)
    """
    return len(_PLAIN_WORD.findall(text))


def _wraps(value: NormalizedText, text: NormalizedText | None) -> tuple[str, str] | None:
    """``(value, text)`` as the value holds the text — normalised, else as written — or None.

    Trigger: a value that holds the text as written but not once normalised (a JSON
      envelope's Latin field names beside a Russian text: "Это русский" folded to
      "Эto pycckий" as a mixed-script look-alike).
    Why: read whole, such an envelope was judged as one text by the n-gram heads and
      refused as an injection (review S17-R6).
    Outcome: it is read as a wrapper of the text, on the originals; what it adds is
      normalised and judged like any value's additions.

    >>> envelope = normalize('{"namespace": ["user_123"], "value": {"text": "Это русский"}}')
    >>> _wraps(envelope, normalize("Это русский"))[1]
    'Это русский'
    >>> _wraps(normalize("Это русский"), normalize("Это русский")) is None
    True
    """
    if text is None:
        return None
    for whole, part in ((value.clean.text, text.clean.text), (value.original, text.original)):
        inner, outer = part.casefold(), whole.casefold()
        if inner and inner in outer and outer != inner:
            return whole, part
    return None


def _is_json(value: str) -> bool:
    return value[:1] in "{[" and value.rstrip()[-1:] in "}]"


def _leaves(node: Any, text: str) -> Iterable[tuple[str, bool]]:
    """The fields of a JSON value as the words they say, but the field that is ``text``,
    each with True when it is a named scalar field ("status: done").

    Trigger: a JSON object's key is text too ({"<a sentence>": true}), and a short field
      is named by its key ({"diagnosis": "bipolar disorder"}: review S16-R2).
    Why: only string values were read, each alone: such a key, or a value of one or two
      words whose name says what it is, was stored unread by the heads.
    Outcome: a scalar field, or a list of scalars (lists in lists flattened), is read as
      "name: value[, value]"; a key's joined words spaced out ("mia_has_hiv", "miaHasHiv",
      "mia.has.hiv": S17-R8, S18-R2), list items too; a nested object's fields read alone
      and named by its key ("diagnosis (primary): bipolar disorder"), the key alone on a
      line when the object says nothing else; opaque ids (a UUID, a hash) left out of a
      list (S18-R10).

    >>> list(_leaves({"diagnosis": {"primary": "bipolar disorder"}}, ""))
    [('primary: bipolar disorder', True), ('diagnosis (primary): bipolar disorder', True)]
    >>> list(_leaves({"miaHasHiv": True, "flags": [["needs_review"]]}, ""))
    [('mia Has Hiv', False), ('flags: needs review', False)]
    >>> list(_leaves({"namespace": ["8d116ece-1738-47d9-bd9c-172411e20b8f", "images"]}, ""))
    [('namespace: images', False)]
    """
    if isinstance(node, str):
        if node.strip() != text:
            yield node, False
    elif isinstance(node, dict):
        for key, item in node.items():
            name = _spaced(str(key))
            flat = _flat(item) if isinstance(item, list) else None
            if flat is not None:
                # a list of short items is named by its key like a scalar field:
                # {"diagnosis": ["bipolar disorder"]} (review S17-R8)
                items = [
                    _spaced_words(str(x))
                    for x in flat
                    if not (isinstance(x, str) and (x.strip() == text or _opaque_id(x)))
                ]
                yield f"{name}: {', '.join(items)}", False
            elif isinstance(item, dict):
                inner = list(_leaves(item, text))
                yield from inner if inner else ((name, False),)
                for line, scalar in inner:
                    field, named, said = line.partition(": ")
                    if named:
                        yield f"{name} ({field}): {said}", scalar
            elif isinstance(item, list):
                yield name, False
                yield from _leaves(item, text)
            elif item is True:  # a flag set says what its key says ("mia has hiv")
                yield name, False
            elif not (isinstance(item, str) and item.strip() == text):
                yield f"{name}: {item}", True
    elif isinstance(node, list):
        for item in node:
            yield from _leaves(item, text)


#: words joined by "_", "-" or "." ("mia_has_hiv", "mia.has.hiv"), or in camelCase
_JOINED = re.compile(r"(?<=[^\W_])[_.-]+(?=[^\W_])|(?<=[a-z])(?=[A-Z][a-z])")
#: a hex run of eight or more with a digit: a hash (``write.building`` ids read it too)
HASH_LIKE = re.compile(r"(?=[^\d]*\d)[0-9a-fA-F]{8,}")
#: a UUID, or a hash: an id, not words
_OPAQUE_ID = re.compile(
    rf"[0-9a-fA-F]{{8}}(?:-[0-9a-fA-F]{{4}}){{3}}-[0-9a-fA-F]{{12}}|{HASH_LIKE.pattern}"
)


def _spaced(words: str) -> str:
    """``words`` with their joins spaced out: "mia_has_hiv" → "mia has hiv"."""
    return _JOINED.sub(" ", words)


def _spaced_words(item: str) -> str:
    """A list item spaced out when its joins hold two words or more ("mia_has_hiv"),
    else as it is: a label and its number ("user_123", "doc_0") stays one id.

    >>> _spaced_words("mia_has_hiv"), _spaced_words("user_123"), _spaced_words("needs_review")
    ('mia has hiv', 'user_123', 'needs review')
    """
    spaced = _spaced(item)
    return spaced if sum(w.isalpha() for w in spaced.split()) >= 2 else item


def _opaque_id(item: str) -> bool:
    return _OPAQUE_ID.fullmatch(item.strip()) is not None


def _flat(items: list[Any]) -> list[Any] | None:
    """The scalars of a list and of the lists in it, or None when it holds an object."""
    flat: list[Any] = []
    for item in items:
        if isinstance(item, list):
            inner = _flat(item)
            if inner is None:
                return None
            flat.extend(inner)
        elif _scalar(item):
            flat.append(item)
        else:
            return None
    return flat


def _scalar(item: Any) -> bool:
    return isinstance(item, str | int | float | bool) or item is None


def check_learned(p: Prepared) -> Iterable[Finding]:
    layer = p.context.learned
    if layer is None or not p.fields:
        return
    if layer.error is not None:
        yield finding(
            StopReason.INTERNAL_INCONSISTENCY, "classifier", f"{layer.error}; refusing (INV-8)"
        )
        return
    c = p.candidate
    first = p.fields[0][1] if p.fields[0][0] == "text" else None
    text = first.clean.text.casefold() if first is not None else ""
    for name, doc in p.fields:
        # Trigger: a key (an identifier: "billing#memories.0", a slug of the text),
        #   a value the text already says ("Thai curry" in "Ravi loves Thai curry"),
        #   a value that wraps the text (the LangGraph adapter's JSON envelope)
        #   or a value of identifiers (a list of memory ids).
        # Why: the heads learned from sentences; on identifiers their score is
        #   noise, and what the text says is judged once, as the text. The pattern
        #   detectors still read every field.
        # Outcome: the heads read the text, and a value only when it adds words.
        value = doc.clean.text.casefold()
        wrapped = _wraps(doc, first) if name == "value" else None
        if wrapped is not None:
            # Trigger: a value that wraps the text and says more (a LangGraph item's
            #   other fields: {"content": "Team notes", "note": "<a sentence>"}).
            # Why: skipped whole, no head read the other fields, and they are handed
            #   back to the agent with the memory (review S15-R2).
            # Outcome: the heads read what the value adds — its other string fields
            #   of three words or more (an envelope's labels and enums are fewer).
            added = value_adds(*wrapped)
            if added is None:
                continue
            # Trigger: a JSON value (a LangGraph item's fields) that adds words.
            # Why: "status: HIV positive" was under the n-gram heads' threshold (review
            #   S16-R2); a plain value (capture's "the user's words" beside the memory)
            #   judged so lost harmless memories and their identifiers (capture, session 16).
            # Outcome: a JSON value's added fields get the full heads, each line with its
            #   own vector (one vector of every line diluted a field among the envelope's
            #   labels: review S18-R2); a plain value's remainder the n-gram heads.
            if _is_json(wrapped[0]):
                yield from _line_findings(layer, name, added)
            else:
                yield from _ngram_findings(layer, name, added)
            continue
        elif name == "value" and first is not None and value not in text and plain_words(value) < 3:
            # Trigger: a value of one or two words that the text does not say
            #   ("Mia's status" = "schizophrenia").
            # Why: read alone it is under the heads' floor (review S18-R7).
            # Outcome: read after the text, by the n-gram heads (no second vector).
            added = value_adds(doc.clean.text, first.clean.text)
            if added is not None:
                yield from _ngram_findings(layer, name, added)
            continue
        elif name == "key" or (name == "value" and (value in text or plain_words(value) < 3)):
            continue
        # Trigger: the value is a short extra field of the same write.
        # Why: embedding it too would double the cost of every decision.
        # Outcome: the text gets the full heads (with the caller's vector when it
        #          has one), the value the n-gram heads.
        is_text = name == "text"
        scores = layer.judge(
            doc,
            vector=c.vector if is_text else None,
            vector_model=c.vector_model if is_text else None,
            use_encoder=is_text,
        )
        yield from _head_findings(name, doc, scores)


def _ngram_findings(layer: LearnedLayer, name: str, added: str) -> Iterable[Finding]:
    """The n-gram heads' findings on what a plain value adds (no second vector)."""
    doc = normalize(added)
    yield from _head_findings(name, doc, layer.judge(doc, use_encoder=False))


def _line_findings(layer: LearnedLayer, name: str, added: str) -> Iterable[Finding]:
    """The full heads' findings on each line of what a JSON value adds, one vector each."""
    lines = [normalize(line) for line in added.splitlines() if line.strip()]
    vectors = [layer.vector(line.original) for line in lines]
    scores = layer.judge_many(lines, vectors=vectors, vector_model=layer.encoder_model_id)
    for line, line_scores in zip(lines, scores, strict=True):
        yield from _head_findings(name, line, line_scores)


def _head_findings(name: str, doc: NormalizedText, scores: list[HeadScore]) -> Iterable[Finding]:
    """One finding per flagged head on field ``name``."""
    for s in scores:
        if not s.flagged:
            continue
        reason = (
            StopReason.INJECTION_DETECTED
            if s.family == "injection"
            else StopReason.FORBIDDEN_CATEGORY
        )
        yield Finding(
            reason,
            f"classifier.{s.family}",
            f"{s.family}: learned score {s.score:.3f} >= threshold {s.threshold:.3f} "
            f"({s.heads} heads)",
            (Span(name, 0, len(doc.original), f"classifier.{s.family}"),),
            s.family,
        )
