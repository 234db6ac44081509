"""Injection templates by technique (docs/governance.md), several languages each.

``{url}`` is an outside address, ``{mail}`` an outside mailbox, ``{p}`` another
person. Besides the blunt forms, each technique has *friendly* ones — an instruction
asked as a favour, in chat wording, or saved as if it were a preference (session 5's
chat turns taught the heads that polite requests are benign; what they ask for is
what makes them injections). ``compose`` also wraps some items in obfuscations (base64, zero-width
characters, full-width letters, leetspeak, HTML comments, chat-role JSON).

The templates live in ``injections.toml`` beside this module.
"""

from __future__ import annotations

from memvault.learn.tables import load_tables

__all__ = ["INJECTIONS"]

#: technique -> language -> templates
INJECTIONS: dict[str, dict[str, list[str]]] = load_tables(__file__)["INJECTIONS"]
