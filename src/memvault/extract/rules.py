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
from datetime import date, datetime
from pathlib import Path

from memvault.errors import WeightsError
from memvault.extract import rules_plans, rules_preferences, rules_profile, when
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
    ChangeCue,
    ClauseTrace,
    Extraction,
    Message,
    Role,
)
from memvault.extract.change import changed_from
from memvault.extract.clause import Clause, Rule
from memvault.extract.clause import candidate as _cand
from memvault.extract.constraints import check_statement
from memvault.extract.context import (
    biographic,
    context_of_kept,
    decision_said,
    lasting_state,
    leaves_chat,
    of_the_moment,
    praises_listener,
    standing_fact,
    stands_alone,
    taste_said,
    team_size,
)
from memvault.extract.dates import has_date_expression
from memvault.extract.foreign import introduces, keep_other_language, profile_reading
from memvault.extract.gloss import HABIT_GLOSS, NEED_GLOSS, TASK_GLOSS, glosses
from memvault.extract.others import names_someone_else, record_field
from memvault.extract.prepare import is_chitchat, prepare, says_repeat
from memvault.extract.procedure import extract_procedure
from memvault.extract.reader import ClauseReader, Reading, default_reader
from memvault.extract.reading import (
    INTRODUCTIONS,
    STATED_SILENT_MIN,
    STATED_SILENT_SHARE,
    UPDATE_CUE,
    VERBATIM_RULE,
    as_current_state,
    durable_fallback,
    english_like,
    overrules_rules,
    reading_label,
    retype,
    says_task,
    silent,
    statement_candidate,
)
from memvault.extract.register import Record, read_register, record_candidates
from memvault.extract.sensitive import sensitive_words
from memvault.extract.speech import help_question, stated, stated_other
from memvault.extract.text import plain_apostrophes, slug, split_sentences
from memvault.extract.verbatim import protect
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

_BY_NAME: dict[str, Rule] = {
    **rules_profile.RULES,
    **rules_preferences.RULES,
    **rules_plans.RULES,
}

#: Rules in priority order; the first that builds a candidate wins a clause.
DEFAULT_RULES: tuple[Rule, ...] = tuple(
    _BY_NAME[name]
    for name in (
        "moved",
        "introduction",
        "introduction_cjk",
        "introduction_lead",
        "lives_in",
        "based_in",
        "employer",
        "occupation",
        "prefer_over",
        "prefer",
        "favourite",
        "call_me",
        "want_you",
        "reply_in",
        "by_default",
        "instruction",
        "constraint",
        "unavailable",
        "diet",
        "dislikes",
        "hates",
        "not_fan",
        "goal",
        "likes",
        "fan_of",
        "todo",
        "todo_done",
        "decision",
        "use_for",
        "project_config",
        "working_on",
        "learning",
        "numeric",
        "my_x_is",
        "event",
    )
)

#: Rules whose statement stands whatever day it is said ("from today on, always …").
_STANDING = frozenset({"instruction", "want_you", "by_default", "reply_in", "constraint"})

#: A sentence read surely as one of these (at least ``ASIDE_MIN``) is an aside: a later
#: sentence no rule read carries it on.
_ASIDE = frozenset({"oneoff", "chitchat"})
ASIDE_MIN = 0.9
#: A standing order the reader reads as silent below this probability is kept.
ORDER_SILENT_MAX = 0.5
SILENT_LABELS = frozenset({"question", "chitchat", "oneoff"})

#: What an event that starts or tells a lasting state is retyped as.
_AS_FACT = Reading("fact", 1.0, (("fact", 1.0),))

#: A standing request ("please keep code reviews short"), not a reminder or a question.
_PLEASE = re.compile(r"^(?:please|pls|plz)\s+(?!(?:remind|tell|let|help|note|ping)\b)\w+", re.I)

