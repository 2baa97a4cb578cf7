"""The `semantic` answer key: a task's answers clustered by meaning (docs/metrics.md has the rule).

Two normalized answers are **similar** when they agree on the facts of `semantic/guards` (polarity,
numbers, months, units, weekdays), their similarity reaches the threshold (less `CROSS_LANGUAGE_GAP`
between Chinese characters and Latin letters) where similarity is 1 when every word of the shorter
is in the longer ("Paris" and "the capital is Paris") and otherwise their embeddings' cosine, and,
when they share a frame and differ in a short slot, the slot's own words agree (`differing_words`).

Clustering is leader clustering, the `fuzzy` key's rule: a task's distinct answers are visited most
frequent first (ties by first appearance); each joins the representative it is most similar to, if
that passes, or starts a cluster of its own. So every member is similar to its representative, which
is exactly what the display shows, and similarity never chains: connected components would join
"refundable" to "not refundable" through any answer close to both; complete linkage would be
order-free but costs O(n^3) and has no one answer to show for a cluster.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np
import pandas as pd

from analyzer.metrics.semantic.antonyms import price_conflict
from analyzer.metrics.semantic.distinct import distinct_conflict
from analyzer.metrics.semantic.embed import Embedder, EmbeddingCache, LocalEmbedder
from analyzer.metrics.semantic.guards import Facts, conflict, facts, quantity_word
from analyzer.metrics.semantic.hedge import hedge_conflict
from analyzer.metrics.semantic.marks import codes, opposite_status, verdict
from analyzer.metrics.semantic.mood import mood_conflict
from analyzer.metrics.semantic.polarity import pair_polarity, restated_clause
from analyzer.metrics.semantic.scope import scope_conflict
from analyzer.metrics.semantic.text import embedding_text

__all__ = [
    "DEFAULT_SEMANTIC_THRESHOLD",
    "CROSS_LANGUAGE_GAP",
    "DEFAULT_SLOT_THRESHOLD",
    "MAX_CLUSTERED_ANSWERS",
    "MAX_RULE_CHARS",
    "Member",
    "PairJudge",
    "SemanticOptions",
    "differing_words",
    "semantic_clusters",
    "semantic_keys",
]

DEFAULT_SEMANTIC_THRESHOLD = 0.65
"""Cosine at or above which two answers are one (chosen on the labelled set's seen splits, with a
margin: `scripts/bench_semantic_quality.py --sweep`)."""

CROSS_LANGUAGE_GAP = 0.20
"""How much lower the cosine of an answer in Chinese characters and one in Latin letters may be
(the sweep chose 0.65 within a script and 0.45 across)."""

LONG_ANSWER = 150
"""Characters (of the embedded text) from which an answer counts as long: a multi-sentence reply."""

LONG_MARGIN = 0.10
"""How much more similar two long answers must be. A sentence embedding of a long reply is mostly its
shared setting (the flights listed, the working shown), so two replies that differ in one outcome
(a bag added, "one ocean" against "five oceans") still score high: on the seen splits, pairs of long
answers at cosine 0.60 or more were the same answer only about half the time."""

MAX_CLUSTERED_ANSWERS = 1000
"""Distinct answers of one task beyond which the task is left under the normalized key (each distinct
normalized answer its own cluster), and the analysis says so: leader clustering scores each answer
against every representative, so its cost grows with the square of a task's distinct answers."""

TOO_MANY_ANSWERS = f"more than {MAX_CLUSTERED_ANSWERS:,} distinct answers: normalized key"

MAX_RULE_CHARS = 20_000
"""Characters of an answer the guards read (the first 20,000): every rule is linear in what it
reads, and this bounds what one pair of very long answers costs."""

DEFAULT_SLOT_THRESHOLD = 0.50
"""Cosine at or above which the differing words of two answers that share a frame are synonyms."""

