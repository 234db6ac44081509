"""A turn's other sentences: context of the memory it keeps, praise of the assistant,
changes said in another language, and life events that start a lasting state."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memvault.extract import Message, RuleExtractor
from memvault.extract.context import context_of_kept, praises_listener, stands_alone

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def kept(text: str, speaker: str = "Iris") -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="iris", speaker=speaker, at=NOW)
    return [(c.type.value, c.content) for c in RuleExtractor().extract(msg, now=NOW).candidates]


def test_a_later_sentence_no_rule_read_is_the_kept_memorys_context() -> None:
    out = kept("We pin black to 24.3.0 in the repo. Older releases mangled our decorators.")
    assert len(out) == 1 and "24.3.0" in out[0][1]
    # the same sentence alone is kept: it is context only after a kept memory
    assert kept("Older releases mangled our decorators.") != []


def test_a_later_sentence_with_an_identifier_or_a_change_stands_alone() -> None:
    out = kept("Our queue is RabbitMQ on three nodes. The vhost is /billing-prod.")
    assert any("/billing-prod" in c for _, c in out)
    assert context_of_kept("The migration took two sprints.")
    assert not context_of_kept("The vhost is /billing-prod.")
    assert not context_of_kept("We switched the runners to arm64 last month.")


def test_in_another_language_a_later_sentence_that_names_something_stands_alone() -> None:
    assert not context_of_kept("Los backups van a Backblaze.")
    assert context_of_kept("Eso nos ahorra mucho tiempo.")
    assert stands_alone("部署は GKE です。") and stands_alone("バックエンドはクラウドです。")
    assert not stands_alone("のんびり休んでいます。")


@pytest.mark.parametrize(
    "text",
    [
        "You explain things so clearly, honestly.",
        "I appreciate how quickly you answered that.",
        "My flatmate is a fan of your answers too.",
    ],
)
def test_praise_of_the_assistant_keeps_nothing(text: str) -> None:
    assert praises_listener(text)
    assert kept(text) == []


def test_a_request_about_the_answers_is_still_a_preference() -> None:
    assert not praises_listener("I'd rather you show the diff first, you're clearer that way")
    assert not praises_listener("I like it when you use tables")


def test_a_life_event_that_starts_a_lasting_state_is_a_fact() -> None:
    out = kept("Last spring we adopted a retired racing dog called Biscuit.")
    assert [t for t, _ in out] == ["Fact"] and "Biscuit" in out[0][1]


def test_a_change_said_in_another_language_is_kept_and_needs_a_name() -> None:
    out = kept("Wir sind inzwischen von Jenkins auf Buildkite umgestiegen.")
    assert out and out[0][0] == "Fact" and "Buildkite" in out[0][1]
    assert kept("Je ne trouve plus le fichier.") == []


def test_the_moment_and_praise_of_an_answer_keep_nothing() -> None:
    assert kept("Just got home from the airport, my suitcase is still in Frankfurt.") == []
    assert kept("Génial, j'adore cette explication.") == []
    # a complaint about the answers is how the user wants them: not praise
    assert not praises_listener("your answers are too long for me")


def test_an_unsure_todo_without_a_todos_words_is_not_a_todo() -> None:
    assert all(t != "Todo" for t, _ in kept("I've got interviews back to back until 5."))
    assert [t for t, _ in kept("I need to renew the wildcard cert before March.")] == ["Todo"]


def test_a_decision_needs_a_choice_said() -> None:
    out = kept("Devo migrare il database a Postgres entro aprile.")
    assert out and out[0][0] == "Todo"


def test_a_change_names_the_value_it_replaces() -> None:
    from memvault.extract.change import changed_from

    assert changed_from("we swapped out webpack for Vite") == "webpack"
    assert changed_from("nos pasamos a Bun en lugar de Node") == "Node"
    assert changed_from("I stopped using Notion, it got slow") == "Notion"
    assert changed_from("we love Vite") == ""
    msg = Message(
        text="We replaced Travis with CircleCI last year.", user_id="iris", speaker="Iris", at=NOW
    )
    (cand,) = RuleExtractor().extract(msg, now=NOW).candidates
    assert cand.previous_value == "Travis"


def test_a_life_story_and_a_change_in_another_language_are_facts_not_events() -> None:
    out = kept("I lived in Kyoto for two years back in 2015.")
    assert out and out[0][0] == "Fact"
    assert [t for t, _ in kept("I sent the contract to Initech.")] == ["Event"]


def test_a_sentence_after_a_sure_aside_carries_it_on() -> None:
    assert kept("Haha, that's so funny. So I'm reading the logs again.") == []
    # a memory after small talk is still kept when a rule reads it or it names something
    assert kept("Haha, that's so funny. I moved to Porto last spring.") != []
    assert kept("Thanks so much! We deploy everything with Nomad.") != []


def test_what_follows_a_question_is_its_context() -> None:
    assert kept("Is the new bundler worth trying? It looks pretty fast.") == []


def test_in_another_language_a_preference_says_a_taste_or_how_to_answer() -> None:
    assert [t for t, _ in kept("Wir deployen seit zwei Jahren alles mit Argo.")] == ["Fact"]
    assert [t for t, _ in kept("Me encanta el café de especialidad.")] == ["Preference"]
    assert [t for t, _ in kept("Ik wil graag antwoorden in het Engels.")] == ["Preference"]


def test_a_lower_case_tool_name_or_handle_is_kept_byte_for_byte() -> None:
    assert any("kiki_b42" in c for _, c in kept("Hi! My name is kiki_b42."))
    assert any(c.startswith("ripgrep is") for _, c in kept("ripgrep is what I search with."))


def test_a_happening_no_rule_read_is_an_event_only_when_dated() -> None:
    # undated, it says how things are (a fact); dated, it is the week's event
    assert kept("We hosted a hackathon for the whole company.") == [
        ("Fact", "Iris's team hosted a hackathon for the whole company.")
    ]
    dated = kept("Last week we hosted a hackathon for the whole company.")
    assert [t for t, _ in dated] == ["Event"]
