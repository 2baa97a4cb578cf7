"""The semantic key against hostile input: its embeddings cache, long answers, crowded tasks and a
ragged embeddings endpoint. Each test fails on the key as it was before these bounds (an inflated
bomb, a crash on a vector of another shape, a planted file used, a quadratic pattern, a quadratic
clustering, a traceback); `adversarial_semantic_cases` runs the same inputs in the adversarial pass.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hostile_endpoint import HostileEndpoint, Received, Reply

from analyzer.metrics.semantic import SemanticUnavailable
from analyzer.metrics.semantic import key as semantic_key
from analyzer.metrics.semantic.embed import EmbeddingCache
from analyzer.metrics.semantic.key import PairJudge, SemanticOptions, semantic_keys
from analyzer.routes.profile import build_profile
from analyzer.runner.embeddings import RouteEmbedder

LONG = 80_000
"""Characters of each hostile answer: no sentence end, the size the fourth pass timed."""
HANG_S = 20.0
"""A hang, not a timing: the old rules took minutes on these inputs, the bounded ones under a second."""


class Fixed:
    """An embedder with vectors drawn from each text's hash (deterministic), of a chosen width."""

    def __init__(self, dimension: int = 8, name: str = "fixed") -> None:
        self.dimension = dimension
        self.name = name
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        seeds = [int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "big") for t in texts]
        return np.stack([np.random.default_rng(s).standard_normal(self.dimension) for s in seeds])


def digest(text: str) -> np.ndarray:
    return np.frombuffer(hashlib.sha256(text.encode()).digest(), dtype=np.uint8)


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def plant(folder: Path, name: str, entries: dict[str, bytes], compress: int = zipfile.ZIP_STORED) -> Path:
    """A cache file as another program might have left it (mode 0600 unless changed after)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / name
    with zipfile.ZipFile(path, "w", compression=compress) as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    path.chmod(0o600)
    return path


def bomb_entries(rows: int) -> dict[str, bytes]:
    """`rows` zero vectors of 512 floats, keyed by one real text ("Paris") and zeros."""
    keys = np.zeros((rows, 32), dtype=np.uint8)
    keys[0] = digest("Paris")
    return {"keys.npy": npy(keys), "vectors.npy": npy(np.zeros((rows, 512), dtype=np.float32))}


def lying_header() -> dict[str, bytes]:
    """A stored entry whose header states a billion rows of 512 floats (2 TB) over 64 bytes of data."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**9, 512)}
    )
    keys = np.zeros((1, 32), dtype=np.uint8)
    return {"keys.npy": npy(keys), "vectors.npy": header.getvalue() + bytes(64)}


def cache_in(folder: Path, embedder: Fixed) -> EmbeddingCache:
    return EmbeddingCache(embedder, folder=folder)


