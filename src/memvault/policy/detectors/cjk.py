"""Intimate life and identity traits said of a person in Chinese, Japanese and Korean
(contract §4.1, §4.3).

The topical rules find a subject by word boundaries ("I", "my", "sie"), which CJK text
has none of; the named-subject rules read Latin and Cyrillic names. These rules read the
tight shapes where a person — the speaker (我, 私, 저), a pronoun (她, 彼女, 그녀) or a
relative, partner or colleague (我老公, うちの夫, 제 남편) — is followed, within a few
characters of the same sentence, by an intimate or identity predicate:

- intimate: an affair (出轨, 浮気して, 바람을 피워), contraception (在吃避孕药, ピルを飲んで,
  피임약을 먹고), a pregnancy or its test (怀孕了, 妊娠検査薬で陽性, 임신 테스트기 두 줄),
  a miscarriage or abortion, fertility treatment, surrogacy, a separation or divorce,
  erectile medication, an open relationship;
- identity: sexual orientation or gender identity (是同性恋, ゲイです, 트랜스젠더예요), a faith
  (是穆斯林, クリスチャンです), a vote or party card (投给了, 自民党に投票, 당원이에요),
  an ethnic minority (是维吾尔族, 在日韓国人, 조선족), union membership.

The line stays between a person and a topic: the subject must come first in the same
sentence, and a framing word near the fact — a drama, a novel, a news report, an
article, a course, research, statistics, a law (电视剧, 小説, 뉴스, 記事, 研究 …) — makes
it a topic. "我在写一篇关于避孕药历史的文章" (I am writing an article on the pill's
history) names no one's contraception.

>>> from memvault.policy.normalize import normalize
>>> [(h.family, h.detector) for h in detect(normalize("我老公出轨了，我很难过。"))]
[('intimate', 'intimate.cjk_zh')]
>>> [len(detect(normalize(t))) for t in ("彼女はゲイです。", "这部电视剧讲的是丈夫出轨的故事。")]
[1, 0]
"""

from __future__ import annotations

import re

from memvault.policy.detectors.base import Hit, Rule, run_rules
from memvault.policy.normalize import NormalizedText, View

__all__ = ["RULES", "detect"]

# ---- who: the speaker, a pronoun, or someone the speaker names by their relation
_ZH_PEOPLE = (
    r"老婆|老公|妻子|丈夫|太太|先生|男朋友|女朋友|男友|女友|对象|爱人|伴侣|前妻|前夫|妈妈|妈|"
    r"爸爸|爸|母亲|父亲|姐姐|姐|哥哥|哥|妹妹|妹|弟弟|弟|儿子|女儿|同事|朋友|闺蜜|室友|邻居|"
    r"上司|老板|经理|表姐|表哥|表妹|表弟|堂姐|堂哥|婆婆|岳母|舅舅|叔叔|阿姨"
)
# 他 inside 其他 / 吉他 / 利他 and 我 inside 自我 are no person
_ZH_WHO = (
    r"(?<![其吉利自])(?:我们|他们|她们|我|他|她)(?:的)?(?:" + _ZH_PEOPLE + r")?"
    r"|(?:" + _ZH_PEOPLE + r")(?=[\u4e00-\u9fff]{0,2}(?:已经|在|是|有|也|又|最近|去年|上个月|"
    r"终于|刚|偷偷))"
)
_JA_PEOPLE = (
    r"妻|夫|主人|旦那|嫁|彼氏|彼女|母|父|姉|兄|妹|弟|息子|娘|同僚|友達|友人|上司|部下|"
    r"隣人|隣の人|ルームメイト|パートナー|元妻|元夫|義母|義父|叔母|叔父|いとこ"
)
_JA_WHO = (
    # 夫 inside 大丈夫, 妻 inside 稲妻 are no person
    r"(?:私|わたし|僕|ぼく|俺|あたし|彼女|彼|(?:うちの|(?:私|僕|俺)の)?(?<![丈稲])(?:"
    + _JA_PEOPLE
    + r"))(?:さん|ちゃん|くん)?(?:は|が|も)"
)
_KO_PEOPLE = (
    r"아내|남편|와이프|남자친구|여자친구|남친|여친|엄마|아빠|어머니|아버지|언니|오빠|누나|형|"
    r"동생|아들|딸|동료|친구|상사|팀장|이웃|룸메이트|전처|전남편|시어머니|장모|사촌|삼촌|이모|고모"
)
_KO_WHO = (
    r"(?:제가|내가|(?:(?:제|내|우리)\s?(?:"
    + _KO_PEOPLE
    + r")|저|나|그녀|그|(?:"
    + _KO_PEOPLE
    + r"))"
    r"(?:는|은|가|이|도|께서))(?=\s)"
)
# What may stand between the person and the predicate: the same sentence, a few characters.
_ZH_GAP = r"[^。！？!?\n，,；;]{0,10}?"
_JA_GAP = r"[^。！？!?\n、，,；;]{0,12}?"
_KO_GAP = r"[^.!?\n,;]{0,16}?"