#: "When you write IAM policies for me, always scope them …", "never use …": a standing
#: request to the assistant, however the clause opens.
#: The verbs of an order about the assistant's answers, said verb first.
_ORDER_VERBS = (
    "use|keep|put|give|write|show|add|include|skip|stick to|avoid|format|cite|list|answer",
    "reply|explain|leave out",
)
_WHEN_YOU = r"(?:(?:when(?:ever)?|if) you\b[^,]{1,80},\s*)"
_STANDING_REQUEST = re.compile(
    rf"^{_WHEN_YOU}?(?:please\s+)?(?:always|never|don't|do not)"
    r"\s+(?!(?:know|remember|think|forget)\b)\w+"
    # "when you show diffs, use unified format", "keep drills to 10 minutes max": an
    # order about the assistant's answers, said with the verb first
    + rf"|^{_WHEN_YOU}(?:please\s+)?(?:{'|'.join(_ORDER_VERBS)})\b"
    + r"|^(?:please\s+)?(?:keep|limit)\s+(?:\w+\s+){1,4}?(?:to|under|below|within)\s+"
    r"(?:\d+|one|two|three|four|five|ten|a)\b",
    re.I,
)

#: Slots that hold a state ("my main project right now is …", "I'm at Acme at the
#: moment"): "right now" says the state is current, not that it is today's.
#: A clause that describes what the clause before it named ("which runs …", "who …").
_RELATIVE = re.compile(r"^(?:which|who|whose|where)\b", re.I)

_STATE_SLOTS = frozenset({"my_x_is", "employer", "occupation", "lives_in", "based_in"})

#: What a turn that asks something may still keep (see ``RuleExtractor.extract``).
_ASKED = frozenset({"TODO", "REMINDER"})

#: Someone other than the speaker ("her", "his", "they") in a clause.
_SOMEONE_ELSE = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their|he's|she's)\b", re.I)
#: "The team offsite is confirmed for 12-14 February": the speaker's team is the speaker's.
_ABOUT_SPEAKER = re.compile(
    r"\b(?:i|i'm|i've|i'd|we|we're|we've|my|our|me|us|(?:the|our|my) team(?:'s)?)\b", re.I
)


def _label(reading: Reading | None) -> str:
    return "" if reading is None else f"{reading.label}:{reading.score:.2f}/{reading.share:.2f}"


_AS_EVENT = Reading("event", 1.0, (("event", 1.0),))


def _calendar_entry(cand: Candidate, why: str, raw: str) -> tuple[Candidate | None, str]:
    """A calendar entry no rule read, typed by what a calendar says of it.

    A recurring entry ("every Monday 09:00 standup") is a standing fact; an entry on a
    named date ("quarterly planning in Berlin, 4-6 December") is an event; one on a
    weekday and an hour only ("Thu 14:00 dentist") is this week's logistics.
    """
    if not cand.rule.startswith("reader."):
        return cand, why
    if when.RECURRING.search(raw) or when.HABITUAL.search(raw) or HABIT_GLOSS in glosses(raw):
        if cand.type in (MemoryType.PREFERENCE, MemoryType.EVENT):
            return retype(cand, _AS_FACT), why + " (a recurring calendar entry)"
        return cand, why
    if when.CALENDAR_DATE.search(raw):
        return retype(cand, _AS_EVENT), why + " (a dated calendar entry)"
    return None, f"silent:calendar logistics ({why})"


#: The words a goal is said with ("I want to run a marathon", "plan to learn Rust this
#: year", "hoping to get promoted", "someday I'll open a bakery").
_GOAL_SAID = re.compile(
    r"\b(?:wants?|wanna|goals?|aims?|aiming|plan(?:s|ning)? to|hop(?:e|es|ing)|dreams?"
    r"|someday|some day|one day|by (?:next|the end)|this year|next year|resolutions?"
    r"|trying to|working (?:on|towards?)|learn\w*|get better|would love to|'d love to"
    r"|'d like to|would like to|ambitions?|targets?|before i turn|bucket list|eventually"
    r"|finally|become|improve|master|fluent|save up|saving (?:up )?for)\b",
    re.I,
)
#: What is left of an explicit request that points back at other words ("remember
#: that", "save it for later", "note this for when she asks").
_NOTHING_SAID = re.compile(
    r"^(?:(?:it|that|this|these|those|him|her|them|so|[a-z])\b[\s,]*"
    r"(?:(?:for|as|when|in case|till|until|next|later|please|too|also|pls|thanks)\b.*)?"
    r"|(?:for|as)\b(?:\s+\S+){0,3})[.!]*$",
    re.I,
)


