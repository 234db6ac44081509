"""The clause reader: shipped weights are the recorded ones, retraining is bit for bit,
a broken file fails clearly, and the reader decides what a turn keeps."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from memvault.errors import WeightsError
from memvault.extract import Message, RuleExtractor
from memvault.extract.reader import LABELS, READER_MANIFEST, ClauseReader, default_reader
from memvault.extract.training.generate import CORPUS_PATH, generate
from memvault.extract.training.train import (
    KeepBudgetError,
    calibrate_keep,
    load_rows,
    train_reader,
)

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)  # a Monday


def kept(text: str, speaker: str = "Tom") -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="tom", speaker=speaker, at=NOW)
    return [(c.type.value, c.content) for c in RuleExtractor().extract(msg, now=NOW).candidates]


def test_the_shipped_weights_are_the_recorded_ones_with_a_card() -> None:
    manifest = json.loads(READER_MANIFEST.read_text(encoding="utf-8"))
    weights = READER_MANIFEST.with_name(manifest["weights"])
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == manifest["sha256"]
    assert READER_MANIFEST.with_suffix(".md").is_file()
    # the corpus they were trained on is the committed one
    assert hashlib.sha256(CORPUS_PATH.read_bytes()).hexdigest() == manifest["corpus"]["sha256"]
    assert manifest["labels"] == list(LABELS) and manifest["command"] == "memvault capture train"
    assert default_reader().heads.labels == LABELS


def test_the_corpus_is_large_labelled_and_regenerated_exactly() -> None:
    rows = load_rows()
    assert len(rows) >= 3000
    assert {r["label"] for r in rows} == set(LABELS)
    assert generate() == rows  # the committed file is the generator's output


def test_retraining_a_slice_is_bit_for_bit(tmp_path: Path) -> None:
    a = train_reader(tmp_path / "a", limit=25)
    b = train_reader(tmp_path / "b", limit=25)
    assert a["sha256"] == b["sha256"]
    assert (tmp_path / "a" / "clause_reader.npz").read_bytes() == (
        tmp_path / "b" / "clause_reader.npz"
    ).read_bytes()
    assert a["corpus"]["items"] == 25 * len(LABELS)


class _FixedHeads:
    """Heads that read every clause the same way (one probability per label)."""

    def __init__(self, label: str, p: float) -> None:
        self.row = np.full(len(LABELS), 0.01)
        self.row[LABELS.index(label)] = p

    def scores(self, _vectors: object, x: object) -> npt.NDArray[np.float64]:
        return np.tile(self.row, (x.n_rows, 1))  # type: ignore[attr-defined]


def test_a_broken_keep_budget_fails_loudly_not_with_a_keep_nothing_rule() -> None:
    rows = [{"text": f"clause number {i}", "label": "chitchat"} for i in range(20)]
    rows += [{"text": f"we deploy service {i}", "label": "fact"} for i in range(20)]
    # every clause read as a sure fact: even the strictest rule keeps all the chit-chat
    with pytest.raises(KeepBudgetError, match="validation silent clauses"):
        calibrate_keep(_FixedHeads("fact", 0.95), rows)  # type: ignore[arg-type]
    # near miss: read as chit-chat, nothing silent is kept and a rule is chosen
    keep = calibrate_keep(_FixedHeads("chitchat", 0.95), rows)  # type: ignore[arg-type]
    assert keep["silent_kept"] == 0.0 and keep["floor"] == 0.2
    assert issubclass(KeepBudgetError, ValueError)  # the CLI's clear-error path


def test_a_broken_weights_file_fails_clearly_and_capture_says_so(tmp_path: Path) -> None:
    for name in ("clause_reader.json", "clause_reader.npz"):
        shutil.copy(READER_MANIFEST.with_name(name), tmp_path / name)
    weights = tmp_path / "clause_reader.npz"
    weights.write_bytes(weights.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(WeightsError, match="sha256"):
        ClauseReader(tmp_path / "clause_reader.json")
    x = RuleExtractor(reader_manifest=tmp_path / "clause_reader.json").extract(
        Message(text="I love green tea", speaker="Tom", at=NOW), now=NOW
    )
    assert x.errors and x.errors[0].startswith("clause reader unavailable, rules only")
    assert [c.content for c in x.candidates] == ["Tom loves green tea."]  # the rules still work
    (tmp_path / "clause_reader.json").unlink()
    with pytest.raises(WeightsError, match="manifest"):
        ClauseReader(tmp_path / "clause_reader.json")


@pytest.mark.parametrize(
    "text",
    [
        "dentist appointment tomorrow, so I can't join the standup",
        "running 15 minutes late, sorry",
        "what's the difference between a mutex and a semaphore?",
        "haha nice, thanks a lot",
        "ugh I'm so sleepy today",
        # a wish or a goodbye, in any language (session 6 kept some as facts or events)
        "Have a lovely evening!",
        "Enjoy your trip to Rome.",
        "Schönes Wochenende euch allen.",
        "¡Buen finde a todos!",
        "오늘 너무 피곤해요.",
        "Tack för hjälpen!",
        # "all morning" is today's, like "the whole morning"
        "Fire drill all morning, I can barely work.",
    ],
)
def test_one_offs_questions_and_chit_chat_keep_nothing(text: str) -> None:
    assert kept(text) == []


@pytest.mark.parametrize(
    ("text", "type_", "words"),
    [
        ("The team decided to use Kafka for the audit log.", "Decision", "decided to use kafka"),
        ("My goal this year is to get the AWS security cert.", "Goal", "aws security cert"),
        ("can you remind me to renew the domain on friday?", "Todo", "renew the domain"),
        ("gotta rotate the grafana tokens by thursday", "Todo", "rotate the grafana tokens"),
        ("the payments api is written in kotlin", "Fact", "kotlin"),
        ("we deploy everything with argo cd", "Fact", "argo cd"),
        ("we shipped v4.0.2 last friday", "Event", "v4.0.2"),
    ],
)
def test_the_reader_keeps_and_types_what_rules_alone_missed(
    text: str, type_: str, words: str
) -> None:
    got = kept(text)
    assert any(t == type_ and words in c.lower() for t, c in got), got


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("started on antidepressants after the burnout", "health"),
        ("got arrested at a protest back in college", "criminal"),
    ],
)
def test_a_kept_clause_no_rule_knew_is_still_checked_for_forbidden_words(
    text: str, family: str
) -> None:
    from memvault.extract.clause import Clause
    from memvault.extract.reader import Reading
    from memvault.extract.reading import statement_candidate

    cand = statement_candidate(Clause(text, "Tom", NOW.date()), Reading("fact", 0.9, ()))
    assert cand is not None and cand.sensitive == family  # capture refuses it


def test_benign_tooling_words_are_not_sensitive_in_free_text() -> None:
    from memvault.extract.clause import Clause
    from memvault.extract.reader import Reading
    from memvault.extract.reading import statement_candidate

    text = "we keep the api tokens and the deploy password in 1password"
    cand = statement_candidate(Clause(text, "Tom", NOW.date()), Reading("fact", 0.9, ()))
    assert cand is not None and cand.sensitive == ""


def test_the_keep_rule_is_calibrated_and_recorded_in_the_manifest() -> None:
    manifest = json.loads(READER_MANIFEST.read_text(encoding="utf-8"))
    keep = manifest["keep"]
    # 3% of the validation split's silent clauses (5% kept half of a progress set's chit-chat)
    assert keep["silent_kept"] <= 0.03 and 0.0 < keep["floor"] <= 0.2 and keep["share"] >= 0.3
    reader = default_reader()
    assert (reader.keep_floor, reader.keep_share) == (keep["floor"], keep["share"])
    # the durable mass rule: worth keeping, whichever durable kind it reads as
    assert 0.5 <= keep["mass"] <= 0.975 and reader.keep_mass == keep["mass"]
    other = manifest["keep_other"]
    assert other["silent_kept"] <= 0.05 and reader.other_mass == other["mass"]
    # session 6 kept 34% of the validation split's durable clauses in other languages
    assert other["durable_kept"] >= 0.7


@pytest.mark.parametrize(
    ("text", "type_"),
    [
        ("Hay que renovar el certificado SSL antes de diciembre.", "Todo"),
        ("Muss noch die Steuererklärung machen.", "Todo"),
        ("Preciso marcar o dentista para a minha filha.", "Todo"),
        ("提醒我周五之前交房租。", "Todo"),
        ("Estudio medicina en Salamanca desde septiembre.", "Fact"),
        ("Codziennie rano biegam pięć kilometrów.", "Fact"),  # a routine, not a taste
        ("Faut que je rappelle le plombier lundi.", "Todo"),
        # Swedish, Danish and Korean joined the corpus in session 7
        ("Jag måste deklarera innan maj.", "Todo"),
        ("다음 달까지 여권을 갱신해야 해요.", "Todo"),
        ("Vi bruger Terraform til al infrastruktur.", "Fact"),
    ],
)
def test_a_durable_clause_in_another_language_is_kept_without_an_i(text: str, type_: str) -> None:
    # session 6 dropped each of these as unread: the keep rule asked the best label
    # to stand out, and a clause read half fact, half event never did
    assert kept(text) == [(type_, text)]


def test_a_clause_in_another_language_about_someone_else_is_not_kept() -> None:
    # kept word for word, only the gate would judge it, and what the gate misses is
    # mostly about other people (bench capture-leaks): a relative's or colleague's
    # statement in raw words is left out, however durable it reads
    assert kept("Mi hija estudia medicina en Salamanca.") == []
    assert kept("Il mio collega Dario è appena tornato dalla clinica.") == []


def test_other_languages_cue_words_are_glossed_for_the_reader() -> None:
    from memvault.extract.gloss import glosses
    from memvault.extract.reader import reader_view

    assert glosses("tenemos que migrar los cron") == ("need to",)
    assert "need to" in glosses("Bis Freitag muss ich die Steuer machen")  # inverted order
    assert glosses("Je déteste les réunions") == ("i hate",)
    assert "tonight" in glosses("heute Abend gehe ich ins Kino")
    assert glosses("今日はとても疲れました") == ("today", "tired and stressed")
    # English is read as written; an identifier is never glossed
    assert reader_view("we need to pin ruff==0.6.9") == "we need to pin ID"
    assert reader_view("tengo que fijar ruff==0.6.9") == "tengo que fijar ID = need to"


def test_identifiers_are_one_token_for_the_reader() -> None:
    from memvault.extract.reader import reader_view

    assert reader_view("bump grpcio to 1.66.1 in services/api") == "bump grpcio to ID in ID"
    a, b = default_reader().read(["bump grpcio to 1.66.1", "bump grpcio to 0.9.0rc2"])
    assert a.scores == b.scores


@pytest.mark.parametrize(
    "text",
    [
        "Could you save the chart as an svg instead?",
        "would you note the assumptions in the readme?",
        "Can you remember which bucket the exports went to?",
        "i keep getting a 401 from the billing api, what am I missing",
        "Before I forget, what's the shortcut for splitting panes in tmux?",
    ],
)
def test_requests_and_questions_to_the_assistant_keep_nothing(text: str) -> None:
    assert kept(text) == []


def test_a_clause_in_another_language_is_kept_word_for_word_only_when_the_reader_is_sure() -> None:
    # sure: the user's clause, unrewritten, typed by the reader
    assert kept("Vivo en Valencia desde hace tres años.") == [
        ("Fact", "Vivo en Valencia desde hace tres años.")
    ]
    assert kept("Ayer fuimos a la playa con mis hijos y lo pasamos genial.") == [
        ("Event", "Ayer fuimos a la playa con mis hijos y lo pasamos genial.")
    ]
    # the stack's fact said without "I": kept (session 6 dropped it as unread)
    assert kept("Das Backend wird jeden Donnerstag mit Argo auf den Cluster deployt.") == [
        ("Fact", "Das Backend wird jeden Donnerstag mit Argo auf den Cluster deployt.")
    ]
    # unsure, but said in the first person with a durable reading that stands out: kept,
    # as an English "I …" statement is
    assert kept("Wir deployen das Backend jeden Donnerstag mit Argo auf den Cluster.") == [
        ("Fact", "Wir deployen das Backend jeden Donnerstag mit Argo auf den Cluster.")
    ]
    # … but not a muddled reading ("I was at the doctor's yesterday": goal? event?)
    assert kept("Ich war gestern beim Arzt.") == []
    # silent in any language: today's mood, thanks, a question back
    assert kept("Hoy estoy agotada.") == []
    assert kept("Obrigado pela ajuda!") == []
    assert kept("¿Qué tal el fin de semana?") == []


def test_a_clause_in_another_language_meets_the_sensitive_words() -> None:
    # kept word for word, the clause is marked: capture refuses it (extract.sensitive_words)
    for text, family in [
        ("Vivo en Sevilla con mi novia desde hace dos años.", "intimate"),
        ("Ich wohne seit drei Jahren mit meiner Freundin in Hamburg.", "intimate"),
    ]:
        x = RuleExtractor().extract(Message(text=text, speaker="Tom"), now=NOW)
        assert x.candidates, text
        assert all(c.sensitive == family for c in x.candidates), x.candidates


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I no longer use Sublime, it's all Zed now", "Tom no longer uses Sublime"),
        ("we agreed to freeze merges during the audit", "Tom's team agreed to freeze merges"),
    ],
)
def test_verb_agreement_keeps_the_users_verb(text: str, statement: str) -> None:
    assert any(statement in c for _, c in kept(text)), kept(text)


@pytest.mark.parametrize(
    ("text", "kept_types"),
    [
        ("We run Postgres 16 on the analytics box. How do I vacuum a huge table safely?", []),
        ("i teach piano on weekends - any tips for a recital program?", []),
        ("Could you remind me on friday to renew the domain? It expires soon.", ["Todo"]),
    ],
)
def test_a_turn_that_asks_keeps_only_its_todos_and_reminders(
    text: str, kept_types: list[str]
) -> None:
    assert [t for t, _ in kept(text)] == kept_types


@pytest.mark.parametrize(
    ("text", "type_"),
    [
        ("we upgraded the build agents to ubuntu 24.04 last week", "Fact"),
        ("We moved the nightly exports to BigQuery", "Fact"),
        ("we decided to move the nightly exports to BigQuery", "Decision"),
    ],
)
def test_a_change_stated_as_done_is_the_new_state_of_things(text: str, type_: str) -> None:
    got = kept(text)
    assert [t for t, _ in got] == [type_], got


@pytest.mark.parametrize(
    "text",
    [
        "Ordering dumplings for the whole team tonight since we're shipping late.",
        "spent the whole afternoon chasing a flaky selenium test, finally found it",
    ],
)
def test_a_statement_about_today_is_a_one_off(text: str) -> None:
    assert kept(text) == []


def test_a_possessive_day_is_not_rewritten() -> None:
    from datetime import date

    from memvault.extract.dates import resolve_relative_dates

    assert resolve_relative_dates("tomorrow's sync moves", date(2026, 3, 4)) == (
        "tomorrow's sync moves"
    )


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (
            "When you write SQL for me, always use CTEs instead of subqueries.",
            "When the assistant writes SQL for Tom, always use CTEs instead of subqueries.",
        ),
        ("Contéstame siempre en español, por favor.", "Contéstame siempre en español, por favor."),
        ("Antworte mir bitte immer auf Deutsch.", "Antworte mir bitte immer auf Deutsch."),
        ("Réponds-moi toujours en français.", "Réponds-moi toujours en français."),
    ],
)
def test_a_standing_request_is_a_preference_in_any_language(text: str, content: str) -> None:
    # session 6 read these as facts ("always"/"siempre" made them routines)
    assert kept(text) == [("Preference", content)]