# ---- what: intimate life (§4.3)
_ZH_INTIMATE = (
    r"出轨|有外遇|搞外遇|劈腿|婚外情|有小三|在吃避孕药|吃(?:了)?(?:紧急|短效)?避孕药|"
    r"(?:上|放|取)(?:了)?(?:节育环|避孕环)|做(?:了)?(?:结扎|输精管结扎)|做(?:过|了)?人流|"
    r"流产(?:了|过)|(?:堕|打)(?:了)?胎|怀孕(?:了|[0-9一二三四五六七八九十几两]+(?:周|个月))|"
    r"怀上了|验孕(?:棒|试纸)?(?:显示|是|出现)?(?:两条杠|阳性)|(?:在)?做(?:了)?试管|试管婴儿|"
    r"冻(?:了)?卵|找(?:了)?代孕|代孕生|开放式(?:关系|婚姻)|约炮|一夜情|性生活|得了性病|"
    r"阳痿|勃起(?:功能)?障碍|吃伟哥|离婚了|在闹离婚|分居(?:了)?"
)
_JA_INTIMATE = (
    r"浮気(?:を)?(?:して|した|され|中)|不倫(?:を)?(?:して|した|され|中)|"
    r"(?:低用量)?ピルを(?:飲ん|服用し)|アフターピル|避妊(?:薬|リング)|IUD|パイプカット|"
    r"妊娠(?:して|した|中|[0-9０-９一二三四五六七八九十]+(?:週|ヶ月|か月))|"
    r"妊娠検査薬(?:で|が|は)?陽性|流産(?:して|した)|中絶(?:して|した)|不妊治療|体外受精|"
    r"人工授精|卵子凍結|代理出産|オープンな関係|セックスレス|性病|ED(?:治療)?薬|バイアグラ|"
    r"離婚(?:して|した|調停|協議)|別居(?:して|中)"
)
_KO_INTIMATE = (
    r"바람(?:을)?\s?(?:피|폈)|외도(?:를|했|하)|불륜|피임약|사후\s?피임약|루프(?:를)?\s?(?:했|시술)|"
    r"정관\s?수술|임신(?:했|중|\s?\d+\s?주)|임신\s?테스트기?(?:에서|가|는)?\s?(?:두\s?줄|양성)|"
    r"유산(?:했|됐|이\s?됐)|낙태|시험관\s?(?:시술|아기)|난임\s?(?:치료|시술)|난자\s?(?:동결|냉동)|"
    r"대리모|이혼(?:했|소송|\s?절차)|별거\s?(?:중|했)|발기\s?부전|비아그라|성병|"
    r"오픈\s?(?:릴레이션십|관계)"
)
# ---- what: identity traits (§4.1)
_ZH_IDENTITY = (
    r"是(?:同性恋|双性恋|跨性别|女同|男同|gay|拉拉|无性恋)|出柜|"
    r"是(?:穆斯林|基督徒|天主教徒|佛教徒|无神论者|犹太人|伊斯兰教徒|法轮功学员)|"
    r"信(?:伊斯兰教|基督教|天主教|佛教|犹太教)|"
    r"是(?:共产党员|党员|国民党员|民进党员)|入(?:了)?党|投票给(?:了)?[\u4e00-\u9fff]{1,8}|"
    r"投给(?:了)?[\u4e00-\u9fff]{0,6}(?:党|候选人)|"
    r"支持[\u4e00-\u9fff]{1,4}党|"
    r"是(?:维吾尔族|藏族|回族|蒙古族|满族|壮族|苗族|彝族|朝鲜族|哈萨克族|少数民族)(?:人)?|"
    r"是工会(?:成员|会员)|加入(?:了)?工会"
)
_JA_IDENTITY = (
    r"(?:ゲイ|レズビアン|バイセクシュアル|バイセクシャル|トランスジェンダー|同性愛者|"
    r"ノンバイナリー|アセクシュアル)(?:です|だ|であ|なの|と)|カミングアウトし|"
    r"(?:イスラム教徒|ムスリム|クリスチャン|キリスト教徒|仏教徒|無神論者|ユダヤ教徒|"
    r"創価学会員|エホバの証人)(?:です|だ|であ|なの)|創価学会|"
    r"(?:自民党|立憲民主党|共産党|公明党|維新|国民民主党|れいわ|参政党)(?:に投票|の党員|支持)|"
    r"在日(?:韓国|朝鮮)人|アイヌ(?:民族)?(?:です|だ|の出身)|部落出身|"
    r"労働組合(?:に入って|に加入|の組合員|員)"
)
_KO_IDENTITY = (
    r"(?:게이|레즈비언|양성애자|동성애자|트랜스젠더|논바이너리|무성애자)(?:야|예요|이에요|"
    r"입니다|이다|다|라고)|커밍아웃|"
    r"(?:무슬림|이슬람교도|기독교인|개신교\s?신자|천주교\s?신자|불교\s?신자|무신론자|"
    r"신천지\s?신도)(?:야|예요|이에요|입니다|이다|다)|"
    r"(?:민주당|국민의힘|정의당|진보당|조국혁신당)(?:을|에|에게)?\s?(?:투표|찍었|지지)|"
    r"(?:당원|노조원)(?:이야|이에요|입니다|이다)|노조에\s?가입|조선족|탈북(?:자|민)|새터민"
)

