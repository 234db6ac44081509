"""The cut: limits always hold and Goal/Todo/Decision lines are kept first."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.context.bulletin import (
    CLOSE,
    KEEP_ORDER,
    PRIORITY_SECTIONS,
    SECTIONS,
    BulletinConfig,
    BulletinLine,
    render_bulletin,
)
from memvault.context.render import estimate_tokens, quote

line = st.builds(
    lambda section, text, n: BulletinLine(section, f'[X] "{quote(text)}"', (f"mem_{n:05d}",)),
    st.sampled_from(SECTIONS),
    st.text(max_size=300),
    st.integers(min_value=0, max_value=99_999),
)


def group(lines: list[BulletinLine]) -> dict[str, list[BulletinLine]]:
    out: dict[str, list[BulletinLine]] = {s: [] for s in SECTIONS}
    for ln in lines:
        out[ln.section].append(ln)
    return out


@settings(max_examples=150, deadline=None)
@given(
    st.lists(line, max_size=60),
    st.integers(min_value=512, max_value=6000),
    st.integers(min_value=128, max_value=1500),
    st.integers(min_value=0, max_value=10**12),
)
def test_cut_keeps_priority_lines_first_under_every_limit(
    lines: list[BulletinLine], max_chars: int, max_tokens: int, revision: int
) -> None:
    cfg = BulletinConfig(max_chars=max_chars, max_tokens=max_tokens)
    grouped = group(lines)
    b = render_bulletin(revision, grouped, cfg)
    # the limits hold
    assert len(b.text) <= max_chars and estimate_tokens(b.text) <= max_tokens
    # what is kept is a prefix of the keep order: Goal/Todo/Decision first
    ordered = [ln for s in KEEP_ORDER for ln in grouped[s]]
    kept = [ln for s in KEEP_ORDER for ln in b.sections[s]]
    assert kept == ordered[: len(kept)]
    if any(b.sections[s] for s in SECTIONS if s not in PRIORITY_SECTIONS):
        assert all(len(b.sections[s]) == len(grouped[s]) for s in PRIORITY_SECTIONS)
    # it says how much was left out
    assert b.truncated.omitted_lines == len(ordered) - len(kept)
    assert sum(b.truncated.by_section.values()) == b.truncated.omitted_lines
    if b.truncated.cut:
        assert f"[left out: {b.truncated.omitted_lines} lines" in b.text
    else:
        assert "[left out:" not in b.text
    # the structure holds: one closing delimiter, at the end
    assert b.text.endswith(CLOSE) and b.text.count(CLOSE) == 1
    for ln in kept:
        assert ln.render() in b.text.splitlines()


def test_nothing_cut_when_it_fits() -> None:
    ln = BulletinLine("knowledge_summary", '[Fact] "x"', ("mem_1",))
    b = render_bulletin(1, {"knowledge_summary": [ln]}, BulletinConfig())
    assert not b.truncated.cut and b.sections["knowledge_summary"] == (ln,)