def _raw_words_keep(cand: Candidate, why: str, raw: str) -> tuple[Candidate | None, str]:
    """A clause the reader kept in the user's words, unless it is a record's field or,
    in another language, about someone else.

    Trigger: "partei=CDU", "Name;Abteilung;Herkunft" (a pasted record's field or
             header), or "il collega Gianni ha la sclerosi multipla", "Mein Geselle
             Timo …", "同僚の田中さんが…" (another person, in a language no rule reads).
    Why: no rule understood the clause, so the gate's judgement of its words is all
         that guards it — and the forbidden statements the gate misses are mostly
         about other people, most of them not in English (the leak audit, ``bench
         capture-leaks``). A field names nothing on its own.
    Outcome: nothing is kept of it; the speaker's own statements ("Sou agrônomo …",
             "Les specs partent dans Notion") are kept word for word as before.
    """
    if record_field(raw):
        return None, f"silent:a record's field ({why})"
    if names_someone_else(raw) or (
        not cand.rule.startswith(VERBATIM_RULE) and names_someone_else(raw, english=True)
    ):
        # (a clause read as English is checked for the other languages' words too:
        # "Kollege M., 52: KHK", "Bhai ko TB hai" pass for English with the reader)
        return None, f"silent:about someone else ({why})"
    return cand, why


def _own_aside(cand: Candidate, sentence_of: dict[int, int], touched: set[int]) -> bool:
    """A reader-kept clause of a turn with a sensitive clause that is only the speaker's.

    Trigger: "I manage a team of five recruiters in Dublin. Also my manager's divorce
             is getting messy": the first sentence is the speaker's own statement.
    Why: an English first-person statement in a sentence of its own, naming nobody
         else, says nothing about the sensitive clause's person.
    Outcome: it stays beside the refused clause; a clause of the same sentence, in
             another language (kept in raw words) or about someone else does not.
    """
    index = sentence_of.get(id(cand))
    return (
        index is not None
        and index not in touched
        and not cand.rule.startswith(VERBATIM_RULE)
        and english_like(cand.said)
        and stated(cand.said)
    )