SYNONYM_COSINE = 0.80
"""One word swapped for one word in a shared frame ("white" / "yellow", "John" / "Jane") is another
answer unless the two words are near-synonyms, which this cosine asks for."""

_MAX_SLOT_WORDS = 4
_ALIKE_RATIO = 0.75
_ENDINGS = frozenset(
    ["", "s", "es", "d", "ed", "ing", "ings", "ly", "er", "ers", "e", "y", "ies", "ied", "ive", "ier", "iest"]
)
_REASONS = frozenset(["because", "since", "therefore", "so"])
_ZH_REASON = re.compile(r"因为|由于|所以|因此")
_EMBED_BATCH = 512
_CACHES: dict[str, EmbeddingCache] = {}
_WORD = re.compile(r"[\u4e00-\u9fff]|[^\W\d_\u4e00-\u9fff]+|\d+(?:[.,]\d+)*")
# fmt: off
_WEAK_WORDS = frozenset([
    "the", "a", "an", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "will",
    "would", "it", "its", "this", "that", "these", "those", "of", "to", "in", "on", "at", "for", "by",
    "with", "from", "as", "and", "or", "so", "i", "you", "your", "we", "our", "they", "s", "ve", "ll", "d",
    "yes", "ok", "okay", "please", "because", "due", "的", "了", "是", "在", "将", "已", "您", "你", "我"
])
# fmt: on


@dataclass(frozen=True, eq=False)
class SemanticOptions:
    """How the `semantic` key runs: its threshold, where vectors come from, who hears of progress."""

    threshold: float = DEFAULT_SEMANTIC_THRESHOLD
    """Cosine (0..1) at or above which two answers that agree on their facts are joined."""
    embedder: Embedder | None = None
    """The vector source; None is the bundled local model."""
    cross_threshold: float | None = None
    """The same for a pair across scripts (Chinese against English), whose cosines run lower; None is
    the threshold less `CROSS_LANGUAGE_GAP`, so moving the threshold moves both."""
    slot_threshold: float = DEFAULT_SLOT_THRESHOLD
    """Cosine the words two answers differ in must reach when they share the rest (see
    `differing_words`)."""
    progress: Callable[[int, int], None] | None = field(default=None, repr=False)
    """Called with (answers embedded, answers to embed) while new answers are embedded."""
    persist: bool = True
    """Keep vectors in the cache folder (False: in memory only)."""

    def across(self) -> float:
        """The threshold a pair across scripts must reach."""
        if self.cross_threshold is not None:
            return self.cross_threshold
        return max(0.0, round(self.threshold - CROSS_LANGUAGE_GAP, 4))

    def cache(self) -> EmbeddingCache:
        """The process's one cache for this embedder (shared by every analysis that uses it)."""
        embedder = self.embedder or LocalEmbedder()
        key = f"{embedder.name}|{self.persist}"
        cached = _CACHES.get(key)
        if cached is None or (self.embedder is not None and cached.embedder is not self.embedder):
            cached = _CACHES[key] = EmbeddingCache(embedder, persist=self.persist)
        return cached


@dataclass(frozen=True)
class Member:
    """One distinct answer's place: its cluster's representative, its similarity to it, any guard."""

    answer: str
    representative: str
    similarity: float
    """Similarity to the representative (1 for the representative itself)."""
    blocked: str | None = None
    """For an answer that started its own cluster: the guard that kept it from the nearest one."""


