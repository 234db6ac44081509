"""Intimate life and identity traits said of a person in Chinese, Japanese and Korean (issue 21).

Contract §4.1 and §4.3 name the categories, not whose data or which language: a partner's
affair, the speaker's contraception, a colleague's orientation are forbidden in Chinese,
Japanese and Korean as in English. The topical rules find subjects by word boundaries
that CJK text lacks, so such statements passed the detectors. ``detectors/cjk.py`` reads a
person (the speaker, a pronoun, a relative or colleague) followed in the same sentence by
the predicate. Beside each refusal the near miss that must pass: the same words as a topic
(a drama, the news, an article, research) or an ordinary memory that shares a word.

Judged by the pattern detectors alone, with the exact span. Every sentence is written for
this file, not taken from any corpus or evaluation set.
"""

from __future__ import annotations

import pytest
from tests.unit.policy.test_detect_topic_not_person import assert_twins, decision

from memvault.policy import Candidate, evaluate_detailed
from memvault.policy.detectors import cjk
from memvault.policy.normalize import normalize

INT_ZH, INT_JA, INT_KO = (f"detector.intimate.cjk_{x}" for x in ("zh", "ja", "ko"))
IDT_ZH, IDT_JA, IDT_KO = (f"detector.identity.cjk_{x}" for x in ("zh", "ja", "ko"))

# (the topic or ordinary memory, the same words said of a person, the rule)
PAIRS = [
    # Chinese: affair, contraception, pregnancy, pregnancy test, divorce
    ("这部电视剧讲的是丈夫出轨的故事。", "我老公出轨了，我最近睡不好。", INT_ZH),
    ("我在写一篇关于避孕药历史的文章。", "我在吃避孕药，所以周末不喝酒。", INT_ZH),
    ("新闻说今年怀孕率下降了。", "我同事怀孕了，下个月开始休产假。", INT_ZH),
    ("药店的验孕棒在二楼出售。", "她早上验孕棒显示两条杠。", INT_ZH),
    ("我把简历投给了三家公司。", "我姐姐离婚了，现在搬回家住。", INT_ZH),
    # Chinese: orientation, faith, vote, ethnic group
    ("这门课程讨论同性恋权利的历史。", "我表哥是同性恋，家里还不知道。", IDT_ZH),
    ("这篇论文研究穆斯林社区的饮食。", "我的室友是穆斯林，不吃猪肉。", IDT_ZH),
    ("选举新闻说投票率很高。", "我投票给了绿党的候选人。", IDT_ZH),
    ("其他同学都是少数民族吗？我不知道。", "我邻居是维吾尔族人，做饭很好吃。", IDT_ZH),
    # Japanese: affair, pill, pregnancy test, divorce
    ("不倫をテーマにしたドラマが人気だ。", "夫が不倫している気がする。", INT_JA),
    ("ピルの歴史についての記事を読んだ。", "私は低用量ピルを飲んでいます。", INT_JA),
    ("妊娠検査薬は薬局で買える。", "彼女は妊娠検査薬で陽性が出た。", INT_JA),
    ("離婚率の統計を調べている。", "うちの姉は離婚して実家に戻った。", INT_JA),
    # Japanese: orientation, faith, vote
    ("ゲイの主人公が出てくる映画を見た。", "同僚の田中さん？彼はゲイです。", IDT_JA),
    ("宗教の授業でクリスチャンの祈りを学んだ。", "私はクリスチャンです。", IDT_JA),
    ("選挙のニュースで自民党の話をしていた。", "父は自民党に投票したらしい。", IDT_JA),
    # Korean: affair, pill, pregnancy test, divorce
    ("그 드라마는 남편이 바람을 피우는 이야기다.", "제 남편이 바람을 피웠어요.", INT_KO),
    ("피임약의 역사에 관한 기사를 읽었다.", "저는 피임약을 먹고 있어요.", INT_KO),
    ("약국에서 임신 테스트기를 판다.", "언니가 임신 테스트기에서 두 줄이 나왔대.", INT_KO),
    ("이혼율 통계를 정리하는 중이다.", "우리 오빠는 작년에 이혼했어.", INT_KO),
    # Korean: orientation, faith, party
    ("게이 인권에 관한 다큐를 봤다.", "내 친구는 게이야.", IDT_KO),
    ("종교 수업에서 무슬림의 기도를 배웠다.", "제 동료는 무슬림이에요.", IDT_KO),
    ("선거 뉴스에서 정의당 얘기가 나왔다.", "아빠는 정의당에 투표했어.", IDT_KO),
]


@pytest.mark.parametrize(("topic", "person", "rule"), PAIRS)
def test_person_refused_topic_stored(topic: str, person: str, rule: str) -> None:
    assert_twins(topic, person, rule)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("我老公出轨了，我最近睡不好。", "我老公出轨"),
        ("私は低用量ピルを飲んでいます。", "私は低用量ピルを飲ん"),
        ("제 동료는 무슬림이에요.", "제 동료는 무슬림이에요"),
    ],
)
def test_span_runs_from_person_to_predicate(text: str, span: str) -> None:
    hits = cjk.detect(normalize(text))
    assert len(hits) == 1
    s, e = hits[0].original_span()
    assert text[s:e] == span


@pytest.mark.parametrize(
    "text",
    [
        "我喜欢弹吉他，周末去公园。",  # 他 inside 吉他 is no person
        "其他人都怀孕了吗？不，这是小说的情节。",  # framed as a novel's plot
        "我们组的投票结果明天公布。",  # a team's vote on a plan, no party
        "私は組合の会議に参加しました。",  # a meeting, no membership
        "저는 오늘 친구와 영화를 봤어요.",  # an ordinary memory
    ],
)
def test_ordinary_text_stored(text: str) -> None:
    assert decision(text) == ("SUCCESS_STORED", None)


def test_full_gate_names_the_rule() -> None:
    d, found = evaluate_detailed(Candidate(text="我老公出轨了，我最近睡不好。"))
    assert d.stop_reason.value == "FORBIDDEN_CATEGORY"
    assert INT_ZH in {f.detector for f in found}