def within(seconds: float, work: Callable[[], Any]) -> tuple[bool, Any]:
    """(finished, result or the exception raised) of `work` run for at most `seconds` (a hang check)."""
    found: dict[str, Any] = {}

    def run() -> None:
        try:
            found["value"] = work()
        except Exception as exc:  # noqa: BLE001 - returned for the test to judge
            found["value"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    return not worker.is_alive(), found.get("value")


def long_answers() -> tuple[str, str]:
    """Two 80,000-character answers in Chinese characters with no sentence end and none of the words
    (`吗`, `和`) the question and "two things" rules look for: each pattern is tried from every
    character and never matches."""
    rng = np.random.default_rng(7)
    plain = [chr(c) for c in range(0x4E00, 0x9FA5) if chr(c) not in "吗和与跟"]
    text = "".join(plain[i] for i in rng.integers(0, len(plain), LONG))
    return text, text[::-1]


def crowded_task(n: int) -> tuple[pd.Series, pd.Series]:
    """One task with `n` distinct answers (each a different order number)."""
    answers = pd.Series([f"your order {i} ships on march {i % 28 + 1}" for i in range(n)], dtype="string")
    return pd.Series(["t1"] * n), answers


def ragged(got: Received) -> Reply:
    """An embeddings endpoint whose rows have different lengths."""
    texts = json.loads(got.body)["input"]
    data = [{"object": "embedding", "index": i, "embedding": [0.5] * (3 + i)} for i, _ in enumerate(texts)]
    body = {"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 1, "total_tokens": 1}}
    return Reply(200, {"content-type": "application/json"}, json.dumps(body).encode())


def ragged_embedder(base_url: str) -> RouteEmbedder:
    return RouteEmbedder(build_profile(overrides={"base_url": base_url, "max_retries": 0}, env={}))


# --- the embeddings cache --------------------------------------------------------------------


def test_a_deflated_bomb_in_the_cache_is_not_inflated(tmp_path: Path) -> None:
    import tracemalloc

    embedder = Fixed(512, "bomb")
    folder = tmp_path / "bomb"
    plant(folder, "a.npz", bomb_entries(32768), zipfile.ZIP_DEFLATED)  # 64 MiB of vectors in ~70 KiB
    assert (folder / "a.npz").stat().st_size < 2**20
    tracemalloc.start()
    try:
        vectors = cache_in(tmp_path, embedder).vectors(["Paris"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MiB taken reading a 70 KiB cache file"
    assert embedder.calls == 1 and np.isclose(np.linalg.norm(vectors[0]), 1.0)  # embedded, not the zeros


def test_a_header_stating_more_than_its_entry_holds_is_skipped(tmp_path: Path) -> None:
    embedder = Fixed(8, "liar")
    plant(tmp_path / "liar", "a.npz", lying_header())
    vectors = cache_in(tmp_path, embedder).vectors(["Paris"])
    assert vectors.shape == (1, 8)


@pytest.mark.parametrize(
    "vectors",
    [np.ones((1, 3), dtype=np.float32), np.ones((1, 8), dtype=np.float64), np.ones((1, 2, 4), "f4")],
)
def test_planted_vectors_of_another_shape_or_type_are_embedded_again(
    tmp_path: Path, vectors: np.ndarray
) -> None:
    embedder = Fixed(8, "shape")
    plant(
        tmp_path / "shape", "a.npz", {"keys.npy": npy(digest("Paris")[None, :]), "vectors.npy": npy(vectors)}
    )
    out = cache_in(tmp_path, embedder).vectors(["Paris", "Lyon"])
    assert out.shape == (2, 8) and out.dtype == np.float32
    assert embedder.calls >= 1 and not np.allclose(out[0], out[0][0])  # Paris embedded, not the planted ones


def planted_good(tmp_path: Path, name: str) -> Path:
    """A well-formed cache file whose vector for "Paris" is all ones (what the planter wants used)."""
    return plant(
        tmp_path / name,
        "a.npz",
        {"keys.npy": npy(digest("Paris")[None, :]), "vectors.npy": npy(np.ones((1, 8), dtype=np.float32))},
    )


@pytest.mark.parametrize("how", ["world-writable file", "group-writable folder", "another owner", "symlink"])
def test_a_file_planted_by_another_user_is_ignored(tmp_path: Path, how: str) -> None:
    name = how.replace(" ", "-")
    path = planted_good(tmp_path, name)
    if how == "world-writable file":
        path.chmod(0o666)
    elif how == "group-writable folder":
        path.parent.chmod(0o770)
    elif how == "another owner":
        os.chown(path, 65534, 65534)  # the tests run as root here; nobody's file
    else:
        target = tmp_path / "elsewhere.npz"
        path.rename(target)
        path.symlink_to(target)
    embedder = Fixed(8, name)
    out = cache_in(tmp_path, embedder).vectors(["Paris"])
    assert embedder.calls == 1 and not np.allclose(out[0], out[0][0])


def test_the_cache_folder_is_created_private(tmp_path: Path) -> None:
    cache_in(tmp_path, Fixed(8, "new")).vectors(["Paris"])
    folder = tmp_path / "new"
    assert folder.stat().st_mode & 0o777 == 0o700
    again = Fixed(8, "new")
    cache_in(tmp_path, again).vectors(["Paris"])
    assert again.calls == 0  # its own file is read back


# --- long answers and crowded tasks ----------------------------------------------------------------


def test_two_long_answers_without_a_sentence_end_do_not_hang_the_rules() -> None:
    a, b = long_answers()
    judge = PairJudge(EmbeddingCache(Fixed(8, "long"), persist=False), 0.65, 0.5, 0.45)
    done, value = within(HANG_S, lambda: judge.score(a, b, 0.99))
    assert done, f"the rules on two {LONG:,}-character answers still ran after {HANG_S:.0f} s"
    assert not isinstance(value, Exception), value


def test_a_task_with_ten_thousand_distinct_answers_finishes_and_says_it_was_not_clustered() -> None:
    tasks, answers = crowded_task(10_000)
    options = SemanticOptions(embedder=Fixed(8, "crowd"), persist=False)
    done, keys = within(60.0, lambda: semantic_keys(tasks, answers, options))
    assert done, "clustering 10,000 distinct answers of one task still ran after 60 s"
    assert isinstance(keys, pd.Series) and keys.nunique() == 10_000
    cap = getattr(semantic_key, "MAX_CLUSTERED_ANSWERS", None)
    assert any(f"more than {cap:,} distinct answers" in n for n in keys.attrs.get("notes", []))


# --- the route's embeddings ------------------------------------------------------------------------


def test_ragged_rows_from_an_embeddings_endpoint_are_one_line() -> None:
    with HostileEndpoint(ragged) as ep, pytest.raises(SemanticUnavailable) as err:
        ragged_embedder(ep.base_url).embed(["Paris", "Lyon", "Rome"])
    message = str(err.value)
    assert "\n" not in message and "different lengths" in message and "/embeddings" in message
