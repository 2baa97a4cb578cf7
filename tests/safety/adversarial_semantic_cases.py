"""The adversarial pass's cases for the semantic key (the fourth pass's embeddings cache, long
answers, crowded tasks and ragged endpoint), registered with `test_adversarial_pass.case`.

Imported by `test_adversarial_pass` once `case` is defined: under pytest that module is
`test_adversarial_pass`, run as a script it is `__main__`.
"""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from test_semantic_bounds import (
    HANG_S,
    Fixed,
    bomb_entries,
    cache_in,
    crowded_task,
    long_answers,
    lying_header,
    plant,
    planted_good,
    ragged,
    ragged_embedder,
    within,
)

from analyzer.metrics.semantic import SemanticUnavailable
from analyzer.metrics.semantic.embed import EmbeddingCache
from analyzer.metrics.semantic.key import PairJudge, SemanticOptions, semantic_keys

_pass = sys.modules.get("test_adversarial_pass") or sys.modules["__main__"]
case = _pass.case
HostileEndpoint = _pass.HostileEndpoint


@case("embeddings cache: a 70 KiB .npz inflating to 64 MiB, and a header stating 2 TB, are not read")
def _cache_bomb(tmp: Path) -> str | None:
    plant(tmp / "bomb", "a.npz", bomb_entries(32768), zipfile.ZIP_DEFLATED)
    plant(tmp / "bomb", "b.npz", lying_header())
    embedder = Fixed(512, "bomb")
    cache = cache_in(tmp, embedder)
    cache.vectors(["Paris"])
    return None if embedder.calls == 1 and len(cache._vectors) == 1 else "a bomb's vectors were taken"


@case("embeddings cache: vectors of another width or type are embedded again, not stacked")
def _cache_shape(tmp: Path) -> str | None:
    from test_semantic_bounds import digest, npy

    plant(
        tmp / "shape",
        "a.npz",
        {"keys.npy": npy(digest("Paris")[None, :]), "vectors.npy": npy(np.ones((1, 3), "f4"))},
    )
    out = cache_in(tmp, Fixed(8, "shape")).vectors(["Paris", "Lyon"])
    return None if out.shape == (2, 8) else f"vectors of shape {out.shape}"


@case("embeddings cache: a file another user planted (owner, mode, link) is ignored")
def _cache_planted(tmp: Path) -> str | None:
    path = planted_good(tmp, "planted")
    os.chown(path, 65534, 65534)
    embedder = Fixed(8, "planted")
    out = cache_in(tmp, embedder).vectors(["Paris"])
    return (
        None if embedder.calls == 1 and not np.allclose(out[0], out[0][0]) else "the planted vector was used"
    )


@case("semantic key: two 80,000-character answers with no sentence end")
def _long_answers(tmp: Path) -> str | None:
    a, b = long_answers()
    judge = PairJudge(EmbeddingCache(Fixed(8, "long"), persist=False), 0.65, 0.5, 0.45)
    done, value = within(HANG_S, lambda: judge.score(a, b, 0.99))
    return None if done and not isinstance(value, Exception) else f"still running after {HANG_S:.0f} s"


@case("semantic key: 10,000 distinct answers in one task finish and say they were not clustered")
def _crowded(tmp: Path) -> str | None:
    tasks, answers = crowded_task(10_000)
    options = SemanticOptions(embedder=Fixed(8, "crowd"), persist=False)
    done, keys = within(60.0, lambda: semantic_keys(tasks, answers, options))
    if not done or not isinstance(keys, pd.Series):
        return "still running after 60 s"
    return None if keys.attrs.get("notes") else "no note says the task was left under the normalized key"


@case("route embeddings: ragged rows are one line")
def _ragged(tmp: Path) -> str | None:
    with HostileEndpoint(ragged) as ep:
        try:
            ragged_embedder(ep.base_url).embed(["Paris", "Lyon"])
        except SemanticUnavailable as exc:
            return None if "\n" not in str(exc) else "a multi-line error"
    return "ragged rows accepted"


@case("judge key: a judge key variable the user's route does not name is refused, nothing sent")
def _judge_variable(tmp: Path) -> str | None:
    from fake_keys import FAKE_KEY
    from hostile_endpoint import completion

    sample = Path(__file__).resolve().parents[2] / "sample_runs" / "A_baseline.altk_runs.json"
    with _pass._env(GITHUB_TOKEN=FAKE_KEY), HostileEndpoint(lambda got: completion("yes: same")) as ep:
        argv = ["analyze", str(sample), "--key", "judge", "--yes", "--judge-base-url", ep.base_url]
        hole = _pass._one_line_error([*argv, "--judge-key-env", "GITHUB_TOKEN"], "GITHUB_TOKEN")
        return hole or (f"{len(ep.received)} requests reached the judge's host" if ep.received else None)