#: A choice said in so many words ("as a team we decided to …", "final call: …"): a
#: Decision even when the reader reads the clause as the stack's fact or a plan.
_CHOSE = re.compile(
    r"\b(?:decided|decision (?:made|is)|final call|settled on|agreed to|opted (?:for|to)|chose)\b",
    re.I,
)
#: Glosses of thanks and cheers ("danke", "gracias", "super", "haha").
_THANKS = frozenset({"thanks", "haha cool ok"})


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
            self._clause(
                raw,
                text,
                explicit,
                subject,
                moment.date(),
                errors,
                readings[len(sentences) + i],
                readings[s_index] if len(sentences[s_index][1]) > 1 else None,
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
        for i, (s_index, raw, text, explicit) in enumerate(prepared):
            many = len(sentences[s_index][1]) > 1  # the sentence has several clauses
            reading = readings[len(sentences) + i]
            sentence_reading = readings[s_index] if many else None
            cand, why = built[i]
            if kind == "calendar" and s_index == 0 and cand is not None:
                cand, why = _calendar_entry(cand, why, raw)
            if (
                cand is None
                and aside_in is None
                and reading is not None
                and (
                    (
                        reading.label in _ASIDE
                        and reading.score >= ASIDE_MIN
                        and why.startswith(
                            ("silent:oneoff", "silent:chitchat", "silent:praise", "silent:one-off")
                        )
                    )
                    # a question asked ("is it worth moving to X? we're a small team")
                    or (why.startswith("silent:question") and text.rstrip().endswith(("?", "？")))
                    # praise of the assistant ("You explain so clearly. My lead should
                    # take notes."), however the reader reads its words
                    or why.startswith("silent:praise")
                )
            ):
                aside_in = s_index
            if (
                cand is not None
                and not explicit
                and cand.rule.startswith("reader.")
                and kept_in is None
                and aside_in is not None
                and aside_in < s_index
                and not stands_alone(raw)
                and UPDATE_CUE.search(raw) is None
            ):
                # Trigger: a sentence no rule read after one surely a one-off or chit-chat
                #          ("Snowed in again. So I'm reading docs instead.", "Haha, herrlich.
                #          Das muss ich meiner Frau zeigen.").
                # Why: it carries the aside on (its consequence, a reaction); a memory
                #      after small talk is said with a rule's words or names something.
                # Outcome: nothing is kept of it.
                why, cand = f"silent:after an aside ({why})", None
            if cand is not None and not explicit and cand.rule.startswith("reader."):
                cand, why = _raw_words_keep(cand, why, raw)
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
                    (c.rule.startswith("reader.") and not _own_aside(c, sentence_of, touched))
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
            # Trigger: a later sentence's fact that names something of its own ("Our arm
            #          runs ROS 2. Sim is in Gazebo.", "We use Laravel. Todo en Hetzner.").
            # Why: the turn tells one thing and its detail; alone the detail says little
            #      ("Sim is in Gazebo." — whose?), dropped its name is lost.
            # Outcome: the second sentence of the memory before it (see attach.join_detail).
            candidates, sentence_of, joined = join_detail(candidates, sentence_of, details)
            for cand in joined:
                at = trace_of[id(cand)]
                trace[at] = replace(
                    trace[at], decision=f"joined to a kept memory ({trace[at].decision})"
                )
        if candidates and unkept and not sensitive_turn:
            # Trigger: a clause kept nothing but names an identifier ("It's ticket
            #          FE-88.", ", which sits on VLAN 240") in a turn that keeps a memory.
            # Why: it tells that memory's detail; the identifier is what cannot be
            #      recalled from anything else.
            # Outcome: attached to the nearest kept memory (see :mod:`.attach`).
            candidates, sentence_of, attached = attach_identifiers(
                candidates, sentence_of, [u for u, _ in unkept], subject, moment.date()
            )
            for index in attached:
                at = unkept[index][1]
                trace[at] = replace(
                    trace[at], decision=f"attached to a kept memory ({trace[at].decision})"
                )
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

    def _clause(
        self,
        raw: str,
        text: str,
        explicit: bool,
        subject: str,
        today: date,
        errors: list[str],
        reading: Reading | None = None,
        sentence: Reading | None = None,
        *,
        foreign: bool = False,
        own_entry: bool = False,
        lead: bool = False,
    ) -> tuple[Candidate | None, str]:
        """The clause's candidate (or None) and why (see :class:`ClauseTrace`)."""
        if not explicit and praises_listener(text):
            # "you always explain things so clearly", "I appreciate how patient you are":
            # about the assistant, not the user — chit-chat whatever the reader says
            return None, "silent:praise of the assistant"
        if (
            not explicit
            and len(text.split()) <= 4
            and _THANKS.intersection(glosses(text))
            and not stands_alone(text.lstrip("¡¿\"'« "))
        ):
            # "Alles klar, danke dir.", "¡Gracias, amiga!": thanks or a cheer in a few
            # words of another language, whatever the reader says
            return None, "silent:chitchat (thanks)"
        quiet = "" if reading is None else silent(reading, sentence, explicit=explicit, text=text)
        if reading is None and not explicit and is_chitchat(text):
            return None, "silent:chit-chat (no reader)"
        # a short clause of a turn in another language is of that language ("vivo en
        # Valencia", "Sem acesso ao e-mail" read as English alone)
        hints = glosses(text)
        # "Lembra-me de levar as botas": its "me" and "as" make it English to the word
        # count; a task asked in another language's words is of that language
        asked_task = TASK_GLOSS in hints or "remind me" in hints
        english = english_like(text) and not (foreign and len(text.split()) < 6) and not asked_task
        says = reading is not None and (stated(text) if english else stated_other(text))
        if says and quiet and reading is not None:
            # Trigger: a first-person statement ("last weekend I joined a climbing club")
            #          that the reader calls silent without conviction.
            # Why: friendly chat says durable things in wordings no corpus covers; an
            #      unsure silent reading of a stated clause is no evidence against it.
            # Outcome: only a confident silent reading (or a question mark) silences it.
            bar, share = (
                (self.reader.stated_min, self.reader.stated_share)
                if self.reader is not None
                else (STATED_SILENT_MIN, STATED_SILENT_SHARE)
            )
            confident = (
                reading.label in {"question", "chitchat", "oneoff"}
                and reading.score >= bar
                and reading.share >= share
            )
            if (quiet == "one-off sentence" and reading.durable and reading.score >= 0.5) or (
                quiet == reading_label(reading) and not confident
            ):
                quiet = ""
        if (
            quiet in SILENT_LABELS
            and reading is not None
            and reading.score < ORDER_SILENT_MAX
            and english
            and _STANDING_REQUEST.match(raw.strip())
            and not (when.TEMPORARY.search(raw) or when.TODAY.search(raw))
        ):
            # Trigger: "keep drills to 10 minutes max", "when you show diffs, use unified
            #          format" — an order about the answers the reader is unsure of.
            # Why: said with the verb first, it reads like a moment's request; "always",
            #      "when you …" or a limit make it standing.
            # Outcome: kept as a preference (a sure silent reading still wins).
            quiet, reading = "", replace(reading, label="preference", sure=True)
        change = UPDATE_CUE.search(text) is not None and when.TODAY.search(text) is None
        habit = when.HABITUAL.search(text) is not None and english
        if (
            (
                habit
                or (change and any(m.group(0).lower() != "now" for m in UPDATE_CUE.finditer(text)))
            )
            and reading is not None
            and not text.rstrip().endswith("?")
            and english
            and quiet in {"", reading.label}
            and not overrules_rules(reading, change=True)
        ):
            # Trigger: an explicit change ("scratch that, the new service will use
            #          Postgres", "I gave up on Spanish") no rule read; a bare "now" is
            #          no such cue ("the build is red again now").
            # Why: a change is said to replace something kept; the reader takes
            #      "now" for today's one-off, and an unsure reading drops it.
            #          A habit ("every morning I journal", "I meditate daily") is the
            #          same: true every week, however much it reads like today's plan.
            # Outcome: kept in the user's words unless a silent reading is sure
            #          enough to overrule a change (the same bar a rule's clause has).
            quiet, says = "", True
        changed_other = (
            reading is not None
            and not english
            and UPDATE_CUE.search(text) is not None
            and when.TODAY_OTHER.search(text) is None
            and not text.rstrip().endswith(("?", "？"))
            and quiet in {"", reading.label}
            and stands_alone(text, any_letter=True)
        )
        if changed_other and reading is not None:
            # Trigger: a change said in another language ("wir sind inzwischen auf
            #          Dagster umgestiegen", "ya no usamos X, ahora …") the reader is
            #          unsure of.
            # Why: as in English, a change replaces something kept; the reader takes
            #      "inzwischen", "ahora" for the moment's one-off.
            #          It must name what it changes to ("Dagster", "Neovim", "v2"):
            #          "je ne trouve plus la syntaxe" says "no longer" about nothing kept.
            # Outcome: kept word for word as a fact (or the preference or decision it
            #          reads as): the new state of things.
            best = durable_fallback(reading)
            label = best.label if best.label in {"preference", "decision"} else "fact"
            quiet, reading = "", replace(best, label=label, sure=True)
        if (
            quiet in {"chitchat", "oneoff"}
            and reading is not None
            and not english
            and (introduces(text) or (says and profile_reading(text, reading) is not reading))
        ):
            # Trigger: "Hej, jag heter Nils och jobbar som slussvakt i Trollhättan", "Γεια
            #          σας, είμαι η Ελένη, φωτορεπόρτερ στην Αθήνα", read as a greeting.
            # Why: a greeting that gives the speaker's name or who they are is an
            #      introduction, as the English introduction rule reads it.
            # Outcome: not silenced; kept word for word as a fact (below).
            quiet, reading = "", profile_reading(text, reading)
        if asked_task and reading is not None and len(text.strip()) >= 12:
            # Trigger: "Lembra-me de afiar as facas", "Dodaj zadanie: zamówić drut",
            #          "帮我加一个任务：…" — a reminder or a task asked for in another language.
            # Why: the words say what it is, as "remind me to" and "add a task to" do
            #      in English; the reader, unsure in a language it has few clauses of,
            #      calls it a fact or a greeting.
            # Outcome: a reminder or a todo, kept word for word.
            label = "reminder" if "remind me" in hints else "todo"
            quiet, reading = "", replace(reading, label=label, sure=True)
        if (
            quiet not in {"", "question mark"}
            and reading is not None
            and english
            and team_size(raw)
        ):
            # Trigger: "We're five people right now", "There are three of us." — a
            #          headcount the reader takes for the moment's, or reads unsure.
            # Why: "right now" says the size is current, as "my main project right
            #      now is …" does; the moment's headcount is said of a room or a day
            #      ("four of us in the office today": see context.team_size).
            # Outcome: kept as the team's fact.
            quiet, reading = "", replace(reading, label="fact", sure=True)
        elif reading is not None and not quiet and english and team_size(raw) and not reading.sure:
            # the same headcount read as durable without standing out: the team's fact
            reading = replace(reading, label="fact", sure=True)
        if (
            quiet
            and (quiet != reading_label(reading) or overrules_rules(reading, change=change))
            and not any(r.name in INTRODUCTIONS and r.pattern.match(text) for r in self.rules)
        ):
            # a question, a one-off sentence, or a confident silent reading (never
            # of a user introducing themselves: "Hi! I'm Maya." reads like a greeting)
            return None, f"silent:{quiet}"
        clause = Clause(text, subject, today, explicit, said=raw.strip())
        for rule in self.rules:
            try:
                match = rule.pattern.match(text)
                if match is None:
                    continue
                cand = rule.build(match, clause)
            except Exception as exc:
                # Trigger: a rule raised (a bug, or an injected fault in a test).
                # Why: one bad rule must not cost the turn its other candidates.
                # Outcome: the error is reported; the next rule gets the clause.
                errors.append(f"rule {rule.name}: {type(exc).__name__}: {exc}"[:200])
                continue
            if cand is not None:
                if cand.cue is ChangeCue.ASSERT and (
                    UPDATE_CUE.search(text) or UPDATE_CUE.search(raw)
                ):
                    # "these days", "switched to"; "replaced Kong with …" names what it changes
                    cand = replace(
                        cand,
                        cue=ChangeCue.UPDATE,
                        previous_value=cand.previous_value or changed_from(raw),
                    )
                if quiet and overrules_rules(reading, rule.name, change=change):
                    return None, f"silent:{quiet} (over rule {rule.name})"
                if quiet:
                    # Trigger: a rule knows the phrasing, the reader weakly calls it silent.
                    # Why: the rule's structure ("I'm a data scientist") is stronger evidence.
                    # Outcome: kept with the rule's type.
                    return cand, f"rule:{rule.name} (over a weak {quiet} reading)"
                kept = as_current_state(cand if reading is None else retype(cand, reading), text)
                return kept, f"rule:{rule.name}" + (
                    f" retyped {kept.type.value}" if kept.type is not cand.type else ""
                )
        if quiet:
            return None, f"silent:{quiet} (no rule)"
        other = not english
        if says and reading is not None and not reading.durable and not other:
            reading = durable_fallback(reading)
        if other and says and reading is not None and not reading.durable:
            reading = profile_reading(text, reading)
        if reading is not None and reading.durable and not text.rstrip().endswith("?"):
            if other:
                # Trigger: a clause in another language, read as durable.
                # Why: no rule and no rewriter reads it; only a sure reading says what
                #      it is (the corpus has eleven languages, not every wording).
                # Outcome: see :func:`memvault.extract.foreign.keep_other_language`.
                keep = (
                    (self.reader.keep_share, self.reader.keep_mass)
                    if self.reader is not None
                    else (2.0, 2.0)
                )
                return keep_other_language(clause, reading, says=says, lead=lead, bar=keep)
            if (
                reading.sure
                and reading.label == "event"
                and not _ABOUT_SPEAKER.search(text)
                and not own_entry
            ):
                # Trigger: a happening no rule read, and not the speaker's ("the deploy
                #          went fine yesterday", "the outage lasted an hour").
                # Why: the status of things around the user, not an event of their life.
                # Outcome: nothing is kept of it.
                return None, f"silent:not the speaker's event ({reading.score:.2f})"
            named = reading.score >= 0.5 and protect(text)[1] != ()
            # "please keep answers short", "never use semicolons in my code": a standing
            # request the reader reads as a preference is kept, sure or not
            asked = reading.label == "preference" and bool(
                _PLEASE.match(raw.strip()) or _STANDING_REQUEST.match(raw.strip())
            )
            # "Final call: we keep billing on Java", "we've settled on Caddy": a choice
            # said in words, read as a decision without standing out
            decided = (
                reading.label == "decision" and reading.score >= 0.5 and decision_said(raw)
            ) or (
                # "Refund requests are logged in Notion", "we're a team of four": where
                # work goes or how big the team is, read as a
                # fact that does not stand out (the moment's "the invoices are done"
                # reads alike)
                reading.label == "fact" and reading.score >= 0.6 and standing_fact(raw)
            )
            if reading.sure or says or named or asked or decided:
                # Trigger (named): "we pin ruff==0.6.9", a clause naming an identifier
                #          (pin, region, path, version) the reader reads as durable
                #          (p >= 0.5) without standing out.
                # Why: such clauses are the stack's facts, and the identifier must
                #      come out byte-identical — lost, it cannot be recalled at all.
                # Outcome: kept in the user's words, typed by the reading.
                read = (
                    reading
                    if reading.sure or named or asked or decided
                    else durable_fallback(reading)
                )
                if not reading.sure and read.label in {"todo", "reminder"} and not says_task(text):
                    # "I've got back to back calls until 4": an unsure todo without a
                    # todo's words is one of the plain kinds (and the logistics rule sees it)
                    read = durable_fallback(read, plain=True)
                if not reading.sure and read.label == "goal" and not _GOAL_SAID.search(raw):
                    # Trigger: "Took a week to get used to it.", "Nobody wanted to maintain
                    #          the groovy anymore.", "I'm sending this to my whole team":
                    #          a goal only because it is the least unlikely durable label.
                    # Why: a goal is said with a goal's words (want, plan to, hope, this
                    #      year, learn …); without them the clause is a reason, a comment
                    #      or a moment's plan.
                    # Outcome: nothing is kept of it.
                    return None, f"silent:unsure goal without a goal's words ({read.score:.2f})"
                if _PLEASE.match(raw.strip()) or _STANDING_REQUEST.match(raw.strip()):
                    if read.label in {"fact", "decision", "event"}:
                        # "please keep code reviews under 300 lines", "when you write SQL for
                        # me, always use CTEs": a standing request is how the user wants
                        # things, not a fact about them (nor a routine, "always" or not).
                        read = replace(read, label="preference")
                elif (
                    habit and read.label in {"preference", "event"} and not when.TASTE.search(text)
                ):
                    # "On Sundays I call my parents": a routine, not a taste or a date.
                    read = replace(read, label="fact")
                elif read.label in {"goal", "fact"} and _CHOSE.search(raw) and decision_said(raw):
                    # "ok decision made, we're moving the builds to Buildkite in Q2": the
                    # lead-in said the choice, the clause reads like a plan
                    read = replace(read, label="decision")
                elif read.label == "decision" and not decision_said(raw):
                    # "we run everything on k8s": no choice said, the stack's fact ("devo
                    # aggiornare …", which reads as English to the word count: a todo)
                    need = NEED_GLOSS in glosses(text)
                    read = replace(read, label="todo" if need else "fact")
                elif read.label == "event" and not has_date_expression(raw) and not own_entry:
                    # "I got into bouldering through a friend", "we run a book club": a
                    # happening told without a date is how things are — a fact (an event
                    # is dated: "yesterday I met …", "last week we shipped …")
                    read = replace(read, label="fact")
                own = statement_candidate(clause, read)
                own = None if own is None else as_current_state(own, text)
                how = "" if reading.sure else " (stated)"
                return own, f"reader.{read.label}{how}" + ("" if own else " (not a statement)")
            if not explicit:
                # Trigger: no rule knows the phrasing and the reader is not sure.
                # Why: the best of eleven low scores is no reading at all (a language
                #      or a register the corpus lacks); kept, it would be stored in the
                #      user's raw words, sensitive or not.
                # Outcome: nothing is kept of the clause.
                why = f"{reading.label} {reading.score:.2f}, share {reading.share:.2f}"
                return None, f"silent:unread ({why})"
        if explicit and not text.rstrip().endswith("?"):
            if _NOTHING_SAID.match(text.strip()):
                # Trigger: "remember that.", "keep it in mind for later", "note it for
                #          when Mei asks about him": the request points back at words said
                #          elsewhere (another sentence, another turn).
                # Why: kept alone, "That." or "For later." names nothing.
                # Outcome: nothing is kept of the clause (the sentence it points at is
                #          read on its own).
                return None, "silent:explicit request without a statement"
            return replace(
                _cand(
                    clause,
                    "remember",
                    clause.statement(),
                    MemoryType.FACT,
                    "KNOWLEDGE",
                    "note." + slug(text),
                    clause.value(text),
                ),
            ), "explicit"
        return None, "none"