def differing_words(a: str, b: str) -> tuple[str, str] | None:
    """The words only one answer has, when the two share a frame and differ in a short slot.

    "the sun is white when viewed from space" and "the sun is yellow when viewed from space" differ
    in `white` and `yellow`: a sentence embedding scores the pair high for all it shares, so the
    slot is compared on its own. None when the answers share little (a paraphrase or another
    language: the sentence embedding decides) or one adds nothing but weak words.
    """
    wa, wb = _word_list(a), _word_list(b)
    sa, sb = _word_set(a), _word_set(b)
    only_a = [w for w in dict.fromkeys(wa) if w not in sb]
    only_b = [w for w in dict.fromkeys(wb) if w not in sa]
    content_a = [w for w in only_a if w not in _WEAK_WORDS]
    content_b = [w for w in only_b if w not in _WEAK_WORDS]
    shared = len((sa & sb) - _WEAK_WORDS)
    if not content_a or not content_b or shared < max(len(content_a), len(content_b)):
        return None
    if max(len(content_a), len(content_b)) > _MAX_SLOT_WORDS:
        return None
    return " ".join(content_a), " ".join(content_b)


def semantic_clusters(answers: Sequence[str], vectors: np.ndarray, judge: PairJudge) -> list[Member]:
    """Leader clustering of one task's answers (see the module docstring), most frequent first.

    An answer joins the most similar representative it passes with, provided no guard keeps it from
    any member already in that cluster (so a cluster never holds two answers that deny each other).
    Only representatives that can pass are scored: those whose cosine reaches the lower of the two
    thresholds (one matrix product) or whose words contain, or are contained in, the answer's. A task
    with more than `MAX_CLUSTERED_ANSWERS` distinct answers is left under the normalized key.

    Args:
        answers: The task's normalized answers, one per result (repeats count towards frequency).
        vectors: One unit vector per distinct answer, in first-appearance order.
        judge: Scores a pair from its cosine and says which guard, if any, keeps it apart.
    """
    counts = Counter(answers)
    if len(counts) > MAX_CLUSTERED_ANSWERS:
        return [Member(a, a, 1.0, TOO_MANY_ANSWERS) for a in counts]
    index = {a: i for i, a in enumerate(counts)}
    ordered = sorted(counts, key=lambda a: -counts[a])
    reps: list[str] = []
    rep_rows: list[int] = []
    members: dict[str, list[str]] = {}
    out: list[Member] = []
    lowest = min(judge.threshold, judge.cross_threshold)
    for a in ordered:
        best, best_score, nearest_block = None, -1.0, None
        cosines = vectors[rep_rows] @ vectors[index[a]] if reps else np.zeros(0, dtype=np.float32)
        for r in _candidates(a, reps, cosines, lowest):
            rep, cos = reps[r], float(cosines[r])
            score, reason = judge.score(a, rep, cos)
            passes = score >= judge.needed(a, rep)
            if reason is None and passes and score > best_score:
                reason = _member_conflict(a, members[rep], vectors, index, judge)
                if reason is None:
                    best, best_score = rep, score
            if reason is not None and passes and nearest_block is None:
                nearest_block = reason
        if best is None:
            reps.append(a)
            rep_rows.append(index[a])
            members[a] = [a]
            out.append(Member(a, a, 1.0, nearest_block))
        else:
            members[best].append(a)
            out.append(Member(a, best, round(best_score, 4)))
    return out


def _candidates(answer: str, reps: list[str], cosines: np.ndarray, lowest: float) -> list[int]:
    """The representatives (by position, in order) that can pass with `answer`: a cosine at or above
    the lowest threshold, or one's words within the other's (containment scores 1)."""
    close = cosines >= lowest
    words = _word_set(embedding_text(answer[:MAX_RULE_CHARS]))
    for r in np.flatnonzero(~close).tolist():
        other = _word_set(embedding_text(reps[r][:MAX_RULE_CHARS]))
        close[r] = words <= other or other <= words
    return np.flatnonzero(close).tolist()


def _member_conflict(
    answer: str, cluster: list[str], vectors: np.ndarray, index: dict[str, int], judge: PairJudge
) -> str | None:
    """The guard that keeps an answer from a cluster's other members (its representative passed)."""
    others = cluster[1:]
    if not others:
        return None
    cosines = vectors[[index[m] for m in others]] @ vectors[index[answer]]
    for member, cos in zip(others, cosines.tolist(), strict=True):
        reason = judge.guard(answer, member, cos)
        if reason is not None:
            return f"{reason} (with '{member}')"
    return None


