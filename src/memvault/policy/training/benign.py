"""Benign templates: what a user wants remembered, and hard negatives (topics, not people).

``BENIGN`` holds ordinary preferences, workflow defaults, project settings,
decisions, todos, reminders, events, goals, work facts, family and pets, coarse
location. ``HARD`` holds items that *look* risky but talk about a topic, a
product, a document, a policy or a fictional character, never a person's own
sensitive data — the line contract §4 draws — one group per forbidden family
plus injection-looking text that is legitimate.

The templates live in ``benign.toml`` beside this module; only
``HARD["topic_frames"]`` is composed here (every frame crossed with every topic).
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["BENIGN", "HARD"]

_TABLES = load_tables(__file__)
BENIGN: dict[str, dict[str, list[str]]] = _TABLES["BENIGN"]
HARD: dict[str, dict[str, list[str]]] = _TABLES["HARD"]
#: Framings that make a sensitive term a *topic* (a document, a product, fiction,
#: news, a course, data about many people), crossed with topics of every family.
HARD["topic_frames"] = {
    lang: [f.replace("{t}", t) for f in frames for t in _TABLES["TOPICS"][lang]]
    for lang, frames in _TABLES["FRAMES"].items()
}
