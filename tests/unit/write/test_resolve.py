"""The resolver is a pure function: each band and rule, one case at a time."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from memvault.extract import Candidate, ChangeCue
from memvault.model.enums import MemoryType
from memvault.write import NeighbourView, Outcome, SimilarityBands, bands_for
from memvault.write.resolve import resolve

BANDS = bands_for("lexical")
BANDS_MINILM = bands_for("sentence-transformers/all-MiniLM-L6-v2")


def cand(content: str, key: str = "", value: str = "", **kw: object) -> Candidate:
    return Candidate(content, MemoryType.FACT, "KNOWLEDGE", key, value, **kw)  # type: ignore[arg-type]


def n(mid: str, content: str, key: str = "", value: str = "", sim: float = 0.0, t: str = "Fact"):  # type: ignore[no-untyped-def]
    return NeighbourView(mid, content, key, value, t, sim)


def test_no_neighbours_is_stored() -> None:
    assert resolve(cand("Dana lives in Porto."), [], BANDS).outcome is Outcome.STORED


def test_same_content_merges_even_below_the_duplicate_band() -> None:
    r = resolve(cand("Dana lives in Porto."), [n("m1", "Dana lives in Porto", sim=0.1)], BANDS)
    assert (r.outcome, r.merge_into) == (Outcome.MERGED, "m1")


def test_same_key_new_value_without_cue_contradicts_exclusive_slots() -> None:
    c = cand("Dana lives in Porto.", "home_city", "Porto", exclusive=True)
    r = resolve(c, [n("m1", "Dana lives in Lisbon.", "home_city", "Lisbon", 0.5)], BANDS)
    assert r.outcome is Outcome.CONTRADICTION and r.contradicts == ("m1",)


def test_same_key_new_value_with_cue_updates() -> None:
    c = cand("Dana now lives in Porto.", "home_city", "Porto", exclusive=True, cue=ChangeCue.UPDATE)
    r = resolve(c, [n("m1", "Dana lives in Lisbon.", "home_city", "Lisbon", 0.5)], BANDS)
    assert r.outcome is Outcome.UPDATED and r.supersedes == ("m1",)


def test_numeric_conflict_above_the_contradiction_band() -> None:
    c = cand("The cluster has 12 nodes.")
    r = resolve(c, [n("m1", "The cluster has 9 nodes.", sim=0.95)], BANDS)
    assert r.outcome is Outcome.CONTRADICTION


def test_related_edges_are_capped_and_weighted() -> None:
    c = cand("Dana ships the Phoenix beta.")
    near = [n(f"m{i}", f"Phoenix note {i}", sim=0.5 - i / 100) for i in range(5)]
    r = resolve(c, near, BANDS, related_top_k=3)
    assert r.outcome is Outcome.RELATED
    assert [m for m, _ in r.related] == ["m0", "m1", "m2"]
    assert all(0 < w <= 1 for _, w in r.related)


def test_done_closes_the_matching_todo_only() -> None:
    c = cand("Dana sent the invoice.", "todo.invoice", cue=ChangeCue.DONE)
    todo = n("t1", "Dana needs to send the invoice.", "todo.invoice", t="Todo")
    other = n("t2", "Dana needs to call Ana.", "todo.ana", sim=0.1, t="Todo")
    r = resolve(c, [todo, other], BANDS)
    assert r.outcome is Outcome.UPDATED and r.supersedes == ("t1",)


def test_bands_must_be_ordered() -> None:
    with pytest.raises(ValidationError):
        SimilarityBands(duplicate=0.5, contradiction=0.8, related=0.3, done=0.5)


def test_a_change_about_the_speaker_never_supersedes_a_memory_about_their_child() -> None:
    # newuser: "switched to evening runs" superseded the memory about a daughter's school
    # (a reader fact keyed fact.… shared the "fact" family with every other reader fact).
    c = cand(
        "Maya switched to evening runs because school drop-off takes her mornings now.",
        "fact.switched_evening_runs_school_drop",
        cue=ChangeCue.UPDATE,
        subject="Maya",
    )
    school = n(
        "m1",
        "Maya's daughter started at Oakwood school, drop-off is in the mornings.",
        "fact.daughter_started_oakwood_school",
        sim=0.5,
    )
    r = resolve(c, [school], BANDS)
    assert r.outcome is not Outcome.UPDATED and r.supersedes == ()
    runs = n(
        "m2", "Maya runs in the mornings before work.", "fact.runs_mornings_before_work", sim=0.45
    )
    assert resolve(c, [school, runs], BANDS).supersedes == ("m2",)


def test_a_generic_key_family_is_no_slot_match_but_a_named_slot_is() -> None:
    # every clause the reader kept as a fact is keyed fact.…: that is no shared slot
    c = cand("Dana now cycles to work.", "fact.cycles_work", cue=ChangeCue.UPDATE, subject="Dana")
    far = n("m1", "Dana's kids love the new pool.", "fact.kids_love_pool", sim=0.3)
    assert resolve(c, [far], BANDS).outcome is not Outcome.UPDATED
    # "now prefers light themes" changes "likes dark mode" (issue 16: both stayed active)
    light = Candidate(
        "Dana now prefers light themes.",
        MemoryType.PREFERENCE,
        "PREFERENCE",
        "prefers.light_themes",
        "light themes",
        cue=ChangeCue.UPDATE,
        subject="Dana",
    )
    dark = n("m2", "Dana likes dark mode.", "likes.dark_mode", "dark mode", 0.3, t="Preference")
    assert resolve(light, [dark], BANDS).supersedes == ("m2",)


def test_changing_ones_mind_updates_the_related_plan() -> None:
    # newuser: "Actually I changed my mind … we're keeping RabbitMQ" was only RelatedTo
    c = Candidate(
        "Maya changed their mind, Maya's team is keeping RabbitMQ.",
        MemoryType.DECISION,
        "DECISION",
        "decision.changed_mind_keeping_rabbitmq",
        "RabbitMQ",
        cue=ChangeCue.UPDATE,
        subject="Maya",
    )
    plan = n(
        "m1",
        "Maya's team is moving the job queue to Kafka.",
        "decision.moving_job_queue",
        sim=0.4,
        t="Decision",
    )
    r = resolve(c, [plan], BANDS)
    assert r.outcome is Outcome.UPDATED and r.supersedes == ("m1",)


def test_a_change_in_cjk_text_finds_the_latin_name_it_replaces() -> None:
    # session 10: "VueからReactに" named Vue, but every CJK character is a word character,
    # so the old memory "主にVueを使っています" never matched the name as a word
    c = cand(
        "最近はVueからReactに移行しました。",
        "fact.vue_react",
        cue=ChangeCue.UPDATE,
        previous_value="Vue",
    )
    old = n("m1", "主にVueを使っています。", "fact.vue", sim=0.2)
    other = n("m2", "主にVuexを使っています。", "fact.vuex", sim=0.2)
    assert resolve(c, [old, other], BANDS).supersedes == ("m1",)


def test_a_change_in_another_language_names_the_place_it_leaves() -> None:
    c = cand(
        "Ya no vivo en Bilbao, me mudé a Cádiz.",
        "fact.x",
        cue=ChangeCue.UPDATE,
        previous_value="Bilbao",
    )
    old = n("m1", "Iker lives in Bilbao.", "city", "Bilbao", sim=0.1)
    assert resolve(c, [old], BANDS).outcome is Outcome.UPDATED


def test_a_statement_that_says_it_repeats_merges_with_what_it_repeats() -> None:
    # session 10: "As I mentioned, …" was close to the old memory but under the duplicate band
    old = n("m1", "Ana's team's main cluster runs version 15.4 in eu-north-1.", "fact.a", sim=0.8)
    said = "Ana's team's main cluster runs 15.4 in eu-north-1."
    repeat = cand(said, "fact.b", repeat=True)
    assert resolve(repeat, [old], BANDS_MINILM).merge_into == "m1"
    # without the words that say it repeats, it is only related
    assert resolve(cand(said, "fact.b"), [old], BANDS_MINILM).outcome is Outcome.RELATED
    # a repeat with a number of its own is no repeat of that memory
    other = cand("Ana's team's main cluster runs 16.2 in eu-north-1.", "fact.c", repeat=True)
    assert resolve(other, [old], BANDS_MINILM).outcome is not Outcome.MERGED
