"""The default extractor: deterministic rules, no LLM, well under a millisecond a turn.

From the user's own turn it proposes 0–5 typed candidates — preferences,
constraints, workflow defaults, goals, todos (and todos reported done),
decisions, dated events, facts about the user's work and projects, explicit
"remember …" requests, and (only on an explicit trigger such as "remember these
steps for releasing: …") a numbered Procedure. Everything else — greetings,
thanks, questions, small talk — yields nothing.

Each candidate is a normalised third-person statement (the speaker's name
instead of pronouns, relative dates resolved against the message time), 1–2
sentences, at most 280 characters, checked by
:func:`memvault.extract.constraints.check_statement`; a statement that fails is
reported in ``Extraction.dropped``, never stored. The raw turn is never a
candidate.

Rules run per clause, each inside its own ``try``: a rule that raises is
reported in ``Extraction.errors`` and the other clauses' candidates survive.
The rules live by topic in :mod:`~memvault.extract.rules_profile`,
:mod:`~memvault.extract.rules_preferences` and :mod:`~memvault.extract.rules_plans`;
:data:`DEFAULT_RULES` fixes the order they are tried in.

>>> from datetime import UTC, datetime
>>> from memvault.extract.base import Message
>>> x = RuleExtractor().extract(
...     Message(text="Hi! I moved from Lisbon to Porto and I love coffee.", speaker="Dana"),
...     now=datetime(2026, 1, 15, tzinfo=UTC))
>>> [c.content for c in x.candidates]
['Dana moved from Lisbon to Porto.', 'Dana loves coffee.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from memvault.errors import WeightsError
from memvault.extract import when
from memvault.extract.asides import MOMENT, aside, comments
from memvault.extract.attach import (
    RELATIVE,
    WHEN_TO_REMIND,
    Unkept,
    attach_identifiers,
    bare_reminder,
    join_change,
    join_detail,
    join_introduction,
)
from memvault.extract.base import (
    Candidate,
    ClauseTrace,
    Extraction,
    Message,
    Role,
)
from memvault.extract.clause import Clause, Rule
from memvault.extract.constraints import check_statement
from memvault.extract.context import (
    biographic,
    context_of_kept,
    lasting_state,
    leaves_chat,
    of_the_moment,
    stands_alone,
    taste_said,
    team_size,
)
from memvault.extract.deciding import decide_clause
from memvault.extract.others import own_aside, raw_words_keep
from memvault.extract.prepare import prepare, says_repeat
from memvault.extract.procedure import extract_procedure
from memvault.extract.reader import ClauseReader, Reading, default_reader
from memvault.extract.reading import (
    INTRODUCTIONS,
    UPDATE_CUE,
    VERBATIM_RULE,
    english_like,
    retype,
)
from memvault.extract.reasons import join_reason
from memvault.extract.register import Record, calendar_entry, read_register, record_candidates
from memvault.extract.rule_table import DEFAULT_RULES
from memvault.extract.sensitive import sensitive_words
from memvault.extract.speech import help_question
from memvault.extract.text import plain_apostrophes, split_sentences
from memvault.model.enums import MemoryType

__all__ = [
    "DEFAULT_RULES",
    "MAX_CANDIDATES",
    "Clause",
    "Rule",
    "RuleExtractor",
    "extract_procedure",
]

#: At most this many candidates per turn (spec §13: 1–5).
MAX_CANDIDATES = 5

#: Rules whose statement stands whatever day it is said ("from today on, always …").
_STANDING = frozenset({"instruction", "want_you", "by_default", "reply_in", "constraint"})

#: What an event that starts or tells a lasting state is retyped as.
_AS_FACT = Reading("fact", 1.0, (("fact", 1.0),))


#: Slots that hold a state ("my main project right now is …", "I'm at Acme at the
#: moment"): "right now" says the state is current, not that it is today's.
#: A clause that describes what the clause before it named ("which runs …", "who …").
_RELATIVE = re.compile(r"^(?:which|who|whose|where)\b", re.I)

_STATE_SLOTS = frozenset({"my_x_is", "employer", "occupation", "lives_in", "based_in"})

#: What a turn that asks something may still keep (see ``RuleExtractor.extract``).
_ASKED = frozenset({"TODO", "REMINDER"})

#: Someone other than the speaker ("her", "his", "they") in a clause.
_SOMEONE_ELSE = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their|he's|she's)\b", re.I)


def _label(reading: Reading | None) -> str:
    return "" if reading is None else f"{reading.label}:{reading.score:.2f}/{reading.share:.2f}"


#: "instead" at a clause's end: the moment's alternative ("So I'm reading docs instead."),
#: not a change ("tea instead of coffee").
_BARE_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)", re.I)


def _says_change(raw: str) -> bool:
    """Whether ``raw`` says a change — after an aside, a bare "instead" is no change.

    >>> _says_change("So I'm reading docs instead."), _says_change("I drink tea instead of coffee")
    (False, True)
    >>> _says_change("so we use Zed these days instead")
    True
    """
    return any(not _BARE_INSTEAD.match(raw, m.start()) for m in UPDATE_CUE.finditer(raw))


def _mark(trace: list[ClauseTrace], at: Sequence[int], why: str) -> None:
    """Say in the trace that the clauses at ``at`` went into another memory (``why``)."""
    for i in at:
        trace[i] = replace(trace[i], decision=f"{why} ({trace[i].decision})")


class RuleExtractor:
    """Deterministic extractor (the default; no LLM, no network): the clause
    reader decides what each clause is, the rules fill its slot.

    ``rules`` replaces the rule table (tests use this to inject a failing
    rule); ``max_candidates`` bounds the output per turn. ``reader`` /
    ``reader_manifest`` choose the clause reader (default: the shipped one);
    when its weights are broken the rules alone decide and every extraction
    says so in ``errors``. ``use_reader=False`` is the rules-only extractor.
    """

    name = "rules"

    def __init__(
        self,
        rules: Sequence[Rule] = DEFAULT_RULES,
        *,
        max_candidates: int = MAX_CANDIDATES,
        reader: ClauseReader | None = None,
        reader_manifest: Path | None = None,
        use_reader: bool = True,
    ) -> None:
        self.rules = tuple(rules)
        self.max_candidates = max_candidates
        self.reader = reader
        self.reader_manifest = reader_manifest
        self.use_reader = use_reader

    def extract(self, message: Message, *, now: datetime) -> Extraction:
        """Candidates from one user turn (other roles are never write triggers)."""
        if message.role is not Role.USER:
            return Extraction(extractor=self.name, skipped=f"role {message.role.value!r}")
        if "’" in message.text:
            message = message.model_copy(update={"text": plain_apostrophes(message.text)})
        register = read_register(message.text)
        got = self._extract(message, register.body, register.records, now, register.kind)
        if register.heading and register.body and not got.candidates:
            # Trigger: an e-mail whose body keeps nothing ("Subject: I'm the new tech
            #          lead for checkout / Starting this sprint.").
            # Why: the subject names what the body says; read first, "Re: onboarding
            #      notes" would be kept beside the body's memory.
            # Outcome: the subject line is read only when the body keeps nothing.
            head = self._extract(message, register.heading, (), now)
            got = replace(
                head,
                errors=got.errors + head.errors,
                dropped=got.dropped + head.dropped,
                trace=got.trace + head.trace,
            )
        return got

    def _extract(
        self,
        message: Message,
        text: str,
        records: Sequence[Record],
        now: datetime,
        kind: str = "",
    ) -> Extraction:
        moment = message.at or now
        subject = message.subject
        candidates: list[Candidate] = []
        errors: list[str] = []
        dropped: list[tuple[str, str]] = []

        procedure = extract_procedure(message.text, subject)
        sentences = [] if procedure else split_sentences(text)
        if procedure is not None:
            candidates.append(procedure)
        else:
            candidates += record_candidates(records, subject, moment.date(), dropped)
        prepared = [
            (s_index, raw, *prepare(raw))
            for s_index, (_, clauses) in enumerate(sentences)
            for raw in clauses
        ]
        foreign = not english_like(text)
        reader, reader_error = self._reader()
        if reader_error:
            errors.append(reader_error)
        readings: list[Reading | None] = [None] * (len(sentences) + len(prepared))
        if reader is not None and prepared:
            texts = [s for s, _ in sentences] + [text for _, _, text, _ in prepared]
            readings = list(reader.read(texts))
        # Trigger: the turn asks something ("we're on postgres 15 — how do I …?").
        # Why: what precedes a question is the question's context, not something the
        #      user asked to keep; labelled turns with a question hold almost only
        #      reminders and todos ("can you remind me to …?").
        # Outcome: such a turn keeps its todos, reminders and explicit requests only.
        trace: list[ClauseTrace] = []
        built = [
            decide_clause(
                raw,
                text,
                explicit,
                subject,
                moment.date(),
                errors,
                readings[len(sentences) + i],
                readings[s_index] if len(sentences[s_index][1]) > 1 else None,
                rules=self.rules,
                reader=self.reader,
                foreign=foreign,
                # a calendar's or diary's entries are the writer's own
                own_entry=kind in {"calendar", "diary"},
                lead=s_index == 0,
            )
            for i, (s_index, raw, text, explicit) in enumerate(prepared)
        ]
        asks = any(
            cand is None
            and why.startswith("silent:question")
            and (r := readings[len(sentences) + i]) is not None
            and (
                (r.label == "question" and r.sure)
                or prepared[i][2].rstrip().endswith(("?", "？"))
                or not english_like(prepared[i][2])
            )
            and help_question(prepared[i][2])
            for i, (cand, why) in enumerate(built)
        )
        if procedure is not None:
            trace.append(
                ClauseTrace(message.text, message.text, "", "", "", "procedure", procedure.content)
            )
        # the sentence of the turn's first kept memory (a pasted record comes first)
        kept_in: int | None = -1 if candidates else None
        sentence_of: dict[int, int] = {}  # a candidate's sentence (by id)
        details: set[int] = set()  # later sentences' facts that may join a memory (by id)
        trace_of: dict[int, int] = {}  # a candidate's place in the trace (by id)
        unkept: list[tuple[Unkept, int]] = []  # clauses that became nothing, their trace
        aside_in: int | None = None  # the first sentence surely a one-off or chit-chat
        moment_only = False  # that aside is only a happening of the moment (then a comment)
        for i, (s_index, raw, text, explicit) in enumerate(prepared):
            many = len(sentences[s_index][1]) > 1  # the sentence has several clauses
            reading = readings[len(sentences) + i]
            sentence_reading = readings[s_index] if many else None
            cand, why = built[i]
            if kind == "calendar" and s_index == 0 and cand is not None:
                cand, why = calendar_entry(cand, why, raw)
            opens = aside(reading, why, raw, text) if cand is None and aside_in is None else None
            if opens is not None:
                # a sure one-off or chit-chat, a question, praise, the day's or the
                # moment's happening (see asides.aside): a later sentence carries it on
                aside_in, moment_only = s_index, opens == MOMENT
            if (
                cand is not None
                and not explicit
                and cand.rule.startswith("reader.")
                and kept_in is None
                and aside_in is not None
                and aside_in < s_index
                and not stands_alone(raw)
                and not _says_change(raw)
                and (not moment_only or comments(raw))
            ):
                # Trigger: a sentence no rule read after one surely a one-off or chit-chat
                #          ("Snowed in again. So I'm reading docs instead.", "Haha, herrlich.
                #          Das muss ich meiner Frau zeigen.").
                # Why: it carries the aside on (its consequence, a reaction); a memory
                #      after small talk is said with a rule's words or names something.
                # Outcome: nothing is kept of it.
                why, cand = f"silent:after an aside ({why})", None
            if cand is not None and not explicit and cand.rule.startswith("reader."):
                cand, why = raw_words_keep(cand, why, raw)
            if (
                cand is not None
                and not explicit
                and cand.category not in _ASKED
                and cand.rule not in _STANDING
                # a diary's "today" is the entry's date ("Heute habe ich mit dem Cello
                # angefangen"): the reader still silences the day's moods and plans
                and kind != "diary"
                and (
                    (
                        (when.TODAY.search(raw) or of_the_moment(raw))
                        and not (cand.rule in _STATE_SLOTS and when.NOW_STATE.search(raw))
                        and not team_size(raw)
                        and not when.DONE_CHANGE.search(raw)
                    )
                    or (cand.rule.startswith(VERBATIM_RULE) and when.TODAY_OTHER.search(raw))
                )
            ):
                # Trigger: a statement about today ("ordering sushi tonight", "spent the
                #          morning on the flaky test") that is not a todo or reminder.
                # Why: true now, not tomorrow — a one-off, however it is phrased.
                # Outcome: nothing is kept of it.
                why, cand = f"silent:about today ({why})", None
                # what follows carries the moment on ("Our VPN is down until noon. So
                # I'm reading docs instead."), as after a sentence read as a one-off
                aside_in = s_index if aside_in is None else aside_in
            if cand is not None and not explicit and leaves_chat(raw):
                # Trigger: the speaker leaves the chat ("got to run, the courier's here",
                #          "I have to go, sorry!").
                # Why: the todo rule and the reader read "have to" as a task; it is the
                #      moment's logistics.
                # Outcome: nothing is kept of it.
                why, cand = f"silent:leaving ({why})", None
                aside_in = s_index if aside_in is None else aside_in
            temporary = cand is not None and cand.rule in _STANDING and when.TEMPORARY.search(raw)
            if temporary and not explicit:
                # Trigger: a standing rule's words for the next hours ("don't merge anything
                #          meanwhile", "hold the deploys until I'm back").
                # Why: true until the speaker is back, not a standing preference.
                # Outcome: nothing is kept of it.
                why, cand = f"silent:temporary request ({why})", None
            if (
                cand is not None
                and not explicit
                and cand.rule.startswith("reader.")
                and cand.category not in _ASKED
                and when.LOGISTICS.search(raw)
                and not UPDATE_CUE.search(raw)
                and not when.RECURRING.search(raw)
                and not when.CRON.search(raw)
            ):
                # Trigger: a clause no rule read, about the next hours or days' logistics.
                # Why: "a 1:1 at 3pm", "on call this weekend" are true for a day; an hour
                #      given with a cron line ("fires at 4, `0 4 * * 1`") is a schedule.
                # Outcome: nothing is kept of it (a todo or reminder is kept, dated).
                why, cand = f"silent:logistics ({why})", None
            if cand is not None and asks and not (explicit or cand.category in _ASKED):
                why, cand = f"silent:context of a question ({why})", None
            if (
                cand is not None
                and not explicit
                and cand.rule.startswith("reader.")
                and kept_in is not None
                and kept_in < s_index
                and context_of_kept(raw)
                # "We open at 7 every day except Monday": a schedule is its own memory
                and not (when.SCHEDULE.search(raw) and english_like(raw))
                # "Hi, I'm Ana. I spend my days repairing church organs.": what follows
                # a name is who the person is, not a comment on the name
                and not (all(c.rule in INTRODUCTIONS for c in candidates) and len(raw.split()) >= 4)
            ):
                # Trigger: a later sentence no rule read ("Newer versions broke our plugin
                #          last time.") in a turn that already keeps a memory.
                # Why: it comments on that memory (a reason, a reaction, a detail); stored
                #      alone it names nothing and means nothing.
                # Outcome: nothing is kept of it unless it names something of its own.
                why, cand = f"silent:context of a kept memory ({why})", None
            if (
                cand is not None
                and not explicit
                and cand.rule.startswith("reader.")
                and cand.type is MemoryType.PREFERENCE
                and kept_in is not None
                and kept_in < s_index
                and not taste_said(raw)
            ):
                if candidates and all(c.rule in INTRODUCTIONS for c in candidates):
                    # "Hi, I'm Ana. I'm a farrier with my own trailer.": after a name, who
                    # the person is — a fact, joined to the name below
                    cand = replace(cand, type=MemoryType.FACT, category="KNOWLEDGE")
                else:
                    # "We moved to sevDesk. The bank connector was better.", "I sell
                    # wallets out of a workshop. It's me and one part-timer.": a later
                    # sentence read as a taste without a taste's words comments on the
                    # kept memory.
                    why, cand = f"silent:context of a kept memory, no taste said ({why})", None
            if (
                cand is not None
                and not explicit
                and cand.category == "REMINDER"
                and cand.rule.startswith("reader.")
                and any(c.type is MemoryType.TODO for c in candidates)
                and bare_reminder(raw, english=not cand.rule.startswith(VERBATIM_RULE))
            ):
                # Trigger: "I have to send the samples by Monday. Please remind me Friday.",
                #          "Tenho de encomendar molas. Lembra-me na quinta."
                # Why: the request names no action: it asks to be reminded of the todo
                #      before it; alone it is "Remind Greer Friday."
                # Outcome: not kept alone; attached to that todo (below).
                why, cand = f"{WHEN_TO_REMIND} ({why})", None
            if (
                cand is not None
                and not explicit
                and cand.rule.startswith("reader.")
                and _RELATIVE.match(raw.strip())
                and any(sentence_of.get(id(c)) == s_index for c in candidates)
            ):
                # Trigger: "I need to patch the router, which runs firmware 4.2.1, before
                #          the holidays": the clause after the kept one opens with "which".
                # Why: alone it is no statement ("Which runs firmware 4.2.1.").
                # Outcome: not kept alone; attached to the memory it describes (below).
                why, cand = f"{RELATIVE} ({why})", None
            if (
                cand is not None
                and cand.type is MemoryType.EVENT
                and (lasting_state(raw) or biographic(raw) or when.DONE_CHANGE.search(raw))
            ):
                # "we adopted a greyhound last spring", "I lived in Kyoto years ago", "we
                # upgraded postgres to 16": the state it starts or tells lasts — a fact
                cand = retype(cand, _AS_FACT)
            if cand is not None:
                limit = 1000 if cand.type.value == "Procedure" else 280
                problems = check_statement(cand.content, max_chars=limit)
                if cand.rule.startswith(VERBATIM_RULE) or (
                    cand.rule == "introduction_lead" and not english_like(cand.content)
                ):
                    # another language's "me", "we", "us" are not English pronouns
                    problems = tuple(p for p in problems if p != "first_or_second_person")
                if problems:
                    dropped.append((cand.content[:280], ",".join(problems)))
                    why = "dropped:" + ",".join(problems)
                elif all(c.content != cand.content for c in candidates):
                    if says_repeat(raw) or says_repeat(sentences[s_index][0]):
                        cand = replace(cand, repeat=True)
                    if (
                        not explicit
                        and cand.rule.startswith("reader.")
                        and cand.type is MemoryType.FACT
                        and kept_in is not None
                        and kept_in < s_index
                        and UPDATE_CUE.search(raw) is None
                    ):
                        # a later sentence's fact no rule read, which names something of
                        # its own (else it was the kept memory's context): see join_detail
                        details.add(id(cand))
                    candidates.append(cand)
                    sentence_of[id(cand)] = s_index
                    trace_of[id(cand)] = len(trace)
                    kept_in = s_index if kept_in is None else kept_in
                else:
                    why += " (duplicate)"
            if cand is None:
                unkept.append((Unkept(s_index, raw, why), len(trace)))
            trace.append(
                ClauseTrace(
                    sentences[s_index][0],
                    raw,
                    text,
                    _label(reading),
                    _label(sentence_reading),
                    why,
                    cand.content if cand is not None else "",
                )
            )
        sensitive_turn = any(c.sensitive and c.sensitive_in == "words" for c in candidates) or (
            bool(candidates) and bool(sensitive_words(message.text))
        )
        if sensitive_turn:
            # Trigger: a clause of the turn names a forbidden family in its words
            #          ("my boss is gay and he's moving to Berlin next month").
            # Why: the turn's other clauses no rule read are most often about the same
            #      person or thing ("he's moving to Berlin"): kept in raw words, they
            #      would store what the sensitive clause was about.
            # Outcome: only the rules' candidates about the speaker (and the refused
            #          ones) stay: "I prefer replies in Spanish" is kept, "we're throwing
            #          her a party" or a raw-words clause is not.
            touched = {
                index
                for index, (said, _) in enumerate(sentences)
                if sensitive_words(said)
                or any(c.sensitive and sentence_of.get(id(c)) == index for c in candidates)
            }
            candidates = [
                c
                for c in candidates
                if c.sensitive
                or not (
                    (c.rule.startswith("reader.") and not own_aside(c, sentence_of, touched))
                    or _SOMEONE_ELSE.search(c.said or c.content)
                )
            ]
        if candidates and not sensitive_turn:
            # Trigger: "Hi, I'm Ana. I restore church organs." — a name, then who the
            #          speaker is, in the next sentence.
            # Why: one introduction, as "Meu nome é Ana e sou organeira" is kept whole
            #      (``introduction_lead``); two memories say one thing.
            # Outcome: the name memory holds the sentence that follows it.
            candidates, sentence_of = join_introduction(candidates, sentence_of)
            # "We dropped Airtable. The schedule lives in Notion now.": one change
            candidates, sentence_of = join_change(candidates, sentence_of)
            # "I prefer short answers. I read them between customers.": the reason
            # stays with the preference it explains (see reasons.join_reason)
            candidates, sentence_of, reasons = join_reason(candidates, sentence_of)
            _mark(trace, [trace_of[id(c)] for c in reasons], "joined to the preference it explains")
            # Trigger: a later sentence's fact that names something of its own ("Our arm
            #          runs ROS 2. Sim is in Gazebo.", "We use Laravel. Todo en Hetzner.").
            # Why: the turn tells one thing and its detail; alone the detail says little
            #      ("Sim is in Gazebo." — whose?), dropped its name is lost.
            # Outcome: the second sentence of the memory before it (see attach.join_detail).
            candidates, sentence_of, joined = join_detail(candidates, sentence_of, details)
            _mark(trace, [trace_of[id(c)] for c in joined], "joined to a kept memory")
        if candidates and unkept and not sensitive_turn:
            # Trigger: a clause kept nothing but names an identifier ("It's ticket
            #          FE-88.", ", which sits on VLAN 240") in a turn that keeps a memory.
            # Why: it tells that memory's detail; the identifier is what cannot be
            #      recalled from anything else.
            # Outcome: attached to the nearest kept memory (see :mod:`.attach`).
            candidates, sentence_of, attached = attach_identifiers(
                candidates, sentence_of, [u for u, _ in unkept], subject, moment.date()
            )
            _mark(trace, [unkept[index][1] for index in attached], "attached to a kept memory")
        return Extraction(
            tuple(candidates[: self.max_candidates]),
            tuple(errors),
            extractor=self.name,
            dropped=tuple(dropped),
            trace=tuple(trace),
        )

    def _reader(self) -> tuple[ClauseReader | None, str]:
        if not self.use_reader:
            return None, ""
        if self.reader is not None:
            return self.reader, ""
        try:
            self.reader = (
                default_reader()
                if self.reader_manifest is None
                else ClauseReader(self.reader_manifest)
            )
            return self.reader, ""
        except WeightsError as exc:
            # Trigger: the shipped reader weights are missing or altered.
            # Why: capture must keep working (memory is advisory), but never silently.
            # Outcome: the rules alone decide, and every extraction reports why.
            return None, f"clause reader unavailable, rules only: {exc}"[:300]
