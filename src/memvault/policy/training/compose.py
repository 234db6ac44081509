"""Compose the gate's training corpus from hand-written fragments, deterministically.

``python -m memvault.policy.training.compose`` (or ``memvault policy train
--rebuild-corpus``) writes ``corpus.jsonl`` beside this file: every template of
``forbidden_a``, ``forbidden_b``, ``injections`` and ``benign`` is filled with
people (``people.THIRD``) and synthetic values, then written in varied styles —
plain, lower-case chat, prefixes ("fyi", "remember that", in each language),
JSON and key=value records, bullet lists, abbreviations, typos, obfuscations
(spaced letters, leetspeak, zero-width characters, full-width letters, base64
and HTML comments for injections) — and some forbidden items are mixed into an
ordinary sentence. One ``random.Random`` per group, seeded by the group's name, drives
every choice (adding a group changes no other group's items), templates
are visited in sorted order, duplicates are dropped: the same fragments always
give the same bytes.

Every line: ``id``, ``text``, ``label`` (benign | forbidden | injection),
``family``, ``subcategory``, ``expected`` (ALLOW | FORBIDDEN_CATEGORY |
INJECTION_DETECTED), ``hard_negative``, ``lang``, ``style``.

None of it comes from an evaluation set: ``../shared/data`` is never read here.
"""

from __future__ import annotations

import base64
import json
import random
import string
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memvault.learn.tables import load_tables
from memvault.policy.training.benign import BENIGN, HARD
from memvault.policy.training.chat import CHAT, CHAT_NAMES
from memvault.policy.training.forbidden_a import FORBIDDEN_A
from memvault.policy.training.forbidden_b import FORBIDDEN_B
from memvault.policy.training.injections import INJECTIONS
from memvault.policy.training.memories import FICTION, MEMORIES
from memvault.policy.training.people import THIRD

__all__ = ["CORPUS_PATH", "SEED", "compose", "corpus_bytes", "refresh_corpus", "write_corpus"]

_T = load_tables(__file__, tuples=True)

SEED = 20261126
CORPUS_PATH = Path(__file__).with_name("corpus.jsonl")
#: the hand-written items (``written/*.jsonl``): a generated item never repeats one
WRITTEN_DIR = Path(__file__).with_name("written")