# A topic, not a person: a drama, a novel, the news, an article, a course, research …
_FRAMING = re.compile(
    r"电视剧|电影|小说|剧情|新闻|报道|文章|论文|研究|课程|讲座|书里|书中|统计|政策|法律|科普|"
    r"角色|故事|话题|纪录片|调查|数据|"
    r"ドラマ|映画|小説|漫画|ニュース|記事|論文|研究|講座|授業|統計|政策|法律|番組|物語|役|"
    r"テーマ|調査|データ|"
    r"드라마|영화|소설|웹툰|뉴스|기사|논문|연구|강의|수업|통계|정책|법안|다큐|줄거리|주인공|"
    r"이야기|조사|데이터"
)
_FRAME_REACH = 60


def _personal(m: re.Match[str], view: View) -> bool:
    text = view.text
    around = text[max(0, m.start() - _FRAME_REACH) : m.end() + _FRAME_REACH]
    return _FRAMING.search(around) is None


def _rule(family: str, label: str, lang: str, who: str, gap: str, what: str, why: str) -> Rule:
    return Rule(
        name=f"{family.partition('_')[0]}.cjk_{lang}",
        family=family,
        label=label,
        pattern=re.compile(r"(?i:" + who + r")" + gap + r"(?i:" + what + r")"),
        reason=why,
        validate=_personal,
        views=("clean",),
    )


_WHY_INTIMATE = "a person's intimate life or reproductive event (affair, contraception, pregnancy)"
_WHY_IDENTITY = "a person's sexual orientation, gender identity, faith, vote or ethnic group"
RULES: tuple[Rule, ...] = (
    _rule("intimate", "intimate_life", "zh", _ZH_WHO, _ZH_GAP, _ZH_INTIMATE, _WHY_INTIMATE),
    _rule("intimate", "intimate_life", "ja", _JA_WHO, _JA_GAP, _JA_INTIMATE, _WHY_INTIMATE),
    _rule("intimate", "intimate_life", "ko", _KO_WHO, _KO_GAP, _KO_INTIMATE, _WHY_INTIMATE),
    _rule(
        "identity_trait",
        "religion_or_orientation",
        "zh",
        _ZH_WHO,
        _ZH_GAP,
        _ZH_IDENTITY,
        _WHY_IDENTITY,
    ),
    _rule(
        "identity_trait",
        "religion_or_orientation",
        "ja",
        _JA_WHO,
        _JA_GAP,
        _JA_IDENTITY,
        _WHY_IDENTITY,
    ),
    _rule(
        "identity_trait",
        "religion_or_orientation",
        "ko",
        _KO_WHO,
        _KO_GAP,
        _KO_IDENTITY,
        _WHY_IDENTITY,
    ),
)


def detect(doc: NormalizedText) -> list[Hit]:
    """CJK findings: one per rule, the span from the person to the predicate."""
    return run_rules(doc, RULES)
