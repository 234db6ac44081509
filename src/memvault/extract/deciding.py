"""What one clause of a turn becomes: nothing, a rule's candidate, or the user's words.

:func:`decide_clause` is the clause step of :class:`memvault.extract.rules.RuleExtractor`:
the reader's verdict (a question, chit-chat or a one-off is silent — unless a first-person
statement, a change, a habit, an introduction or a task asked for says otherwise), then
the rule table (the first rule that builds a candidate wins; the reader may retype it),
then, when no rule knows the phrasing, the user's own words typed by a sure reading
(:func:`memvault.extract.reading.statement_candidate`; word for word in another language,
:func:`memvault.extract.foreign.keep_other_language`). It returns the candidate (or
``None``) and why, in :class:`~memvault.extract.base.ClauseTrace`'s words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from memvault.extract import when
from memvault.extract.base import (
    Candidate,
    ChangeCue,
)
from memvault.extract.change import changed_from
from memvault.extract.clause import Clause, Rule
from memvault.extract.clause import candidate as _cand
from memvault.extract.context import (
    decision_said,
    praises_listener,
    standing_fact,
    stands_alone,
    taste_said,
    team_size,
)
from memvault.extract.dates import has_date_expression
from memvault.extract.foreign import (
    asks_listener,
    introduces,
    keep_other_language,
    profile_reading,
)
from memvault.extract.gloss import NEED_GLOSS, TASK_GLOSS, TASTE_GLOSSES, glosses
from memvault.extract.prepare import is_chitchat
from memvault.extract.reader import ClauseReader, Reading
from memvault.extract.reading import (
    INTRODUCTIONS,
    STATED_SILENT_MIN,
    STATED_SILENT_SHARE,
    UPDATE_CUE,
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
from memvault.extract.speech import standing_order, stated, stated_other
from memvault.extract.stack import tool_named
from memvault.extract.text import slug
from memvault.extract.verbatim import protect
from memvault.model.enums import MemoryType

__all__ = ["ORDER_SILENT_MAX", "SILENT_LABELS", "asked_of_listener", "decide_clause"]


#: A standing order the reader reads as silent below this probability is kept.
ORDER_SILENT_MAX = 0.5
SILENT_LABELS = frozenset({"question", "chitchat", "oneoff"})


#: A standing request ("please keep code reviews short"), not a reminder or a question.
_PLEASE = re.compile(r"^(?:please|pls|plz)\s+(?!(?:remind|tell|let|help|note|ping)\b)\w+", re.I)


#: Words that address the listener ("write to me in …", "in your replies").
_TO_LISTENER = re.compile(r"\b(?:you|your|yours|me)\b", re.I)


def asked_of_listener(raw: str) -> bool:
    """Whether a clause asks something of the listener: an order, or words to it
    ("Use British spelling", "Write to me in Irish English", "Explícame …")."""
    said = raw.strip()
    return (
        standing_order(said)
        or _PLEASE.match(said) is not None
        or _TO_LISTENER.search(said) is not None
        or asks_listener(said)
    )


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


#: "The team offsite is confirmed for 12-14 February": the speaker's team is the speaker's.
_ABOUT_SPEAKER = re.compile(
    r"\b(?:i|i'm|i've|i'd|we|we're|we've|my|our|me|us|(?:the|our|my) team(?:'s)?)\b", re.I
)


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


#: A choice said in so many words ("as a team we decided to …", "final call: …"): a
#: Decision even when the reader reads the clause as the stack's fact or a plan.
_CHOSE = re.compile(
    r"\b(?:decided|decision (?:made|is)|final call|settled on|agreed to|opted (?:for|to)|chose)\b",
    re.I,
)


#: Glosses of thanks and cheers ("danke", "gracias", "super", "haha").
_THANKS = frozenset({"thanks", "haha cool ok"})


def decide_clause(
    raw: str,
    text: str,
    explicit: bool,
    subject: str,
    today: date,
    errors: list[str],
    reading: Reading | None = None,
    sentence: Reading | None = None,
    *,
    rules: Sequence[Rule],
    reader: ClauseReader | None,
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
            (reader.stated_min, reader.stated_share)
            if reader is not None
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
    if (
        not explicit
        and reading is not None
        and english
        and quiet != "question mark"
        and standing_order(raw)
        and not (when.TEMPORARY.search(raw) or when.TODAY.search(raw))
    ):
        # Trigger: an order about the assistant's answers, said verb first, for good
        #          ("Please give times in UTC.", "Show code in Swift, never Objective-C.",
        #          "Explain things in simple words, I'm still new to this.").
        # Why: the reader half-reads such orders as a moment's request or a fact (its
        #      corpus says "please explain this error" too); what the order is about —
        #      the answers' parts and manner, "when you …", "never …" — says it stands.
        # Outcome: kept as a preference, whatever the reader says ("give me an example
        #          of a closure", "put it on my list" are not such orders).
        quiet, reading = "", replace(reading, label="preference", sure=True)
    if (
        not explicit
        and reading is not None
        and not english
        and quiet in SILENT_LABELS
        and not overrules_rules(reading, change=True)
        and when.TODAY_OTHER.search(text) is None
        and asks_listener(text)
    ):
        # Trigger: the same order in another language ("説明は箇条書きにしてください",
        #          "설명은 짧게 해 주세요"), which the reader reads as a weak greeting.
        # Why: the reader has few such clauses per language; the order's words (the
        #      listener asked to explain, answer or write) say it stands.
        # Outcome: kept word for word as a preference (a sure silent reading wins).
        quiet, reading = "", replace(reading, label="preference", sure=True)
    change = UPDATE_CUE.search(text) is not None and when.TODAY.search(text) is None
    habit = when.HABITUAL.search(text) is not None and english
    if (
        (habit or (change and any(m.group(0).lower() != "now" for m in UPDATE_CUE.finditer(text))))
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
        reading is not None
        and not english
        and not explicit
        and when.RECURRING_OTHER.search(text) is not None
        and when.TODAY_OTHER.search(text) is None
        and not text.rstrip().endswith(("?", "？"))
        and quiet in {"", reading.label}
        and not overrules_rules(reading, change=True)
    ):
        # Trigger: a weekly routine in another language ("Los jueves hacemos demo
        #          interna", "W każdą sobotę robię backup", "Her perşembe toplantı
        #          yapıyoruz"), read without conviction.
        # Why: as "every Thursday" in English (``when.HABITUAL``), a weekday said as a
        #      habit is true every week — a standing fact, not the moment's plan; the
        #      reader, unsure in a language it has few clauses of, drops it.
        # Outcome: kept word for word as a fact (a taste said is a preference) unless
        #          a silent reading is sure enough to overrule a change.
        taste = bool(TASTE_GLOSSES.intersection(hints)) and reading.label == "preference"
        # a task, a reminder, a choice or a goal said with its weekday keeps its label
        kept_as = reading.label if reading.label in {"todo", "reminder", "decision", "goal"} else ""
        label = kept_as or ("preference" if taste else "fact")
        # the routine's words say it, not the reader: its score is no evidence either way
        # (a language outside the corpus is otherwise unsure below 0.5)
        quiet, reading = "", replace(reading, label=label, score=max(reading.score, 0.5), sure=True)
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
    if quiet not in {"", "question mark"} and reading is not None and english and team_size(raw):
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
        reading is not None
        and not explicit
        and quiet != "question mark"
        and not overrules_rules(reading, change=True)
        and tool_named(raw) is not None
    ):
        # Trigger: a clause that names the tool a kind of work is done with ("Betalingen
        #          lopen via Mollie", "Load calcs are done in Braceworks", "I scan the
        #          sketches with an Epson flatbed"), read unsure or weakly silent.
        # Why: the stack's facts are said in more wordings than the corpus holds, in
        #      every language; the reader drops them (fact 0.2, a weak one-off), and
        #      the tool's name cannot be recalled from anything else.
        # Outcome: kept as a fact (a todo, reminder, goal or dated event the reader reads
        #          keeps its label; a taste needs a taste's words or an order, a decision
        #          a choice's) unless a silent reading is sure enough to overrule a change.
        label = reading.label
        if (
            label in SILENT_LABELS
            or (label == "preference" and not (taste_said(raw) or asked_of_listener(raw)))
            or (label == "decision" and not decision_said(raw))
        ):
            label = "fact"
        quiet, reading = "", replace(reading, label=label, score=max(reading.score, 0.5), sure=True)
    if (
        quiet
        and (quiet != reading_label(reading) or overrules_rules(reading, change=change))
        and not any(r.name in INTRODUCTIONS and r.pattern.match(text) for r in rules)
    ):
        # a question, a one-off sentence, or a confident silent reading (never
        # of a user introducing themselves: "Hi! I'm Maya." reads like a greeting)
        return None, f"silent:{quiet}"
    clause = Clause(text, subject, today, explicit, said=raw.strip())
    for rule in rules:
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
            if cand.cue is ChangeCue.ASSERT and (UPDATE_CUE.search(text) or UPDATE_CUE.search(raw)):
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
            keep = (reader.keep_share, reader.keep_mass) if reader is not None else (2.0, 2.0)
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
        decided = (reading.label == "decision" and reading.score >= 0.5 and decision_said(raw)) or (
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
                reading if reading.sure or named or asked or decided else durable_fallback(reading)
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
            elif habit and read.label in {"preference", "event"} and not when.TASTE.search(text):
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