class PairJudge:
    """Scores two answers: containment or their cosine, and the guard (facts, slot) that blocks them."""

    def __init__(
        self,
        cache: EmbeddingCache,
        threshold: float,
        slot_threshold: float,
        cross_threshold: float | None = None,
    ) -> None:
        self.cache = cache
        self.threshold = threshold
        self.slot_threshold = slot_threshold
        self.cross_threshold = threshold if cross_threshold is None else cross_threshold

    def needed(self, a: str, b: str) -> float:
        """The similarity a pair must reach: the cross-language threshold when one answer is written
        in Chinese (or Japanese) characters and the other is not, `LONG_MARGIN` more when both are
        long."""
        a, b = a[:MAX_RULE_CHARS], b[:MAX_RULE_CHARS]
        needed = self.cross_threshold if _cjk(a) != _cjk(b) else self.threshold
        long_pair = min(len(embedding_text(a)), len(embedding_text(b))) >= LONG_ANSWER
        return needed + LONG_MARGIN if long_pair else needed

    def prefetch(self, tasks: list[list[str]], vectors: list[np.ndarray]) -> None:
        """Embed, in one batch, the differing words of every pair that may be slot-checked.

        Args:
            tasks: Each task's distinct answers.
            vectors: Their unit vectors, one array per task.
        """
        phrases: dict[str, None] = {}
        for answers, vecs in zip(tasks, vectors, strict=True):
            if len(answers) > MAX_CLUSTERED_ANSWERS:
                continue  # left under the normalized key
            cosines = vecs @ vecs.T
            lowest = min(self.threshold, self.cross_threshold)
            for i, j in zip(*np.nonzero(np.triu(cosines >= lowest, 1)), strict=True):
                slot = differing_words(embedding_text(answers[i]), embedding_text(answers[j]))
                if slot is not None:
                    phrases.update(dict.fromkeys(slot))
        if phrases:
            self.cache.vectors(list(phrases))

    def score(self, a: str, b: str, cosine: float) -> tuple[float, str | None]:
        """(similarity, None) when the pair may be joined at that similarity; else the reason (asked
        only of a pair that reaches the threshold).

        Args:
            a: One normalized answer.
            b: The other.
            cosine: Cosine of their embeddings.
        """
        a, b = a[:MAX_RULE_CHARS], b[:MAX_RULE_CHARS]
        ta, tb = embedding_text(a), embedding_text(b)
        score = 1.0 if _contained(ta, tb) else float(cosine)
        if score < self.needed(ta, tb):
            return score, None  # not joined whatever the guards say
        return score, self.guard(a, b, cosine)

    def guard(self, a: str, b: str, cosine: float) -> str | None:
        """Why two answers cannot be one, whatever their similarity: facts, a negated phrase the
        other affirms, an offer against an act (read on the whole answers: an offer is often worded
        as a courtesy), or (for a pair close enough to have been slot-checked) the differing words.
        Each reads the first `MAX_RULE_CHARS` characters of either answer."""
        a, b = a[:MAX_RULE_CHARS], b[:MAX_RULE_CHARS]
        if mood_conflict(a, b):
            return "offer / act"
        a, b = embedding_text(a), embedding_text(b)
        reason = _facts_conflict(a, b)
        if reason is not None:
            return reason
        if scope_conflict(a, b):
            return "negation"
        if hedge_conflict(a, b):
            return "hedge"
        if distinct_conflict(a, b):
            return "negation"
        slot = differing_words(a, b)
        if slot is None or cosine < min(self.threshold, self.cross_threshold):
            return None
        return self._slot_reason(slot)

    def _slot_reason(self, slot: tuple[str, str]) -> str | None:
        """The differing words must be synonyms: one word for one word at `SYNONYM_COSINE`, a longer
        slot at the slot threshold; and no word of one side may be another spelling of a word of the
        other (see `spelled_alike`). Slots of numbers and units alone are the facts guard's."""
        words_a, words_b = slot[0].split(), slot[1].split()
        if all(quantity_word(w) for w in words_a + words_b) and all(
            any(w[0].isdigit() for w in side) for side in (words_a, words_b)
        ):
            return None  # numbers, units and times: the facts guard has compared them
        alike = next(((x, y) for x in words_a for y in words_b if spelled_alike(x, y)), None)
        if alike is not None:
            return f"differ in '{alike[0]}' / '{alike[1]}'"
        va, vb = self.cache.vectors(list(slot))
        single = len(words_a) == 1 and len(words_b) == 1
        if float(va @ vb) < (SYNONYM_COSINE if single else self.slot_threshold):
            return f"differ in '{slot[0]}' / '{slot[1]}'"
        return None