def _key(text: str) -> str:
    """Exact-overlap key: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _written_keys(folder: Path = WRITTEN_DIR) -> set[str]:
    keys: set[str] = set()
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        with path.open(encoding="utf-8") as fh:
            keys.update(_key(json.loads(line)["text"]) for line in fh if line.strip())
    return keys


#: how many items each group gets (templates are cycled, styles vary)
QUOTA = {
    "forbidden": 300,  # per family (tool_output: a third of it)
    "injection": 120,  # per technique
    "benign": 360,  # per benign group (about_people: twice)
    "hard": 220,  # per hard-negative group
    "chat": 1100,  # ordinary chat turns (chat.py), many with a speaker prefix
    "memory": 175,  # per group of memories.py: routines, sport, work and tools, trips, docs
}


_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})


def _luhn_card(rng: random.Random) -> str:
    digits = [rng.choice((4, 5))] + [rng.randrange(10) for _ in range(14)]
    total = 0
    for i, d in enumerate(reversed(digits)):
        v = d * 2 if i % 2 == 0 else d
        total += v - 9 if v > 9 else v
    digits.append((10 - total % 10) % 10)
    s = "".join(map(str, digits))
    return rng.choice(
        (
            s,
            " ".join(s[i : i + 4] for i in range(0, 16, 4)),
            "-".join(s[i : i + 4] for i in range(0, 16, 4)),
        )
    )


def _slots(rng: random.Random, lang: str) -> dict[str, Callable[[], str]]:
    def digits(n: int) -> str:
        return "".join(rng.choice(string.digits) for _ in range(n))

    def token() -> str:
        body = "".join(
            rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(20, 36))
        )
        return rng.choice(("sk-", "ghp_", "xoxb-", "AKIA", "glpat-", "sk_live_", "AIza", "")) + body

    def pw() -> str:
        w = rng.choice(_T["WORDS"])
        return rng.choice(
            (
                w.capitalize() + digits(2) + rng.choice("!#$%&*"),
                w + "_" + rng.choice(_T["WORDS"]) + digits(3),
                "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(10)),
            )
        )

    return {
        "card": lambda: _luhn_card(rng),
        "iban": lambda: (
            rng.choice(("DE", "ES", "FR", "GB", "NL", "IT", "PT"))
            + digits(2)
            + " "
            + " ".join(digits(4) for _ in range(4))
        ),
        "ssn": lambda: rng.choice((f"{digits(3)}-{digits(2)}-{digits(4)}", digits(9))),
        "idnum": lambda: rng.choice(
            (
                rng.choice(string.ascii_uppercase) + digits(8),
                digits(8) + rng.choice(string.ascii_uppercase),
                digits(3) + "." + digits(3) + "." + digits(3) + "-" + digits(2),
                digits(11),
            )
        ),
        "pin": lambda: digits(rng.choice((4, 4, 4, 6))),
        "pw": pw,
        "token": token,
        "coord": lambda: f"{rng.uniform(-60, 60):.5f}, {rng.uniform(-120, 120):.5f}",
        "street": lambda: rng.choice(_T["STREETS"].get(lang, _T["STREETS"]["en"])).format(
            n=rng.randint(2, 240)
        ),
        "time": lambda: rng.choice(("10pm", "6:30", "21:00", "7am", "half past nine")),
        "phrase": lambda: " ".join(rng.choice(_T["WORDS"]) for _ in range(12)),
        "hexblob": lambda: "".join(
            rng.choice("0123456789abcdef") for _ in range(rng.choice((32, 48, 64)))
        ),
        "url": lambda: (
            rng.choice(("https://", "http://", ""))
            + rng.choice(("collect", "evil", "x", "paste", "cdn-sync", "help-desk"))
            + "-"
            + rng.choice(_T["WORDS"])
            + rng.choice((".io", ".xyz", ".com", ".net"))
        ),
        "mail": lambda: (
            rng.choice(_T["WORDS"])
            + digits(2)
            + "@"
            + rng.choice(("protonmail.com", "gmail.com", "mail.ru", "outlook.com"))
        ),
    }


def _fill(template: str, rng: random.Random, lang: str) -> str:
    slots = _slots(rng, lang)
    people = THIRD.get(lang, THIRD["en"])
    out = template
    if "{p}" in out:
        out = out.replace("{p}", rng.choice(people))
    for name, make in slots.items():
        while "{" + name + "}" in out:
            out = out.replace("{" + name + "}", make(), 1)
    return out.replace("{{", "{").replace("}}", "}")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _typo(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if len(w) > 4 and w.isalpha()]
    if not idx:
        return text
    i = rng.choice(idx)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    words[i] = rng.choice(
        (w[:j] + w[j + 1] + w[j] + w[j + 2 :], w[:j] + w[j + 1 :], w[:j] + w[j] + w[j:])
    )
    return " ".join(words)


def _obfuscate(text: str, rng: random.Random) -> tuple[str, str]:
    kind = rng.choice(("spaced", "leet", "zero_width", "fullwidth"))
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if len(w) > 3 and w.isalpha()]
    if not idx:
        return text, "plain"
    i = rng.choice(idx)
    if kind == "spaced":
        words[i] = " ".join(words[i])
    elif kind == "leet":
        words[i] = words[i].lower().translate(_LEET)
    elif kind == "zero_width":
        w = words[i]
        k = rng.randrange(1, len(w))
        words[i] = w[:k] + "\u200b" + w[k:]
    else:
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text), "fullwidth"
    return " ".join(words), kind


def _style(
    text: str, rng: random.Random, lang: str, label: str, mixers: list[str]
) -> tuple[str, str]:
    """One surface form of ``text``; returns (text, style name)."""
    r = rng.random()
    if r < 0.22:
        return _cap(text) + rng.choice((".", "", "!", ".")), "plain"
    if r < 0.40:
        return text.lower().rstrip("."), "lower_chat"
    if r < 0.52:
        return rng.choice(_T["PREFIX"].get(lang, _T["PREFIX"]["en"])) + text, "prefixed"
    if r < 0.58:
        key = rng.choice(_T["KEYS"])
        return json.dumps({key: text}, ensure_ascii=rng.random() < 0.2), "json"
    if r < 0.63:
        return f"{rng.choice(_T['KEYS'])}={text}", "key_value"
    if r < 0.70:
        bullet = rng.choice(("- ", "* ", "• ", "1. "))
        if mixers and rng.random() < 0.6:
            other = rng.choice(mixers)
            items = [text, other] if rng.random() < 0.5 else [other, text]
            return "\n".join(bullet + i for i in items), "bullets_mixed"
        return bullet + text, "bullet"
    if r < 0.78 and lang == "en":
        out = f" {text} "
        for a, b in _T["ABBREV"].items():
            out = out.replace(a, b)
        return out.strip().lower(), "abbreviated"
    if r < 0.86:
        return _typo(text, rng), "typo"
    if r < 0.92 and label != "benign" and mixers:
        other = rng.choice(mixers)
        joiner = rng.choice((". ", ", and ", "; ", " - also ", ". Also "))
        return (other + joiner + text) if rng.random() < 0.5 else (
            text + joiner + other
        ), "mixed_sentence"
    if r < 0.97:
        return _obfuscate(text, rng)
    return text, "raw"


def _chat_wrap(text: str, rng: random.Random, lang: str) -> str:
    """``text`` inside small talk: an opener before it, or a closer after it."""
    if rng.random() < 0.7:
        return f"{rng.choice(_T['CHAT_OPEN'].get(lang, _T['CHAT_OPEN']['en']))} {text}"
    return f"{text} {rng.choice(_T['CHAT_CLOSE'].get(lang, _T['CHAT_CLOSE']['en']))}"


def _injection_wrap(text: str, rng: random.Random) -> tuple[str, str]:
    r = rng.random()
    if r < 0.06:
        return base64.b64encode(text.encode()).decode(), "base64"
    if r < 0.10:
        return f"<!-- {text} -->", "html_comment"
    if r < 0.14:
        return json.dumps({"role": "system", "content": text}), "json_role"
    return text, ""


def _groups() -> Iterator[tuple[str, str, str, dict[str, list[str]], int, bool]]:
    """(label, family, subcategory, templates by language, quota, hard negative)."""
    for family, subs in sorted({**FORBIDDEN_A, **FORBIDDEN_B}.items()):
        quota = QUOTA["forbidden"] // (3 if family == "tool_output" else 1)
        per_sub = max(20, quota // len(subs))
        for sub, by_lang in sorted(subs.items()):
            yield "forbidden", family, sub, by_lang, per_sub, False
    for tech, by_lang in sorted(INJECTIONS.items()):
        yield "injection", "injection", tech, by_lang, QUOTA["injection"], False
    for sub, by_lang in sorted(BENIGN.items()):
        yield (
            "benign",
            sub,
            sub,
            by_lang,
            QUOTA["benign"] * (2 if sub == "about_people" else 1),
            False,
        )
    for sub, by_lang in sorted(MEMORIES.items()):
        yield "benign", sub, sub, by_lang, QUOTA["memory"], False
    for sub, by_lang in sorted(HARD.items()):
        yield "benign", sub, sub, by_lang, QUOTA["hard"] * (3 if sub == "topic_frames" else 1), True
    for sub, by_lang in sorted(FICTION.items()):
        yield "benign", sub, sub, by_lang, QUOTA["hard"], True
    yield "benign", "ordinary_chat", "ordinary_chat", CHAT, QUOTA["chat"], False


def _chat_style(text: str, rng: random.Random, lang: str) -> tuple[str, str]:
    """A chat turn as people type it: often ``"Name: text"``, as transcripts carry it."""
    names = CHAT_NAMES.get(lang, CHAT_NAMES["en"])
    text = text.replace("{n}", rng.choice(names))
    r = rng.random()
    if r < 0.40:
        return f"{rng.choice(names)}: {text}", "speaker"
    if r < 0.65:
        return text, "plain"
    if r < 0.82:
        return text.lower().rstrip(".!"), "lower_chat"
    if r < 0.92:
        return _typo(text, rng), "typo"
    return text + rng.choice((" :)", " 😊", " haha", "!!", " x")), "emoji"


_EXPECTED = {
    "forbidden": "FORBIDDEN_CATEGORY",
    "injection": "INJECTION_DETECTED",
    "benign": "ALLOW",
}


def compose(seed: int = SEED) -> list[dict[str, Any]]:
    """Every corpus item, in a fixed order."""
    mixers_by_lang: dict[str, list[str]] = {}
    mix_rng = random.Random(f"{seed}:mixers")
    for _sub, by_lang in sorted(BENIGN.items()):
        if _sub not in _T["MIXER_GROUPS"]:
            continue
        for lang, templates in sorted(by_lang.items()):
            mixers_by_lang.setdefault(lang, []).extend(_fill(t, mix_rng, lang) for t in templates)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    # Trigger: a template happens to say what a hand-written item says ("How did it go?").
    # Why: the written set is counted three times and checked for overlap with this
    #      corpus; the same sentence twice would only weigh it more.
    # Outcome: the generated copy is dropped (the group draws another item).
    written = _written_keys()
    for label, family, sub, by_lang, quota, hard in _groups():
        # one generator per group: adding a group never changes another's items
        rng = random.Random(f"{seed}:{label}:{family}:{sub}:{hard}")
        pool = [(lang, t) for lang, ts in sorted(by_lang.items()) for t in ts]
        if not pool:
            continue
        made = 0
        attempts = 0
        while made < quota and attempts < quota * 6:
            lang, template = pool[attempts % len(pool)]
            attempts += 1
            base = _fill(template, rng, lang)
            mixers = (
                [] if hard or label == "benign" else mixers_by_lang.get(lang, mixers_by_lang["en"])
            )
            if sub == "ordinary_chat":
                text, style = _chat_style(base, rng, lang)
            else:
                text, style = _style(base, rng, lang, label, mixers)
                # Trigger: chat transcripts and raw-turn adds carry "Name: text".
                # Why: ordinary chat is often written so (chat.py); without the same
                #      prefix on other items the heads would read it as "benign".
                # Outcome: one item in ten of every group gets a speaker prefix.
                if style not in ("json", "key_value", "base64") and rng.random() < 0.1:
                    names = CHAT_NAMES.get(lang, CHAT_NAMES["en"])
                    text, style = f"{rng.choice(names)}: {text}", f"speaker_{style}"
            if label == "injection":
                wrapped, how = _injection_wrap(text, rng)
                if how:
                    text, style = wrapped, how
            # Trigger: a forbidden item or an injection in plain or lower-case form.
            # Why: ordinary chat taught the heads that friendly small talk is benign;
            #      an instruction or a sensitive fact inside it must still count.
            # Outcome: about one in three such items is wrapped in an opener or a closer.
            if label != "benign" and style in ("plain", "lower_chat") and rng.random() < 0.35:
                text, style = _chat_wrap(text, rng, lang), f"chat_wrapped_{style}"
            if text in seen or not text.strip() or _key(text) in written:
                continue
            seen.add(text)
            made += 1
            items.append(
                {
                    "id": f"tr-{len(items):05d}",
                    "text": text,
                    "label": label,
                    "family": family,
                    "subcategory": sub,
                    "expected": _EXPECTED[label],
                    "hard_negative": hard,
                    "lang": lang,
                    "style": style,
                }
            )
    return items


def corpus_bytes(seed: int = SEED) -> bytes:
    """The corpus file's bytes as the generator makes them now (JSON Lines, UTF-8)."""
    items = compose(seed)
    return "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items).encode("utf-8")


def write_corpus(path: Path = CORPUS_PATH, seed: int = SEED) -> int:
    """Write the corpus as JSON Lines; returns the number of items."""
    data = corpus_bytes(seed)
    path.write_bytes(data)
    return data.count(b"\n")


def refresh_corpus(path: Path = CORPUS_PATH) -> bool:
    """Rewrite ``path`` when the generator (or the written set it avoids) changed it.

    Returns True when the file was rewritten; ``memvault policy train`` calls it
    first, so training is one command. Raises OSError when the file cannot be written.
    """
    data = corpus_bytes()
    if path.is_file() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


if __name__ == "__main__":  # pragma: no cover - the documented rebuild command
    print(write_corpus())
