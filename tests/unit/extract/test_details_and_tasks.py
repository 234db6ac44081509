"""Session 13: a kept memory keeps the identifiers its turn tells about it; tasks asked for
in list words ("add a task", "put down that", "don't let me forget") and in other languages
are todos; typed apostrophes and "for example" abbreviations do not garble a statement."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor, check_statement
from memvault.extract.sensitive import sensitive_words
from memvault.extract.text import plain_apostrophes, split_sentences

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)  # a Friday
X = RuleExtractor()


def kept(text: str, speaker: str = "Noor") -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="noor", speaker=speaker, at=NOW)
    return [(c.type.value, c.content) for c in X.extract(msg, now=NOW).candidates]


@pytest.mark.parametrize(
    ("text", "token"),
    [
        (
            "I need to migrate the billing cron before March. It lives in ops/cron/bill.sh.",
            "ops/cron/bill.sh",
        ),
        ("We moved the docs to Docusaurus. The old site was wiki-v1.internal.", "wiki-v1.internal"),
        ("I have to replace the pump by spring. It's ticket PLM-4471.", "PLM-4471"),
        (
            "I need to patch the router in the cellar, which runs firmware 4.2.1, before May.",
            "4.2.1",
        ),
        ("Wir züchten Rosen in Franken. Die beste Sorte trägt die Nummer RZ-12.", "RZ-12"),
    ],
)
def test_an_identifier_said_about_a_kept_memory_stays_with_it(text: str, token: str) -> None:
    # session 12 kept the first sentence and dropped the one naming the identifier
    got = kept(text)
    assert len(got) == 1, got
    assert token in got[0][1], got
    assert check_statement(got[0][1]) == () or not got[0][1].isascii()


def test_a_relative_clause_is_no_memory_of_its_own() -> None:
    got = kept("I need to patch the router in the cellar, which runs firmware 4.2.1, before May.")
    assert got == [
        (
            "Todo",
            "Noor needs to patch the router in the cellar, which runs firmware 4.2.1, before May.",
        )
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I prefer dark themes. The build for PR #77 is red right now.",  # the moment's status
        "I prefer dark themes. I'm meeting Jo at 15:00 today.",  # a clock time is no identifier
        "I prefer dark themes. Is v2.3 out yet?",  # a question
    ],
)
def test_a_moment_or_a_question_is_not_attached(text: str) -> None:
    assert kept(text) == [("Preference", "Noor prefers dark themes.")]


@pytest.mark.parametrize(
    "text",
    [
        # session 13's first draft attached both (the gate passed them): a secret, and a
        # hyphenated word ("burn-out") taken for an identifier
        "Never log request bodies. Here's the staging password for you: Plum!Gate_7719.",
        "We gebruiken Vite overal. Mijn collega zit thuis met een burn-out.",
        "I need to call the bank by Friday. My account number is 55-0192-7731.",
        "Ticket OPS-12: here is the deploy key id so you can check it later: QKZT83NV0PLM2XW4.",
        "I need to rotate the staging creds by Monday. It is Hx7Q2mVr9TzL4wPk.",
    ],
)
def test_a_secret_or_a_sensitive_word_is_never_attached(text: str) -> None:
    got = X.extract(Message(text=text, speaker="Noor"), now=NOW).candidates
    # only a candidate the capture refuses (marked sensitive) may hold those words
    leaked = [c.content for c in got if not c.sensitive]
    secrets = ("Plum!Gate_7719", "burn-out", "0192", "QKZT83NV0PLM2XW4", "Hx7Q2mVr9TzL4wPk")
    assert not any(w in c for c in leaked for w in secrets), got


def test_nothing_is_attached_in_a_turn_that_names_a_forbidden_family() -> None:
    said = "I need to renew the lease by June. It's flat B-12, the one where my landlord is gay."
    got = X.extract(Message(text=said, speaker="Noor"), now=NOW).candidates
    assert got and all("B-12" not in c.content or c.sensitive for c in got), got


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        (
            "Add a task to renew the boat licence before June.",
            "Noor needs to renew the boat licence before June.",
        ),
        (
            "add to my todo list: call the plumber about the leak",
            "Noor needs to call the plumber about the leak.",
        ),
        ("Create a task to archive the 2024 invoices.", "Noor needs to archive the 2024 invoices."),
        ("new task: update the README for v0.4.2", "Noor needs to update the README for v0.4.2."),
        ("todo: merge PR #58 before the freeze", "Noor needs to merge PR #58 before the freeze."),
        ("jot down that I have to return the drill to Sam", "Noor has to return the drill to Sam."),
        ("Put down that I need the chimney swept.", "Noor needs the chimney swept."),
        # session 12: "Noor does not want the assistant to let Noor forget to …", a preference
        (
            "don't let me forget to water the fern on friday",
            "Noor wants a reminder to water the fern on friday 2026-11-27.",
        ),
        (
            "dont let me forget about the school play next week",
            "Noor wants a reminder about the school play in the week of 2026-11-23.",
        ),
    ],
)
def test_a_task_asked_for_in_list_words_is_a_todo(text: str, stored: str) -> None:
    assert kept(text) == [("Todo", stored)]


def test_a_task_asked_in_another_language_is_a_todo_word_for_word() -> None:
    asked = [
        "Lembra-me de levar as botas ao sapateiro.",
        "Dodaj zadanie: wymienić filtr w okapie.",
        "请帮我加一个任务：给花园的围栏刷漆。",
        "Añade una tarea: renovar el dominio de la tienda antes de julio.",
        "タスクを追加してください：倉庫の棚を点検する。",
        "할 일에 넣어 주세요: 세금 신고서 제출.",
    ]
    got = [kept(text) for text in asked]
    assert [[t for t, _ in one] for one in got] == [["Todo"]] * len(asked), got
    assert [one[0][1].rstrip(".。") for one in got] == [t.rstrip(".。") for t in asked]


def test_typed_apostrophes_are_read_as_plain_ones() -> None:
    # session 12 stored "Noor’m a data engineer"
    assert kept("I’m a data engineer and I don’t work on Fridays")[0][1].startswith("Noor is a")
    said = "l’équipe, ‘it’s quoted’, Dana’s v1’s"
    assert plain_apostrophes(said) == "l’équipe, ‘it’s quoted’, Dana's v1’s"


def test_for_example_in_another_language_does_not_end_the_sentence() -> None:
    got = split_sentences("Każdą paczkę znaczę kodem, np. PK-33-9. Tak jest prościej.")
    assert next(s for s, _ in got) == "Każdą paczkę znaczę kodem, np. PK-33-9."


@pytest.mark.parametrize("step", ["uv sync --frozen", "kubectl rollout restart deploy/api"])
def test_procedure_steps_and_todos_keep_commands_as_typed(step: str) -> None:
    (got,) = kept(f"our hotfix steps: 1) {step} 2) tag the build 3) tell #ops")
    assert f"1. {step}." in got[1]


@pytest.mark.parametrize(
    ("text", "family"),
    [
        # session 12 refused these: "sex\w*" read "sexta" (Friday), a stem "hiv" read "hive"
        # and "hiver", "hurto" read "hurtownia", "gay" read Hindi "gayi"; "health \w+",
        # "medical \w+" and "political \w+" read jobs
        ("Todo viernes y toda sexta hacemos backup", None),
        ("Each hive gets inspected in spring.", None),
        ("Chaque hiver je révise les ruches.", None),
        ("Zamówienie z hurtowni przyjdzie jutro.", None),
        ("Kal bijli chali gayi thi office mein.", None),
        ("I build billing tools for a health insurance company.", None),
        ("She sells medical devices to clinics.", None),
        ("He draws political cartoons for the weekly.", None),
        # their twins stay refused
        ("My cousin had sex with her boss.", "intimate"),
        ("Her health condition got worse.", "health"),
        ("My flatmate's political views scare me.", "identity_trait"),
        ("Mi vecino tiene VIH.", "health"),
        ("Our bassist is gay.", "identity_trait"),
        ("Lo detuvieron por un hurto.", "criminal"),
    ],
)
def test_sensitive_words_read_words_not_their_letters(text: str, family: str | None) -> None:
    assert sensitive_words(text) == family


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        (
            "I have to send the quote for job KX-41 by Monday. Please remind me Friday.",
            "Noor has to send the quote for job KX-41 by Monday 2026-11-23. "
            "Noor wants a reminder on Friday 2026-11-27.",
        ),
        (
            "Tenho de encomendar os parafusos para a obra. Lembra-me na quinta.",
            "Tenho de encomendar os parafusos para a obra. Lembra-me na quinta.",
        ),
    ],
)
def test_a_reminder_request_without_an_action_goes_with_the_todo(text: str, stored: str) -> None:
    # session 12 kept a second memory, "Remind Noor Friday."
    got = X.extract(Message(text=text, speaker="Noor", at=NOW), now=NOW).candidates
    assert [(c.type.value, c.category, c.content) for c in got] == [("Todo", "REMINDER", stored)]


def test_a_reminder_request_alone_is_still_kept() -> None:
    assert [t for t, _ in kept("Remind me to water the fern on Friday.")] == ["Todo"]
    assert [t for t, _ in kept("Remind me Friday.")] == ["Todo"]


@pytest.mark.parametrize(
    "text",
    [
        "We dropped Trello last spring. The roadmap lives in Linear now.",
        "I left Wave Accounting. My invoices go out through Xero now.",
    ],
)
def test_a_change_told_in_two_sentences_is_one_update(text: str) -> None:
    msg = Message(text=text, speaker="Noor", at=NOW)
    got = X.extract(msg, now=NOW).candidates
    assert len(got) == 1, got
    assert got[0].type.value == "Fact" and got[0].cue.value == "update"
    assert text.split(". ")[1].split()[-2] in got[0].content  # the new tool is named


def test_two_unrelated_statements_are_not_joined_as_a_change() -> None:
    assert len(kept("I love hiking. These days I mostly climb.")) == 2


def test_an_obligation_in_more_languages_is_a_todo() -> None:
    for text in (
        "国庆之前我得把年度报告写完。",
        "Do úterý musím poslat fakturu dodavateli.",
        "Până luni trebuie să trimit oferta clientului.",
        "Jeg må bestille nye dekk før vinteren.",
    ):
        assert kept(text) == [("Todo", text)]


def test_got_in_chinese_is_no_obligation() -> None:
    assert [t for t, _ in kept("我得到了一份新工作，在杭州做数据分析。")] == ["Fact"]


def test_and_that_starts_a_clause_and_an_opening_code_is_a_credential_slot() -> None:
    # review S13-R10: one candidate "…'s locker code is 5530 and that … prefers window seats."
    said = "Note that my gym door code is 7781 and that I prefer aisle seats."
    got = X.extract(Message(text=said, speaker="Noor"), now=NOW).candidates
    assert [(c.content, c.sensitive) for c in got] == [
        ("Noor's gym door code is 7781.", "credentials"),
        ("Noor prefers aisle seats.", ""),
    ]
    assert sensitive_words("my zip code is 4050") is None