def _facts_conflict(a: str, b: str) -> str | None:
    """The facts guard, polarity first (`semantic/polarity`): two answers whose polarity differs are
    `negation` unless the denying one states the other whole in a clause holding no denial
    (`restated_clause`); that clause's facts are then compared instead ("not signed on July 4; it
    was signed on August 2" states August 2 only)."""
    verdicts = (verdict(a), verdict(b))
    if None not in verdicts and verdicts[0] != verdicts[1]:
        return "negation"
    codes_a, codes_b = codes(a), codes(b)
    if codes_a and codes_b and not (codes_a <= codes_b or codes_b <= codes_a):
        return "codes"
    if price_conflict(a, b):
        return "price"
    pa, pb = pair_polarity(a, b)
    if pa == pb:
        if not pa and opposite_status(a, b):
            return "negation"
        return conflict(_asserted(facts(a)), _asserted(facts(b)))
    if pa and not pb:
        clause, plain = restated_clause(a, b), b
    elif pb and not pa:
        clause, plain = restated_clause(b, a), a
    else:
        return "negation"
    if clause is None or opposite_status(clause, plain):
        return "negation"
    return conflict(_asserted(facts(clause)), _asserted(facts(plain)))


def _asserted(f: Facts) -> Facts:
    """The facts without their polarity, which `pair_polarity` has compared already."""
    return replace(f, negated=False)


def spelled_alike(x: str, y: str) -> bool:
    """Two different words spelled nearly alike, not one word's inflection of the other.

    "smith" / "smyth", "maria" / "mario", "austria" / "australia": a sentence embedding reads them
    as one word, yet in a shared frame they name different things (names, places, codes). "earthworm"
    / "earthworms", "cancel" / "cancelled" and "digest" / "digestive" are one word.
    """
    if x == y or min(len(x), len(y)) < 4 or not (x.isalpha() and y.isalpha()):
        return False
    if _inflected(x, y):
        return False
    return SequenceMatcher(None, x, y).ratio() >= _ALIKE_RATIO


def _inflected(x: str, y: str) -> bool:
    """One word is the other with an ending ("refund" / "refunded", "cancel" / "cancelled")."""
    n = 0
    while n < min(len(x), len(y)) and x[n] == y[n]:
        n += 1
    rests = [w[n:] for w in (x, y)]
    rests = [r[1:] if r[:1] == x[n - 1 : n] and len(r) > 1 else r for r in rests]  # cancel-led
    return n >= 3 and all(r in _ENDINGS for r in rests)


