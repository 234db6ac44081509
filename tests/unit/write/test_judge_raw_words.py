"""The raw-words check: a personal head near its threshold, measured in log-odds."""

from __future__ import annotations

from memvault.model.enums import StopReason
from memvault.policy.learned import HeadScore
from memvault.write.judge import RAW_WORDS_MARGIN, raw_words_check


class _Layer:
    """A learned layer that scores every text the same (n-gram heads only)."""

    error: str | None = None

    def __init__(self, *scores: tuple[str, float, float]) -> None:
        self.scores = [HeadScore(f, s, t, "ngram") for f, s, t in scores]
        self.seen: list[tuple[str, bool]] = []

    def judge_text(self, text: str, *, use_encoder: bool = True) -> list[HeadScore]:
        self.seen.append((text, use_encoder))
        return self.scores


def check(*scores: tuple[str, float, float]) -> str | None:
    decision = raw_words_check("some clause", layer=_Layer(*scores))  # type: ignore[arg-type]
    return None if decision is None else decision.detector


def test_a_high_threshold_head_refuses_only_close_to_its_threshold() -> None:
    # health calibrated at 0.93: 0.6 is 2.2 log-odds under it (half the threshold
    # refused it before session 15: stack facts in other languages were lost)
    assert check(("health", 0.6, 0.93)) is None
    # near miss: 0.8 is 1.2 log-odds under it, refused
    assert check(("health", 0.8, 0.93)) == "classifier.health"


def test_a_low_threshold_head_keeps_its_doubt() -> None:
    # criminal calibrated at 0.515: 0.2 is 1.45 log-odds under it, refused
    assert check(("criminal", 0.2, 0.515)) == "classifier.criminal"
    # near miss: 0.15 is 1.8 log-odds under it
    assert check(("criminal", 0.15, 0.515)) is None


def test_only_personal_families_are_judged_and_the_closest_head_is_named() -> None:
    # credentials and places are named by ordinary clauses ("rotate the api tokens")
    assert check(("credentials", 0.64, 0.65)) is None
    decision = raw_words_check(
        "x",
        layer=_Layer(("health", 0.8, 0.93), ("intimate", 0.89, 0.906)),  # type: ignore[arg-type]
    )
    assert decision is not None and decision.stop_reason is StopReason.FORBIDDEN_CATEGORY
    assert decision.detector == "classifier.intimate"
    assert f"within {RAW_WORDS_MARGIN} log-odds" in (decision.reason or "")


def test_the_margin_is_a_parameter_and_the_encoder_is_not_used() -> None:
    layer = _Layer(("health", 0.6, 0.93))
    assert raw_words_check("a", layer=layer, margin=2.5) is not None  # type: ignore[arg-type]
    assert raw_words_check("a", layer=layer, margin=1.0) is None  # type: ignore[arg-type]
    assert layer.seen == [("a", False), ("a", False)]


def test_a_broken_layer_refuses() -> None:
    layer = _Layer()
    layer.error = "weights missing"
    decision = raw_words_check("a", layer=layer)  # type: ignore[arg-type]
    assert decision is not None
    assert decision.stop_reason is StopReason.INTERNAL_INCONSISTENCY
