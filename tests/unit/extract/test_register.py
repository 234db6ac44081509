"""Registers other than chat: e-mail subject lines, diary and calendar labels, voice-memo
fillers, pasted YAML / CSV / SQL records — and repeats that say they are one."""

from __future__ import annotations

from datetime import UTC, datetime

from memvault.extract import Message, RuleExtractor
from memvault.extract.register import read_register

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def kept(text: str, speaker: str = "Olu") -> list[tuple[str, str]]:
    msg = Message(text=text, user_id="olu", speaker=speaker, at=NOW)
    return [(c.type.value, c.content) for c in RuleExtractor().extract(msg, now=NOW).candidates]


def test_an_email_subject_is_read_only_when_its_body_keeps_nothing() -> None:
    out = kept(
        "Subject: Re: Fwd: onboarding notes\n\nFor the record, staging is a k3s cluster in"
        " eu-west-3. Prod stays on GKE."
    )
    assert out and all("onboarding" not in c and "Subject" not in c for _, c in out)
    assert any("eu-west-3" in c for _, c in out)
    # a subject alone is the turn
    alone = read_register("Betreff: Wir nutzen ab sofort Linear")
    assert alone.body == "Wir nutzen ab sofort Linear" and alone.heading == ""


def test_labels_of_diary_calendar_and_voice_memo_are_not_the_users_words() -> None:
    assert read_register("Tagebuch, 3. November. Heute habe ich angefangen.").body == (
        "Heute habe ich angefangen."
    )
    assert read_register("Journal, mardi : je cours le matin.").body == "je cours le matin."
    assert (
        read_register("Calendar: every Monday 09:00 standup").body == "every Monday 09:00 standup"
    )
    # a diary label keeps a sentence that is no date ("Took the kids …")
    assert read_register("Diary, took the kids to the gym. Fun.").body == (
        "took the kids to the gym. Fun."
    )
    spoken = read_register("Voice memo: um, okay so, we deploy with Argo CD, uh, to EKS.")
    assert spoken.body == "we deploy with Argo CD, to EKS."
    # "um" inside a word, or German "er", is no filler
    assert read_register("Er nutzt Umami für Analytics.").body == "Er nutzt Umami für Analytics."


def test_a_yaml_csv_or_sql_record_is_one_statement_with_its_fields_byte_for_byte() -> None:
    out = kept("profile.yaml for you:\nname: Olu\nrole: SRE lead\non_call: every third week")
    assert out == [
        ("Fact", "Olu's profile.yaml: name: Olu; role: SRE lead; on_call: every third week.")
    ]
    out = kept("my setup as CSV:\ntool,version\nterraform,1.9.5\nkubectl,1.31.2")
    assert out[0][0] == "Fact" and "terraform; version: 1.9.5" in out[0][1]
    out = kept("INSERT INTO user_prefs (user_id, pref, value) VALUES ('olu', 'editor', 'neovim');")
    assert out == [("Preference", "Olu's user_prefs: user_id: olu; pref: editor; value: neovim.")]
    # nested keys under a parent say what the record is about
    out = kept("config:\nreplies:\n  language: en-GB\n  length: short\nthanks!")
    assert out == [("Preference", "Olu's config: replies.language: en-GB; replies.length: short.")]


def test_prose_with_commas_or_a_colon_is_no_record() -> None:
    register = read_register("We use Go, Rust and Python.\nThe rest is Bash, sadly, and Perl.")
    assert register.records == ()
    assert read_register("Note: we ship on Fridays.").records == ()


def test_a_repeat_said_as_one_keeps_only_the_statement() -> None:
    assert kept("Comme je te l'ai déjà dit, j'adore le café noir.", "Pierre") == [
        ("Preference", "J'adore le café noir.")
    ]
    out = kept("Just reminding you: we deploy on Tuesdays only.", "Kwame")
    assert out and all("remind" not in c.lower() for _, c in out)


def test_a_calendar_entry_is_a_fact_when_recurring_an_event_when_dated_else_logistics() -> None:
    assert kept("Calendar: Fri 17:00 drinks with Sam.", "Mei") == []
    recurring = kept("Calendar: every Tuesday 07:30 choir rehearsal at the church hall.", "Mei")
    assert [t for t, _ in recurring] == ["Fact"]
    dated = kept("Calendar: offsite with the data team in Porto, 12-14 March.", "Mei")
    assert [t for t, _ in dated] == ["Event"] and "12-14 March" in dated[0][1]


def test_a_diarys_today_is_the_entrys_date_not_a_one_off() -> None:
    out = kept("Dear diary, today I gave my first talk at PyData in Leeds.", "Mei")
    assert out == [("Event", "Mei gave their first talk at PyData in Leeds on 2026-11-02.")]
    # in chat, the same words are today's news
    assert kept("today I gave my first talk at PyData in Leeds.", "Mei") != out


def test_relative_weeks_and_months_keep_the_users_preposition() -> None:
    out = kept("from this week I do code reviews on Wednesdays only.", "Ana")
    assert out and "from the week of 2026-11-02" in out[0][1].lower()
    assert " in the week" not in out[0][1]


def test_favourites_and_wanted_answers_are_preferences_in_any_language() -> None:
    assert kept("Mi editor favorito es Helix. Lo uso para todo.", "Javier") == [
        ("Preference", "Mi editor favorito es Helix.")
    ]
    out = kept("Cevapları Türkçe yazarsan sevinirim. Teknik terimler kalabilir.", "Aylin")
    assert [t for t, _ in out] == ["Preference"] and "Türkçe" in out[0][1]


def test_a_short_clause_of_a_turn_in_another_language_is_read_in_that_language() -> None:
    # "Sem acesso ao e-mail" alone reads as English: the reader's English keep rule and
    # the rewriter would store it in raw words
    out = kept("Estarei de férias de 10 a 24 de dezembro. Sem acesso ao e-mail.", "Bea")
    assert all("acesso" not in c for _, c in out)


def test_moves_of_home_and_lately_words_are_change_cues_in_other_languages() -> None:
    from memvault.extract.reading import UPDATE_CUE

    for said in (
        "El mes pasado me mudé a Sevilla",
        "J'ai déménagé à Nantes",
        "Mi sono trasferita a Bologna",
        "Neuerdings fahren wir mit Nomad",
        "Przeprowadziłam się do Gdyni",
        "Geçen ay İzmir'e taşındım",
        "Я переехал в Казань",
    ):
        assert UPDATE_CUE.search(said), said
    assert not UPDATE_CUE.search("Vivo en Sevilla desde 2019")