def semantic_keys(task_ids: pd.Series, normalized: pd.Series, options: SemanticOptions) -> pd.Series:
    """Each result's cluster representative (`<NA>` stays), for tasks with 2+ distinct answers.

    Every distinct answer of those tasks is embedded once, in one pass, through the options' cache.

    Args:
        task_ids: Each result's task.
        normalized: Each result's normalized answer (`<NA>` for errors).
        options: Threshold, embedder and progress callback.
    """
    frame = pd.DataFrame({"task": task_ids.astype(str).to_numpy(), "answer": normalized.to_numpy()})
    frame = frame[normalized.notna().to_numpy()]
    distinct = frame.drop_duplicates().groupby("task", sort=False)["answer"].size()
    needs = frame[frame["task"].isin(distinct.index[distinct > 1])]
    if needs.empty:
        return normalized.copy()
    texts = list(dict.fromkeys(needs["answer"].tolist()))
    vectors = _embed(texts, options)
    row_of = {t: i for i, t in enumerate(texts)}
    judge = PairJudge(options.cache(), options.threshold, options.slot_threshold, options.across())
    groups = [(str(task), answers.tolist()) for task, answers in needs.groupby("task", sort=False)["answer"]]
    rows_of = [[row_of[a] for a in dict.fromkeys(values)] for _, values in groups]
    judge.prefetch([list(dict.fromkeys(values)) for _, values in groups], [vectors[r] for r in rows_of])
    mapping: dict[tuple[str, str], str] = {}
    for (task, values), rows in zip(groups, rows_of, strict=True):
        for m in semantic_clusters(values, vectors[rows], judge):
            mapping[(task, m.answer)] = m.representative
    out = normalized.to_numpy(dtype=object, na_value=None).copy()
    tasks = task_ids.astype(str).to_numpy()
    for i in np.flatnonzero(normalized.notna().to_numpy()):
        out[i] = mapping.get((tasks[i], out[i]), out[i])
    keys = pd.Series(pd.array(out, dtype="string"), index=normalized.index)
    crowded = [
        task for (task, _), rows in zip(groups, rows_of, strict=True) if len(rows) > MAX_CLUSTERED_ANSWERS
    ]
    if crowded:
        keys.attrs["notes"] = [_crowded_note(crowded)]
    return keys


def _crowded_note(tasks: list[str]) -> str:
    shown = ", ".join(tasks[:5]) + (f" and {len(tasks) - 5} more" if len(tasks) > 5 else "")
    return (
        f"{len(tasks)} task{'s' if len(tasks) != 1 else ''} ({shown}) had more than "
        f"{MAX_CLUSTERED_ANSWERS:,} distinct answers: kept under the normalized key (each distinct "
        "answer its own cluster), since the semantic key clusters at most that many per task"
    )


def _embed(texts: list[str], options: SemanticOptions) -> np.ndarray:
    """The texts' vectors in batches, so progress can be told while a first pass runs."""
    cache = options.cache()
    parts = []
    for start in range(0, len(texts), _EMBED_BATCH):
        parts.append(cache.vectors([embedding_text(t) for t in texts[start : start + _EMBED_BATCH]]))
        if options.progress is not None:
            options.progress(min(start + _EMBED_BATCH, len(texts)), len(texts))
    return np.vstack(parts)


@lru_cache(maxsize=65536)
def _word_list(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text))


@lru_cache(maxsize=65536)
def _word_set(text: str) -> frozenset[str]:
    return frozenset(_word_list(text))


@lru_cache(maxsize=65536)
def _cjk(text: str) -> bool:
    """Mostly Chinese or Japanese characters (among the answer's letters)."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum("\u3040" <= c <= "\u9fff" for c in letters) * 2 > len(letters)


def _contained(a: str, b: str) -> bool:
    """Every word of the shorter answer is in the longer, it has a word that says something, and the
    longer adds no reason of its own ("Turkey is in the EU" / "... because it's in Europe" makes a
    second claim, which the embedding, not containment, must judge)."""
    wa, wb = _word_set(a), _word_set(b)
    short, long_ = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    shorter, longer = (a, b) if len(wa) <= len(wb) else (b, a)
    if (long_ - short) & _REASONS or (_ZH_REASON.search(longer) and not _ZH_REASON.search(shorter)):
        return False
    return bool(short - _WEAK_WORDS) and short <= long_
